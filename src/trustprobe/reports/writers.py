"""Write reports to disk atomically."""

from __future__ import annotations

from pathlib import Path

from trustprobe.formats import atomic_write_text
from trustprobe.reports.models import Report


def report_json(report: Report) -> str:
    """The report as pretty-printed JSON (the stable, documented format)."""
    return report.model_dump_json(indent=2) + "\n"


def write_report_json(report: Report, path: str | Path) -> None:
    """Write ``report.json`` atomically: readers never see a half-written file."""
    atomic_write_text(path, report_json(report))
