"""Reports: ``build_report``, reading them back, and JSON, Markdown, HTML and terminal views."""

from trustprobe.reports.build import build_provenance, build_report, stream_chunks, stream_report
from trustprobe.reports.gate import DEFAULT_MAX_HARNESS_ERROR_SHARE, run_gate
from trustprobe.reports.html import HtmlLimits, render_page, render_report_html, write_report_html
from trustprobe.reports.loading import read_report, read_report_pair
from trustprobe.reports.models import (
    SCHEMA_VERSION,
    Gate,
    GateCheck,
    GateCheckName,
    Provenance,
    Report,
)
from trustprobe.reports.render import print_summary, render_markdown
from trustprobe.reports.stages import StageClock
from trustprobe.reports.target import ReportTarget, redact_url
from trustprobe.reports.worst import WorstProbe, worst_probes
from trustprobe.reports.writers import report_json, write_report_json

__all__ = [
    "DEFAULT_MAX_HARNESS_ERROR_SHARE",
    "Gate",
    "GateCheck",
    "GateCheckName",
    "HtmlLimits",
    "Provenance",
    "Report",
    "ReportTarget",
    "SCHEMA_VERSION",
    "StageClock",
    "WorstProbe",
    "build_provenance",
    "build_report",
    "print_summary",
    "read_report",
    "read_report_pair",
    "redact_url",
    "render_markdown",
    "render_page",
    "render_report_html",
    "report_json",
    "run_gate",
    "stream_chunks",
    "stream_report",
    "worst_probes",
    "write_report_html",
    "write_report_json",
]
