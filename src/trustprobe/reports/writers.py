"""Write reports to disk atomically and decide the CI gate."""

from __future__ import annotations

from pathlib import Path

from trustprobe.errors import ExitCode
from trustprobe.formats import atomic_write_text
from trustprobe.reports.models import Report


def report_json(report: Report) -> str:
    """The report as pretty-printed JSON (the stable, documented format)."""
    return report.model_dump_json(indent=2) + "\n"


def write_report_json(report: Report, path: str | Path) -> None:
    """Write ``report.json`` atomically: readers never see a half-written file."""
    atomic_write_text(path, report_json(report))


def gate_exit_code(report: Report, fail_under: float | None) -> ExitCode:
    """``GATE_FAILED`` when a ``--fail-under`` pass-rate gate is set and not met.

    A run with no scored case cannot show it meets the gate, so it fails it.
    """
    if fail_under is None:
        return ExitCode.OK
    rate = report.aggregate_metrics.overall.pass_rate
    if rate is None or rate < fail_under:
        return ExitCode.GATE_FAILED
    return ExitCode.OK
