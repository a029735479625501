"""The run comparison as Markdown, for a pull-request comment or a CI job summary."""

from __future__ import annotations

from pathlib import Path

from trustprobe.comparison.models import Comparison, RunSummary, ScopeComparison
from trustprobe.formats import atomic_write_text

_SHOWN_CHANGES = 50


def _cell(text: str) -> str:
    """Report text in a table cell: a pipe or a line break would end the cell early."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _points(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


def _p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def _detectable(scope: ScopeComparison) -> str:
    detectable = scope.min_detectable_change
    if detectable is None:
        return "n/a"
    if detectable.min_flips is None or detectable.min_drop is None:
        return "none at this size"
    return f"{detectable.min_flips} probes ({detectable.min_drop * 100:.1f} pp)"


def _scope_row(scope: ScopeComparison) -> str:
    paired = scope.paired
    return (
        f"| {_cell(scope.scope)} | {_rate(scope.base.pass_rate)} | {_rate(scope.new.pass_rate)} "
        f"| {_points(scope.difference)} | {paired.pairs} | {paired.regressed} | {paired.fixed} "
        f"| {_p(scope.p_value_adjusted)} | {_detectable(scope)} "
        f"| {scope.verdict.value.replace('_', ' ')} |"
    )


def _target(run: RunSummary) -> str:
    return "recorded responses" if run.target is None else run.target.summary


def render_comparison_markdown(comparison: Comparison) -> str:
    """Verdict and gates first, then the scope table and the newly failing probes."""
    overall = comparison.overall
    verdict = "**Regression** (exit 1)" if comparison.regression else "**No regression** (exit 0)"
    lines = [
        "# trustprobe comparison",
        "",
        f"`{_cell(comparison.base.label)}` → `{_cell(comparison.new.label)}`: {verdict}",
        "",
        f"Targets: {_cell(_target(comparison.base))} → {_cell(_target(comparison.new))}",
        "",
        "| gate | subject | result | why |",
        "| --- | --- | --- | --- |",
    ]
    lines += [
        f"| {g.gate.value} | {_cell(g.subject)} | {'pass' if g.passed else '**FAIL**'} "
        f"| {_cell(g.reason)} |"
        for g in comparison.gates
    ]
    lines += [f"\n> **Warning** {_cell(w)}" for w in comparison.warnings]
    lines += [
        "",
        "## Pass rate, base → new",
        "",
        "| scope | base | new | change | paired | newly failing | newly passing | p (adj.) "
        "| smallest detectable | verdict |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        _scope_row(overall),
        *(_scope_row(scope) for scope in comparison.categories),
        "",
        "Smallest detectable: the fewest newly failing probes (none newly passing) the exact "
        "McNemar test flags at this many paired probes; category p-values are Holm-adjusted.",
    ]
    if comparison.newly_failing:
        lines += [
            "",
            f"## Newly failing probes ({len(comparison.newly_failing)})",
            "",
            "| probe | category | severity | base passed | new passed | why |",
            "| --- | --- | --- | ---: | ---: | --- |",
        ]
        lines += [
            f"| `{_cell(c.probe_id)}` | {_cell(c.category)} | {c.severity.value} "
            f"| {c.base_passed}/{c.base_scored} | {c.new_passed}/{c.new_scored} "
            f"| {_cell(c.explanation)} |"
            for c in comparison.newly_failing[:_SHOWN_CHANGES]
        ]
        hidden = len(comparison.newly_failing) - _SHOWN_CHANGES
        if hidden > 0:
            lines.append(f"\n… and {hidden} more in the JSON and HTML outputs.")
    if comparison.newly_passing:
        lines += ["", f"Newly passing probes: {len(comparison.newly_passing)}."]
    if comparison.unpaired:
        lines += ["", f"Probes not paired: {len(comparison.unpaired)} (listed in the JSON)."]
    return "\n".join(lines) + "\n"


def write_comparison_markdown(comparison: Comparison, path: str | Path) -> None:
    """Write :func:`render_comparison_markdown` of ``comparison`` to ``path`` atomically."""
    atomic_write_text(path, render_comparison_markdown(comparison))
