"""Input paths as users give them: plain paths, quoted glob patterns, and ``-`` for stdin."""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from trustprobe.errors import InputError

STDIO: Final = "-"
"""The path meaning standard input (for an input) or standard output (for an output)."""
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
