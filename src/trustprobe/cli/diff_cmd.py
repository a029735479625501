"""``trustprobe diff``: did the agent get worse? Compare two reports and gate CI on it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.control import strip_control_codes
from rich.table import Table
from rich.text import Text

from trustprobe.cli.console import console, err_console
from trustprobe.comparison import (
    Comparison,
    DiffThresholds,
    ScopeComparison,
    Verdict,
    compare_reports,
    write_comparison_html,
    write_junit,
)
from trustprobe.errors import ExitCode
from trustprobe.formats import atomic_write_text
from trustprobe.reports import read_report_pair

_SHOWN_CHANGES = 20
_VERDICT_STYLE = {
    Verdict.REGRESSION: "bold red",
    Verdict.IMPROVEMENT: "green",
    Verdict.UNCHANGED: "dim",
    Verdict.NOT_COMPARABLE: "yellow",
}


def _open_unit(value: float) -> float:
    if not 0 < value < 1:
        raise typer.BadParameter("must be strictly between 0 and 1")
    return value


def _plain(text: str) -> Text:
    """Report text (probe ids, categories) as inert terminal text: no markup, no escapes."""
    return Text(strip_control_codes(text))


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _points(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f} pp"


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def _scope_row(table: Table, scope: ScopeComparison) -> None:
    paired = scope.paired
    table.add_row(
        _plain(scope.scope),
        f"{_rate(scope.base.pass_rate)} ({scope.base.scored_cases})",
        f"{_rate(scope.new.pass_rate)} ({scope.new.scored_cases})",
        _points(scope.difference),
        str(paired.pairs),
        str(paired.regressed),
        str(paired.fixed),
        _p(paired.p_value),
        _p(scope.p_value_adjusted),
        Text(scope.verdict.value.replace("_", " "), style=_VERDICT_STYLE[scope.verdict]),
    )


def print_comparison(comparison: Comparison, out: Console) -> None:
    """Print the terminal summary: the scope table, the flipped probes and the verdict."""
    table = Table(title="Pass rate, base → new", title_justify="left", show_edge=False)
    for column in (
        "scope",
        "base",
        "new",
        "change",
        "paired",
        "newly failing",
        "newly passing",
        "p",
        "p adj.",
        "verdict",
    ):
        table.add_column(column, justify="left" if column in ("scope", "verdict") else "right")
    _scope_row(table, comparison.overall)
    if comparison.categories:
        table.add_section()
    for scope in comparison.categories:
        _scope_row(table, scope)
    out.print(table)
    if comparison.newly_failing:
        out.print(f"\n[bold]Newly failing probes[/] ({len(comparison.newly_failing)})")
        for change in comparison.newly_failing[:_SHOWN_CHANGES]:
            line = Text("  ")
            line.append(strip_control_codes(change.probe_id), style="red")
            line.append(f"  {strip_control_codes(change.category)} · {change.severity} · ")
            line.append(strip_control_codes(change.explanation), style="dim")
            out.print(line)
        hidden = len(comparison.newly_failing) - _SHOWN_CHANGES
        if hidden > 0:
            out.print(f"  … and {hidden} more (see --html or --json)")
    if comparison.newly_passing:
        out.print(f"\n[bold]Newly passing probes[/]: {len(comparison.newly_passing)}")
    if comparison.unpaired:
        out.print(f"Unpaired probes: {len(comparison.unpaired)} (listed in --html and --json)")
    verdict = Text("\n")
    if comparison.regression:
        verdict.append("REGRESSION", style="bold red")
        verdict.append(
            ": " + comparison.overall.reason
            if comparison.overall.verdict is Verdict.REGRESSION
            else ": in at least one category (see table)"
        )
    else:
        verdict.append("no meaningful regression", style="bold green")
        verdict.append(f": {comparison.overall.reason}")
    out.print(verdict)


def diff(
    base: Annotated[Path, typer.Argument(metavar="BASE.json", help="The reference report.")],
    new: Annotated[Path, typer.Argument(metavar="NEW.json", help="The report under judgement.")],
    junit: Annotated[
        Path | None,
        typer.Option("--junit", help="Write JUnit XML of the new run's cases (one per case)."),
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the comparison as HTML.")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the comparison as JSON.")
    ] = None,
    alpha: Annotated[
        float,
        typer.Option("--alpha", callback=_open_unit, help="Significance level of the paired test."),
    ] = 0.05,
    min_drop: Annotated[
        float,
        typer.Option(
            "--min-drop",
            min=0.0,
            max=1.0,
            help="Smallest paired drop in pass rate that counts, e.g. 0.02 for 2 points.",
        ),
    ] = 0.0,
    gate_categories: Annotated[
        bool,
        typer.Option(
            "--gate-categories/--overall-only",
            help="Whether a regression in one category fails the gate too.",
        ),
    ] = True,
) -> None:
    """Compare NEW.json against BASE.json; exit 1 on a meaningful regression, 0 otherwise."""
    base_report, new_report = read_report_pair(base, new)
    comparison = compare_reports(
        base_report,
        new_report,
        thresholds=DiffThresholds(alpha=alpha, min_drop=min_drop, gate_categories=gate_categories),
        base_label=str(base),
        new_label=str(new),
    )
    for warning in comparison.warnings:
        err_console.print(_plain(f"warning: {warning}"), style="yellow")
    if junit is not None:
        write_junit(new_report, junit)
    if html is not None:
        write_comparison_html(comparison, html)
    if json_out is not None:
        atomic_write_text(json_out, comparison.model_dump_json(indent=2) + "\n")
    print_comparison(comparison, console)
    for label, path in (("junit", junit), ("html", html), ("json", json_out)):
        if path is not None:
            console.print(_plain(f"{label}: {path}"))
    raise typer.Exit(ExitCode.GATE_FAILED if comparison.regression else ExitCode.OK)
