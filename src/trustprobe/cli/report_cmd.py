"""``trustprobe report``: render an existing ``report.json`` as a self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trustprobe.cli.console import console
from trustprobe.cli.file_options import check_outputs_apart
from trustprobe.reports import HtmlLimits, read_report, write_report_html


def report(
    report_path: Annotated[
        Path, typer.Argument(metavar="REPORT.json", help="A report written by 'score' or 'scan'.")
    ],
    html: Annotated[Path, typer.Option("--html", help="Where to write the HTML report.")],
    max_scatter_points: Annotated[
        int,
        typer.Option(
            "--max-scatter-points",
            min=1,
            help="Scatter points drawn at most; larger runs show a seeded sample.",
        ),
    ] = HtmlLimits.max_scatter_points,
) -> None:
    """Render REPORT.json as one HTML file that opens from disk without any network."""
    check_outputs_apart([report_path], [("--html", html)])
    loaded = read_report(report_path)
    write_report_html(loaded, html, limits=HtmlLimits(max_scatter_points=max_scatter_points))
    console.print(f"html: {html}")
