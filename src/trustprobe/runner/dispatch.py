"""The scan engine: every (probe, sample) case ends in exactly one journal record."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from trustprobe.formats import replace_lone_surrogates
from trustprobe.probes import Probe
from trustprobe.responses import Response
from trustprobe.runner.journal import ResponseJournal
from trustprobe.runner.pacing import TokenBucket, decide_retry
from trustprobe.runner.settings import RunnerSettings
from trustprobe.targets import HarnessError, Target, TargetFailed, TargetReply, TargetTimeout
from trustprobe.targets.protocol import Pace

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Case:
    """One request to make: a probe and its repeat index."""

    probe: Probe
    sample: int

    @property
    def key(self) -> tuple[str, int]:
        """Identity shared with :attr:`Response.key`."""
        return (self.probe.id, self.sample)


def plan_cases(
    probes: Iterable[Probe],
    samples: int,
    *,
    done: Container[tuple[str, int]] = frozenset(),
) -> list[Case]:
    """List the cases of every probe × sample not already in ``done``, probe by probe."""
    return [
        Case(probe, sample)
        for probe in probes
        for sample in range(samples)
        if (probe.id, sample) not in done
    ]


class ProgressListener(Protocol):
    """Told about the run as it goes (a progress bar, log lines, a test recorder)."""

    def start(self, total: int) -> None:
        """Prepare for a run of ``total`` cases."""

    def advance(self, response: Response) -> None:
        """Count one finished case and its record."""

    def finish(self) -> None:
        """Close up: the run stopped (done or interrupted)."""


@dataclass(frozen=True)
class RunOutcome:
    """What one call of :func:`run_cases` did."""

    planned: int
    """Cases it was asked to run."""
    finished: int
    """Cases that got their record."""
    responses: int
    """Records with an answer."""
    errors: dict[str, int] = field(default_factory=dict)
    """Records with a harness error, by error class."""
    attempts: int = 0
    """Requests sent, retries included."""
    interrupted: bool = False
    """Whether ``stop`` ended the run before every case finished."""
    repaired: tuple[tuple[str, int], ...] = ()
    """Cases whose answer held lone UTF-16 surrogates, replaced with U+FFFD."""


@dataclass
class _Tally:
    finished: int = 0
    responses: int = 0
    attempts: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    repaired: list[tuple[str, int]] = field(default_factory=list)

    def count(self, record: Response) -> None:
        """Count a finished case by its record: an answer or a harness error."""
        self.finished += 1
        if record.error is None:
            self.responses += 1
        else:
            self.errors[record.error] += 1

    def outcome(self, planned: int, *, interrupted: bool) -> RunOutcome:
        """What the run of ``planned`` cases did, as counted."""
        return RunOutcome(
            planned=planned,
            finished=self.finished,
            responses=self.responses,
            errors=dict(sorted(self.errors.items())),
            attempts=self.attempts,
            interrupted=interrupted,
            repaired=tuple(self.repaired),
        )


async def run_cases(
    target: Target,
    cases: Sequence[Case],
    settings: RunnerSettings,
    journal: ResponseJournal,
    *,
    progress: ProgressListener | None = None,
    stop: asyncio.Event | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> RunOutcome:
    """Send every case to ``target`` and journal exactly one record per finished case.

    Up to ``settings.concurrency`` cases are in flight; each attempt is paced by the token
    bucket and bounded by ``settings.timeout``; retryable failures are retried with backoff.
    When ``stop`` is set, in-flight cases are cancelled and get no record (a resumed run sends
    them again); every case that finished before that is already on disk.
    """
    rng = random.Random(settings.seed)
    bucket = TokenBucket(settings.rate, burst=settings.burst) if settings.rate else None
    tally = _Tally()
    pending = iter(cases)
    pace = bucket.acquire if bucket is not None else None  # each further turn of a tool case

    async def answer(case: Case) -> Response:
        attempt = 0
        while True:
            if bucket is not None:
                await bucket.acquire()
            tally.attempts += 1
            outcome = await _attempt(target, case, settings.timeout, pace)
            if not isinstance(outcome, HarnessError):
                reply, latency_ms = outcome
                return _answered(case, reply, latency_ms, tally)
            decision = decide_retry(outcome, attempt, settings, rng)
            if decision.delay is None:
                return _failed(case, outcome, decision.reason)
            logger.debug(
                "probe %s sample %d: %s (%s); retrying in %.2f s",
                case.probe.id, case.sample, outcome.error_class, outcome.detail, decision.delay,
            )  # fmt: skip
            attempt += 1
            await sleep(decision.delay)

    async def worker() -> None:
        # Workers share one iterator: with a single event loop, next() is never contended.
        for case in pending:
            record = await answer(case)
            journal.append(record)
            tally.count(record)
            if progress is not None:
                progress.advance(record)

    logger.info(
        "sending %d cases, %d in flight at most, timeout %g s, %d retries",
        len(cases), settings.concurrency, settings.timeout, settings.retries,
    )  # fmt: skip
    if progress is not None:
        progress.start(len(cases))
    workers = [asyncio.create_task(worker()) for _ in range(min(settings.concurrency, len(cases)))]
    try:
        interrupted = await _until_done_or_stopped(workers, stop)
    finally:
        if progress is not None:
            progress.finish()
    return tally.outcome(len(cases), interrupted=interrupted)


async def _attempt(
    target: Target, case: Case, timeout: float, pace: Pace | None
) -> tuple[TargetReply, float] | HarnessError:
    """One attempt at ``case``: the reply and its latency in ms, or the failure that ended it."""
    started = time.perf_counter()
    # Each model turn gets the timeout: a tool-calling case may take max_steps.
    steps = case.probe.max_steps if case.probe.uses_tools else 1
    try:
        async with asyncio.timeout(timeout * steps):
            reply = await target.send(case.probe, sample=case.sample, pace=pace)
    except TimeoutError:
        return TargetTimeout(f"no answer within {timeout * steps:g} s")
    except HarnessError as exc:
        return exc
    except Exception as exc:
        # A bug in an adapter or agent still ends the case in a record, never a crash.
        return TargetFailed(f"{type(exc).__name__}: {exc}")
    return reply, round((time.perf_counter() - started) * 1000.0, 3)


def _answered(case: Case, reply: TargetReply, latency_ms: float, tally: _Tally) -> Response:
    """The record of an answered case; one whose words were repaired is counted."""
    if reply.repaired:  # the tool loop replaced what could not be journalled
        tally.repaired.append(case.key)
    return Response(
        probe_id=case.probe.id,
        sample=case.sample,
        response=reply.text,
        latency_ms=latency_ms,
        input_tokens=reply.input_tokens,
        output_tokens=reply.output_tokens,
        tool_calls=None if reply.tool_calls is None else list(reply.tool_calls),
    )


def _failed(case: Case, error: HarnessError, reason: str | None) -> Response:
    """The record of a case that ended in a harness error (``reason``: why it was not retried)."""
    detail = error.detail if reason is None else f"{error.detail} ({reason})"
    return Response(
        probe_id=case.probe.id,
        sample=case.sample,
        error=error.error_class,
        error_detail=replace_lone_surrogates(detail)[0],
    )


async def _until_done_or_stopped(
    workers: Sequence[asyncio.Task[None]], stop: asyncio.Event | None
) -> bool:
    """Wait for every worker, or for ``stop``; cancel what is left. True when stopped first.

    Raises:
        Exception: a worker's failure (the journal's disk full...), once the others are cancelled.
    """
    everything: asyncio.Future[list[None]] | None = None
    try:
        if not workers:
            return False
        everything = asyncio.gather(*workers)
        waiters: set[asyncio.Future[Any]] = {everything}
        stop_waiter = asyncio.ensure_future(stop.wait()) if stop is not None else None
        if stop_waiter is not None:
            waiters.add(stop_waiter)
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if stop_waiter is not None:
                stop_waiter.cancel()
        if not everything.done():
            return True
        everything.result()  # re-raise a journal failure (disk full...) if any
        return False
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        if everything is not None and everything.done() and not everything.cancelled():
            # Cancelled workers leave the gathering future holding their CancelledError: read it
            # here, or asyncio logs "exception was never retrieved" with a traceback.
            everything.exception()
