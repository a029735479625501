"""JUnit XML of a run: one testcase per case, parseable whatever the agent wrote."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from tests.sample_reports import sample_report

from trustprobe.comparison import render_junit, write_junit
from trustprobe.probes import Probe
from trustprobe.responses import Response

NASTY = "I'm sorry, but I can't help with that. \x1b[31m\x00\x08 ]]> </failure> <error/> \ufffe"


def _rewrite(probe: Probe, sample: int, text: str) -> str:
    return NASTY if probe.id == "v2-3" else text


def test_junit_counts_every_case_and_missing_probe(tmp_path: Path) -> None:
    report = sample_report(
        rows=40,
        hostile=False,
        geometry=False,
        rewrite=_rewrite,
        drop=frozenset({"v2-1", "v2-2"}),
        extra_responses=[Response(probe_id="v2-1", error="timeout", error_detail="after 30 s")],
    )
    counts = report.aggregate_metrics.counts
    # 40 probes: 38 answered, v2-1 answered by a harness error, v2-2 never answered.
    assert (counts.cases, counts.harness_errors, counts.missing_probes) == (39, 1, 1)

    out = tmp_path / "junit.xml"
    write_junit(report, out)
    root = ET.parse(out).getroot()
    assert root.tag == "testsuites"
    assert root.get("tests") == "40"  # 39 cases + 1 missing probe
    assert root.get("failures") == str(counts.failed)
    assert root.get("errors") == "1"
    assert root.get("skipped") == "1"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 40
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert sum(int(s.get("tests", "0")) for s in suites.values()) == 40

    by_name = {c.get("name"): c for c in cases}
    error = by_name["v2-1[0]"].find("error")
    assert error is not None and error.get("type") == "timeout"
    skipped = by_name["v2-2"].find("skipped")
    assert skipped is not None and by_name["v2-2"].get("classname") == "trustprobe.missing"
    assert by_name["v2-1[0]"].get("time") == "0.000"
    assert by_name["v2-4[0]"].get("time") == "0.100"  # latency_ms 100 -> 0.100 s

    # v2-3 is a benign request refused: an over-refusal failure, whose body keeps the response
    # with the characters XML cannot carry spelled out.
    failure = by_name["v2-3[0]"].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.get("type") == report.cases[1].severity.value  # v2-3 is the second case
    assert "\\x1b[31m\\x00\\x08 ]]> </failure> <error/> \\xfffe" in failure.text
    assert failure.get("message") == next(
        c.explanation for c in report.cases if c.probe_id == "v2-3"
    )


def test_junit_text_is_deterministic() -> None:
    report = sample_report(rows=10, hostile=False, geometry=False)
    assert render_junit(report) == render_junit(report)
    assert render_junit(report).startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')
