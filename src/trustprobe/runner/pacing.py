"""Request pacing: a token bucket and exponential backoff with full jitter."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from trustprobe.runner.settings import RunnerSettings
from trustprobe.targets import HarnessError


class TokenBucket:
    """At most ``rate`` starts per second on average, with up to ``burst`` back to back.

    Implemented as reservations (the generic cell rate algorithm): each caller takes the next
    free slot and sleeps until it, so waiting callers are served in arrival order and a
    cancelled waiter simply leaves its slot unused.
    """

    def __init__(
        self,
        rate: float,
        *,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self._interval = 1.0 / rate
        self._tolerance = (burst - 1) * self._interval
        self._clock = clock
        self._sleep = sleep
        self._next = clock()  # theoretical arrival time of the next request

    def reserve(self) -> float:
        """Take the next slot; return how long to wait before using it."""
        now = self._clock()
        start = max(now, self._next - self._tolerance)
        self._next = max(self._next, now) + self._interval
        return start - now

    async def acquire(self) -> None:
        """Wait for a slot."""
        wait = self.reserve()
        if wait > 0:
            await self._sleep(wait)


@dataclass(frozen=True)
class RetryDecision:
    """Whether to try again, after how long, and why not when not."""

    delay: float | None
    """Seconds to wait before the next attempt; ``None`` means give up."""
    reason: str | None = None
    """Why no retry, when the error itself was retryable."""


def backoff_ceiling(attempt: int, settings: RunnerSettings) -> float:
    """Upper bound of the wait after failed attempt number ``attempt`` (0-based)."""
    return min(settings.backoff_max, settings.backoff_base * 2.0**attempt)


def decide_retry(
    error: HarnessError, attempt: int, settings: RunnerSettings, rng: random.Random
) -> RetryDecision:
    """Decide what follows failed attempt ``attempt`` (0-based).

    A ``Retry-After`` from the target is honoured as given; otherwise the wait is drawn
    uniformly from zero to the exponential ceiling ("full jitter"), which spreads retries of
    many concurrent cases instead of sending them back in a synchronised wave.
    """
    if not error.retryable:
        return RetryDecision(None)
    if attempt >= settings.retries:
        return RetryDecision(None, f"gave up after {attempt + 1} attempts")
    if error.retry_after is not None:
        if error.retry_after > settings.max_retry_after:
            return RetryDecision(
                None,
                f"Retry-After {error.retry_after:g} s exceeds max_retry_after "
                f"{settings.max_retry_after:g} s",
            )
        return RetryDecision(error.retry_after)
    return RetryDecision(rng.uniform(0.0, backoff_ceiling(attempt, settings)))
