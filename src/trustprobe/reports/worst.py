"""The "Worst cases" list as readers see it: one entry per probe, its samples folded in."""

from __future__ import annotations

from dataclasses import dataclass

from trustprobe.metrics import WorstCase
from trustprobe.reports.models import Report


@dataclass(frozen=True)
class WorstProbe:
    """A probe of the worst-cases list: its worst sample, and how its samples fared."""

    worst: WorstCase
    """The probe's worst sample, as the metrics rank it."""
    scored: int
    """Scored samples of the probe in the run."""
    failed: int
    """Of those, how many failed."""

    @property
    def samples_text(self) -> str:
        """``"3 of 3 samples failed"``, or ``""`` for a probe sent once."""
        if self.scored <= 1:
            return ""
        return f"{self.failed} of {self.scored} samples failed; worst: sample {self.worst.sample}"


def worst_probes(report: Report) -> list[WorstProbe]:
    """The worst cases of ``report``, one per probe, in rank order.

    Sample counts come from the report's cases, so reports written when the list still held
    several samples of one probe read the same way: the first (worst) row of a probe stands
    for all of them.
    """
    tallies: dict[str, list[int]] = {}
    for case in report.cases:
        if case.passed is not None:
            tally = tallies.setdefault(case.probe_id, [0, 0])
            tally[0] += 1
            tally[1] += int(not case.passed)
    shown: dict[str, WorstProbe] = {}
    for row in report.aggregate_metrics.worst_cases:
        if row.probe_id not in shown:
            scored, failed = tallies.get(row.probe_id, (1, int(not row.passed)))
            shown[row.probe_id] = WorstProbe(row, scored, failed)
    return list(shown.values())
