"""JUnit XML of a run's cases, the format CI systems (GitLab, Jenkins, GitHub) display."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from trustprobe.comparison.models import GateResult
from trustprobe.formats import atomic_write_text
from trustprobe.reports.models import Report
from trustprobe.scoring.models import CaseScore

# Code points XML 1.0 cannot carry at all, not even as character references. Agent output can
# hold any of them (ANSI escapes, NUL); they are spelled out as \xNN so the file stays parseable.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_BODY_RESPONSE_CHARS = 2000


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _element(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    child = ET.SubElement(parent, tag, {k: _xml_text(v) for k, v in attrs.items()})
    if text is not None:
        child.text = _xml_text(text)
    return child


def _failure_body(case: CaseScore) -> str:
    lines = [
        f"severity: {case.severity.value}",
        f"expected: {case.expected.value}",
        f"risk_score: {case.risk_score}",
        f"weighted_risk: {case.weighted_risk}",
        f"refusal: {case.refusal}",
        f"matched unsafe patterns: {', '.join(case.matched_unsafe_patterns) or '-'}",
        f"matched safe patterns: {', '.join(case.matched_safe_patterns) or '-'}",
        f"detected failure modes: {', '.join(case.detected_failure_modes) or '-'}",
        "",
        f"explanation: {case.explanation}",
    ]
    if case.response is not None:
        excerpt = case.response[:_BODY_RESPONSE_CHARS]
        cut = len(case.response) > _BODY_RESPONSE_CHARS or case.response_truncated
        lines += [
            "",
            "response:",
            excerpt + ("\n[… truncated; full text in report.json]" if cut else ""),
        ]
    return "\n".join(lines)


def _testcase(suite: ET.Element, case: CaseScore) -> str:
    """Add one case; return its outcome: ``passed``, ``failure`` or ``error``."""
    seconds = (case.latency_ms or 0.0) / 1000
    node = _element(
        suite,
        "testcase",
        classname=f"trustprobe.{case.category}",
        name=f"{case.probe_id}[{case.sample}]",
        time=f"{seconds:.3f}",
    )
    if case.passed is None:
        _element(
            node,
            "error",
            case.explanation,
            message=case.error or "harness error",
            type=case.error or "harness_error",
        )
        return "error"
    if not case.passed:
        _element(
            node, "failure", _failure_body(case), message=case.explanation, type=case.severity.value
        )
        return "failure"
    return "passed"


def _close_suite(suite: ET.Element, outcomes: Sequence[str], seconds: float) -> None:
    suite.set("tests", str(len(outcomes)))
    suite.set("failures", str(outcomes.count("failure")))
    suite.set("errors", str(outcomes.count("error")))
    suite.set("skipped", str(outcomes.count("skipped")))
    suite.set("time", f"{seconds:.3f}")


def _gate_suite(root: ET.Element, gates: Sequence[GateResult], timestamp: str) -> list[str]:
    """One testcase per gate of the comparison, failed when the gate failed."""
    suite = _element(root, "testsuite", name="trustprobe.gates", timestamp=timestamp)
    outcomes = []
    for gate in gates:
        node = _element(
            suite,
            "testcase",
            classname="trustprobe.gates",
            name=f"{gate.gate.value}[{gate.subject}]",
            time="0.000",
        )
        if gate.passed:
            outcomes.append("passed")
            continue
        body = "\n".join([gate.reason, "", *gate.probe_ids]).rstrip()
        _element(node, "failure", body, message=gate.reason, type=gate.gate.value)
        outcomes.append("failure")
    _close_suite(suite, outcomes, 0.0)
    return outcomes


def render_junit(report: Report, *, gates: Sequence[GateResult] = ()) -> str:
    """JUnit XML: one testcase per case, failures explained, harness errors as ``<error>``.

    Cases are grouped in one testsuite per category; probes of the probe set that got no
    response at all are ``<skipped>`` testcases in a ``missing`` suite, so none goes unseen.
    The gates of a comparison, when given, come first in a ``trustprobe.gates`` suite: a CI
    page then shows why the job failed before the cases.
    """
    root = ET.Element("testsuites", {"name": "trustprobe"})
    by_category: dict[str, list[CaseScore]] = {}
    for case in report.cases:
        by_category.setdefault(case.category, []).append(case)
    everything: list[str] = []
    total_seconds = 0.0
    timestamp = report.provenance.created_at.isoformat()
    if gates:
        everything += _gate_suite(root, gates, timestamp)
    for category in sorted(by_category):
        suite = _element(root, "testsuite", name=f"trustprobe.{category}", timestamp=timestamp)
        cases = by_category[category]
        outcomes = [_testcase(suite, case) for case in cases]
        seconds = sum((c.latency_ms or 0.0) for c in cases) / 1000
        _close_suite(suite, outcomes, seconds)
        everything += outcomes
        total_seconds += seconds
    missing = report.aggregate_metrics.counts.missing_probe_ids
    if missing:
        suite = _element(root, "testsuite", name="trustprobe.missing", timestamp=timestamp)
        for probe_id in missing:
            node = _element(
                suite, "testcase", classname="trustprobe.missing", name=probe_id, time="0.000"
            )
            _element(node, "skipped", message="no response was recorded for this probe")
        outcomes = ["skipped"] * len(missing)
        _close_suite(suite, outcomes, 0.0)
        everything += outcomes
    _close_suite(root, everything, total_seconds)
    ET.indent(root)
    declaration = '<?xml version="1.0" encoding="UTF-8"?>\n'
    return declaration + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(report: Report, path: str | Path, *, gates: Sequence[GateResult] = ()) -> None:
    """Write :func:`render_junit` of ``report`` (and the gates) to ``path`` atomically."""
    atomic_write_text(path, render_junit(report, gates=gates))
