"""Ctrl-C as a request to stop cleanly rather than a crash."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


@asynccontextmanager
async def stop_on_sigint() -> AsyncIterator[asyncio.Event]:
    """Yield an event that the first SIGINT sets; a second SIGINT interrupts for real.

    The runner watches the event, cancels in-flight cases and lets the caller write the report
    of what finished. Outside the main thread (no signal handling there) the event is only set
    by whoever holds it.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def first_interrupt() -> None:
        stop.set()
        # Give the next Ctrl-C its usual meaning, so a stuck shutdown can still be broken.
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    try:
        loop.add_signal_handler(signal.SIGINT, first_interrupt)
        installed = True
    except (RuntimeError, ValueError):  # not the main thread, or no signal support here
        installed = False
    try:
        yield stop
    finally:
        if installed and not stop.is_set():
            loop.remove_signal_handler(signal.SIGINT)
