"""Reports: ``build_report`` and the JSON, Markdown and terminal renderings."""

from trustprobe.reports.build import build_report
from trustprobe.reports.models import SCHEMA_VERSION, Provenance, Report
from trustprobe.reports.render import print_summary, render_markdown
from trustprobe.reports.writers import gate_exit_code, read_report, report_json, write_report_json

__all__ = [
    "Provenance",
    "Report",
    "SCHEMA_VERSION",
    "build_report",
    "gate_exit_code",
    "print_summary",
    "read_report",
    "render_markdown",
    "report_json",
    "write_report_json",
]
