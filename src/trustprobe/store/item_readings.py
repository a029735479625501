"""Each agent's item readings as columns: what the decayed sums need, without the records.

A dimension whose oldest scoring item has begun to decay needs Σ size·decayed over its items as
of ``now``, which no running total gives exactly (docs/store.md, "Running totals"). Everything
else of its reading comes from the totals. The items' size, raw score and observation time,
kept as columns, give that sum with a few array operations over every agent of a batch at once
and one exact sum per dimension: the same floats as the one-agent path, which computes each
term the same way and sums them with ``math.fsum``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from trustprobe.trust import (
    DIMENSIONS,
    Dimension,
    Evidence,
    ItemReading,
    TrustConfig,
    decayed_scores,
    epoch_microseconds,
    item_reading,
)

DIMENSION_CODES = {dimension: code for code, dimension in enumerate(DIMENSIONS)}
K = TypeVar("K")


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


@dataclass(frozen=True, eq=False)
class AgentItems:
    """One agent's items in sequence order: a row per stored record."""

    dimension: npt.NDArray[np.int8]
    """Dimension code (index into ``DIMENSIONS``)."""
    size: npt.NDArray[np.float64]
    """Observations behind the item."""
    score: npt.NDArray[np.float64]
    """Raw 0–100 reading, before decay."""
    observed_us: npt.NDArray[np.int64]
    """Observation time, microseconds since the Unix epoch."""

    def __len__(self) -> int:
        return len(self.dimension)

    @classmethod
    def empty(cls) -> AgentItems:
        """No items."""
        return cls(np.zeros(0, np.int8), np.zeros(0), np.zeros(0), np.zeros(0, np.int64))

    @classmethod
    def from_records(cls, records: Sequence[Evidence], config: TrustConfig) -> AgentItems:
        """The readings of ``records`` (read with ``config``'s item-scoring settings)."""
        return cls.from_readings(records, readings_of(records, config))

    @classmethod
    def from_readings(
        cls, records: Sequence[Evidence], readings: Sequence[tuple[ItemReading, int]]
    ) -> AgentItems:
        """The items of ``records``, whose :func:`readings_of` are ``readings``."""
        return cls(
            np.array([DIMENSION_CODES[record.dimension] for record in records], np.int8),
            np.array([reading.size for reading, _ in readings], np.float64),
            np.array([reading.score for reading, _ in readings], np.float64),
            np.array([observed for _, observed in readings], np.int64),
        )

    def extended(self, more: AgentItems) -> AgentItems:
        """These items followed by ``more``."""
        if not len(more):
            return self
        if not len(self):
            return more
        return AgentItems(
            np.concatenate((self.dimension, more.dimension)),
            np.concatenate((self.size, more.size)),
            np.concatenate((self.score, more.score)),
            np.concatenate((self.observed_us, more.observed_us)),
        )

    def counts(self) -> dict[Dimension, int]:
        """Items per dimension (dimensions without items left out)."""
        found = np.bincount(self.dimension, minlength=len(DIMENSIONS)).tolist()
        return {DIMENSIONS[code]: n for code, n in enumerate(found) if n}


def decayed_sums(
    agents: Mapping[K, tuple[AgentItems, Sequence[Dimension]]],
    *,
    now_us: int,
    config: TrustConfig,
) -> dict[K, dict[Dimension, float]]:
    """Σ size·decayed as of ``now_us`` for each agent's listed dimensions, rounded once.

    Equal to ``math.fsum(size * decayed_score(score, age))`` over the dimension's items, which
    is what ``combine_readings`` computes. Every agent's terms are computed in one pass (the
    same element-wise operations, so the same floats as agent by agent) and grouped by
    dimension, then agent, with one sort. No item may lie after ``now_us``.
    """
    if not agents:
        return {}
    columns = [items for items, _ in agents.values()]
    age = now_us - np.concatenate([items.observed_us for items in columns])
    if len(age) and int(age.min()) < 0:
        raise ValueError("an item lies after now: the decayed sums need every item current")
    size = np.concatenate([items.size for items in columns])
    score = np.concatenate([items.score for items in columns])
    dimension = np.concatenate([items.dimension for items in columns])
    terms = size * decayed_scores(score, age, config)
    # A stable sort by dimension keeps the agents in order within each dimension, so group
    # (dimension d, agent a) is run number d × agents + a.
    grouped = terms[np.argsort(dimension, kind="stable")].data  # iterates as Python floats
    agent = np.repeat(np.arange(len(columns)), [len(items) for items in columns])
    run_of = dimension.astype(np.int64) * len(columns) + agent
    runs = np.bincount(run_of, minlength=len(DIMENSIONS) * len(columns))
    ends = np.cumsum(runs).tolist()
    sums: dict[K, dict[Dimension, float]] = {}
    for number, (key, (_, dimensions)) in enumerate(agents.items()):
        sums[key] = {}
        for wanted in dimensions:
            run = DIMENSION_CODES[wanted] * len(columns) + number
            sums[key][wanted] = math.fsum(grouped[ends[run] - int(runs[run]) : ends[run]])
    return sums
