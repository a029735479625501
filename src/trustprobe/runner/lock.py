"""One writer per run directory: an advisory lock that the kernel drops when the process ends.

Two scans, or a scan and a ``--resume``, writing into one directory would record cases twice.
``flock`` on ``RUN_DIR/.lock`` makes the second one fail at once; nothing needs cleaning up after
a crash, since a dead process holds no lock.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from trustprobe.errors import InputError

LOCK_FILE = ".lock"
"""The lock's file in the run directory; it holds the process id of the last writer."""


def _busy(run_dir: Path, handle: IO[str]) -> InputError:
    handle.seek(0)
    holder = handle.read().strip() or "unknown"
    return InputError(
        f"another trustprobe process (pid {holder}) is writing this run directory; "
        "wait for it to end (or stop it), then continue with --resume",
        path=run_dir,
    )


@contextmanager
def lock_run_dir(run_dir: Path) -> Iterator[None]:
    """Hold ``run_dir``'s lock for the block (the directory must exist).

    Raises:
        InputError: another process holds it (exit code 2), naming that process.
    """
    with (run_dir / LOCK_FILE).open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(run_dir, handle) from None
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        yield  # closing the file releases the lock


def refuse_if_locked(run_dir: Path) -> None:
    """Fail now if another process writes ``run_dir``; creates nothing when nobody does.

    Raises:
        InputError: another process holds the lock.
    """
    path = run_dir / LOCK_FILE
    if path.exists():
        with lock_run_dir(run_dir):
            pass
