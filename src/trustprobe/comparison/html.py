"""The run comparison as one self-contained HTML page, in the report's page shell."""

from __future__ import annotations

from pathlib import Path

from trustprobe.comparison.models import Comparison
from trustprobe.formats import atomic_write_text
from trustprobe.reports import render_page


def render_comparison_html(comparison: Comparison) -> str:
    """Render a run comparison as one self-contained HTML page (no script at all)."""
    return render_page(
        "comparison.html.j2", package="trustprobe.comparison", script=None, cmp=comparison
    )


def write_comparison_html(comparison: Comparison, path: str | Path) -> None:
    """Write :func:`render_comparison_html` of ``comparison`` to ``path`` atomically."""
    atomic_write_text(path, render_comparison_html(comparison))
