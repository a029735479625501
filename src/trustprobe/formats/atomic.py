"""Write files so that a reader never sees a half-written one: temp file, fsync, rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from trustprobe.errors import InputError


def writable_target(path: str | Path) -> Path:
    """``path`` as a file that can be written: not a directory, its folder created.

    Raises:
        InputError: ``path`` is a directory, or its folder cannot be created.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError("is a directory: name a file to write", path=target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror}", path=target) from exc
    return target


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; on any failure the old file stays intact.

    Raises:
        InputError: ``path`` is a directory, or its folder cannot be created or written.
    """
    target = writable_target(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror}", path=target) from exc
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
