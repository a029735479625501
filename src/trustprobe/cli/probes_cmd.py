"""``trustprobe probes``: list the catalog and validate probe files."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from trustprobe.cli.console import console, plain
from trustprobe.probes import BUILTIN, Severity, load_probes

app = typer.Typer(help="List and validate probes.", no_args_is_help=True)


@app.command("list")
def list_probes(
    probes: list[str] = typer.Option(
        [BUILTIN], "--probes", "-p", help="Probe files, or 'builtin' for the catalog."
    ),
    category: list[str] = typer.Option([], "--category", "-c", help="Keep these categories."),
    severity: list[Severity] = typer.Option([], "--severity", "-s", help="Keep these severities."),
    tag: list[str] = typer.Option([], "--tag", "-t", help="Keep probes with any of these tags."),
) -> None:
    """Print one line per probe: id, category, severity, expected, tags."""
    selected = [
        p
        for p in load_probes(probes)
        if (not category or p.category in category)
        and (not severity or p.severity in severity)
        and (not tag or set(tag) & set(p.tags))
    ]
    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("id", "category", "severity", "expected", "tags"):
        table.add_column(column, no_wrap=column != "tags")
    for p in selected:
        table.add_row(
            plain(p.id),
            plain(p.category),
            p.severity.value,
            p.expected.value,
            plain(",".join(p.tags)),
        )
    console.print(table)
    console.print(f"{len(selected)} probe(s)")


@app.command("validate")
def validate(
    files: list[Path] = typer.Argument(..., help="Probe files (.jsonl, .yaml, .yml)."),
) -> None:
    """Validate probe files; exit 2 with file, line and field on the first error."""
    probes = load_probes(files)
    console.print(f"ok: {len(probes)} probe(s) in {len(files)} file(s)")
