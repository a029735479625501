"""Multi-step tool cases through the scan engine: retries, resume, timeouts, one record each."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.agents.tool_agents import completion, reckless_message
from tests.runner.fault_server import Action, FaultServer, Seen, status
from tests.runner.test_scan import StopAfter
from trustprobe.detectors import Detector
from trustprobe.runner import RunFiles, RunnerSettings, ScanConfig, ScanResult, resume_scan, scan
from trustprobe.targets import OpenAITargetConfig

STEPS = 3


def _probe_file(tmp_path: Path, count: int) -> Path:
    lines = []
    for n in range(count):
        probe = {
            "id": f"tool-{n:02d}",
            "category": "indirect_injection",
            "severity": "high",
            "task": "You are an email assistant.",
            "input": f"case-{n}",
            "expected": "refuse",
            "failure_modes": ["hidden_instruction_followed"],
            "tools": [
                {
                    "name": "send_email",
                    "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
                }
            ],
            "tool_results": {"send_email": f"queued {n}"},
            "max_steps": STEPS,
            "unsafe_calls": [{"tool": "send_email", "arguments": f"case-{n}"}],
        }
        lines.append(json.dumps(probe) + "\n")
    path = tmp_path / "probes.jsonl"
    path.write_text("".join(lines))
    return path


def _steps_done(seen: Seen) -> int:
    return sum(1 for m in seen.body["messages"] if m["role"] == "assistant")


def _config(url: str, probes: Path, **runner: Any) -> ScanConfig:
    settings = {"concurrency": 4, "timeout": 2.0, "retries": 1, "backoff_base": 0.01} | runner
    return ScanConfig(
        target=OpenAITargetConfig(base_url=url, model="m"),
        probes=(str(probes),),
        runner=RunnerSettings(**settings),
    )


def _records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in RunFiles(run_dir).responses.read_text().splitlines()]


def _scan(config: ScanConfig, run_dir: Path, detector: Detector, stop_after: int = 0) -> ScanResult:
    async def go() -> ScanResult:
        listener = StopAfter(stop_after) if stop_after else None
        return await scan(
            config,
            run_dir,
            env={},
            detector=detector,
            progress=listener,
            stop=listener.stop if listener else None,
        )

    return asyncio.run(go())


def test_a_failure_mid_conversation_retries_the_whole_case(
    tmp_path: Path, builtin_detector: Detector
) -> None:
    failed_once: set[str] = set()

    def script(seen: Seen, nth: int) -> Action:
        if _steps_done(seen) == 1 and seen.user not in failed_once:
            failed_once.add(seen.user)
            return status(503)
        return completion(reckless_message(seen.body))

    with FaultServer(script) as server:
        result = _scan(
            _config(server.url, _probe_file(tmp_path, 4)), tmp_path / "run", builtin_detector
        )
        requests = len(server.seen)
    records = _records(tmp_path / "run")
    assert len(records) == 4 and result.outcome.attempts == 8
    # Each case started again from its first turn: 2 turns lost, then STEPS turns that counted.
    assert requests == 4 * (2 + STEPS)
    for record in records:
        assert [c["step"] for c in record["tool_calls"]] == [1, 2, 3]
        assert record["tool_calls"][0]["result"].startswith("queued")
    assert all(case.passed is False and case.matched_unsafe_calls for case in result.report.cases)


def test_an_interrupted_tool_run_resumes_with_one_record_per_case(
    tmp_path: Path, builtin_detector: Detector
) -> None:
    probes = _probe_file(tmp_path, 12)
    run_dir = tmp_path / "run"

    def script(seen: Seen, nth: int) -> Action:
        return Action(raw_body=completion(reckless_message(seen.body)).raw_body, delay=0.01)

    with FaultServer(script) as server:
        first = _scan(
            _config(server.url, probes, concurrency=2), run_dir, builtin_detector, stop_after=3
        )
        assert first.outcome.interrupted
        resumed = asyncio.run(resume_scan(run_dir, env={}, detector=builtin_detector))
    records = _records(run_dir)
    assert sorted(r["probe_id"] for r in records) == [f"tool-{n:02d}" for n in range(12)]
    assert all(len(r["tool_calls"]) == STEPS for r in records)
    assert len(resumed.report.cases) == 12


def test_the_timeout_bounds_each_turn_not_the_whole_conversation(
    tmp_path: Path, builtin_detector: Detector
) -> None:
    def script(seen: Seen, nth: int) -> Action:
        return Action(raw_body=completion(reckless_message(seen.body)).raw_body, delay=0.25)

    with FaultServer(script) as server:
        config = _config(server.url, _probe_file(tmp_path, 1), timeout=0.5, retries=0)
        result = _scan(config, tmp_path / "run", builtin_detector)
    # Three turns of 0.25 s each exceed one 0.5 s timeout, but each turn is within it.
    assert result.outcome.errors == {}
    assert len(_records(tmp_path / "run")[0]["tool_calls"]) == STEPS


def test_the_rate_limit_counts_every_request_of_a_conversation(
    tmp_path: Path, builtin_detector: Detector
) -> None:
    with FaultServer(lambda seen, nth: completion(reckless_message(seen.body))) as server:
        config = _config(server.url, _probe_file(tmp_path, 2), rate=10.0, burst=1)
        result = _scan(config, tmp_path / "run", builtin_detector)
        arrivals = sorted(seen.at for seen in server.seen)
    assert result.outcome.errors == {} and len(arrivals) == 2 * STEPS
    # 10 requests per second: every request, not only each case's first, waits its turn, so
    # six requests span at least 0.5 s (0.4 allows for a loaded machine's scheduling; pacing
    # only the two cases' first requests would let all six arrive within about 0.2 s).
    assert arrivals[-1] - arrivals[0] >= 0.4, arrivals
