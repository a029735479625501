"""Write a report whose cases and points arrive in pieces, byte for byte as ``report_json``.

Nobody holds every case: a scoring run (in process, chunk by chunk, or on a cluster's workers,
block by block) renders its cases and points as JSON text, a line each at their depth
(:func:`~trustprobe.reports.writers.render_items`, re-exported here), the writer appends the
text in order, and the rest of the report (metrics, observability summaries, warnings) is
spliced in around it at the end. The report goes to a temporary file in the output's directory
and appears only by an atomic rename after an fsync, so a failed run leaves no file.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from trustprobe.formats import temporary_beside, writable_target
from trustprobe.metrics import MetricsPartial, RunMetrics, finalize_metrics
from trustprobe.observability import Observability
from trustprobe.reports.models import Gate, Provenance, Report
from trustprobe.reports.target import ReportTarget
from trustprobe.reports.writers import CASES as CASES
from trustprobe.reports.writers import CASES_DEPTH as CASES_DEPTH
from trustprobe.reports.writers import CASES_MARKER, INDENT, POINTS_MARKER, report_json
from trustprobe.reports.writers import POINTS as POINTS
from trustprobe.reports.writers import POINTS_DEPTH as POINTS_DEPTH
from trustprobe.reports.writers import line_layout as line_layout
from trustprobe.reports.writers import render_items as render_items


def _split(text: str, marker: str) -> tuple[str, str]:
    if text.count(marker) != 1:
        raise ValueError(f"report skeleton must hold {marker.strip()!r} exactly once")
    head, tail = text.split(marker)
    return head + marker[:-1], tail  # keep the "[", the closing "]" is written after the items


def report_head(provenance: Provenance, target: ReportTarget | None = None) -> Report:
    """A report with nothing scored yet: what a stream writes first, and the base of its end.

    Only the schema version, the target and the provenance of it are written at the start;
    the rest is replaced when the stream finishes.
    """
    return Report(
        provenance=provenance,
        target=target,
        cases=[],
        aggregate_metrics=finalize_metrics(MetricsPartial(worst_n=0)),
        observability=None,
    )


def report_end(
    head: Report,
    metrics: RunMetrics,
    observability: Observability | None,
    *,
    warnings: list[str],
    gate: Gate | None,
) -> tuple[Report, bytes, int]:
    """What a stream writes last: the report to finish with, and its points rendered.

    The report is ``head`` with the run's metrics, observability, warnings and gate, its
    observability without the points (:meth:`ReportStream.finish` takes none); the points come
    rendered for :meth:`ReportStream.add`, with their count.
    """
    points, placed = b"", 0
    if observability is not None:
        placed = len(observability.points)
        points = render_items(POINTS, observability.points, POINTS_DEPTH)
        observability = observability.model_copy(update={"points": []})
    report = head.model_copy(
        update={
            "aggregate_metrics": metrics,
            "observability": observability,
            "warnings": warnings,
            "gate": gate,
        }
    )
    return report, points, placed


def _head(report: Report) -> str:
    """The report's text up to the opening bracket of ``cases``."""
    bare = report.model_copy(update={"cases": [], "observability": None, "warnings": []})
    return _split(report_json(bare), CASES_MARKER)[0]


def _append(source: BinaryIO, target: BinaryIO) -> None:
    """Copy ``source`` to the end of ``target`` (flushed), in the kernel where it can."""
    size = os.fstat(source.fileno()).st_size
    copied = 0
    copy = getattr(os, "copy_file_range", None)
    if copy is not None:
        try:
            while copied < size:
                step = copy(source.fileno(), target.fileno(), size - copied)
                if step == 0:
                    break
                copied += step
        except OSError as exc:
            # Not between these files (another file system, an old kernel): copy in Python.
            if copied or exc.errno not in (
                errno.EXDEV,
                errno.ENOSYS,
                errno.EINVAL,
                errno.EOPNOTSUPP,
            ):
                raise
    # The descriptor moved past the buffered writer's idea of its position: set it again.
    target.seek(0, os.SEEK_END)
    if copied < size:
        source.seek(copied)
        shutil.copyfileobj(source, target, length=1 << 20)


class ReportStream:
    """An output report being written: the head first, cases as they come, the rest at the end.

    Use as a context manager; leaving it by an exception removes every temporary file.
    """

    def __init__(self, output: str | Path, head: Report) -> None:
        """Start ``output`` with ``head``'s schema version and provenance (nothing else of it)."""
        self.output = writable_target(output)
        self._head = _head(head)
        self._files: list[tuple[BinaryIO, str]] = []
        self._report = self._temporary("report")
        # Points come last, after the observability is fitted, in a block or a few already in
        # memory: kept as they are and written once at the end, not through a file of their own.
        self._points: list[bytes] = []
        self._report.write(self._head.encode("utf-8"))
        self.cases = 0
        self.points = 0
        self._case_chunks = 0
        self._point_chunks = 0

    def _temporary(self, role: str) -> BinaryIO:
        fd, name = temporary_beside(self.output, role)
        handle = os.fdopen(fd, "w+b")
        self._files.append((handle, name))
        return handle

    def add(self, cases_json: bytes, cases: int, points_json: bytes, points: int) -> None:
        """Append one block's rendered cases and points (in block order)."""
        # Two writes, not one of a concatenation: a block's text is tens of megabytes.
        if cases:
            self._report.write(b",\n" if self._case_chunks else b"\n")
            self._report.write(cases_json)
            self._case_chunks += 1
            self.cases += cases
        if points:
            self._points += (b",\n" if self._point_chunks else b"\n", points_json)
            self._point_chunks += 1
            self.points += points

    def add_file(self, path: Path, cases: int) -> None:
        """Append one block's rendered cases from the file at ``path`` (in block order).

        The kernel copies the file where it can (``copy_file_range``): the text never passes
        through Python.
        """
        if not cases:
            return
        self._report.write(b",\n" if self._case_chunks else b"\n")
        self._report.flush()
        with path.open("rb") as source:
            _append(source, self._report)
        self._case_chunks += 1
        self.cases += cases

    def finish(self, report: Report) -> None:
        """Write the rest of ``report`` (rendered without cases and points) and publish the file.

        Raises:
            ValueError: ``report`` has a different head from the one written first.
        """
        if report.cases or (report.observability is not None and report.observability.points):
            raise ValueError(
                "the report's cases and points are the ones streamed: leave them empty"
            )
        head, rest = _split(report_json(report), CASES_MARKER)
        if head != self._head:
            raise ValueError("the report's schema version or provenance changed during the run")
        close = b"\n" + b" " * INDENT + b"]" if self._case_chunks else b"]"
        if report.observability is None:
            if self.points:
                raise ValueError("points were written but the report has no observability")
            self._report.write(close + rest.encode("utf-8"))
        else:
            middle, tail = _split(rest, POINTS_MARKER)
            self._report.write(close + middle.encode("utf-8"))
            for block in self._points:
                self._report.write(block)
            closing = b"\n" + b" " * (2 * INDENT) + b"]" if self._point_chunks else b"]"
            self._report.write(closing + tail.encode("utf-8"))
        self._report.flush()
        os.fsync(self._report.fileno())
        report_name = self._files[0][1]
        os.replace(report_name, self.output)
        self._files[0] = (self._report, str(self.output))
        self._close()

    def _close(self) -> None:
        """Close every file and remove the temporary ones (never the published report)."""
        for handle, name in self._files:
            handle.close()
            if name != str(self.output):
                Path(name).unlink(missing_ok=True)
        self._files = []

    def __enter__(self) -> ReportStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._files:
            self._close()
