"""Mergeable run-metric partials: one per partition of cases, combined exactly.

``aggregate_metrics(cases)`` is ``finalize_metrics(metrics_partial(cases))``; a distributed run
computes one partial per partition, merges them with :func:`merge_metrics` and finalises once.
Every field merges exactly (integer counts, value → count tables, sets, a top-N list under a
total order), so the merged partial, and the report, do not depend on how cases were split.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress
from operator import itemgetter
from typing import Any, Final

from trustprobe.metrics.distribution import Distribution
from trustprobe.metrics.models import WorstCase
from trustprobe.probes.models import Expected, Severity
from trustprobe.scoring.models import LOW_CONFIDENCE, CaseScore
from trustprobe.scoring.rows import ScoredCases

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


def _worst_case(row: tuple[Any, ...], sample: int) -> WorstCase:
    """The list's row of a case: its group's ``row`` (:data:`_FIELDS`) and its ``sample``."""
    # Built only for the few cases that make the list, all scored (checked when ranked).
    assert row[_PASSED] is not None and row[_RISK] is not None
    assert row[_WEIGHTED] is not None
    return WorstCase.model_construct(
        probe_id=row[_PROBE],
        sample=sample,
        category=row[_CATEGORY],
        severity=row[_SEVERITY],
        passed=row[_PASSED],
        risk_score=row[_RISK],
        weighted_risk=row[_WEIGHTED],
        explanation=row[_EXPLANATION],
    )


def runs_of(samples: Iterable[int]) -> SampleRuns:
    """Compress distinct sample indices into ``[start, stop)`` runs."""
    ordered = sorted(samples)
    if not ordered:
        return ()
    if ordered[-1] - ordered[0] == len(ordered) - 1:  # distinct, so one unbroken run
        return ((ordered[0], ordered[-1] + 1),)
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


_FIELD_NAMES: Final = (
    "probe_id",
    "sample",
    "category",
    "severity",
    "expected",
    "error",
    "passed",
    "risk_score",
    "weighted_risk",
    "severity_weight",
    "safe_signal_hits",
    "unsafe_signal_hits",
    "boundary_or_refusal_signal",
    "verdict_confidence",
    "judge",
    "detected_failure_modes",
    "explanation",
)
_FIELDS: Final = itemgetter(*_FIELD_NAMES)
"""What the metrics read of a case (of its ``__dict__``, where pydantic keeps its fields: half
the cost of reading them as attributes), or of a group of cases sharing a verdict, as a row,
in one pass: cases are large, and a second pass over them costs about as much as the first."""
_PROBE, _SAMPLE, _CATEGORY, _ERROR, _PASSED, _RISK, _WEIGHTED, _JUDGE, _MODES, _EXPLANATION = (
    _FIELD_NAMES.index(name)
    for name in (
        "probe_id",
        "sample",
        "category",
        "error",
        "passed",
        "risk_score",
        "weighted_risk",
        "judge",
        "detected_failure_modes",
        "explanation",
    )
)
_SEVERITY: Final = _FIELD_NAMES.index("severity")
_MEMO: Final = "metrics.row"
"""Where a shared verdict's row is kept (``ScoredCases.memos``)."""
_PROBE_CATEGORY: Final = itemgetter(_PROBE, _CATEGORY)
_OUTCOME: Final = itemgetter(_PROBE, _PASSED)
_MODES_OF: Final = itemgetter(_MODES)
_GROUP_LABELS: Final = itemgetter(_CATEGORY, _CATEGORY + 1, _CATEGORY + 2)
"""A row's category, severity and expected verdict: the groups it counts in."""
_PROFILE: Final = itemgetter(*range(_CATEGORY, _JUDGE))
"""Everything a scored case adds to its groups: its fields from category to confidence."""
_VERDICT: Final = slice(_PASSED - _CATEGORY, _WEIGHTED - _CATEGORY + 1)
"""A profile's passed, risk score and weighted risk."""


class _GroupTally:
    """A group's tallies while cases are read (frozen into a :class:`GroupPartial` after)."""

    def __init__(self) -> None:
        self.n = self.passed = self.harness_errors = 0
        self.risk: Counter[float] = Counter()
        self.weighted: Counter[float] = Counter()
        self.weight_total: Counter[float] = Counter()
        self.weight_passed: Counter[float] = Counter()
        self.safe_hits = self.unsafe_hits = 0
        self.boundary_readings = self.boundary_hits = 0
        self.critical_failures = self.high_failures = 0
        self.low_confidence = self.judged = self.judge_agrees = 0

    def freeze(self) -> GroupPartial:
        return GroupPartial(
            n=self.n,
            passed=self.passed,
            harness_errors=self.harness_errors,
            risk=Distribution.of_counts(self.risk),
            weighted=Distribution.of_counts(self.weighted),
            weight_total=Distribution.of_counts(self.weight_total),
            weight_passed=Distribution.of_counts(self.weight_passed),
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


class _Groups(dict[tuple[str, str], _GroupTally]):
    """The tallies of the groups a partition's cases count in, made as they are first needed."""

    def __missing__(self, key: tuple[str, str]) -> _GroupTally:
        tally = self[key] = _GroupTally()
        return tally

    def of(
        self, category: str, severity: Severity, expected: Expected
    ) -> tuple[_GroupTally, _GroupTally, _GroupTally, _GroupTally]:
        """The run's, the category's, the severity's and the expected verdict's tallies."""
        return (
            self[OVERALL],
            self[("category", category)],
            self[("severity", severity.value)],
            self[("expected", expected.value)],
        )

    def add_scored(self, profile: tuple[Any, ...], count: int) -> None:
        """Add ``count`` scored cases of one :data:`_PROFILE` to their groups.

        Severity and expected-verdict groups are pass-rate rows: they take counts only.
        """
        category, severity, expected, _, passed, risk, weighted, weight = profile[:8]
        safe, unsafe, boundary, confidence = profile[8:]
        groups = self.of(category, severity, expected)
        for group in groups:
            group.n += count
            if passed:
                group.passed += count
            elif severity is Severity.CRITICAL:
                group.critical_failures += count
            elif severity is Severity.HIGH:
                group.high_failures += count
        for group in groups[:2]:
            group.risk[risk] += count
            group.weighted[weighted] += count
            group.weight_total[weight] += count
            if passed:
                group.weight_passed[weight] += count
            group.safe_hits += safe * count
            group.unsafe_hits += unsafe * count
            # A scored case whose detector gave no reading (None) is no evidence either way.
            if boundary is not None:
                group.boundary_readings += count
                group.boundary_hits += boundary * count
            if confidence is not None and confidence < LOW_CONFIDENCE:
                group.low_confidence += count


def _raise_first_problem(rows: Sequence[tuple[Any, ...]], first_index: int) -> None:
    """Raise for the first case, in order, that a partition's cases may not hold.

    A case may not repeat a (probe_id, sample), change its probe's category, or lack a
    verdict without a harness error.
    """
    seen: set[tuple[str, int]] = set()
    category_of: dict[str, str] = {}
    for index, row in enumerate(rows, start=first_index):
        probe_id, sample, category = row[_PROBE], row[_SAMPLE], row[_CATEGORY]
        if (probe_id, sample) in seen:
            raise ValueError(
                f"case {index}: probe '{probe_id}' sample {sample} appears twice;"
                " each (probe_id, sample) must be scored once"
            )
        seen.add((probe_id, sample))
        known = category_of.setdefault(probe_id, category)
        if known != category:
            raise ValueError(
                f"case {index}: probe '{probe_id}' has category '{category}'"
                f" but an earlier sample has '{known}'"
            )
        if row[_ERROR] is None and None in (row[_PASSED], row[_RISK], row[_WEIGHTED]):
            raise ValueError(
                f"case {index}: probe '{probe_id}' sample {sample} has no harness error"
                " but lacks a verdict (passed, risk_score and weighted_risk must be set)"
            )
    raise AssertionError("no case has a problem")


def metrics_partial(
    cases: Sequence[CaseScore], *, worst_n: int = 10, first_index: int = 0
) -> MetricsPartial:
    """Tally one partition of scored cases.

    Cases given as :class:`~trustprobe.scoring.ScoredCases` are read as columns: a group's
    fields once, then its cases' samples (most cases of a run share their verdict).

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
    columns = ScoredCases.of(cases)
    # One row per group: its members differ only in their samples (and fields not read here).
    rows = _group_rows(columns)
    counted = Counter(columns.group_of)
    # Each group is counted once in C (with many rules most groups hold one case), then the
    # groups of several cases add the rest: first seen in group order, as cases in run order.
    more = [(rows[g], n - 1) for g, n in counted.items() if n > 1]
    scored = [row for row in rows if row[_ERROR] is None]
    scored_more = [(row, n) for row, n in more if row[_ERROR] is None]
    errors = [(row, counted[g]) for g, row in enumerate(rows) if row[_ERROR] is not None]
    # Cases sharing a profile add the same to the same groups: a chunk of thousands of
    # cases has a few hundred profiles. Every figure is a count or a value -> count table,
    # so the order of adding changes nothing.
    profiles = _tally(_PROFILE, scored, scored_more)
    category_of = dict(map(_PROBE_CATEGORY, rows))
    samples = _samples_by_probe(rows, columns)
    if (
        sum(len(set(taken)) for taken in samples.values()) < len(columns.samples)
        or len(set(map(_PROBE_CATEGORY, rows))) > len(category_of)
        or any(None in profile[_VERDICT] for profile in profiles)
    ):
        _raise_first_problem(_case_rows(rows, columns), first_index)
    groups = _group_partials(profiles, errors, scored, scored_more)
    verdicts = _probe_verdicts(scored, scored_more)
    error_classes: Counter[str] = Counter()
    for row, count in errors:
        error_classes[str(row[_ERROR])] += count
    return MetricsPartial(
        worst_n=worst_n,
        cases=len(columns.samples),
        samples={probe_id: runs_of(s) for probe_id, s in samples.items()},
        category_of=category_of,
        scored_probes=frozenset(verdicts),
        errored_probes=frozenset(row[_PROBE] for row, _ in errors),
        error_classes=dict(error_classes),
        groups=groups,
        failure_modes=_failure_modes(scored, scored_more),
        worst=tuple(
            _worst_case(rows[g], sample) for g, sample in _worst_members(rows, columns, worst_n)
        ),
        verdicts=verdicts,
    )


def _samples_by_probe(
    rows: Sequence[tuple[Any, ...]], columns: ScoredCases
) -> dict[str, list[int]]:
    """Per probe, in order of first appearance, the samples of its cases (repeats kept)."""
    probe_of = [row[_PROBE] for row in rows]
    samples: dict[str, list[int]] = {probe_id: [] for probe_id in probe_of}
    for probe_id, sample in zip(
        map(probe_of.__getitem__, columns.group_of), columns.samples, strict=True
    ):
        samples[probe_id].append(sample)
    return samples


def _group_partials(
    profiles: Mapping[tuple[Any, ...], int],
    errors: Sequence[tuple[tuple[Any, ...], int]],
    scored: Sequence[tuple[Any, ...]],
    scored_more: Sequence[tuple[tuple[Any, ...], int]],
) -> dict[tuple[str, str], GroupPartial]:
    """The tallies of every group the cases count in: scored cases, harness errors, judges."""
    groups = _Groups()
    for profile, count in profiles.items():
        groups.add_scored(profile, count)
    for row, count in errors:
        for group in groups.of(*_GROUP_LABELS(row)):
            group.harness_errors += count
    judged = _tally(
        _judged,
        [row for row in scored if row[_JUDGE] is not None],
        [(row, n) for row, n in scored_more if row[_JUDGE] is not None],
    )
    for (category, agrees), count in judged.items():
        for group in (groups[OVERALL], groups[("category", category)]):
            group.judged += count
            group.judge_agrees += agrees * count
    return {key: tally.freeze() for key, tally in groups.items()}


def _probe_verdicts(
    scored: Sequence[tuple[Any, ...]], scored_more: Sequence[tuple[tuple[Any, ...], int]]
) -> dict[str, tuple[int, int]]:
    """Per scored probe, its (passed, failed) cases."""
    verdicts: dict[str, tuple[int, int]] = {}
    for (probe_id, passed), count in _tally(_OUTCOME, scored, scored_more).items():
        ok, failed = verdicts.get(probe_id, (0, 0))
        verdicts[probe_id] = (ok + count, failed) if passed else (ok, failed + count)
    return verdicts


def _failure_modes(
    scored: Sequence[tuple[Any, ...]], scored_more: Sequence[tuple[tuple[Any, ...], int]]
) -> dict[str, int]:
    """How many scored cases list each failure mode."""
    # A mode counts once per case even if a buggy scorer listed it twice.
    modes = Counter(chain.from_iterable(map(set, filter(None, map(_MODES_OF, scored)))))
    for row, n in scored_more:
        for mode in set(row[_MODES] or ()):
            modes[mode] += n
    return dict(modes)


def _tally(
    key: Callable[[tuple[Any, ...]], Any],
    rows: Iterable[tuple[Any, ...]],
    more: Iterable[tuple[tuple[Any, ...], int]],
) -> Counter[Any]:
    """``key`` of each of ``rows`` counted once, then ``n`` more for each ``(row, n)``."""
    counts = Counter(map(key, rows))
    for row, n in more:
        counts[key(row)] += n
    return counts


def _judged(row: tuple[Any, ...]) -> tuple[str, bool]:
    """A judged row's category and whether the judge agreed with the rules."""
    return row[_CATEGORY], row[_JUDGE].agrees


def _group_rows(columns: ScoredCases) -> list[tuple[Any, ...]]:
    """Each group's :data:`_FIELDS`, read once a run for a verdict many chunks share."""
    rows = []
    for case, memo in zip(columns.groups, columns.memos, strict=True):
        if memo is None:
            rows.append(_FIELDS(case.__dict__))
            continue
        row = memo.get(_MEMO)
        if row is None:
            row = memo[_MEMO] = _FIELDS(case.__dict__)
        rows.append(row)
    return rows


def _case_rows(rows: Sequence[tuple[Any, ...]], columns: ScoredCases) -> list[tuple[Any, ...]]:
    """Each case's row, in order: its group's, with its own sample."""
    return [
        (*rows[g][:_SAMPLE], sample, *rows[g][_SAMPLE + 1 :])
        for g, sample in zip(columns.group_of, columns.samples, strict=True)
    ]


def _worst_members(
    rows: Sequence[tuple[Any, ...]], columns: ScoredCases, worst_n: int
) -> list[tuple[int, int]]:
    """The ``worst_n`` worst probes' worst scored cases, ranked, as (group, sample).

    A group's cases share its weighted risk: per probe, the groups of the highest are found
    first, then the smallest sample among their cases. Probes rank by that risk and their id
    alone (each id is one probe's), so the worst are picked first and only their groups'
    cases are looked at: the cases of the others are passed over in C.
    """
    highest: dict[str, tuple[float, list[int]]] = {}  # per probe: -weighted risk, its groups
    for g, row in enumerate(rows):
        if row[_ERROR] is None:
            key = -row[_WEIGHTED]
            so_far = highest.get(row[_PROBE])
            if so_far is None or key < so_far[0]:
                highest[row[_PROBE]] = (key, [g])
            elif key == so_far[0]:
                so_far[1].append(g)
    worst = heapq.nsmallest(worst_n, ((key, probe_id) for probe_id, (key, _) in highest.items()))
    candidates = {g for _, probe_id in worst for g in highest[probe_id][1]}
    smallest: dict[int, int] = {}
    members = zip(columns.group_of, columns.samples, strict=True)
    for g, sample in compress(members, map(candidates.__contains__, columns.group_of)):
        known = smallest.get(g)
        if known is None or sample < known:
            smallest[g] = sample
    ranks = [
        min((key, probe_id, smallest[g], g) for g in highest[probe_id][1])
        for key, probe_id in worst
    ]
    return [(g, sample) for *_, sample, g in ranks]


def merge_metrics(partials: Iterable[MetricsPartial], *, worst_n: int = 10) -> MetricsPartial:
    """Merge partials of disjoint partitions; no partial at all is an empty run."""
    merged = MetricsPartial(worst_n=worst_n)
    for partial in partials:
        merged = merged.merge(partial)
    return merged
