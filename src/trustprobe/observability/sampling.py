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
from itertools import compress, repeat
from operator import attrgetter, is_, itemgetter, le
from typing import Any, Final

from trustprobe.observability.geometry import (
    case_verdict,
    fit_sample_size,
    grouped_draws,
    smallest_draws,
)
from trustprobe.scoring.models import CaseScore
from trustprobe.scoring.rows import ScoredCases, built

SAMPLE_SIZE: Final = fit_sample_size()
"""Scored cases mapped whole (20,000); above it the geometry comes from a sample."""
STRATUM_FLOOR = 200
"""Cases kept at least per (category, outcome) stratum in a sampled run."""


def _size() -> int:
    return fit_sample_size()  # read when a sample is made, like the fitting sample's size


def _floor() -> int:
    return STRATUM_FLOOR


_FIELDS: Final = itemgetter("error", "passed", "risk_score", "probe_id", "category")
"""What the sample reads of a case's ``__dict__`` (where pydantic keeps its fields), or of a
group of cases sharing a verdict's, besides its sample."""
_DICT_OF: Final = attrgetter("__dict__")
_ERROR_OF: Final = itemgetter(0)
"""A row of :data:`_FIELDS`' error."""
_POSITION_BITS: Final = 64
"""A kept case's key is its draw and run position in one integer: ``draw << 64 | position``."""
_POSITIONS: Final = (1 << _POSITION_BITS) - 1


_ANY_DRAW: Final = 1 << 64
"""Above every draw (64 bits): the bound of a stratum not full yet."""


def _open(kept: _Smallest) -> int:
    """The largest draw that may still enter ``kept``."""
    bound = kept.bound()
    return _ANY_DRAW if bound is None else bound


def _at_most(draws: Sequence[int], bound: int) -> list[int]:
    """Indices of the draws not above ``bound``."""
    return [at for at, draw in enumerate(draws) if draw <= bound]


@dataclass
class _Smallest:
    """The ``limit`` cases with the smallest (draw, position) seen so far.

    The heap holds each kept case's negated key (the largest key on top, to evict): one
    integer compares faster than a tuple. Positions are unique, so keys never tie.
    """

    limit: int
    heap: list[int] = field(default_factory=list)
    items: dict[int, Any] = field(default_factory=dict)
    """Each kept case (or where to read it again), by run position."""

    def bound(self) -> int | None:
        """When full, the largest draw kept: a later case drawing as much or more never enters."""
        if self.heap and len(self.heap) >= self.limit:
            return -self.heap[0] >> _POSITION_BITS
        return None

    def offer(self, key: int, item: Any) -> None:
        """Keep the case of ``key`` (``draw << 64 | position``) if it is among the smallest."""
        heap = self.heap
        if len(heap) < self.limit:
            heapq.heappush(heap, -key)
        elif heap and -key > heap[0]:  # a limit of 0 keeps nothing
            evicted = heapq.heapreplace(heap, -key)
            del self.items[-evicted & _POSITIONS]
        else:
            return
        self.items[key & _POSITIONS] = item

    def offer_drawn(
        self, draws: Sequence[int], indices: Sequence[int], start: int, items: Sequence[Any]
    ) -> None:
        """Offer the cases ``items[i]`` for ``i`` in ``indices``, at run positions ``start + i``.

        The bound only falls as cases enter, so a case drawing more than the bound before the
        first offer would not enter either: it is passed over without being offered.
        """
        bound = self.bound()
        chosen = range(len(indices)) if bound is None else _at_most(draws, bound)
        for at in chosen:
            i = indices[at]
            self.offer(draws[at] << _POSITION_BITS | (start + i), items[i])

    def take(self, other: _Smallest) -> None:
        """Offer every case ``other`` keeps."""
        for negated in other.heap:
            self.offer(-negated, other.items[-negated & _POSITIONS])


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
        columns = ScoredCases.of(cases if isinstance(cases, Sequence) else list(cases))
        start = (self.offered if first is None else first) + 1
        self.offered += len(columns)
        if not len(columns):
            return
        # Every field read in one pass, once per group of cases sharing a verdict: cases are
        # large, and each pass over them costs about as much as the first. Read through maps
        # of C calls: 153 against 253 ns a group (docs/benchmarks.md).
        groups = list(map(_FIELDS, map(_DICT_OF, columns.groups)))
        judged = list(map(is_, map(_ERROR_OF, groups), repeat(None)))
        # Per case, read by index in C: a chunk's cases are many, its groups fewer.
        flags = list(map(judged.__getitem__, columns.group_of))
        scored = list(compress(range(len(flags)), flags))
        group_of = list(compress(columns.group_of, flags))
        self.harness_errors += len(columns) - len(scored)
        unscored = next(
            (g for g, (_, ok, risk, *_) in enumerate(groups) if judged[g] and None in (ok, risk)),
            None,
        )
        if unscored is not None:
            case_verdict(columns.groups[unscored])  # raises: a scored case must carry a verdict
        self.scored += len(scored)
        if not scored:
            return
        items = columns.items() if places is None else places
        probe_of = [probe_id for *_, probe_id, _ in groups]
        samples = list(compress(columns.samples, flags))
        draws = grouped_draws(self.seed, probe_of, group_of, samples)
        self._uniform.offer_drawn(draws, scored, start, items)
        stratum_of = [(category, ok) for _, ok, _, _, category in groups]
        # The scored groups come in the order of their first cases: so do their new strata.
        for stratum in dict.fromkeys(compress(stratum_of, judged)):
            if stratum not in self._strata:
                self._strata[stratum] = _Smallest(self.floor)
        # A case drawing above its stratum's bound enters it never: each case is held to its
        # own group's bound, in passes in C; those left are offered stratum by stratum.
        kept_of = map(self._strata.get, stratum_of)  # None for a group of harness errors
        bound_of = [-1 if kept is None else _open(kept) for kept in kept_of]
        below = map(le, draws, map(bound_of.__getitem__, group_of))
        by_stratum: dict[tuple[str, bool], list[int]] = {}
        for at in compress(range(len(scored)), below):
            by_stratum.setdefault(stratum_of[group_of[at]], []).append(at)
        for stratum, members in by_stratum.items():
            self._strata[stratum].offer_drawn(
                [draws[at] for at in members], [scored[at] for at in members], start, items
            )

    def merge(self, other: ObservabilitySample) -> None:
        """Take in the sample of another, disjoint partition of the same run (same seed)."""
        if (other.seed, other.size, other.floor) != (self.seed, self.size, self.floor):
            raise ValueError("only samples with the same seed, size and floor merge")
        self.offered += other.offered
        self.scored += other.scored
        self.harness_errors += other.harness_errors
        self._uniform.take(other._uniform)
        for stratum, heap in other._strata.items():
            self._strata.setdefault(stratum, _Smallest(self.floor)).take(heap)

    @property
    def sampled(self) -> bool:
        """Whether some scored cases were left out (the run has more than :attr:`size`)."""
        return self.scored > self.size

    def cases(self) -> list[Any]:
        """The sampled scored cases in run order (every scored case unless :attr:`sampled`).

        The places given for them instead, if :meth:`add` was given places.
        """
        return [built(item) for item in self._chosen()]

    def columns(self) -> ScoredCases:
        """:meth:`cases` as columns (:meth:`ScoredCases.of_items`): no case is built again.

        Raises:
            TypeError: :meth:`add` was given places, not cases.
        """
        return ScoredCases.of_items(self._chosen())

    def _chosen(self) -> list[Any]:
        """What the sample keeps of its cases (cases, light cases or places), in run order."""
        chosen: dict[int, Any] = {}
        for heap in (self._uniform, *self._strata.values()):
            chosen.update(heap.items)
        return [chosen[p] for p in sorted(chosen)]

    def fit_positions(self) -> list[int]:
        """``fit_sample_positions`` of :meth:`cases`, from the draws kept, not hashed again."""
        keys = {
            -negated for kept in (self._uniform, *self._strata.values()) for negated in kept.heap
        }
        in_run_order = sorted(keys, key=_POSITIONS.__and__)  # the order of :meth:`cases`
        return smallest_draws([key >> _POSITION_BITS for key in in_run_order])
