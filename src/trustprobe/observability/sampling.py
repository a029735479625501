"""The cases the failure geometry is computed from: all of a run's, up to a bounded sample.

A run of up to :data:`SAMPLE_SIZE` scored cases is mapped whole. Above that the geometry is
computed from a seeded, stratified sample, so its memory and time stop growing with the run:

* the :data:`SAMPLE_SIZE` scored cases with the smallest draws (:func:`sample_priority`, a
  keyed hash of seed, probe id and sample), a uniform sample;
* topped up so that every stratum — a (category, pass or fail) pair — holds at least
  :data:`STRATUM_FLOOR` cases (or all of its cases, if it has fewer): rare failures and small
  categories stay on the map.

Draws depend on the case alone, so a sample taken chunk by chunk, or merged from partitions,
holds the same cases however the run was split.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from trustprobe.observability.geometry import case_verdict, fit_sample_size, sample_priorities
from trustprobe.scoring.models import CaseScore

SAMPLE_SIZE: Final = fit_sample_size()
"""Scored cases mapped whole (20,000); above it the geometry comes from a sample."""
STRATUM_FLOOR = 200
"""Cases kept at least per (category, outcome) stratum in a sampled run."""


def _size() -> int:
    return fit_sample_size()  # read when a sample is made, like the fitting sample's size


def _floor() -> int:
    return STRATUM_FLOOR


_Entry = tuple[int, int, Any]
"""(negated draw, negated position, item): heaps keep the largest entry on top to evict.

The item is the case itself, or where to read it again (:meth:`ObservabilitySample.add`)."""


@dataclass
class _Smallest:
    """The ``limit`` entries with the smallest (draw, position) seen so far."""

    limit: int
    heap: list[_Entry] = field(default_factory=list)

    def offer(self, entry: _Entry) -> None:
        heap = self.heap
        if len(heap) < self.limit:
            heapq.heappush(heap, entry)
            return
        if not heap:  # a limit of 0 keeps nothing
            return
        top = heap[0]
        # Positions are unique, so the items themselves are never compared.
        if entry[0] > top[0] or (entry[0] == top[0] and entry[1] > top[1]):
            heapq.heapreplace(heap, entry)


@dataclass
class ObservabilitySample:
    """A bounded, seeded, stratified sample of a run's scored cases, built as cases arrive."""

    seed: int
    size: int = field(default_factory=_size)
    floor: int = field(default_factory=_floor)
    offered: int = 0
    """Cases offered, harness errors included."""
    scored: int = 0
    """Scored cases offered (harness errors are counted apart)."""
    harness_errors: int = 0
    """Harness-error cases offered: they carry no verdict to place."""
    _uniform: _Smallest = field(init=False)
    _strata: dict[tuple[str, bool], _Smallest] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._uniform = _Smallest(self.size)

    def add(
        self,
        cases: Iterable[CaseScore],
        first: int | None = None,
        places: Sequence[Any] | None = None,
    ) -> None:
        """Offer cases in run order; ``first`` is the run position of the first one.

        By default positions count on from the cases offered before; a partition of a run
        passes its own start, so that partitions' samples merge (:meth:`merge`) in run order.
        With ``places`` (one per case), the sample keeps those, not the cases: a cluster's
        workers send where to read the chosen cases again, which is small.
        """
        position = self.offered if first is None else first
        # Made per call, not kept: a sample travels between processes (pickled), hash states
        # do not.
        priority = sample_priorities(self.seed)
        uniform, strata = self._uniform, self._strata
        for index, case in enumerate(cases):
            position += 1
            self.offered += 1
            if case.error is not None:
                self.harness_errors += 1
                continue
            passed = case.passed
            if passed is None or case.risk_score is None:
                passed, _ = case_verdict(case)  # raises: a scored case must carry a verdict
            self.scored += 1
            key = -priority(case.probe_id, case.sample)
            # Once a heap is full most cases draw above its largest kept draw: they are
            # passed over here, without building the entry (offer would keep none of them).
            heap = uniform.heap
            if len(heap) < uniform.limit or (heap and key >= heap[0][0]):
                uniform.offer((key, -position, case if places is None else places[index]))
            stratum = strata.get((case.category, passed))
            if stratum is None:
                stratum = strata[(case.category, passed)] = _Smallest(self.floor)
            heap = stratum.heap
            if len(heap) < stratum.limit or (heap and key >= heap[0][0]):
                stratum.offer((key, -position, case if places is None else places[index]))

    def merge(self, other: ObservabilitySample) -> None:
        """Take in the sample of another, disjoint partition of the same run (same seed)."""
        if (other.seed, other.size, other.floor) != (self.seed, self.size, self.floor):
            raise ValueError("only samples with the same seed, size and floor merge")
        self.offered += other.offered
        self.scored += other.scored
        self.harness_errors += other.harness_errors
        for entry in other._uniform.heap:
            self._uniform.offer(entry)
        for key, heap in other._strata.items():
            mine = self._strata.setdefault(key, _Smallest(self.floor))
            for entry in heap.heap:
                mine.offer(entry)

    @property
    def sampled(self) -> bool:
        """Whether some scored cases were left out (the run has more than :attr:`size`)."""
        return self.scored > self.size

    def cases(self) -> list[Any]:
        """The sampled scored cases in run order (every scored case unless :attr:`sampled`).

        The places given for them instead, if :meth:`add` was given places.
        """
        chosen: dict[int, Any] = {}
        for heap in (self._uniform, *self._strata.values()):
            for _, position, item in heap.heap:
                chosen[-position] = item
        return [chosen[p] for p in sorted(chosen)]
