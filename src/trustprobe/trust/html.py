"""The trust score and its explanation as one self-contained page, in the report's page shell."""

from __future__ import annotations

from pathlib import Path

from trustprobe.formats import atomic_write_text
from trustprobe.trust.score import TrustScore


def render_trust_html(score: TrustScore) -> str:
    """Render a trust score: composite, tier, gate, every dimension and the runs behind it."""
    # Imported here: the reports package pulls in the metrics' scientific stack, which the
    # trust engine (imported by the store, the service and every trust command) does not need.
    from trustprobe.reports import render_page

    return render_page("trust.html.j2", package="trustprobe.trust", script=None, score=score)


def write_trust_html(score: TrustScore, path: str | Path) -> None:
    """Write :func:`render_trust_html` of ``score`` to ``path`` atomically."""
    atomic_write_text(path, render_trust_html(score))
