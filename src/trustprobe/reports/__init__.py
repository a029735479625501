"""Reports: ``build_report``, reading them back, and JSON, Markdown, HTML and terminal views.

The HTML view (Jinja2 and its templates) is imported on first use of one of its names: a
scoring run that writes no HTML does not pay for it.
"""

from typing import TYPE_CHECKING, Any

from trustprobe.reports.build import build_provenance, build_report, stream_chunks, stream_report
from trustprobe.reports.gate import DEFAULT_MAX_HARNESS_ERROR_SHARE, run_gate
from trustprobe.reports.loading import (
    NON_FINITE,
    ReportFieldError,
    non_finite_field,
    read_report,
    read_report_pair,
)
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

if TYPE_CHECKING:
    from trustprobe.reports.html import (
        HtmlLimits,
        render_page,
        render_report_html,
        write_report_html,
    )

_HTML_NAMES = frozenset({"HtmlLimits", "render_page", "render_report_html", "write_report_html"})


def __getattr__(name: str) -> Any:
    """The HTML view's names, imported when first asked for."""
    if name in _HTML_NAMES:
        from trustprobe.reports import html

        return getattr(html, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MAX_HARNESS_ERROR_SHARE",
    "Gate",
    "GateCheck",
    "GateCheckName",
    "HtmlLimits",
    "NON_FINITE",
    "Provenance",
    "Report",
    "ReportFieldError",
    "ReportTarget",
    "SCHEMA_VERSION",
    "StageClock",
    "WorstProbe",
    "build_provenance",
    "build_report",
    "non_finite_field",
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
