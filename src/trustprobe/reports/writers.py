"""The report's JSON text, and writing it to disk atomically.

The layout: the report indented by two spaces, except the items of its two long lists — the
cases and the observability points — which are written one compact JSON object a line at
their indent. A line per case reads and greps well and costs about half as much to render as
an indented case (docs/benchmarks.md). Any JSON reader reads either layout, and so does
:func:`~trustprobe.reports.loading.read_report`: reports written indented throughout still load.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel

from trustprobe.formats import atomic_write_text
from trustprobe.observability import ObservabilityPoint
from trustprobe.reports.models import Report
from trustprobe.scoring import CaseScore

INDENT: Final = 2
"""Spaces per level of the report's indentation."""
CASES_DEPTH: Final = 2
"""Indent level of a case in a report: root object, then the ``cases`` list."""
POINTS_DEPTH: Final = 3
"""Indent level of a point: root, ``observability``, then its ``points`` list."""
CASES_MARKER: Final = '\n  "cases": []'
"""The empty ``cases`` list in an indented report: where the cases go."""
POINTS_MARKER: Final = '\n    "points": []'
"""The empty ``points`` list in an indented report: where the points go."""


class ItemList:
    """The items of one of the report's long lists (all of one model)."""

    def __init__(self, item: type[BaseModel]) -> None:
        self.item = item


CASES: Final = ItemList(CaseScore)
POINTS: Final = ItemList(ObservabilityPoint)


def render_items(items_of: ItemList, items: Sequence[Any], depth: int) -> bytes:
    """The items of a report list at nesting ``depth``: one compact object a line, indented.

    The text between the list's brackets, without the line breaks next to them; blocks of a
    list rendered apart join with a comma and a line break.
    """
    to_json = items_of.item.__pydantic_serializer__.to_json
    return join_lines([to_json(item) for item in items], depth)


def join_lines(lines: Sequence[bytes], depth: int) -> bytes:
    """Items already rendered, a compact JSON object each, laid out as :func:`render_items` does."""
    if not lines:
        return b""
    prefix, separator = line_layout(depth)
    # The indent joins the first line, not the joined text: that is megabytes long.
    return separator.join([prefix + lines[0], *lines[1:]])


def line_layout(depth: int) -> tuple[bytes, bytes]:
    """What goes before the first item of a list at ``depth``, and between two items.

    As :func:`join_lines` lays them out, for a caller that joins the items' text itself.
    """
    indent = b" " * (INDENT * depth)
    return indent, b",\n" + indent


def _fill(text: str, marker: str, items: bytes, depth: int) -> str:
    """``text`` with the empty list at ``marker`` holding ``items`` (rendered at ``depth``)."""
    if not items:
        return text
    if text.count(marker) != 1:
        raise ValueError(f"report text must hold {marker.strip()!r} exactly once")
    closing = "\n" + " " * (INDENT * (depth - 1)) + "]"
    return text.replace(marker, marker[:-1] + "\n" + items.decode("utf-8") + closing)


def report_json(report: Report) -> str:
    """The report as JSON text in the documented layout (see the module's notes)."""
    observability = report.observability
    points = observability.points if observability is not None else []
    if observability is not None and points:
        observability = observability.model_copy(update={"points": []})
    bare = report.model_copy(update={"cases": [], "observability": observability})
    text = bare.model_dump_json(indent=INDENT) + "\n"
    text = _fill(text, CASES_MARKER, render_items(CASES, report.cases, CASES_DEPTH), CASES_DEPTH)
    return _fill(text, POINTS_MARKER, render_items(POINTS, points, POINTS_DEPTH), POINTS_DEPTH)


def write_report_json(report: Report, path: str | Path) -> None:
    """Write ``report.json`` atomically: readers never see a half-written file."""
    atomic_write_text(path, report_json(report))
