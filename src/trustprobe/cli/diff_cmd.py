"""``trustprobe diff``: did the agent get worse? Compare two reports and gate CI on it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from trustprobe.cli.console import console, plain, print_warning
from trustprobe.cli.file_options import check_outputs_apart
from trustprobe.comparison import (
    Comparison,
    DiffThresholds,
    ScopeComparison,
    Verdict,
    compare_reports,
    write_comparison_html,
    write_comparison_markdown,
    write_junit,
)
from trustprobe.errors import ExitCode
from trustprobe.formats import atomic_write_text, show_invisible
from trustprobe.probes import Severity
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


def _floors(values: list[str]) -> dict[str, float]:
    """``CATEGORY=RATE`` pairs, each rate within 0–1 and each category named once."""
    floors: dict[str, float] = {}
    for value in values:
        category, sep, rate = value.rpartition("=")
        try:
            floor = float(rate)
        except ValueError:
            floor = float("nan")
        if not sep or not category or not 0.0 <= floor <= 1.0:
            raise typer.BadParameter(
                f"{value!r}: expected CATEGORY=RATE with RATE within 0–1, e.g. harmful_content=0.7"
            )
        if category in floors:
            raise typer.BadParameter(f"{category!r} is given two floors")
        floors[category] = floor
    return floors


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
        plain(scope.scope),
        f"{_rate(scope.base.pass_rate)} ({scope.base.scored_cases})",
        f"{_rate(scope.new.pass_rate)} ({scope.new.scored_cases})",
        _points(scope.difference),
        str(paired.pairs),
        str(paired.regressed),
        str(paired.fixed),
        _p(paired.p_value),
        _p(scope.p_value_adjusted),
        _detectable(scope),
        Text(scope.verdict.value.replace("_", " "), style=_VERDICT_STYLE[scope.verdict]),
    )


def _detectable(scope: ScopeComparison) -> str:
    """The smallest drop the paired test could flag in this scope, in points."""
    detectable = scope.min_detectable_change
    if detectable is None:
        return "—"
    if detectable.min_drop is None:
        return "none"
    return f"{detectable.min_drop * 100:.1f} pp"


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
        "detectable",
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
        out.print(f"\n[bold]Newly failing probes[/] ({len(comparison.newly_failing)})", markup=True)
        for change in comparison.newly_failing[:_SHOWN_CHANGES]:
            line = Text("  ")
            line.append(show_invisible(change.probe_id), style="red")
            line.append(f"  {show_invisible(change.category)} · {change.severity} · ")
            line.append(show_invisible(change.explanation), style="dim")
            out.print(line)
        hidden = len(comparison.newly_failing) - _SHOWN_CHANGES
        if hidden > 0:
            out.print(f"  … and {hidden} more (see --html or --json)")
    if comparison.newly_passing:
        out.print(f"\n[bold]Newly passing probes[/]: {len(comparison.newly_passing)}", markup=True)
    if comparison.unpaired:
        out.print(f"Unpaired probes: {len(comparison.unpaired)} (listed in --html and --json)")
    _print_detectable(comparison.overall, out)
    out.print("\n[bold]Gates[/]", markup=True)
    for gate in comparison.gates:
        line = Text("  ")
        line.append("pass" if gate.passed else "FAIL", style="green" if gate.passed else "bold red")
        line.append(f"  {gate.gate.value} ({show_invisible(gate.subject)}): ")
        line.append(show_invisible(gate.reason))
        out.print(line)
    verdict = Text("\n")
    if comparison.regression:
        failed = [g.gate.value for g in comparison.gates if not g.passed]
        verdict.append("REGRESSION", style="bold red")
        verdict.append(f": failed gate(s): {', '.join(dict.fromkeys(failed))}")
    else:
        verdict.append("no meaningful regression", style="bold green")
        verdict.append(f": {comparison.overall.reason}")
    out.print(verdict)


def _print_detectable(overall: ScopeComparison, out: Console) -> None:
    detectable = overall.min_detectable_change
    if detectable is None:
        return
    pairs = overall.paired.pairs
    if detectable.min_flips is None or detectable.drop_at_power is None:
        out.print(
            f"\nWith {pairs} paired probes no drop is detectable at α = {detectable.alpha:g}: "
            "only the gates below can fail this run."
        )
        return
    out.print(
        f"\nSmallest detectable change: {detectable.min_flips} of {pairs} paired probes newly "
        f"failing ({_points(-(detectable.min_drop or 0.0))}) at α = {detectable.alpha:g}; "
        f"a true drop of {detectable.drop_at_power:.1%} is caught with "
        f"{detectable.power:.0%} power."
    )


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
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", help="Write the comparison as Markdown (e.g. a PR comment)."),
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
    fail_on_new_failure: Annotated[
        Severity | None,
        typer.Option(
            "--fail-on-new-failure",
            metavar="SEVERITY",
            case_sensitive=False,
            help="Fail when a probe of this severity or above passed every sample before and "
            "fails now (low, medium, high, critical).",
        ),
    ] = None,
    category_floor: Annotated[
        list[str] | None,
        typer.Option(
            "--category-floor",
            metavar="CATEGORY=RATE",
            help="Fail when the category's pass rate in NEW is below RATE (0–1); repeatable.",
        ),
    ] = None,
) -> None:
    """Compare NEW.json against BASE.json; exit 1 when a gate fails, 0 otherwise.

    The gates: a significant regression (exact McNemar, overall and per category), a newly
    failing probe at --fail-on-new-failure severity or above, a category below its floor.
    """
    outputs = (("junit", junit), ("html", html), ("markdown", markdown), ("json", json_out))
    check_outputs_apart([base, new], [(f"--{label}", path) for label, path in outputs])
    floors = _floors(category_floor or [])
    base_report, new_report = read_report_pair(base, new)
    comparison = compare_reports(
        base_report,
        new_report,
        thresholds=DiffThresholds(
            alpha=alpha,
            min_drop=min_drop,
            gate_categories=gate_categories,
            fail_on_new_failure=fail_on_new_failure,
            category_floors=floors,
        ),
        base_label=str(base),
        new_label=str(new),
    )
    for warning in comparison.warnings:
        print_warning(warning)
    if junit is not None:
        write_junit(new_report, junit, gates=comparison.gates)
    if html is not None:
        write_comparison_html(comparison, html)
    if markdown is not None:
        write_comparison_markdown(comparison, markdown)
    if json_out is not None:
        atomic_write_text(json_out, comparison.model_dump_json(indent=2) + "\n")
    print_comparison(comparison, console)
    for label, path in outputs:
        if path is not None:
            console.print(plain(f"{label}: {path}"))
    raise typer.Exit(ExitCode.GATE_FAILED if comparison.regression else ExitCode.OK)
