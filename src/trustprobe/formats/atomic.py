"""Write files so that a reader never sees a half-written one: temp file, fsync, rename."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from trustprobe.errors import InputError


def writable_target(path: str | Path) -> Path:
    """``path`` as a file that can be written: not a directory, its folder created.

    A symbolic link is followed to the file it names, as editors do: the file is replaced and
    the link stays a link (renamed onto, it would become a plain file).

    Raises:
        InputError: ``path`` is a directory, or its folder cannot be created.
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if target.is_dir():
        raise InputError("is a directory: name a file to write", path=target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror}", path=target) from exc
    return target


def _umask() -> int:
    """The process's umask, read without setting it (another thread may be creating a file)."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def output_mode(target: Path) -> int:
    """The permissions an output at ``target`` gets, as if it were written in place.

    Those of the file it replaces, else those ``open(target, "w")`` would give: ``0o666``
    less the umask.
    """
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def temporary_beside(target: Path, role: str = "") -> tuple[int, str]:
    """A new temporary file (descriptor, name) in ``target``'s folder, to be renamed onto it.

    It has the permissions :func:`output_mode` gives, not ``mkstemp``'s 0600, so the renamed
    output reads as a file written in place would.

    Raises:
        InputError: the folder cannot be written.
    """
    prefix = f".{target.name}.{role}." if role else f".{target.name}."
    try:
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror}", path=target) from exc
    try:
        os.fchmod(fd, output_mode(target))
    except BaseException:
        os.close(fd)
        Path(name).unlink(missing_ok=True)
        raise
    return fd, name


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; on any failure the old file stays intact.

    Raises:
        InputError: ``path`` is a directory, or its folder cannot be created or written.
    """
    target = writable_target(path)
    fd, tmp = temporary_beside(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace ``path`` with UTF-8 ``text`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))
