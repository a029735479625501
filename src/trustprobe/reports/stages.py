"""Where a scoring run spends its time: CPU and wall seconds per stage (``--profile-stages``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

STAGES = (
    "startup",
    "loading",
    "scoring",
    "metrics",
    "observability",
    "report",
    "write",
)
"""The stages in the order a run meets them (``startup``: interpreter, imports, arguments)."""


@dataclass
class StageClock:
    """Accumulates CPU (this process) and wall seconds by stage; a stage may be entered often.

    A streaming run interleaves stages chunk by chunk, so each entry adds to its stage's total.
    """

    cpu: dict[str, float] = field(default_factory=dict)
    wall: dict[str, float | None] = field(default_factory=dict)
    """Wall seconds by stage; ``None`` where they were not measured (start-up)."""

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Count the time spent inside the ``with`` block to ``name``."""
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.process_time() - cpu, time.perf_counter() - wall)

    def add(self, name: str, cpu: float, wall: float | None) -> None:
        """Add measured seconds to ``name``."""
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu
        before = self.wall.get(name, 0.0)
        self.wall[name] = None if wall is None or before is None else before + wall

    def started(self) -> None:
        """Count this process's CPU time so far as ``startup`` (its wall time is unknown)."""
        self.add("startup", time.process_time(), None)

    def as_json(self) -> dict[str, dict[str, float | None]]:
        """``{stage: {"cpu_s": ..., "wall_s": ...}}`` in run order, stages not met left out."""
        order = [s for s in STAGES if s in self.cpu] + [s for s in self.cpu if s not in STAGES]
        return {
            s: {"cpu_s": round(self.cpu[s], 4), "wall_s": _rounded(self.wall[s])} for s in order
        }


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 4)
