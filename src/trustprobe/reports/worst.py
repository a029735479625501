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


def _case_tallies(report: Report) -> dict[str, tuple[int, int]]:
    """Per probe, (scored, failed) samples counted from the report's cases."""
    tallies: dict[str, tuple[int, int]] = {}
    for case in report.cases:
        if case.passed is not None:
            scored, failed = tallies.get(case.probe_id, (0, 0))
            tallies[case.probe_id] = (scored + 1, failed + int(not case.passed))
    return tallies


def worst_probes(report: Report) -> list[WorstProbe]:
    """The worst cases of ``report``, one per probe, in rank order.

    Sample counts come from the metrics. Reports written when the list still held several
    samples of one probe have none: their counts come from the report's cases, and the first
    (worst) row of a probe stands for all of them.
    """
    rows = report.aggregate_metrics.worst_cases
    tallies = _case_tallies(report) if any(r.scored_samples is None for r in rows) else {}
    shown: dict[str, WorstProbe] = {}
    for row in rows:
        if row.probe_id in shown:
            continue
        if row.scored_samples is not None and row.failed_samples is not None:
            scored, failed = row.scored_samples, row.failed_samples
        else:
            scored, failed = tallies.get(row.probe_id, (1, int(not row.passed)))
        shown[row.probe_id] = WorstProbe(row, scored, failed)
    return list(shown.values())
