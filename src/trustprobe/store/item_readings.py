"""Each agent's item readings as columns: what the decayed sums need, without the records.

A dimension whose oldest scoring item has begun to decay needs Σ size·decayed over its items as
of ``now``, which no running total gives exactly (docs/store.md, "Running totals"). Everything
else of its reading comes from the totals. The items' size, raw score and observation time,
kept as columns, give that sum with a few array operations and one exact sum per dimension:
the same floats as the one-agent path, which computes each term the same way and sums them
with ``math.fsum``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from trustprobe.trust import (
    DIMENSIONS,
    Dimension,
    Evidence,
    TrustConfig,
    decayed_scores,
    epoch_microseconds,
    item_reading,
)

DIMENSION_CODES = {dimension: code for code, dimension in enumerate(DIMENSIONS)}


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
    def from_records(cls, records: Iterable[Evidence], config: TrustConfig) -> AgentItems:
        """The readings of ``records`` (read with ``config``'s item-scoring settings)."""
        dimension: list[int] = []
        size: list[float] = []
        score: list[float] = []
        observed: list[int] = []
        moments: dict[datetime, int] = {}  # records of a batch share few distinct times
        for record in records:
            reading = item_reading(record, config)
            dimension.append(DIMENSION_CODES[record.dimension])
            size.append(reading.size)
            score.append(reading.score)
            moment = moments.get(record.observed_at)
            if moment is None:
                moment = moments[record.observed_at] = epoch_microseconds(record.observed_at)
            observed.append(moment)
        return cls(
            np.array(dimension, np.int8),
            np.array(size, np.float64),
            np.array(score, np.float64),
            np.array(observed, np.int64),
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
        self, dimensions: Iterable[Dimension], *, now_us: int, config: TrustConfig
    ) -> dict[Dimension, float]:
        """Σ size·decayed as of ``now_us`` for each of ``dimensions``, rounded once.

        Equal to ``math.fsum(size * decayed_score(score, age))`` over the dimension's items,
        which is what ``combine_readings`` computes. No item may lie after ``now_us``.
        """
        wanted = list(dimensions)
        if not wanted:
            return {}
        age = now_us - self.observed_us
        if len(age) and int(age.min()) < 0:
            raise ValueError("an item lies after now: the decayed sums need every item current")
        terms = self.size * decayed_scores(self.score, age, config)
        return {
            dimension: math.fsum(terms[self.dimension == DIMENSION_CODES[dimension]].tolist())
            for dimension in wanted
        }
