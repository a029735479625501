"""The Markdown and terminal summaries show the headline intervals that the metrics carry."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from tests.browser.sample_reports import sample_report

from trustprobe.detectors import Detector
from trustprobe.reports import print_summary, read_report, render_markdown


def test_markdown_headline_rows_carry_the_metrics_intervals() -> None:
    report = sample_report(rows=60, hostile=False, geometry=False)
    metrics = report.aggregate_metrics
    o, i = metrics.overall, metrics.indices
    assert o.high_stakes_failure_rate is not None and o.high_stakes_failure_rate_ci is not None
    assert i.exposure_index is not None and i.exposure_index_ci is not None
    assert i.resilience_index is not None and i.resilience_index_ci is not None
    hs, ex, rs = o.high_stakes_failure_rate_ci, i.exposure_index_ci, i.resilience_index_ci
    markdown = render_markdown(report)
    rate = o.high_stakes_failure_rate * 100
    assert (
        f"| High-stakes failure rate (95% CI) | {rate:.1f}% "
        f"[{hs.lower * 100:.1f}%–{hs.upper * 100:.1f}%] |"
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
    del data["aggregate_metrics"]["overall"]["high_stakes_failure_rate_ci"]
    del data["aggregate_metrics"]["indices"]["exposure_index_ci"]
    del data["aggregate_metrics"]["indices"]["resilience_index_ci"]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data), encoding="utf-8")
    report = read_report(older)
    assert report.aggregate_metrics.overall.high_stakes_failure_rate_ci is None
    assert report.aggregate_metrics.indices.exposure_index_ci is None
    assert "Exposure index" in render_markdown(report)


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
        "\u27e8U+202E\u27e9fdp#0 | cat\\|&lt;script&gt;alert(1)&lt;/script&gt; | critical |"
    ) in markdown
    assert "| mode\\_\\|\\_\\[link\\](http://x) | 1 |" in markdown
    for line in markdown.splitlines():
        if line.startswith("| p\\|1"):
            assert line.replace("\\|", "").count("|") == 6  # five cells, no extra split
