"""Score many agents at once over a columnar evidence table, exactly as one at a time.

The result equals :func:`~trustprobe.trust.composite.compute_trust_score` agent by agent.

Exactness: every floating-point operation is the one the per-agent path makes. The sums over the
items of one (agent, dimension) are exact sums rounded once (``math.fsum``, as in
``combine_readings``), never ``np.add.reduceat``, whose pairwise summation would differ in the
last bits and could flip a rounding; Σ size·decayed is the exact real-number sum rounded once,
from three exact group sums (:mod:`~trustprobe.trust.decayed_sum`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

from trustprobe.errors import InputError
from trustprobe.trust.composite import (
    AgentReadings,
    check_now,
    finalise_score,
    unique_evidence,
)
from trustprobe.trust.config import TrustConfig
from trustprobe.trust.decay import epoch_microseconds
from trustprobe.trust.decayed_sum import (
    decay_limits,
    decay_phases,
    decayed_total,
    exact_float_sum,
    exact_products,
)
from trustprobe.trust.dimension_scores import DimensionReading, item_reading
from trustprobe.trust.dimensions import DIMENSIONS, Dimension
from trustprobe.trust.evidence import Evidence, EvidenceOrigin
from trustprobe.trust.exact_sum import ExactSum
from trustprobe.trust.score import ScoreSource, TrustScore
from trustprobe.trust.sources import score_sources
from trustprobe.trust.weights import WeightSet

ITEM_SCORING_FIELDS = (
    "jury_trim_fraction",
    "jury_min_verdicts",
    "latency_tolerance",
    "cost_ratio_at_zero",
    "compliance_violation_penalty",
    "harness_error_penalty",
    "eval_rigor_coverage_weight",
)
"""Config fields that shape item readings; a table is only valid for configs that agree on them."""

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class EvidenceTable:
    """Evidence items as columns, each already turned into its raw reading (one row per item)."""

    agent_ids: tuple[str, ...]
    """Agent id of each agent code."""
    agent: IntArray
    """Agent code of each row (index into ``agent_ids``)."""
    dimension: IntArray
    """Dimension code of each row (index into :data:`DIMENSIONS`)."""
    item_id: npt.NDArray[np.str_]
    """Evidence id of each row; a repeated id counts once."""
    score: FloatArray
    """Raw 0–100 reading of each row, before decay."""
    size: FloatArray
    """Observations behind each row (its weight within the dimension)."""
    low_confidence: BoolArray
    """Whether each row is a jury too small to trim."""
    observed_us: IntArray
    """Observation time of each row, in microseconds since the Unix epoch."""
    config: TrustConfig = field(default_factory=TrustConfig)
    """Config the readings were computed with."""
    origins: tuple[EvidenceOrigin, ...] = ()
    """Distinct ``source`` objects of the records, indexed by ``origin``."""
    origin: IntArray | None = None
    """Index into ``origins`` of each row's source, -1 for a record without one (``None``: none
    has one)."""

    def __post_init__(self) -> None:
        n = len(self.agent)
        columns = {
            "dimension": self.dimension,
            "item_id": self.item_id,
            "score": self.score,
            "size": self.size,
            "low_confidence": self.low_confidence,
            "observed_us": self.observed_us,
        }
        for name, column in columns.items():
            if len(column) != n:
                raise ValueError(f"column '{name}' has {len(column)} rows, 'agent' has {n}")
        for name in ("agent", "dimension", "observed_us"):
            if getattr(self, name).dtype.kind not in "iu":
                raise ValueError(f"column '{name}' must hold integers")
        if len(set(self.agent_ids)) != len(self.agent_ids):
            raise ValueError("agent_ids must be unique")
        if n and (self.agent.min() < 0 or self.agent.max() >= len(self.agent_ids)):
            raise ValueError("agent codes must index agent_ids")
        if n and (self.dimension.min() < 0 or self.dimension.max() >= len(DIMENSIONS)):
            raise ValueError("dimension codes must be 0–15")
        if n and not (np.all(self.score >= 0.0) and np.all(self.score <= 100.0)):
            raise ValueError("scores must be within 0–100")
        if n and not np.all(self.size >= 1.0):
            raise ValueError("sizes must be at least 1")
        if self.origin is not None and (
            len(self.origin) != n or (n and self.origin.max() >= len(self.origins))
        ):
            raise ValueError("column 'origin' must have a row per item and index origins")

    def __len__(self) -> int:
        return len(self.agent)

    @classmethod
    def from_evidence(
        cls, evidence: Iterable[Evidence], *, config: TrustConfig | None = None
    ) -> EvidenceTable:
        """Build the table from evidence records (a repeated id counts once)."""
        config = config or TrustConfig()
        items = list(unique_evidence(evidence).values())
        agent_ids = tuple(sorted({e.agent_id for e in items}))
        codes = {agent_id: code for code, agent_id in enumerate(agent_ids)}
        dimension_codes = {d: code for code, d in enumerate(DIMENSIONS)}
        readings = [item_reading(e, config) for e in items]
        origins = tuple(dict.fromkeys(e.source for e in items if e.source is not None))
        origin_codes = {origin: code for code, origin in enumerate(origins)}
        return cls(
            agent_ids=agent_ids,
            agent=np.fromiter((codes[e.agent_id] for e in items), np.int64, len(items)),
            dimension=np.fromiter(
                (dimension_codes[e.dimension] for e in items), np.int64, len(items)
            ),
            item_id=np.array([e.id for e in items], dtype=np.str_),
            score=np.fromiter((r.score for r in readings), np.float64, len(items)),
            size=np.fromiter((r.size for r in readings), np.float64, len(items)),
            low_confidence=np.fromiter((r.low_confidence for r in readings), np.bool_, len(items)),
            observed_us=np.fromiter(
                (epoch_microseconds(e.observed_at) for e in items), np.int64, len(items)
            ),
            config=config,
            origins=origins,
            origin=np.fromiter(
                (-1 if e.source is None else origin_codes[e.source] for e in items),
                np.int64,
                len(items),
            )
            if origins
            else None,
        )


def _origins_by_agent(
    table: EvidenceTable, rows: IntArray
) -> dict[int, list[tuple[EvidenceOrigin, Dimension]]]:
    """The ``source`` and dimension of each used row that has one, per agent code."""
    found: dict[int, list[tuple[EvidenceOrigin, Dimension]]] = {}
    if table.origin is None:
        return found
    with_origin = rows[table.origin[rows] >= 0]
    for row in sorted(with_origin.tolist()):
        found.setdefault(int(table.agent[row]), []).append(
            (table.origins[table.origin[row]], DIMENSIONS[table.dimension[row]])
        )
    return found


def _deduplicate(table: EvidenceTable) -> tuple[IntArray, IntArray]:
    """Rows to keep (first of each id) and each kept row's id rank; conflicting repeats raise."""
    unique_ids, first, inverse = np.unique(table.item_id, return_index=True, return_inverse=True)
    if len(unique_ids) == len(table):
        return np.arange(len(table)), inverse.astype(np.int64)
    representative = first[inverse]
    for column in (
        table.agent,
        table.dimension,
        table.score,
        table.size,
        table.low_confidence,
        table.observed_us,
        *(() if table.origin is None else (table.origin,)),
    ):
        clash = np.flatnonzero(column != column[representative])
        if len(clash):
            raise InputError(
                f"evidence id '{table.item_id[clash[0]]}' appears twice with different content",
                field="id",
            )
    return first.astype(np.int64), np.arange(len(unique_ids), dtype=np.int64)


def _exact_group_sums(
    starts: IntArray, lengths: IntArray, columns: Sequence[FloatArray]
) -> list[FloatArray]:
    """Per-group sums of each column, each the exact sum of its rows rounded once."""
    bounds = list(zip(starts.tolist(), (starts + lengths).tolist(), strict=True))
    sums = []
    for column in columns:
        values = column.tolist()
        sums.append(
            np.fromiter((math.fsum(values[a:b]) for a, b in bounds), np.float64, len(bounds))
        )
    return sums


def _group_decayed_sums(
    starts: IntArray,
    lengths: IntArray,
    *,
    size: FloatArray,
    weighted: FloatArray,
    age: IntArray,
    config: TrustConfig,
) -> FloatArray:
    """Per-group Σ size·decayed, as :class:`~trustprobe.trust.decayed_sum.DecayedSum` gives it.

    The items' phases are found for all rows at once. A group with no decaying item sums the
    weighted scores of its items not at 0 (``math.fsum``, the same rounding); the others take
    the exact sums of their three columns and the one formula.
    """
    limits = decay_limits(config)
    decaying, zero = decay_phases(size, weighted, age, limits)
    kept = np.where(zero, 0.0, weighted).tolist()
    bounds = list(zip(starts.tolist(), (starts + lengths).tolist(), strict=True))
    out = np.fromiter((math.fsum(kept[a:b]) for a, b in bounds), np.float64, len(bounds))
    with_decay = np.flatnonzero(np.add.reduceat(decaying, starts) > 0) if len(starts) else starts
    if not len(with_decay):
        return out
    sums = _decaying_sums(
        np.where(decaying, size, 0.0), np.where(decaying, age, 0), starts, bounds, with_decay
    )
    for group, (size_sum, size_age) in zip(with_decay.tolist(), sums, strict=True):
        a, b = bounds[group]
        out[group] = decayed_total(exact_float_sum(kept[a:b]), size_sum, size_age, limits)
    return out


_INT_SIZE_LIMIT = 2**31
_INT_GROUP_LIMIT = 32
_AGE_SPLIT = 26


def _decaying_sums(
    size: FloatArray,
    age: IntArray,
    starts: IntArray,
    bounds: list[tuple[int, int]],
    groups: IntArray,
) -> list[tuple[ExactSum, ExactSum]]:
    """Exact Σ size and Σ size·age of each of ``groups`` (rows not decaying hold 0 in both).

    Whole sizes below 2**31 in groups of at most 32 rows, with ages below 2**52 (the usual
    case), are summed in 64-bit integers for all groups at once: size × half an age stays below
    2**57, so a group's sum cannot overflow. Otherwise each group is summed from exact float
    products (:func:`exact_products`), or item by item when those are out of range too.
    """
    whole = (
        len(size)
        and int(np.diff(starts, append=len(size)).max()) <= _INT_GROUP_LIMIT
        and float(size.max()) < _INT_SIZE_LIMIT
        and int(age.max()) < 2**52
        and bool(np.all(size == np.trunc(size)))
    )
    if whole:
        counts = size.astype(np.int64)
        size_sums = np.add.reduceat(counts, starts)[groups].tolist()
        high = np.add.reduceat(counts * (age >> _AGE_SPLIT), starts)[groups].tolist()
        low = np.add.reduceat(counts * (age & (2**_AGE_SPLIT - 1)), starts)[groups].tolist()
        return [
            (ExactSum(n), ExactSum((h << _AGE_SPLIT) + lo))
            for n, h, lo in zip(size_sums, high, low, strict=True)
        ]
    products = exact_products(size, age)
    sizes = size.tolist()
    columns = [p.tolist() for p in products or ()]
    out = []
    for group in groups.tolist():
        a, b = bounds[group]
        if products is None:  # out of the split's range: item by item
            size_age = ExactSum()
            for row in range(a, b):
                size_age.add_product(sizes[row], int(age[row]))
        else:
            size_age = exact_float_sum([v for column in columns for v in column[a:b]])
        out.append((exact_float_sum(sizes[a:b]), size_age))
    return out


@dataclass(frozen=True, eq=False)
class ReadingGrid:
    """Dimension readings of many agents as agent × dimension grids (count 0: not covered)."""

    count: IntArray
    """Items per cell."""
    score: FloatArray
    """Decayed 0–100 score per cell."""
    raw: FloatArray
    """Score before decay per cell."""
    standard_error: FloatArray
    """Standard error per cell."""
    freshest: IntArray
    """Age in microseconds of the newest item per cell."""
    low_confidence: BoolArray
    """Whether a small jury is behind the cell."""

    @classmethod
    def empty(cls, n_agents: int) -> ReadingGrid:
        """Grids of ``n_agents`` rows with nothing covered."""
        shape = (n_agents, len(DIMENSIONS))
        return cls(
            count=np.zeros(shape, dtype=np.int64),
            score=np.zeros(shape),
            raw=np.zeros(shape),
            standard_error=np.zeros(shape),
            freshest=np.zeros(shape, dtype=np.int64),
            low_confidence=np.zeros(shape, dtype=np.bool_),
        )

    @classmethod
    def from_readings(cls, rows: Sequence[Mapping[Dimension, DimensionReading]]) -> ReadingGrid:
        """Grids of one row per agent, from its readings of the dimensions it covers."""
        grid = cls.empty(len(rows))
        codes = {d: code for code, d in enumerate(DIMENSIONS)}
        for row, readings in enumerate(rows):
            for dimension, reading in readings.items():
                cell = (row, codes[dimension])
                grid.count[cell] = reading.evidence_count
                grid.score[cell] = reading.score
                grid.raw[cell] = reading.raw_score
                grid.standard_error[cell] = reading.standard_error
                grid.freshest[cell] = reading.freshest_age_microseconds
                grid.low_confidence[cell] = reading.low_confidence
        return grid


def score_grid(
    agent_ids: Sequence[str],
    grid: ReadingGrid,
    *,
    as_of: datetime,
    evidence_counts: Sequence[int],
    ignored_future: Sequence[int],
    sources: Sequence[list[ScoreSource]],
    config: TrustConfig,
    weights: WeightSet,
) -> dict[str, TrustScore]:
    """Composite, gate and tiers of every agent of ``grid`` (row ``i`` is ``agent_ids[i]``).

    The composite and its standard error are vectorised over the grid, in the per-agent path's
    operation order; the rest is :func:`finalise_score`. Shared by :func:`compute_trust_scores`
    and the store's incremental rescoring.
    """
    n_agents = len(agent_ids)
    covered = grid.count > 0
    total_weight = np.zeros(n_agents)
    weighted = np.zeros(n_agents)
    for code, d in enumerate(DIMENSIONS):
        w = weights.weights[d]
        total_weight += np.where(covered[:, code], w, 0.0)
        weighted += np.where(covered[:, code], w * grid.score[:, code], 0.0)
    has_weight = (total_weight > 0.0).tolist()
    safe_total = np.where(total_weight > 0.0, total_weight, 1.0)
    variance = np.zeros(n_agents)
    grid_se = grid.standard_error
    for code, d in enumerate(DIMENSIONS):
        share = weights.weights[d] / safe_total
        term = (share * share) * (grid_se[:, code] * grid_se[:, code])
        variance += np.where(covered[:, code], term, 0.0)
    composite = (10.0 * (weighted / safe_total)).tolist()
    composite_se = (10.0 * np.sqrt(variance)).tolist()

    rows_of = zip(
        grid.score.tolist(),
        grid.raw.tolist(),
        grid.count.tolist(),
        grid.freshest.tolist(),
        grid.low_confidence.tolist(),
        grid_se.tolist(),
        strict=True,
    )
    results: dict[str, TrustScore] = {}
    for code, (agent_id, row) in enumerate(zip(agent_ids, rows_of, strict=True)):
        results[agent_id] = finalise_score(
            agent_id,
            as_of,
            AgentReadings(*row),
            (composite[code], composite_se[code]) if has_weight[code] else None,
            evidence_count=evidence_counts[code],
            ignored_future_count=ignored_future[code],
            config=config,
            weights=weights,
            sources=sources[code],
        )
    return results


def compute_trust_scores(
    table: EvidenceTable,
    *,
    now: datetime,
    config: TrustConfig | None = None,
    weights: WeightSet | None = None,
) -> dict[str, TrustScore]:
    """Score every agent in ``table`` as of ``now``; equal to :func:`compute_trust_score` per agent.

    ``config`` defaults to the table's; it must agree with it on :data:`ITEM_SCORING_FIELDS`.
    """
    config = config or table.config
    _check_item_config(config, table.config)
    weights = weights or WeightSet()
    as_of = check_now(now)
    n_agents = len(table.agent_ids)

    rows, age, id_rank, ignored_future = _current_rows(table, epoch_microseconds(as_of))
    origins = _origins_by_agent(table, rows)
    agent, dimension = table.agent[rows], table.dimension[rows]
    order = _item_order(agent, dimension, id_rank, n_agents)
    source = rows[order]
    agent, dimension, age = agent[order], dimension[order], age[order]
    grid = _reading_grid(
        n_agents,
        agent,
        dimension,
        age,
        score=table.score[source],
        size=table.size[source],
        low_confidence=table.low_confidence[source],
        config=config,
    )
    return score_grid(
        table.agent_ids,
        grid,
        as_of=as_of,
        evidence_counts=np.bincount(agent, minlength=n_agents).tolist(),
        ignored_future=ignored_future.tolist(),
        sources=[score_sources(origins.get(code, ())) for code in range(n_agents)],
        config=config,
        weights=weights,
    )


def _check_item_config(config: TrustConfig, table_config: TrustConfig) -> None:
    """Refuse a config whose item readings would differ from those the table holds."""
    for name in ITEM_SCORING_FIELDS:
        if getattr(config, name) != getattr(table_config, name):
            raise ValueError(
                f"config.{name} differs from the one the table was built with; rebuild the table"
            )


def _current_rows(
    table: EvidenceTable, now_us: int
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The rows that count as of ``now_us`` (first of each id, not in the future).

    Returns those rows, their ages and id ranks, and per agent code the items left out for
    lying in the future.
    """
    keep, id_rank = _deduplicate(table)
    age = now_us - table.observed_us[keep]
    current = age >= 0
    ignored_future = np.bincount(table.agent[keep][~current], minlength=len(table.agent_ids))
    return keep[current], age[current], id_rank[current], ignored_future


def _item_order(agent: IntArray, dimension: IntArray, id_rank: IntArray, n_agents: int) -> IntArray:
    """The order of rows by (agent, dimension, id)."""
    # Ids are unique by now, so one argsort of a combined key gives the order of
    # np.lexsort((id_rank, dimension, agent)), several times faster.
    group_key = agent * len(DIMENSIONS) + dimension
    id_span = int(id_rank.max(initial=0)) + 1
    if n_agents * len(DIMENSIONS) * id_span < 2**62:
        return np.argsort(group_key * id_span + id_rank)
    # The combined key would overflow int64.
    return np.lexsort((id_rank, dimension, agent))


def _reading_grid(
    n_agents: int,
    agent: IntArray,
    dimension: IntArray,
    age: IntArray,
    *,
    score: FloatArray,
    size: FloatArray,
    low_confidence: BoolArray,
    config: TrustConfig,
) -> ReadingGrid:
    """The dimension readings of every agent, from its items sorted by (agent, dimension)."""
    group_key = agent * len(DIMENSIONS) + dimension
    boundary = np.flatnonzero(np.diff(group_key)) + 1
    starts = np.concatenate(([0], boundary)).astype(np.int64) if len(group_key) else boundary
    lengths = np.diff(np.concatenate((starts, [len(group_key)]))).astype(np.int64)
    weighted = size * score
    total, weighted_raw = _exact_group_sums(starts, lengths, (size, weighted))
    weighted_decayed = _group_decayed_sums(
        starts, lengths, size=size, weighted=weighted, age=age, config=config
    )
    group_agent, group_dimension = agent[starts], dimension[starts]
    group_score = np.minimum(100.0, np.maximum(0.0, weighted_decayed / total))
    group_raw = np.minimum(100.0, np.maximum(0.0, weighted_raw / total))
    freshest = np.minimum.reduceat(age, starts) if len(starts) else age
    group_low = np.logical_or.reduceat(low_confidence, starts) if len(starts) else low_confidence
    # Same formula and operation order as readings.standard_error.
    z2 = config.interval_z * config.interval_z
    n_adj = total + z2
    shrunk = (total * group_score + 50.0 * z2) / n_adj
    group_se = np.sqrt(np.maximum(shrunk * (100.0 - shrunk), 0.0) / n_adj)

    # Dense agent × dimension grids; uncovered cells add exact zeros, which change no sum.
    grid = ReadingGrid.empty(n_agents)
    cells = (group_agent, group_dimension)
    grid.count[cells], grid.score[cells], grid.raw[cells] = lengths, group_score, group_raw
    grid.standard_error[cells], grid.freshest[cells] = group_se, freshest
    grid.low_confidence[cells] = group_low
    return grid
