"""Ctrl-C and SIGTERM as a request to stop cleanly rather than a crash."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import FrameType
from typing import Any

from trustprobe.errors import ExitCode

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Signals that stop a scan: Ctrl-C, and what service managers and ``kill`` send."""
_AGAIN = (
    b"\ninterrupted again: stopped at once, without a report; every finished case is in "
    b"responses.jsonl (continue with: trustprobe scan --resume RUN_DIR)\n"
)


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    """Second signal: leave now, whatever runs, with no traceback.

    A plain signal handler runs between two bytecodes even in CPU-bound code (building a large
    report), where a loop callback would wait. ``os._exit`` skips clean-up that could itself be
    interrupted: records are flushed as each case finishes, reports are only ever renamed into
    place whole, and the kernel releases the run directory's lock.
    """
    os.write(2, _AGAIN)
    os._exit(ExitCode.INTERRUPTED)


@asynccontextmanager
async def stop_on_signals() -> AsyncIterator[asyncio.Event]:
    """Yield an event that the first SIGINT or SIGTERM sets; a second one exits at once.

    The runner watches the event, cancels in-flight cases and lets the caller write the report
    of what finished. Outside the main thread (no signal handling there) the event is only set
    by whoever holds it. The previous handlers are back when the block ends without a signal.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    previous: dict[int, Callable[[int, FrameType | None], Any] | int | None] = {
        number: signal.getsignal(number) for number in STOP_SIGNALS
    }

    def first_signal() -> None:
        stop.set()
        for number in STOP_SIGNALS:
            loop.remove_signal_handler(number)
            signal.signal(number, _exit_at_once)

    try:
        for number in STOP_SIGNALS:
            loop.add_signal_handler(number, first_signal)
        installed = True
    except (RuntimeError, ValueError, NotImplementedError):  # not the main thread, or no support
        installed = False
    try:
        yield stop
    finally:
        # Once stopping, a further signal keeps meaning "at once" until the process ends.
        if installed and not stop.is_set():
            for number in STOP_SIGNALS:
                loop.remove_signal_handler(number)
                signal.signal(number, previous[number] or signal.SIG_DFL)
