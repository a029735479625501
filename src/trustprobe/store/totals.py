"""Running totals per (agent, dimension): rescoring whose cost follows the batch, not the history.

Evidence is append-only, so what a dimension's score needs (item count, Σ size, Σ size·score,
newest observation...) only grows. The totals hold those sums exactly (:class:`ExactSum`), and
the trust engine rounds every sum once whatever the order of its terms, so a score computed from
totals equals, bit for bit, the score computed from the whole history. Decay is the exception:
a dimension with an item past its grace period as of ``now`` needs Σ size·decayed, which the
decay sums moved forward in time give (item_readings.py); an agent with an item observed after
``now`` is rescored from its whole history. Details in docs/store.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from sqlalchemy import Connection, delete, select, text

from trustprobe.formats import canonical_json, sha256_hex
from trustprobe.store.database import chunks, member_of
from trustprobe.store.item_readings import readings_of
from trustprobe.store.schema import ScoreTotalRow
from trustprobe.trust import (
    DIMENSIONS,
    ITEM_SCORING_FIELDS,
    Dimension,
    DimensionReading,
    Evidence,
    EvidenceOrigin,
    ExactSum,
    ItemReading,
    ReadingGrid,
    ScoreSource,
    TrustConfig,
    TrustScore,
    WeightSet,
    check_now,
    counted_score_sources,
    decay_limits,
    epoch_microseconds,
    reading_from_sums,
    score_grid,
)
from trustprobe.trust.composite import score_readings

BATCH_ENGINE_MIN_AGENTS: Final = 8
"""From this many agents, a rescoring computes the composites on the batch engine's grids."""


def config_key(config: TrustConfig | None) -> str:
    """SHA-256 of the settings item readings depend on: totals are valid for one such set."""
    config = config or TrustConfig()
    return sha256_hex(canonical_json({name: getattr(config, name) for name in ITEM_SCORING_FIELDS}))


@dataclass
class DimensionTotal:
    """The running totals of one (agent, dimension)."""

    count: int = 0
    """Items (every stored one, including any observed after a later ``now``)."""
    size: ExactSum = field(default_factory=ExactSum)
    """Exact Σ size."""
    raw: ExactSum = field(default_factory=ExactSum)
    """Exact Σ size·score (undecayed), each product rounded as the engine rounds it."""
    low_confidence: bool = False
    """Whether any item is a jury too small to trim."""
    newest_us: int | None = None
    """Latest observation, microseconds since the epoch."""
    oldest_scored_us: int | None = None
    """Earliest observation of an item scoring above 0 (only those can lose points to decay)."""
    origins: dict[str, int] = field(default_factory=dict)
    """Canonical JSON of each ``source`` → items carrying it."""
    evidence_seq: int = 0
    """The totals count every row of the (agent, dimension) up to this evidence seq."""

    def add(self, reading: ItemReading, observed_us: int, origin: EvidenceOrigin | None) -> None:
        """Count one more item."""
        self.count += 1
        self.size.add(reading.size)
        self.raw.add(reading.size * reading.score)
        self.low_confidence = self.low_confidence or reading.low_confidence
        if self.newest_us is None or observed_us > self.newest_us:
            self.newest_us = observed_us
        if reading.score > 0.0 and (
            self.oldest_scored_us is None or observed_us < self.oldest_scored_us
        ):
            self.oldest_scored_us = observed_us
        if origin is not None:
            key = origin.model_dump_json()
            self.origins[key] = self.origins.get(key, 0) + 1

    def merge(self, other: DimensionTotal) -> None:
        """Count the items ``other`` counts (none of them counted here yet).

        Equal to adding those items one by one: the sums are exact, the rest are counts and
        extremes.
        """
        self.count += other.count
        self.size.add_exact(other.size)
        self.raw.add_exact(other.raw)
        self.low_confidence = self.low_confidence or other.low_confidence
        if other.newest_us is not None and (
            self.newest_us is None or other.newest_us > self.newest_us
        ):
            self.newest_us = other.newest_us
        if other.oldest_scored_us is not None and (
            self.oldest_scored_us is None or other.oldest_scored_us < self.oldest_scored_us
        ):
            self.oldest_scored_us = other.oldest_scored_us
        for key, count in other.origins.items():
            self.origins[key] = self.origins.get(key, 0) + count
        self.evidence_seq = max(self.evidence_seq, other.evidence_seq)

    def undecayed_at(self, now_us: int, config: TrustConfig) -> bool:
        """Whether, as of ``now_us``, no item is in the future and none has lost points to decay.

        Then every item contributes its weighted score, so Σ size·decayed is Σ size·score, which
        the totals hold (items scoring 0 contribute 0 either way).
        """
        return not self.in_future(now_us) and not self.decaying_at(now_us, config)

    def in_future(self, now_us: int) -> bool:
        """Whether an item lies after ``now_us`` (it would not count yet)."""
        assert self.newest_us is not None
        return self.newest_us > now_us

    def decaying_at(self, now_us: int, config: TrustConfig) -> bool:
        """Whether an item scoring above 0 is past its grace period as of ``now_us``.

        The oldest such item decides; the test is exact (:class:`DecayLimits`).
        """
        limits = decay_limits(config)
        return (
            limits.decays
            and self.oldest_scored_us is not None
            and now_us - self.oldest_scored_us > limits.grace_floor_us
        )

    def reading(
        self, now_us: int, config: TrustConfig, *, weighted_decayed: float | None = None
    ) -> DimensionReading:
        """The dimension's reading as of ``now_us``.

        ``weighted_decayed`` is Σ size·decayed as of ``now_us``, needed where
        :meth:`decaying_at` holds; elsewhere it is Σ size·score, which the totals hold. No item
        may lie after ``now_us``.
        """
        assert self.newest_us is not None
        weighted = self.raw.value()
        return reading_from_sums(
            total=self.size.value(),
            weighted_raw=weighted,
            weighted_decayed=weighted if weighted_decayed is None else weighted_decayed,
            count=self.count,
            freshest_age_microseconds=now_us - self.newest_us,
            low_confidence=self.low_confidence,
            config=config,
        )


AgentTotals = dict[Dimension, DimensionTotal]
"""One agent's totals by dimension (dimensions without evidence are absent)."""


def add_records(
    totals: AgentTotals, records: Sequence[Evidence], config: TrustConfig, *, evidence_seq: int
) -> None:
    """Count ``records`` (all of one agent, none counted before) into ``totals``."""
    add_readings(totals, records, readings_of(records, config), evidence_seq=evidence_seq)


def add_readings(
    totals: AgentTotals,
    records: Sequence[Evidence],
    readings: Sequence[tuple[ItemReading, int]],
    *,
    evidence_seq: int,
) -> None:
    """:func:`add_records` with the records' :func:`readings_of` already computed."""
    touched = set()
    for record, (reading, observed) in zip(records, readings, strict=True):
        total = totals.get(record.dimension)
        if total is None:
            total = totals[record.dimension] = DimensionTotal()
        total.add(reading, observed, record.source)
        touched.add(record.dimension)
    for dimension in touched:
        total = totals[dimension]
        total.evidence_seq = max(total.evidence_seq, evidence_seq)


def merge_totals(totals: AgentTotals, batch: AgentTotals) -> None:
    """Count into ``totals`` the items ``batch`` counts (none of them counted there yet)."""
    for dimension, total in batch.items():
        found = totals.get(dimension)
        if found is None:
            found = totals[dimension] = DimensionTotal()
        found.merge(total)


def totals_from_history(
    records: Iterable[tuple[int, Evidence]], config: TrustConfig
) -> AgentTotals:
    """Totals of one agent from its whole history of (seq, record)."""
    totals: AgentTotals = {}
    for seq, record in records:
        add_records(totals, (record,), config, evidence_seq=seq)
    return totals


_TOTAL_COLUMNS = (
    "agent_pk",
    "dimension",
    "organisation_id",
    "config_key",
    "evidence_seq",
    "item_count",
    "size_sum",
    "raw_sum",
    "low_confidence",
    "newest_observed_us",
    "oldest_scored_us",
    "origins",
)
_NO_ORIGINS = "[]"


def load_totals(
    connection: Connection, agent_pks: Sequence[int], *, key: str
) -> tuple[dict[int, AgentTotals], set[int]]:
    """The stored totals of ``agent_pks`` made with ``key``; and the agents with other keys."""
    found: dict[int, AgentTotals] = {}
    stale: set[int] = set()
    dimensions = {d.value: d for d in DIMENSIONS}
    columns = ", ".join(c for c in _TOTAL_COLUMNS if c != "organisation_id")
    for chunk in chunks(sorted(agent_pks)):
        # Straight from the driver: a batch reads a row per touched (agent, dimension), and
        # SQLAlchemy's per-row result processing would cost more than the query.
        rows = connection.execute(
            select(text(columns))
            .select_from(ScoreTotalRow)
            .where(member_of(connection, ScoreTotalRow.agent_pk, chunk))
        )
        for pk, dimension, row_key, seq, count, size, raw, low, newest, oldest, origins in rows:
            if row_key != key:
                stale.add(pk)
                continue
            found.setdefault(pk, {})[dimensions[dimension]] = DimensionTotal(
                count=count,
                size=ExactSum.from_text(size),
                raw=ExactSum.from_text(raw),
                low_confidence=bool(low),
                newest_us=newest,
                oldest_scored_us=oldest,
                origins={} if origins == _NO_ORIGINS else dict(json.loads(origins)),
                evidence_seq=seq,
            )
    for pk in stale:
        found.pop(pk, None)
    return found, stale


def _upsert(paramstyle: str) -> str:
    marks = ", ".join("?" if paramstyle == "qmark" else "%s" for _ in _TOTAL_COLUMNS)
    updates = ", ".join(f"{c} = excluded.{c}" for c in _TOTAL_COLUMNS[2:])
    return (
        f"INSERT INTO score_totals ({', '.join(_TOTAL_COLUMNS)}) VALUES ({marks})"
        f" ON CONFLICT (agent_pk, dimension) DO UPDATE SET {updates}"
    )


_PG_COLUMN_TYPES = (
    "bigint", "varchar", "bigint", "varchar", "bigint", "bigint",
    "text", "text", "boolean", "bigint", "bigint", "text",
)  # fmt: skip
_PG_UPSERT = (
    f"INSERT INTO score_totals ({', '.join(_TOTAL_COLUMNS)}) SELECT * FROM unnest("
    + ", ".join(f"%b::{kind}[]" for kind in _PG_COLUMN_TYPES)
    + ") ON CONFLICT (agent_pk, dimension) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _TOTAL_COLUMNS[2:])
)


def save_totals(
    connection: Connection,
    organisation_id: int,
    totals: Mapping[int, AgentTotals],
    *,
    key: str,
    replace: Iterable[int] = (),
) -> None:
    """Write ``totals`` (insert or update each row); the rows of agents in ``replace`` go first."""
    gone = sorted(replace)
    for chunk in chunks(gone):
        connection.execute(
            delete(ScoreTotalRow).where(member_of(connection, ScoreTotalRow.agent_pk, chunk))
        )
    rows = [
        (
            pk,
            dimension.value,
            organisation_id,
            key,
            total.evidence_seq,
            total.count,
            total.size.text(),
            total.raw.text(),
            total.low_confidence,
            total.newest_us,
            total.oldest_scored_us,
            canonical_json(sorted(total.origins.items())) if total.origins else _NO_ORIGINS,
        )
        for pk, by_dimension in sorted(totals.items())
        for dimension, total in by_dimension.items()
    ]
    if not rows:
        return
    if connection.dialect.name == "postgresql":
        # One statement over arrays, a column each: executemany would run a statement per
        # row, which costs the server more than the upsert itself.
        columns = tuple(list(column) for column in zip(*rows, strict=True))
        connection.exec_driver_sql(_PG_UPSERT, columns)
        return
    # Straight to the driver's executemany: SQLAlchemy's per-row parameter processing would
    # cost more than the upsert itself.
    connection.exec_driver_sql(_upsert(connection.dialect.paramstyle), rows)


def agent_sources(totals: AgentTotals) -> list[ScoreSource]:
    """The explanation's ``sources`` from the origin counts of every dimension."""
    return counted_score_sources(
        (EvidenceOrigin.model_validate_json(origin), dimension, count)
        for dimension, total in totals.items()
        for origin, count in total.origins.items()
    )


def undecayed(totals: AgentTotals, now_us: int, config: TrustConfig) -> bool:
    """Whether the agent can be scored from its totals as of ``now_us`` (no decay, no future)."""
    return all(total.undecayed_at(now_us, config) for total in totals.values())


def in_future(totals: AgentTotals, now_us: int) -> bool:
    """Whether any item of the agent lies after ``now_us``."""
    return any(total.in_future(now_us) for total in totals.values())


def decaying_dimensions(totals: AgentTotals, now_us: int, config: TrustConfig) -> list[Dimension]:
    """The dimensions whose Σ size·decayed as of ``now_us`` the totals cannot give."""
    return [d for d, total in totals.items() if total.decaying_at(now_us, config)]


def score_from_totals(
    agents: Mapping[str, AgentTotals],
    *,
    now: datetime,
    config: TrustConfig | None,
    weights: WeightSet | None,
    decayed: Mapping[str, Mapping[Dimension, float]] | None = None,
) -> dict[str, TrustScore]:
    """Score agents from their totals; none may have an item after ``now``.

    ``decayed`` gives, per agent, Σ size·decayed as of ``now`` of every dimension in
    :func:`decaying_dimensions` (the totals give the rest). Equal to ``compute_trust_score``
    over each agent's whole history. From :data:`BATCH_ENGINE_MIN_AGENTS` agents the composites
    are computed on the batch engine's grids, otherwise one agent at a time: both give the same
    scores.
    """
    config = config or TrustConfig()
    weights = weights or WeightSet()
    as_of = check_now(now)
    readings = _readings(agents, decayed or {}, epoch_microseconds(as_of), config)
    counts = {
        agent_id: sum(t.count for t in totals.values()) for agent_id, totals in agents.items()
    }
    sources = {agent_id: agent_sources(totals) for agent_id, totals in agents.items()}
    if len(agents) < BATCH_ENGINE_MIN_AGENTS:
        return {
            agent_id: score_readings(
                agent_id,
                as_of,
                by_dimension,
                evidence_count=counts[agent_id],
                ignored_future_count=0,
                config=config,
                weights=weights,
                sources=sources[agent_id],
            )
            for agent_id, by_dimension in readings.items()
        }
    agent_ids = list(agents)
    return score_grid(
        agent_ids,
        ReadingGrid.from_readings([readings[a] for a in agent_ids]),
        as_of=as_of,
        evidence_counts=[counts[a] for a in agent_ids],
        ignored_future=[0] * len(agent_ids),
        sources=[sources[a] for a in agent_ids],
        config=config,
        weights=weights,
    )


def _readings(
    agents: Mapping[str, AgentTotals],
    decayed: Mapping[str, Mapping[Dimension, float]],
    now_us: int,
    config: TrustConfig,
) -> dict[str, dict[Dimension, DimensionReading]]:
    """Each agent's dimension readings as of ``now_us``, from its totals and decayed sums."""
    readings = {}
    for agent_id, totals in agents.items():
        sums = decayed.get(agent_id, {})
        missing = [d for d in decaying_dimensions(totals, now_us, config) if d not in sums]
        if missing:
            raise ValueError(f"{agent_id}: no decayed sum given for {missing[0].value}")
        readings[agent_id] = {
            d: total.reading(now_us, config, weighted_decayed=sums.get(d))
            for d, total in totals.items()
        }
    return readings
