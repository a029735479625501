"""Human-readable renderings of a report: Markdown and a compact terminal summary."""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from trustprobe.formats import show_invisible
from trustprobe.metrics import ConfidenceInterval
from trustprobe.reports.models import Report
from trustprobe.reports.worst import worst_probes


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _with_ci(
    value: float | None, ci: ConfidenceInterval | None, shown: Callable[[float], str]
) -> str:
    if value is None:
        return "n/a"
    if ci is None:
        return shown(value)
    return f"{shown(value)} [{shown(ci.lower)}–{shown(ci.upper)}]"


def _rate(value: float | None, ci: ConfidenceInterval | None) -> str:
    return _with_ci(value, ci, _pct)


def _index(value: float | None, ci: ConfidenceInterval | None) -> str:
    return _with_ci(value, ci, _num)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|#!~])")
_HTML_SPECIAL = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _cell(text: str) -> str:
    """``text`` (from a probe file, a response, a warning) as literal Markdown on one line.

    Markdown syntax is escaped and HTML spelled as entities, so a probe id like
    ``[x](javascript:...)`` or ``<img onerror=...>`` renders as the text it is, a ``|`` cannot
    split a table cell, and invisible or direction-changing characters are shown as markers.
    """
    text = re.sub(r"[&<>]", lambda m: _HTML_SPECIAL[m.group()], text)
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return show_invisible(" ".join(text.splitlines()))


def target_line(report: Report) -> str:
    """What the report is about: the target, or where recorded responses came from."""
    if report.target is not None:
        return report.target.summary
    sources = ", ".join(report.provenance.sources.get("responses", [])) or "unknown files"
    return f"recorded responses ({sources}); the agent behind them is not named"


def gate_line(report: Report) -> str | None:
    """``PASS``, or ``FAIL:`` and the reasons of the failed checks; ``None`` without a gate."""
    gate = report.gate
    if gate is None:
        return None
    if gate.passed:
        return "PASS"
    return "FAIL: " + "; ".join(check.reason for check in gate.checks if not check.passed)


def _headline(report: Report) -> list[tuple[str, str]]:
    m = report.aggregate_metrics
    c, o, i = m.counts, m.overall, m.indices
    rows = [
        ("Cases scored", f"{c.scored_cases} of {c.cases} ({c.passed} passed, {c.failed} failed)"),
        ("Pass rate (95% CI)", _rate(o.pass_rate, o.pass_rate_ci)),
        ("Severity-weighted pass rate", _pct(o.severity_weighted_pass_rate)),
        (
            "Failure rate on high/critical probes (95% CI)",
            _rate(o.high_critical_fail_rate, o.high_critical_fail_rate_ci),
        ),
        (
            "Share of failures on high/critical probes (95% CI)",
            _rate(o.high_critical_share_of_failures, o.high_critical_share_of_failures_ci),
        ),
        ("Resilience index (95% CI)", _index(i.resilience_index, i.resilience_index_ci)),
        ("Exposure index (95% CI)", _index(i.exposure_index, i.exposure_index_ci)),
        ("Boundary-language rate", _pct(o.boundary_language_rate)),
        ("Harness errors", f"{c.harness_errors} ({_pct(o.harness_error_rate)})"),
        ("Missing probes", str(c.missing_probes)),
        ("Low-confidence verdicts (review first)", str(o.low_confidence_cases)),
    ]
    if o.judged_cases:
        rows.append(
            ("Judge agrees with the rules", f"{_pct(o.judge_agreement_rate)} of {o.judged_cases}")
        )
    comply = m.by_expected.get("comply")
    if comply is not None and comply.n:
        rows.insert(3, ("Benign requests helped", _rate(comply.pass_rate, comply.pass_rate_ci)))
    return rows


def _gate_lines(report: Report) -> list[str]:
    """``**Gate: passed**`` or ``failed``, then each check's reason; nothing without a gate."""
    if report.gate is None:
        return []
    verdict = "passed" if report.gate.passed else "failed"
    lines = [f"**Gate: {verdict}**", ""]
    for check in report.gate.checks:
        mark = "passed" if check.passed else "FAILED"
        lines.append(f"- {mark}: {check.reason}")
    return [*lines, ""]


def render_markdown(report: Report) -> str:
    """A Markdown summary for pull requests and CI logs."""
    m = report.aggregate_metrics
    p = report.provenance
    lines = [
        "# trustprobe report",
        "",
        f"**Target:** {_cell(target_line(report))}",
        "",
        f"Created {p.created_at.isoformat()} by trustprobe {p.tool_version}; "
        f"{p.probe_count} probes (`{p.probe_set_hash[:12]}`), rules `{p.rule_set_hash[:12]}`.",
        "",
        *_gate_lines(report),
        "| metric | value |",
        "| --- | --- |",
        *(f"| {name} | {value} |" for name, value in _headline(report)),
        "",
        "## By category",
        "",
        "| category | n | pass rate (95% CI) | mean risk | critical / high failures |",
        "| --- | ---: | --- | ---: | ---: |",
    ]
    for name, row in m.by_category.items():
        lines.append(
            f"| {_cell(name)} | {row.n} | {_rate(row.pass_rate, row.pass_rate_ci)} | "
            f"{_num(row.risk_mean)} | {row.critical_failures} / {row.high_failures} |"
        )
    lines += ["", "## By severity", "", "| severity | passed | failed | pass rate |"]
    lines.append("| --- | ---: | ---: | --- |")
    for name, sev in m.by_severity.items():
        lines.append(
            f"| {name} | {sev.passed} | {sev.failed} | {_rate(sev.pass_rate, sev.pass_rate_ci)} |"
        )
    if m.failure_mode_histogram:
        lines += ["", "## Failure modes", "", "| failure mode | cases |", "| --- | ---: |"]
        lines += [f"| {_cell(k)} | {v} |" for k, v in m.failure_mode_histogram.items()]
    worst = worst_probes(report)
    if worst:
        lines += ["", "## Worst cases", "", "One row per probe, by its worst sample.", ""]
        lines.append("| probe | samples | category | severity | weighted risk | why |")
        lines.append("| --- | --- | --- | --- | ---: | --- |")
        for entry in worst:
            w = entry.worst
            lines.append(
                f"| {_cell(w.probe_id)} | {entry.samples_text or '1 sample'} | {_cell(w.category)} "
                f"| {w.severity} | {w.weighted_risk:.2f} | {_cell(w.explanation)} |"
            )
    if m.flakiness is not None:
        f = m.flakiness.overall
        lines += [
            "",
            "## Flakiness across samples",
            "",
            f"{f.stable_pass} stable-pass, {f.flaky} flaky, {f.stable_fail} stable-fail "
            f"({_pct(f.flaky_rate)} flaky).",
        ]
    if m.counts.missing_probe_ids:
        shown = ", ".join(_cell(probe_id) for probe_id in m.counts.missing_probe_ids[:50])
        lines += ["", "## Missing probes", "", f"No response for: {shown}"]
    if m.notes or report.warnings:
        lines += ["", "## Notes", ""]
        lines += [f"- {_cell(n)}" for n in [*m.notes, *report.warnings]]
    return "\n".join(lines) + "\n"


def print_summary(report: Report, console: Console) -> None:
    """A compact terminal summary: headline figures and the riskiest categories."""
    m = report.aggregate_metrics
    table = Table(title="trustprobe summary", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    # Report text (a model name, a URL) is shown as text, never read as console markup.
    table.add_row("Target", Text(target_line(report)))
    gate = gate_line(report)
    if gate is not None:
        table.add_row("Gate", Text(gate))
    for name, value in _headline(report):
        table.add_row(name, value)
    console.print(table)
    if m.category_ranking:
        ranking = Table(title="Categories by mean risk", box=None, pad_edge=False)
        for column in ("category", "n", "pass rate", "mean risk"):
            ranking.add_column(column)
        for rank in m.category_ranking:
            row = m.by_category[rank.category]
            ranking.add_row(
                Text(show_invisible(rank.category)),  # probe text: no markup, no escapes
                str(rank.n),
                _rate(row.pass_rate, None),
                _num(rank.risk_mean),
            )
        console.print(ranking)
