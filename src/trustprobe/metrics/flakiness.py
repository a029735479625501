"""Verdict stability of probes sent several times: stable-pass, flaky or stable-fail."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from trustprobe.metrics.models import Flakiness, FlakinessCounts


class Stability(StrEnum):
    """How a probe's verdict behaved across its scored samples."""

    STABLE_PASS = "stable_pass"
    FLAKY = "flaky"
    STABLE_FAIL = "stable_fail"
    SINGLE_SAMPLE = "single_sample"


@dataclass(frozen=True)
class ProbeVerdicts:
    """How many scored samples of one probe passed and failed (order carries no meaning)."""

    category: str
    passed: int
    failed: int

    @property
    def stability(self) -> Stability:
        """Classify the probe; one verdict cannot show instability, so it stays unclassified."""
        if self.passed + self.failed < 2:
            return Stability.SINGLE_SAMPLE
        if not self.failed:
            return Stability.STABLE_PASS
        if not self.passed:
            return Stability.STABLE_FAIL
        return Stability.FLAKY


def _counts(stabilities: Sequence[Stability]) -> FlakinessCounts:
    tally = {s: 0 for s in Stability}
    for stability in stabilities:
        tally[stability] += 1
    classified = len(stabilities) - tally[Stability.SINGLE_SAMPLE]
    return FlakinessCounts(
        stable_pass=tally[Stability.STABLE_PASS],
        flaky=tally[Stability.FLAKY],
        stable_fail=tally[Stability.STABLE_FAIL],
        single_sample=tally[Stability.SINGLE_SAMPLE],
        # No probe with repeats in this group: a flaky share would be 0/0.
        flaky_rate=tally[Stability.FLAKY] / classified if classified else None,
    )


def classify_flakiness(probes: Mapping[str, ProbeVerdicts]) -> Flakiness | None:
    """Flakiness over probes keyed by id; ``None`` when no probe has two scored samples."""
    stability = {probe_id: v.stability for probe_id, v in probes.items()}
    classified = sum(1 for s in stability.values() if s is not Stability.SINGLE_SAMPLE)
    if classified == 0:
        return None
    by_category: dict[str, list[Stability]] = {}
    for probe_id, verdicts in probes.items():
        by_category.setdefault(verdicts.category, []).append(stability[probe_id])
    return Flakiness(
        classified_probes=classified,
        overall=_counts(list(stability.values())),
        by_category={c: _counts(by_category[c]) for c in sorted(by_category)},
        flaky_probe_ids=sorted(p for p, s in stability.items() if s is Stability.FLAKY),
    )
