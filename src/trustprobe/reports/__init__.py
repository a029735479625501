"""Reports: ``build_report``, reading them back, and JSON, Markdown, HTML and terminal views."""

from trustprobe.reports.build import build_report, stream_report
from trustprobe.reports.html import HtmlLimits, render_page, render_report_html, write_report_html
from trustprobe.reports.loading import read_report, read_report_pair
from trustprobe.reports.models import SCHEMA_VERSION, Provenance, Report
from trustprobe.reports.render import print_summary, render_markdown
from trustprobe.reports.stages import StageClock
from trustprobe.reports.writers import gate_exit_code, report_json, write_report_json

__all__ = [
    "HtmlLimits",
    "Provenance",
    "Report",
    "SCHEMA_VERSION",
    "StageClock",
    "build_report",
    "gate_exit_code",
    "print_summary",
    "read_report",
    "read_report_pair",
    "render_markdown",
    "render_page",
    "render_report_html",
    "report_json",
    "stream_report",
    "write_report_html",
    "write_report_json",
]
