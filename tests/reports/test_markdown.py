"""The Markdown and terminal summaries show the headline intervals that the metrics carry."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.sample_reports import sample_report

from trustprobe.detectors import Detector
from trustprobe.reports import (
    ReportTarget,
    print_summary,
    read_report,
    redact_url,
    render_markdown,
    run_gate,
)


def test_markdown_headline_rows_carry_the_metrics_intervals() -> None:
    report = sample_report(rows=60, hostile=False, geometry=False)
    metrics = report.aggregate_metrics
    o, i = metrics.overall, metrics.indices
    share, share_ci = o.high_critical_share_of_failures, o.high_critical_share_of_failures_ci
    assert share is not None and share_ci is not None
    assert o.high_critical_fail_rate is not None and o.high_critical_fail_rate_ci is not None
    assert i.exposure_index is not None and i.exposure_index_ci is not None
    assert i.resilience_index is not None and i.resilience_index_ci is not None
    fr, ex, rs = o.high_critical_fail_rate_ci, i.exposure_index_ci, i.resilience_index_ci
    markdown = render_markdown(report)
    assert "High-stakes" not in markdown
    assert (
        f"| Share of failures on high/critical probes (95% CI) | {share * 100:.1f}% "
        f"[{share_ci.lower * 100:.1f}%–{share_ci.upper * 100:.1f}%] |"
    ) in markdown
    assert (
        f"| Failure rate on high/critical probes (95% CI) | {o.high_critical_fail_rate * 100:.1f}% "
        f"[{fr.lower * 100:.1f}%–{fr.upper * 100:.1f}%] |"
    ) in markdown
    assert (
        f"| Exposure index (95% CI) | {i.exposure_index:.3f} [{ex.lower:.3f}–{ex.upper:.3f}] |"
    ) in markdown
    assert (
        f"| Resilience index (95% CI) | {i.resilience_index:.3f} [{rs.lower:.3f}–{rs.upper:.3f}] |"
    ) in markdown
    console = Console(file=io.StringIO(), width=200, color_system=None)
    print_summary(report, console)
    terminal = console.file.getvalue()  # type: ignore[attr-defined]
    assert f"{i.exposure_index:.3f} [{ex.lower:.3f}–{ex.upper:.3f}]" in terminal


def test_undefined_intervals_show_the_figure_alone() -> None:
    report = sample_report(rows=1, hostile=False, geometry=False)
    i = report.aggregate_metrics.indices
    assert i.exposure_index is not None and i.exposure_index_ci is None
    assert f"| Exposure index (95% CI) | {i.exposure_index:.3f} |" in render_markdown(report)


def test_reports_written_before_the_intervals_existed_still_load(tmp_path: Path) -> None:
    data = json.loads(sample_report(rows=60, hostile=False, geometry=False).model_dump_json())
    del data["aggregate_metrics"]["overall"]["high_critical_share_of_failures_ci"]
    del data["aggregate_metrics"]["indices"]["exposure_index_ci"]
    del data["aggregate_metrics"]["indices"]["resilience_index_ci"]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data), encoding="utf-8")
    report = read_report(older)
    assert report.aggregate_metrics.overall.high_critical_share_of_failures_ci is None
    assert report.aggregate_metrics.indices.exposure_index_ci is None
    assert "Exposure index" in render_markdown(report)


def test_reports_with_the_high_stakes_key_still_load(tmp_path: Path) -> None:
    report = sample_report(rows=60, hostile=False, geometry=False)
    data = json.loads(report.model_dump_json())
    overall = data["aggregate_metrics"]["overall"]
    overall["high_stakes_failure_rate"] = overall.pop("high_critical_share_of_failures")
    overall["high_stakes_failure_rate_ci"] = overall.pop("high_critical_share_of_failures_ci")
    del overall["high_critical_fail_rate"], overall["high_critical_fail_rate_ci"]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data), encoding="utf-8")
    read = read_report(older).aggregate_metrics.overall
    expected = report.aggregate_metrics.overall
    assert read.high_critical_share_of_failures == expected.high_critical_share_of_failures
    assert read.high_critical_share_of_failures_ci == expected.high_critical_share_of_failures_ci
    assert read.high_critical_fail_rate is None
    assert "Failure rate on high/critical probes (95% CI) | n/a" in render_markdown(
        read_report(older)
    )


def _failing_everywhere(probe: Any, sample: int, text: str) -> str:
    return "Sure, here is exactly how to do it, step by step." if probe.id == "v2-26" else text


def test_worst_cases_hold_one_row_per_probe() -> None:
    report = sample_report(rows=60, samples=3, hostile=False, rewrite=_failing_everywhere)
    markdown = render_markdown(report)
    section = markdown.split("## Worst cases")[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| v2-")]
    probes = [row.split(" | ")[0].removeprefix("| ") for row in rows]
    assert len(probes) == len(set(probes)) == 10  # ten probes, none repeated
    assert "| v2-26 | 3 of 3 samples failed; worst: sample 0 |" in section


def test_worst_cases_of_older_reports_are_grouped_too(tmp_path: Path) -> None:
    # Reports of earlier versions listed every sample: the renderer folds them per probe.
    report = sample_report(rows=60, samples=3, hostile=False, rewrite=_failing_everywhere)
    data = json.loads(report.model_dump_json())
    top = data["aggregate_metrics"]["worst_cases"][0]
    assert top["probe_id"] == "v2-26"
    older_rows = []
    for sample in range(3):
        row = dict(top, sample=sample)
        del row["scored_samples"], row["failed_samples"]
        older_rows.append(row)
    data["aggregate_metrics"]["worst_cases"] = older_rows
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data), encoding="utf-8")
    section = render_markdown(read_report(older)).split("## Worst cases")[1]
    assert section.count("| v2-26 |") == 1
    assert "3 of 3 samples failed" in section


def test_recorded_responses_say_so_and_show_no_gate() -> None:
    report = sample_report(rows=20, hostile=False, geometry=False)
    assert report.target is None
    markdown = render_markdown(report)
    assert markdown.splitlines()[2] == (
        "**Target:** recorded responses ((built in tests)); the agent behind them is not named"
    )
    assert "**Gate" not in markdown


def test_target_and_gate_lead_the_markdown_and_the_terminal_summary() -> None:
    base = sample_report(rows=20, hostile=False, geometry=False)
    gate = run_gate(base.aggregate_metrics, fail_under=0.999)
    assert gate is not None and not gate.passed
    reason = gate.checks[0].reason
    target = ReportTarget(
        kind="openai", model="[bold]m[/bold]", base_url="https://u:p@api.example/v1"
    )
    report = base.model_copy(update={"target": target, "gate": gate})
    lines = render_markdown(report).splitlines()
    # Markdown escapes the brackets; the terminal shows them as text, not as rich markup.
    assert lines[2] == "**Target:** openai · model \\[bold\\]m\\[/bold\\] · https://api.example/v1"
    assert lines[6:9] == ["**Gate: failed**", "", f"- FAILED: {reason}"]
    console = Console(file=io.StringIO(), width=200, color_system=None)
    print_summary(report, console)
    terminal = console.file.getvalue()  # type: ignore[attr-defined]
    assert "openai · model [bold]m[/bold] · https://api.example/v1" in terminal
    assert f"FAIL: {reason}" in " ".join(terminal.split())


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pw@host:8443/v1", "https://host:8443/v1"),
        (
            "http://127.0.0.1:8000/v1?api-version=1&key=abc&sig=x#frag",
            "http://127.0.0.1:8000/v1?api-version=1",
        ),
        ("https://[::1]:9000/v1?access_token=t", "https://[::1]:9000/v1"),
        ("not a url", "not a url"),
    ],
)
def test_urls_lose_their_credentials(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert ReportTarget(kind="http", base_url=url).base_url == shown


def test_probe_file_strings_are_escaped_in_markdown(builtin_detector: Detector) -> None:
    """Ids and categories come from probe files: they render as text, one table cell each."""
    from trustprobe.probes import Probe
    from trustprobe.reports import build_report
    from trustprobe.responses import Response

    hostile_id = "p|1 <img src=x onerror=alert(1)> [x](javascript:alert(1)) **b** \u202efdp"
    probe = Probe(
        id=hostile_id,
        category="cat|<script>alert(1)</script>",
        severity="critical",
        task="t",
        input="i",
        expected="refuse",
        failure_modes=["mode_|_[link](http://x)"],
        signals={"unsafe": ["CANARY"]},
    )
    report = build_report(
        [probe],
        [Response(probe_id=hostile_id, response="CANARY")],
        detector=builtin_detector,
        min_cases=10**9,
    )
    markdown = render_markdown(report)
    assert "<img" not in markdown and "<script>" not in markdown
    assert "](javascript:" not in markdown.replace("\\](javascript:", "")
    assert "\u202e" not in markdown
    assert (
        "| p\\|1 &lt;img src=x onerror=alert(1)&gt; \\[x\\](javascript:alert(1)) \\*\\*b\\*\\* "
        "\u27e8U+202E\u27e9fdp | 1 sample "
        "| cat\\|&lt;script&gt;alert(1)&lt;/script&gt; | critical |"
    ) in markdown
    assert "| mode\\_\\|\\_\\[link\\](http://x) | 1 |" in markdown
    for line in markdown.splitlines():
        if line.startswith("| p\\|1"):
            assert line.replace("\\|", "").count("|") == 7  # six cells, no extra split
