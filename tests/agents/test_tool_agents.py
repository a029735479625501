"""Tool-calling scenarios of the built-in catalog against loopback agents, through a real scan.

A reckless agent (every tool, every step, attacker-controlled arguments) must fail nearly all
``refuse`` scenarios; an agent that never acts must pass them and fail every scenario whose
help is an action (``required_calls``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.tool_agents import decline, reckless
from tests.runner.fault_server import Action, FaultServer, Seen
from trustprobe.detectors import Detector
from trustprobe.probes import Expected, builtin_probes
from trustprobe.reports import Report
from trustprobe.runner import RunFiles, RunnerSettings, ScanConfig, scan
from trustprobe.targets import OpenAITargetConfig

TOOL_PROBES = [p for p in builtin_probes() if p.uses_tools]
REFUSE = {p.id for p in TOOL_PROBES if p.expected is Expected.REFUSE}
REQUIRED = {p.id for p in TOOL_PROBES if p.required_calls}
SETTINGS = RunnerSettings(concurrency=16, timeout=5.0, retries=0)


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector.builtin()


def _run(tmp_path: Path, agent: Callable[[Seen, int], Action], detector: Detector) -> Report:
    probes = tmp_path / "tool-probes.jsonl"
    probes.write_text("".join(p.model_dump_json(exclude_defaults=True) + "\n" for p in TOOL_PROBES))
    with FaultServer(agent) as server:
        config = ScanConfig(
            target=OpenAITargetConfig(base_url=server.url, model="agent"),
            probes=(str(probes),),
            runner=SETTINGS,
        )
        result = asyncio.run(scan(config, tmp_path / "run", env={}, detector=detector))
    assert result.outcome.errors == {}
    return result.report


def _passed(report: Report) -> dict[str, bool]:
    verdicts = {case.probe_id: case.passed for case in report.cases}
    assert set(verdicts) == {p.id for p in TOOL_PROBES}
    assert all(v is not None for v in verdicts.values())
    return {k: bool(v) for k, v in verdicts.items()}


def test_the_catalog_has_enough_tool_scenarios_to_measure() -> None:
    assert len(TOOL_PROBES) >= 80
    assert len(REFUSE) >= 60 and len(REQUIRED) >= 10


def test_a_reckless_agent_fails_nearly_every_refuse_scenario(
    tmp_path: Path, detector: Detector
) -> None:
    report = _run(tmp_path, reckless, detector)
    passed = _passed(report)
    failed = sorted(i for i in REFUSE if not passed[i])
    assert len(failed) / len(REFUSE) >= 0.9, sorted(REFUSE - set(failed))
    # The verdicts were read from the calls: unsafe calls are named, and every call is recorded.
    by_id = {case.probe_id: case for case in report.cases}
    with_calls = [i for i in failed if by_id[i].matched_unsafe_calls]
    assert len(with_calls) >= 0.7 * len(failed)
    example = by_id[with_calls[0]]
    assert example.tool_calls and example.explanation.startswith("FAIL: the agent called ")
    records = [
        json.loads(line) for line in RunFiles(tmp_path / "run").responses.read_text().splitlines()
    ]
    assert len(records) == len(TOOL_PROBES)  # one record per case, however many steps
    steps = {call["step"] for record in records for call in record["tool_calls"]}
    assert steps == set(range(1, 6))  # it never stopped calling: the loop ended at max_steps


def test_an_agent_that_never_acts_passes_refusals_and_fails_required_actions(
    tmp_path: Path, detector: Detector
) -> None:
    report = _run(tmp_path, decline, detector)
    passed = _passed(report)
    refuse_passed = [i for i in REFUSE if passed[i]]
    assert len(refuse_passed) / len(REFUSE) >= 0.9, sorted(REFUSE - set(refuse_passed))
    assert not any(passed[i] for i in REQUIRED)
    by_id = {case.probe_id: case for case in report.cases}
    assert all(by_id[i].missing_required_calls for i in REQUIRED)
    assert all(by_id[i].tool_calls == [] for i in by_id)
