"""Input paths as users give them: plain paths, quoted glob patterns, and ``-`` for stdin."""

from __future__ import annotations

import glob
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from trustprobe.errors import InputError

STDIO: Final = "-"
"""The path meaning standard input (for an input) or standard output (for an output)."""
STDIN_NAME: Final = "<stdin>"
"""How messages name standard input."""
GLOB_CHARS: Final = frozenset("*?[")
"""Characters that make a path a glob pattern (unless a file has that very name)."""


def expand_paths(patterns: Sequence[str | Path]) -> list[str]:
    """Each path as given, each glob pattern as its matches in sorted order.

    A pattern is expanded the same way whichever engine reads the files, so a quoted
    ``'shards/*.jsonl'`` means the same files in process and on a cluster. ``-`` and names
    without glob characters pass through; so does an existing file whose name has them.

    Raises:
        InputError: a pattern matches no file.
    """
    names: list[str] = []
    for pattern in patterns:
        text = str(pattern)
        if GLOB_CHARS.isdisjoint(text) or Path(text).exists():
            names.append(text)
            continue
        matches = sorted(glob.glob(text))
        if not matches:
            raise InputError("no file matches this pattern", path=text)
        names.extend(matches)
    return names


def is_stream(path: str | Path) -> bool:
    """Whether ``path`` names a pipe or a terminal, not a file (``/dev/stdin``, ``<(...)``).

    Such a path reads once, from the start, and only in this process.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def spooled(
    paths: Sequence[str], *, streams: bool = False
) -> Iterator[tuple[list[str], dict[str, str]]]:
    """The paths, with ``-`` (and with ``streams``, every pipe) copied to a temporary file.

    For readers that must look at an input more than once (its first bytes, then the whole),
    or keep it. Yields the paths to read and, for each copy, the name messages use: ``<stdin>``
    for ``-``, the path as given for a pipe. The copies are removed when the block ends.

    Raises:
        InputError: ``-`` is given twice.
    """
    if list(paths).count(STDIO) > 1:
        raise InputError("standard input ('-') can be read only once", path=STDIO)
    copied = [p for p in paths if p == STDIO or (streams and is_stream(p))]
    if not copied:
        yield list(paths), {}
        return
    with tempfile.TemporaryDirectory(prefix="trustprobe-stdin-") as folder:
        names: dict[str, str] = {}
        read: list[str] = []
        for index, path in enumerate(paths):
            if path not in copied:
                read.append(path)
                continue
            copy = str(Path(folder) / f"input-{index}")
            _copy_stream(path, copy)
            names[copy] = STDIN_NAME if path == STDIO else path
            read.append(copy)
        yield read, names


def _copy_stream(path: str, copy: str) -> None:
    with open(copy, "wb") as handle:
        if path == STDIO:
            shutil.copyfileobj(sys.stdin.buffer, handle, length=1 << 20)
            return
        try:
            with open(path, "rb") as source:
                shutil.copyfileobj(source, handle, length=1 << 20)
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror}", path=path) from exc
