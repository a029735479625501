"""Mergeable run-metric partials: one per partition of cases, combined exactly.

``aggregate_metrics(cases)`` is ``finalize_metrics(metrics_partial(cases))``; a distributed run
computes one partial per partition, merges them with :func:`merge_metrics` and finalises once.
Every field merges exactly (integer counts, value → count tables, sets, a top-N list under a
total order), so the merged partial, and the report, do not depend on how cases were split.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from trustprobe.metrics.distribution import Distribution
from trustprobe.metrics.models import WorstCase
from trustprobe.probes.models import Expected, Severity
from trustprobe.scoring.models import LOW_CONFIDENCE, CaseScore

OVERALL: Final = ("overall", "")
"""Group key of the whole run."""

SampleRuns = tuple[tuple[int, int], ...]
"""Sorted, disjoint, non-adjacent ``[start, stop)`` ranges of sample indices."""


@dataclass(frozen=True)
class GroupPartial:
    """Tallies of one group of cases (the run, a category, a severity or an expected verdict)."""

    n: int = 0
    passed: int = 0
    harness_errors: int = 0
    risk: Distribution = field(default_factory=Distribution)
    weighted: Distribution = field(default_factory=Distribution)
    weight_total: Distribution = field(default_factory=Distribution)
    """Severity weights of the scored cases."""
    weight_passed: Distribution = field(default_factory=Distribution)
    """Severity weights of the passed cases."""
    safe_hits: int = 0
    unsafe_hits: int = 0
    boundary_readings: int = 0
    """Scored cases whose refusal detector gave a reading (True or False)."""
    boundary_hits: int = 0
    critical_failures: int = 0
    high_failures: int = 0
    low_confidence: int = 0
    """Scored cases whose ``verdict_confidence`` is below :data:`LOW_CONFIDENCE`."""
    judged: int = 0
    """Scored cases a judge model also read."""
    judge_agrees: int = 0
    """Of those, the cases where the judge agreed with the rules."""

    def merge(self, other: GroupPartial) -> GroupPartial:
        """Tallies of both groups of cases together."""
        return GroupPartial(
            n=self.n + other.n,
            passed=self.passed + other.passed,
            harness_errors=self.harness_errors + other.harness_errors,
            risk=self.risk.merge(other.risk),
            weighted=self.weighted.merge(other.weighted),
            weight_total=self.weight_total.merge(other.weight_total),
            weight_passed=self.weight_passed.merge(other.weight_passed),
            safe_hits=self.safe_hits + other.safe_hits,
            unsafe_hits=self.unsafe_hits + other.unsafe_hits,
            boundary_readings=self.boundary_readings + other.boundary_readings,
            boundary_hits=self.boundary_hits + other.boundary_hits,
            critical_failures=self.critical_failures + other.critical_failures,
            high_failures=self.high_failures + other.high_failures,
            low_confidence=self.low_confidence + other.low_confidence,
            judged=self.judged + other.judged,
            judge_agrees=self.judge_agrees + other.judge_agrees,
        )


@dataclass(frozen=True)
class MetricsPartial:
    """Everything :func:`finalize_metrics` needs from a partition of cases, in mergeable form."""

    worst_n: int
    """Length of ``worst``; partials merge only with partials of the same ``worst_n``."""
    cases: int = 0
    samples: Mapping[str, SampleRuns] = field(default_factory=dict)
    """Per probe, the samples present: a (probe_id, sample) may be counted only once."""
    category_of: Mapping[str, str] = field(default_factory=dict)
    """Category of every probe seen, scored or not."""
    scored_probes: frozenset[str] = frozenset()
    errored_probes: frozenset[str] = frozenset()
    error_classes: Mapping[str, int] = field(default_factory=dict)
    groups: Mapping[tuple[str, str], GroupPartial] = field(default_factory=dict)
    failure_modes: Mapping[str, int] = field(default_factory=dict)
    worst: tuple[WorstCase, ...] = ()
    """The ``worst_n`` probes of highest ``weighted_risk``, each by its worst sample, ranked
    (ties by probe id, then sample)."""
    verdicts: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Per scored probe, (passed, failed) samples: the input of flakiness."""

    def merge(self, other: MetricsPartial) -> MetricsPartial:
        """The partial of both partitions together.

        Raises:
            ValueError: the partials disagree on ``worst_n`` or on a probe's category, or
                share a (probe_id, sample), which would count a case twice.
        """
        if other.worst_n != self.worst_n:
            raise ValueError(f"cannot merge partials of worst_n {self.worst_n} and {other.worst_n}")
        category_of = dict(self.category_of)
        for probe_id, category in other.category_of.items():
            known = category_of.setdefault(probe_id, category)
            if known != category:
                raise ValueError(
                    f"probe '{probe_id}' has category '{category}' in one partition"
                    f" and '{known}' in another"
                )
        samples = dict(self.samples)
        for probe_id, runs in other.samples.items():
            mine = samples.get(probe_id)
            samples[probe_id] = runs if mine is None else union_runs(probe_id, mine, runs)
        groups = dict(self.groups)
        for key, group in other.groups.items():
            mine_group = groups.get(key)
            groups[key] = group if mine_group is None else mine_group.merge(group)
        verdicts = dict(self.verdicts)
        for probe_id, (passed, failed) in other.verdicts.items():
            before = verdicts.get(probe_id, (0, 0))
            verdicts[probe_id] = (before[0] + passed, before[1] + failed)
        return MetricsPartial(
            worst_n=self.worst_n,
            cases=self.cases + other.cases,
            samples=samples,
            category_of=category_of,
            scored_probes=self.scored_probes | other.scored_probes,
            errored_probes=self.errored_probes | other.errored_probes,
            error_classes=dict(Counter(self.error_classes) + Counter(other.error_classes)),
            groups=groups,
            failure_modes=dict(Counter(self.failure_modes) + Counter(other.failure_modes)),
            worst=_top(self.worst_n, [*self.worst, *other.worst]),
            verdicts=verdicts,
        )


def _worst_key(row: WorstCase) -> tuple[float, str, int]:
    return (-row.weighted_risk, row.probe_id, row.sample)


def _top(n: int, rows: Iterable[WorstCase]) -> tuple[WorstCase, ...]:
    """The ``n`` worst probes, each by its worst row.

    Exact across partitions: a probe among the ``n`` worst overall is among the ``n`` worst of
    the partition holding its worst sample, since every probe ranked above it there is ranked
    above it overall. (probe_id, sample) is unique, so the key is a total order.
    """
    best: dict[str, WorstCase] = {}
    for row in rows:
        known = best.get(row.probe_id)
        if known is None or _worst_key(row) < _worst_key(known):
            best[row.probe_id] = row
    return tuple(heapq.nsmallest(n, best.values(), key=_worst_key))


def _worst_case(case: CaseScore) -> WorstCase:
    # Built only for the few cases that make the list, all scored (checked when ranked).
    assert case.passed is not None and case.risk_score is not None
    assert case.weighted_risk is not None
    return WorstCase.model_construct(
        probe_id=case.probe_id,
        sample=case.sample,
        category=case.category,
        severity=case.severity,
        passed=case.passed,
        risk_score=case.risk_score,
        weighted_risk=case.weighted_risk,
        explanation=case.explanation,
    )


def runs_of(samples: Iterable[int]) -> SampleRuns:
    """Compress distinct sample indices into ``[start, stop)`` runs."""
    ordered = sorted(samples)
    if not ordered:
        return ()
    runs: list[tuple[int, int]] = []
    start = previous = ordered[0]
    for sample in ordered[1:]:
        if sample != previous + 1:
            runs.append((start, previous + 1))
            start = sample
        previous = sample
    runs.append((start, previous + 1))
    return tuple(runs)


def union_runs(probe_id: str, left: SampleRuns, right: SampleRuns) -> SampleRuns:
    """Union of two run lists that must not overlap (a shared sample is a double count)."""
    merged: list[tuple[int, int]] = []
    for start, stop in sorted([*left, *right]):
        if merged and start < merged[-1][1]:
            raise ValueError(
                f"probe '{probe_id}' sample {start} is in two partitions; each"
                " (probe_id, sample) must be scored once"
            )
        if merged and start == merged[-1][1]:
            merged[-1] = (merged[-1][0], stop)
        else:
            merged.append((start, stop))
    return tuple(merged)


class _GroupTally:
    """A group's tallies while cases are read (frozen into a :class:`GroupPartial` after).

    :func:`metrics_partial` adds to the fields directly: a call per case and group cost more
    than the tallying itself.
    """

    def __init__(self, with_values: bool) -> None:
        self.with_values = with_values
        self.n = self.passed = self.harness_errors = 0
        self.risk: list[float] = []
        self.weighted: list[float] = []
        self.weight_total: list[float] = []
        self.weight_passed: list[float] = []
        self.safe_hits = self.unsafe_hits = 0
        self.boundary_readings = self.boundary_hits = 0
        self.critical_failures = self.high_failures = 0
        self.low_confidence = self.judged = self.judge_agrees = 0

    def add(self, other: _GroupTally) -> None:
        """Add every tally and value of ``other`` to this group's."""
        self.n += other.n
        self.passed += other.passed
        self.harness_errors += other.harness_errors
        self.risk += other.risk
        self.weighted += other.weighted
        self.weight_total += other.weight_total
        self.weight_passed += other.weight_passed
        self.safe_hits += other.safe_hits
        self.unsafe_hits += other.unsafe_hits
        self.boundary_readings += other.boundary_readings
        self.boundary_hits += other.boundary_hits
        self.critical_failures += other.critical_failures
        self.high_failures += other.high_failures
        self.low_confidence += other.low_confidence
        self.judged += other.judged
        self.judge_agrees += other.judge_agrees

    def freeze(self) -> GroupPartial:
        return GroupPartial(
            n=self.n,
            passed=self.passed,
            harness_errors=self.harness_errors,
            risk=Distribution.of(self.risk),
            weighted=Distribution.of(self.weighted),
            weight_total=Distribution.of(self.weight_total),
            weight_passed=Distribution.of(self.weight_passed),
            safe_hits=self.safe_hits,
            unsafe_hits=self.unsafe_hits,
            boundary_readings=self.boundary_readings,
            boundary_hits=self.boundary_hits,
            critical_failures=self.critical_failures,
            high_failures=self.high_failures,
            low_confidence=self.low_confidence,
            judged=self.judged,
            judge_agrees=self.judge_agrees,
        )


def metrics_partial(
    cases: Sequence[CaseScore], *, worst_n: int = 10, first_index: int = 0
) -> MetricsPartial:
    """Tally one partition of scored cases.

    Args:
        cases: The partition's cases, harness errors included.
        worst_n: How many worst probes to keep (each by its worst sample).
        first_index: Position of ``cases[0]`` in the whole run, for error messages.

    Raises:
        ValueError: ``worst_n`` is negative, a (probe_id, sample) repeats, a probe changes
            category between samples, or a case without a harness error lacks a verdict.
    """
    if worst_n < 0:
        raise ValueError(f"worst_n must be >= 0, got {worst_n}")
    samples: dict[str, set[int]] = {}
    category_of: dict[str, str] = {}
    scored_probes: set[str] = set()
    errored_probes: set[str] = set()
    error_classes: Counter[str] = Counter()
    tallies: dict[tuple[str, str], _GroupTally] = {}
    modes: Counter[str] = Counter()
    verdicts: dict[str, list[int]] = {}
    # Per probe, the rank key of its worst case so far (and that case's position).
    worst_of: dict[str, tuple[float, str, int, int]] = {}

    def tally(key: tuple[str, str]) -> _GroupTally:
        found = tallies.get(key)
        if found is None:
            # Severity and expected rows are pass-rate rows: they need no value tables.
            found = tallies[key] = _GroupTally(with_values=key[0] in ("overall", "category"))
        return found

    # Cases are tallied per (probe, severity, expected) first, then each such tally is added
    # to its four groups (overall, category, severity, expected) once: one tally per case
    # instead of four. Every count is a sum and every value list becomes a value -> count
    # table, so the totals do not depend on the order the cases are added in.
    # A probe's groups and own tally are looked up once per probe rather than once per case:
    # (category, severity, expected, own tally), and the groups of each own tally.
    groups_of: dict[str, tuple[str, Severity, Expected, _GroupTally]] = {}
    own_tallies: dict[tuple[str, Severity, Expected], _GroupTally] = {}
    groups_of_own: list[tuple[_GroupTally, tuple[_GroupTally, ...]]] = []
    for index, case in enumerate(cases, start=first_index):
        probe_id, sample = case.probe_id, case.sample
        seen = samples.get(probe_id)
        if seen is None:
            seen = samples[probe_id] = set()
        if sample in seen:
            raise ValueError(
                f"case {index}: probe '{probe_id}' sample {sample} appears twice;"
                " each (probe_id, sample) must be scored once"
            )
        seen.add(sample)
        severity, expected = case.severity, case.expected
        groups = groups_of.get(probe_id)
        if (
            groups is None
            or groups[0] != case.category
            or groups[1] is not severity
            or groups[2] is not expected
        ):
            known = category_of.setdefault(probe_id, case.category)
            if known != case.category:
                raise ValueError(
                    f"case {index}: probe '{probe_id}' has category '{case.category}'"
                    f" but an earlier sample has '{known}'"
                )
            keys = (
                OVERALL,
                ("category", case.category),
                ("severity", severity.value),
                ("expected", expected.value),
            )
            found = tuple(tally(key) for key in keys)  # made in first-seen order, as before
            own = own_tallies.get((probe_id, severity, expected))
            if own is None:
                own = own_tallies[(probe_id, severity, expected)] = _GroupTally(with_values=True)
                groups_of_own.append((own, found))
            groups = groups_of[probe_id] = (case.category, severity, expected, own)
        own = groups[3]
        if case.error is not None:
            errored_probes.add(probe_id)
            error_classes[str(case.error)] += 1
            own.harness_errors += 1
            continue
        passed, risk, weighted = case.passed, case.risk_score, case.weighted_risk
        if passed is None or risk is None or weighted is None:
            raise ValueError(
                f"case {index}: probe '{probe_id}' sample {sample} has no harness error"
                " but lacks a verdict (passed, risk_score and weighted_risk must be set)"
            )
        scored_probes.add(probe_id)
        own.n += 1
        if passed:
            own.passed += 1
            own.weight_passed.append(case.severity_weight)
        elif severity is Severity.CRITICAL:
            own.critical_failures += 1
        elif severity is Severity.HIGH:
            own.high_failures += 1
        confidence = case.verdict_confidence
        if confidence is not None and confidence < LOW_CONFIDENCE:
            own.low_confidence += 1
        judge = case.judge
        if judge is not None:
            own.judged += 1
            own.judge_agrees += judge.agrees
        own.risk.append(risk)
        own.weighted.append(weighted)
        own.weight_total.append(case.severity_weight)
        own.safe_hits += case.safe_signal_hits
        own.unsafe_hits += case.unsafe_signal_hits
        # A scored case whose detector gave no reading (None) is no evidence either way.
        boundary = case.boundary_or_refusal_signal
        if boundary is not None:
            own.boundary_readings += 1
            own.boundary_hits += boundary
        # A mode counts once per case even if a buggy scorer listed it twice.
        if case.detected_failure_modes:
            modes.update(set(case.detected_failure_modes))
        counts = verdicts.get(probe_id)
        if counts is None:
            counts = verdicts[probe_id] = [0, 0]
        counts[0 if passed else 1] += 1
        rank = (-weighted, probe_id, sample, index - first_index)
        so_far = worst_of.get(probe_id)
        if so_far is None or rank < so_far:
            worst_of[probe_id] = rank
    for own, (overall, category, by_severity, by_expected) in groups_of_own:
        for group in (by_severity, by_expected):
            group.n += own.n
            group.passed += own.passed
            group.harness_errors += own.harness_errors
            group.critical_failures += own.critical_failures
            group.high_failures += own.high_failures
        for group in (overall, category):
            group.add(own)

    ranked = heapq.nsmallest(worst_n, worst_of.values())
    worst = [_worst_case(cases[position]) for *_, position in ranked]

    return MetricsPartial(
        worst_n=worst_n,
        cases=len(cases),
        samples={probe_id: runs_of(s) for probe_id, s in samples.items()},
        category_of=category_of,
        scored_probes=frozenset(scored_probes),
        errored_probes=frozenset(errored_probes),
        error_classes=dict(error_classes),
        groups={key: t.freeze() for key, t in tallies.items()},
        failure_modes=dict(modes),
        worst=tuple(worst),
        verdicts={probe_id: (c[0], c[1]) for probe_id, c in verdicts.items()},
    )


def merge_metrics(partials: Iterable[MetricsPartial], *, worst_n: int = 10) -> MetricsPartial:
    """Merge partials of disjoint partitions; no partial at all is an empty run."""
    merged = MetricsPartial(worst_n=worst_n)
    for partial in partials:
        merged = merged.merge(partial)
    return merged
