"""Each agent's item readings with the three decay sums moved forward in time.

A dimension whose oldest scoring item has begun to decay needs Σ size·decayed over its items as
of ``now``, which the running totals do not give (docs/store.md, "Running totals"). That sum is
``W − κ·(SA − Γ·S)`` over three exact sums (:mod:`trustprobe.trust.decayed_sum`): Σ weighted
score over the items not at 0, Σ size and Σ size·age over the decaying ones. Each item moves
between those sums twice in its life, when its grace ends and when it reaches 0, so a queue per
event, ordered by the time it happens, gives the sums as of any later ``now`` at a cost that
follows the items that moved, not the agent's item count. An earlier ``now``, or other decay
settings, rebuild the dimension's queues from its items.
"""

from __future__ import annotations

import heapq
import threading
from array import array
from collections.abc import Sequence
from datetime import datetime

from trustprobe.trust import (
    DIMENSIONS,
    DecayedSum,
    DecayLimits,
    Dimension,
    Evidence,
    ExactSum,
    ItemReading,
    TrustConfig,
    epoch_microseconds,
    item_reading,
)
from trustprobe.trust.decayed_sum import exact_float_sum

DIMENSION_CODES = {dimension: code for code, dimension in enumerate(DIMENSIONS)}
_INDEX_BITS = 32
_INDEX_MASK = (1 << _INDEX_BITS) - 1


def readings_of(records: Sequence[Evidence], config: TrustConfig) -> list[tuple[ItemReading, int]]:
    """Each record's item reading and observation time (microseconds since the epoch)."""
    moments: dict[datetime, int] = {}  # records of a batch share few distinct times
    out = []
    for record in records:
        moment = moments.get(record.observed_at)
        if moment is None:
            moment = moments[record.observed_at] = epoch_microseconds(record.observed_at)
        out.append((item_reading(record, config), moment))
    return out


class DimensionDecay:
    """One (agent, dimension): its items, and the three sums as of ``now_us``.

    ``kept`` = Σ weighted score of the items not at 0; ``size`` and ``size_observed`` = Σ size
    and Σ size·observed of the decaying ones (Σ size·age is ``now·S − that``). Items still in
    grace wait in ``grace_queue`` by the first ``now`` at which they decay; decaying items wait
    in ``zero_queue`` by the first ``now`` at which they are at 0. A queue entry is the single
    integer ``time << 32 | index``, and the items are typed arrays: neither holds an object per
    item for the garbage collector to visit.
    """

    __slots__ = (
        "grace_queue",
        "kept",
        "limits",
        "now_us",
        "observed",
        "size",
        "size_observed",
        "sizes",
        "weighted",
        "zero_queue",
    )

    def __init__(self, limits: DecayLimits) -> None:
        self.sizes = array("d")
        self.weighted = array("d")
        self.observed = array("q")
        self._reset(limits)

    def _reset(self, limits: DecayLimits) -> None:
        self.limits = limits
        self.kept = ExactSum()
        self.size = ExactSum()
        self.size_observed = ExactSum()
        self.grace_queue: list[int] = []
        self.zero_queue: list[int] = []
        self.now_us: int | None = None

    def __len__(self) -> int:
        return len(self.sizes)

    def push(self, sizes: list[float], weighted: list[float], observed_us: list[int]) -> None:
        """Add items (they move at the next :meth:`advance`)."""
        start = len(self.sizes)
        self.sizes.extend(sizes)
        self.weighted.extend(weighted)
        self.observed.extend(observed_us)
        self.kept.add_exact(exact_float_sum(weighted))
        if self.limits.decays:
            due, queue = self.limits.grace_floor_us + 1, self.grace_queue
            for index, observed in enumerate(observed_us, start):
                heapq.heappush(queue, ((observed + due) << _INDEX_BITS) + index)

    def _rebuild(self, limits: DecayLimits) -> None:
        self._reset(limits)
        self.kept = exact_float_sum(self.weighted.tolist())
        if limits.decays:
            due = limits.grace_floor_us + 1
            self.grace_queue = [
                ((observed + due) << _INDEX_BITS) + i for i, observed in enumerate(self.observed)
            ]
            heapq.heapify(self.grace_queue)

    def advance(self, now_us: int, limits: DecayLimits) -> None:
        """Move the items whose grace ended or that reached 0 by ``now_us``."""
        if limits != self.limits or (self.now_us is not None and now_us < self.now_us):
            self._rebuild(limits)
        grace, zero = self.grace_queue, self.zero_queue
        last = ((now_us + 1) << _INDEX_BITS) - 1  # the greatest entry due by now_us
        while grace and grace[0] <= last:
            index = heapq.heappop(grace) & _INDEX_MASK
            size, observed = self.sizes[index], self.observed[index]
            self.size.add(size)
            self.size_observed.add_product(size, observed)
            zero_age = limits.zero_age(size, self.weighted[index])
            heapq.heappush(zero, ((observed + zero_age) << _INDEX_BITS) + index)
        while zero and zero[0] <= last:
            index = heapq.heappop(zero) & _INDEX_MASK
            size = self.sizes[index]
            self.kept.add(-self.weighted[index])
            self.size.add(-size)
            self.size_observed.add_product(-size, self.observed[index])
        self.now_us = now_us

    def sums(self, now_us: int, limits: DecayLimits) -> DecayedSum:
        """The three sums as of ``now_us`` (new, so more items may be added to them)."""
        self.advance(now_us, limits)
        size, size_observed = self.size, self.size_observed
        exponent = max(size.exponent, size_observed.exponent)
        size_age = ExactSum(
            (now_us * size.numerator << (exponent - size.exponent))
            - (size_observed.numerator << (exponent - size_observed.exponent)),
            exponent,
        )
        return DecayedSum(
            limits, ExactSum(self.kept.numerator, self.kept.exponent),
            ExactSum(size.numerator, size.exponent), size_age,
        )  # fmt: skip


class AgentDecay:
    """One agent's :class:`DimensionDecay` by dimension, holding its rows up to ``seq``.

    Shared between rescorings of the agent in one process: use it under ``lock``.
    """

    def __init__(self) -> None:
        self.seq = 0
        self.dimensions: dict[Dimension, DimensionDecay] = {}
        self.lock = threading.Lock()
        self.accounted = 0
        """Items the cache counted for it."""

    def __len__(self) -> int:
        return sum(len(d) for d in self.dimensions.values())

    def push(
        self,
        records: Sequence[Evidence],
        readings: Sequence[tuple[ItemReading, int]],
        limits: DecayLimits,
    ) -> None:
        """Add ``records`` (whose :func:`readings_of` are ``readings``)."""
        columns: dict[Dimension, tuple[list[float], list[float], list[int]]] = {}
        for record, (reading, observed) in zip(records, readings, strict=True):
            found = columns.get(record.dimension)
            if found is None:
                found = columns[record.dimension] = ([], [], [])
            found[0].append(reading.size)
            found[1].append(reading.size * reading.score)
            found[2].append(observed)
        for dimension, (sizes, weighted, moments) in columns.items():
            entry = self.dimensions.get(dimension)
            if entry is None:
                entry = self.dimensions[dimension] = DimensionDecay(limits)
            entry.push(sizes, weighted, moments)

    def counts(self) -> dict[Dimension, int]:
        """Items per dimension (dimensions without items left out)."""
        return {d: len(items) for d, items in self.dimensions.items() if len(items)}

    def sums(
        self, dimensions: Sequence[Dimension], now_us: int, limits: DecayLimits
    ) -> dict[Dimension, DecayedSum]:
        """The three sums of each of ``dimensions`` as of ``now_us`` (an empty one: none)."""
        return {
            d: self.dimensions[d].sums(now_us, limits)
            if d in self.dimensions
            else DecayedSum(limits)
            for d in dimensions
        }
