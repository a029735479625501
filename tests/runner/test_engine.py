"""The runner against a real loopback server that misbehaves on cue."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.runner.fault_server import Action, FaultServer, Seen, drop, malformed, ok, slow, status
from tests.runner.probe_factory import make_probes
from trustprobe.probes import Probe
from trustprobe.responses import Response
from trustprobe.runner import (
    Case,
    ResponseJournal,
    RunnerSettings,
    RunOutcome,
    plan_cases,
    read_journal,
    run_cases,
)
from trustprobe.targets import OpenAITargetConfig, Target, TargetReply, create_target

FAST = {"timeout": 0.5, "retries": 2, "backoff_base": 0.01, "backoff_max": 0.05}


def _run(
    server: FaultServer,
    probes: list[Probe],
    journal_path: Path,
    *,
    samples: int = 1,
    stop_after: int | None = None,
    **settings: Any,
) -> RunOutcome:
    async def go() -> RunOutcome:
        target = create_target(OpenAITargetConfig(base_url=f"{server.url}/v1", model="m"), env={})
        stop = asyncio.Event()

        class StopAfter:
            def __init__(self) -> None:
                self.count = 0

            def start(self, total: int) -> None:
                pass

            def advance(self, response: Response) -> None:
                self.count += 1
                if stop_after is not None and self.count >= stop_after:
                    stop.set()

            def finish(self) -> None:
                pass

        try:
            with ResponseJournal(journal_path) as journal:
                return await run_cases(
                    target,
                    plan_cases(probes, samples),
                    RunnerSettings(**{**FAST, **settings}),
                    journal,
                    progress=StopAfter(),
                    stop=stop,
                )
        finally:
            await target.aclose()

    return asyncio.run(go())


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


SCRIPT: dict[str, list[Action]] = {
    # per case: the action for the 1st, 2nd, 3rd... request (the last one repeats)
    "case-0": [ok("fine")],
    "case-1": [status(429, retry_after="0"), ok("after 429")],
    "case-2": [status(500)],
    "case-3": [slow(2.0)],
    "case-4": [malformed()],
    "case-5": [drop()],
    "case-6": [drop(), ok("after drop")],
    "case-7": [status(503), status(502), ok("third time lucky")],
    "case-8": [status(404)],
    # A 2xx body cut short (a proxy dropping the end) is transient like a 5xx: retried.
    "case-9": [malformed(), ok("after a truncated body")],
    # Well-formed JSON of the wrong shape will not change on a retry: recorded at once.
    "case-10": [Action(raw_body=b'{"nothing": "here"}')],
}


def _scripted(seen: Seen, nth: int) -> Action:
    actions = SCRIPT[seen.user]
    return actions[min(nth, len(actions) - 1)]


def test_every_case_ends_in_exactly_one_classified_record(tmp_path: Path) -> None:
    probes = make_probes(len(SCRIPT))
    journal = tmp_path / "responses.jsonl"
    with FaultServer(_scripted) as server:
        # 1 s, half of case-3's 2 s delay: a loaded machine sometimes took over FAST's 0.5 s to
        # serve an answer, which was then retried and counted once more.
        outcome = _run(server, probes, journal, concurrency=4, timeout=1.0)
        counts = {user: server.count(user) for user in SCRIPT}
    records = {r["probe_id"]: r for r in _records(journal)}
    assert len(_records(journal)) == len(records) == len(SCRIPT)
    by_input = {f"case-{n}": records[f"p-{n:03d}"] for n in range(len(SCRIPT))}
    assert {k: (r.get("response"), r.get("error")) for k, r in by_input.items()} == {
        "case-0": ("fine", None),
        "case-1": ("after 429", None),
        "case-2": (None, "http_500"),
        "case-3": (None, "timeout"),
        "case-4": (None, "invalid_response"),
        "case-5": (None, "connection"),
        "case-6": ("after drop", None),
        "case-7": ("third time lucky", None),
        "case-8": (None, "http_404"),
        "case-9": ("after a truncated body", None),
        "case-10": (None, "invalid_response"),
    }
    # retries=2 means at most 3 requests; only retryable failures are retried.
    assert counts == {
        "case-0": 1,
        "case-1": 2,
        "case-2": 3,
        "case-3": 3,
        "case-4": 3,
        "case-5": 3,
        "case-6": 2,
        "case-7": 3,
        "case-8": 1,
        "case-9": 2,
        "case-10": 1,
    }
    assert "gave up after 3 attempts" in by_input["case-2"]["error_detail"]
    assert "not JSON" in by_input["case-4"]["error_detail"]
    assert "gave up after 3 attempts" in by_input["case-4"]["error_detail"]
    assert "gave up" not in by_input["case-10"]["error_detail"]
    assert by_input["case-0"]["input_tokens"] == 7 and by_input["case-0"]["output_tokens"] == 3
    assert by_input["case-0"]["latency_ms"] > 0
    # 1+2+3+3+3+3+2+3+1+2+1 = 24 requests
    assert (outcome.planned, outcome.finished, outcome.responses, outcome.attempts) == (
        11,
        11,
        5,
        24,
    )
    assert outcome.errors == {
        "connection": 1,
        "http_404": 1,
        "http_500": 1,
        "invalid_response": 2,
        "timeout": 1,
    }


def test_retries_zero_sends_each_case_once(tmp_path: Path) -> None:
    probes = make_probes(3)
    with FaultServer(lambda seen, nth: status(503)) as server:
        # No timeout is under test: a loaded machine may take over FAST's 0.5 s to serve a 503.
        outcome = _run(server, probes, tmp_path / "r.jsonl", retries=0, timeout=5)
        assert len(server.seen) == 3
    assert outcome.errors == {"http_503": 3}


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    probes = make_probes(1)
    script = {"case-0": [status(429, retry_after="1"), ok()]}
    with FaultServer(lambda seen, nth: script[seen.user][min(nth, 1)]) as server:
        _run(server, probes, tmp_path / "r.jsonl", timeout=5)
        first, second = server.arrivals("case-0")
    # backoff alone would wait at most backoff_base = 0.01 s; Retry-After asked for 1 s.
    assert second - first >= 1.0


def test_retry_after_beyond_the_limit_is_not_waited_for(tmp_path: Path) -> None:
    probes = make_probes(1)
    with FaultServer(lambda seen, nth: status(429, retry_after="3600")) as server:
        _run(server, probes, tmp_path / "r.jsonl", max_retry_after=60)
        assert server.count("case-0") == 1
    (record,) = _records(tmp_path / "r.jsonl")
    assert record["error"] == "http_429"
    assert "exceeds max_retry_after" in record["error_detail"]


def test_concurrency_bounds_requests_in_flight(tmp_path: Path) -> None:
    with FaultServer(lambda seen, nth: ok(delay=0.05)) as server:
        _run(server, make_probes(24), tmp_path / "r.jsonl", concurrency=4)
        assert server.max_in_flight == 4


def test_rate_spaces_request_starts(tmp_path: Path) -> None:
    with FaultServer(lambda seen, nth: ok()) as server:
        _run(server, make_probes(6), tmp_path / "r.jsonl", concurrency=6, rate=20.0)
        starts = sorted(s.at for s in server.seen)
    # 6 starts at 20/s with burst 1: the last is at least 5 × 50 ms after the first.
    assert starts[-1] - starts[0] >= 0.25 - 0.01


def test_samples_repeat_each_probe(tmp_path: Path) -> None:
    with FaultServer(lambda seen, nth: ok()) as server:
        _run(server, make_probes(2), tmp_path / "r.jsonl", samples=3)
        assert server.count("case-0") == server.count("case-1") == 3
    keys = Counter((r["probe_id"], r.get("sample", 0)) for r in _records(tmp_path / "r.jsonl"))
    assert keys == {(f"p-00{n}", s): 1 for n in range(2) for s in range(3)}


def test_stop_cancels_in_flight_cases_and_keeps_finished_ones(tmp_path: Path) -> None:
    journal = tmp_path / "r.jsonl"
    with FaultServer(lambda seen, nth: ok(delay=0.02)) as server:
        outcome = _run(server, make_probes(200), journal, concurrency=5, stop_after=10)
    records = _records(journal)
    assert outcome.interrupted
    assert outcome.finished == len(records) >= 10
    assert outcome.finished < 200
    assert len({r["probe_id"] for r in records}) == len(records)


def test_resume_plans_only_missing_cases(tmp_path: Path) -> None:
    journal = tmp_path / "r.jsonl"
    probes = make_probes(30)
    with FaultServer(lambda seen, nth: ok(delay=0.01)) as server:
        first = _run(server, probes, journal, concurrency=3, stop_after=7)
        done = read_journal(journal).keys
        second_cases = plan_cases(probes, 1, done=done)
        assert len(second_cases) == 30 - first.finished
        second = _run(server, [c.probe for c in second_cases], journal, concurrency=3)
        total_requests = len(server.seen)
    records = _records(journal)
    assert first.finished + second.finished == len(records) == 30
    assert len({r["probe_id"] for r in records}) == 30
    # Cancelled in-flight cases (at most concurrency=3) are the only ones sent twice.
    assert 30 <= total_requests <= 33


class _BuggyTarget:
    """An adapter with a bug: the runner must still record the case, not crash."""

    async def send(self, probe: Probe, *, sample: int, pace: object = None) -> TargetReply:
        raise KeyError("oops")

    async def aclose(self) -> None:
        pass


def test_unexpected_exception_becomes_target_error_record(tmp_path: Path) -> None:
    target: Target = _BuggyTarget()
    journal_path = tmp_path / "r.jsonl"

    async def go() -> RunOutcome:
        with ResponseJournal(journal_path) as journal:
            cases = [Case(p, 0) for p in make_probes(2)]
            return await run_cases(target, cases, RunnerSettings(**FAST), journal)

    outcome = asyncio.run(go())
    assert outcome.errors == {"target_error": 2}
    assert {r["error_detail"] for r in _records(journal_path)} == {"KeyError: 'oops'"}


@pytest.mark.parametrize("samples", [1, 3])
def test_plan_cases_order_and_exclusion(samples: int) -> None:
    probes = make_probes(2)
    planned = plan_cases(probes, samples, done={("p-000", 0)})
    expected = [(p.id, s) for p in probes for s in range(samples) if (p.id, s) != ("p-000", 0)]
    assert [c.key for c in planned] == expected
