"""Token bucket and retry decisions, with a fake clock and pinned numbers."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trustprobe.runner import RunnerSettings, TokenBucket, backoff_ceiling, decide_retry
from trustprobe.targets import InvalidTargetResponse, TargetConnectionError, TargetHTTPError


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_bucket_spaces_reservations_by_the_interval() -> None:
    clock = FakeClock()
    bucket = TokenBucket(10.0, clock=clock)
    # rate 10/s -> interval 0.1 s; five callers at the same instant wait 0, .1, .2, .3, .4
    assert [round(bucket.reserve(), 9) for _ in range(5)] == [0.0, 0.1, 0.2, 0.3, 0.4]


def test_bucket_burst_lets_the_first_requests_through() -> None:
    clock = FakeClock()
    bucket = TokenBucket(10.0, burst=3, clock=clock)
    # burst 3: three at once, then 0.1 s spacing
    assert [round(bucket.reserve(), 9) for _ in range(5)] == [0.0, 0.0, 0.0, 0.1, 0.2]


def test_bucket_does_not_bank_idle_time_beyond_the_burst() -> None:
    clock = FakeClock()
    bucket = TokenBucket(10.0, burst=2, clock=clock)
    bucket.reserve()
    clock.now += 60  # a minute idle earns no more than the burst
    assert [round(bucket.reserve(), 9) for _ in range(3)] == [0.0, 0.0, 0.1]


def test_bucket_acquire_sleeps_the_reserved_wait() -> None:
    clock = FakeClock()
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(round(seconds, 9))

    bucket = TokenBucket(4.0, clock=clock, sleep=sleep)

    async def go() -> None:
        for _ in range(3):
            await bucket.acquire()

    asyncio.run(go())
    assert slept == [0.25, 0.5]  # first is free; then 1/4 s and 2/4 s


SETTINGS = RunnerSettings(retries=3, backoff_base=0.5, backoff_max=3.0, max_retry_after=10)


def test_backoff_ceilings_double_and_cap() -> None:
    # 0.5·2^k: 0.5, 1, 2, 4 -> capped at 3
    assert [backoff_ceiling(k, SETTINGS) for k in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


@given(st.integers(min_value=0, max_value=2), st.integers(min_value=0, max_value=2**32))
def test_full_jitter_stays_under_the_ceiling(attempt: int, seed: int) -> None:
    decision = decide_retry(TargetConnectionError("x"), attempt, SETTINGS, random.Random(seed))
    assert decision.delay is not None
    assert 0.0 <= decision.delay <= backoff_ceiling(attempt, SETTINGS)


def test_jitter_is_seeded() -> None:
    def delays(seed: int) -> list[float | None]:
        rng = random.Random(seed)
        error = TargetHTTPError(503, "x")
        return [decide_retry(error, k, SETTINGS, rng).delay for k in range(3)]

    assert delays(7) == delays(7)
    assert delays(7) != delays(8)


@pytest.mark.parametrize(
    ("error", "attempt", "delay", "reason"),
    [
        (TargetHTTPError(429, "x", retry_after=4.0), 0, 4.0, None),
        (TargetHTTPError(429, "x", retry_after=0.0), 2, 0.0, None),
        (TargetHTTPError(429, "x", retry_after=11.0), 0, None, "exceeds max_retry_after"),
        (TargetHTTPError(503, "x"), 3, None, "gave up after 4 attempts"),
        (TargetHTTPError(400, "x"), 0, None, None),
        (InvalidTargetResponse("x"), 0, None, None),
    ],
    ids=["retry-after", "retry-after-zero", "retry-after-too-long", "exhausted", "4xx", "invalid"],
)
def test_retry_decisions(
    error: Exception, attempt: int, delay: float | None, reason: str | None
) -> None:
    decision = decide_retry(error, attempt, SETTINGS, random.Random(0))  # type: ignore[arg-type]
    assert decision.delay == delay
    if reason is None:
        assert decision.reason is None
    else:
        assert decision.reason is not None and reason in decision.reason
