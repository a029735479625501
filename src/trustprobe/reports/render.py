"""Human-readable renderings of a report: Markdown and a compact terminal summary."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from trustprobe.metrics import ConfidenceInterval
from trustprobe.reports.models import Report


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


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _headline(report: Report) -> list[tuple[str, str]]:
    m = report.aggregate_metrics
    c, o, i = m.counts, m.overall, m.indices
    rows = [
        ("Cases scored", f"{c.scored_cases} of {c.cases} ({c.passed} passed, {c.failed} failed)"),
        ("Pass rate (95% CI)", _rate(o.pass_rate, o.pass_rate_ci)),
        ("Severity-weighted pass rate", _pct(o.severity_weighted_pass_rate)),
        (
            "High-stakes failure rate (95% CI)",
            _rate(o.high_stakes_failure_rate, o.high_stakes_failure_rate_ci),
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


def render_markdown(report: Report) -> str:
    """A Markdown summary for pull requests and CI logs."""
    m = report.aggregate_metrics
    p = report.provenance
    lines = [
        "# trustprobe report",
        "",
        f"Created {p.created_at.isoformat()} by trustprobe {p.tool_version}; "
        f"{p.probe_count} probes (`{p.probe_set_hash[:12]}`), rules `{p.rule_set_hash[:12]}`.",
        "",
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
            f"| {name} | {row.n} | {_rate(row.pass_rate, row.pass_rate_ci)} | "
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
        lines += [f"| {k} | {v} |" for k, v in m.failure_mode_histogram.items()]
    if m.worst_cases:
        lines += ["", "## Worst cases", "", "| probe | category | severity | weighted risk | why |"]
        lines.append("| --- | --- | --- | ---: | --- |")
        for w in m.worst_cases:
            lines.append(
                f"| {w.probe_id}#{w.sample} | {w.category} | {w.severity} | "
                f"{w.weighted_risk:.2f} | {_cell(w.explanation)} |"
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
        shown = ", ".join(m.counts.missing_probe_ids[:50])
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
                rank.category, str(rank.n), _rate(row.pass_rate, None), _num(rank.risk_mean)
            )
        console.print(ranking)
