"""Batched, all-or-nothing evidence ingestion into the per-organisation hash chain."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from pydantic import TypeAdapter
from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.dialects import postgresql, sqlite

from trustprobe.formats import STORED_CONTEXT, sha256_hex, utc_text
from trustprobe.store.chains import (
    GENESIS,
    chain_evidence_links,
    evidence_link_head,
    evidence_link_tail,
)
from trustprobe.store.database import (
    chunks,
    member_of,
    member_of_parameter,
    read_transaction,
    write_transaction,
)
from trustprobe.store.evidence_cache import CacheUpdates, EvidenceCache, ItemCache, PendingItems
from trustprobe.store.history import (
    ChainBases,
    Rescore,
    chain_bases,
    transition_rows,
    write_transitions,
)
from trustprobe.store.item_readings import AgentDecay, readings_of
from trustprobe.store.keys import check_organisation_name, ensure_organisation
from trustprobe.store.models import EvidenceSource, IngestResult, RecordNote, RecordRejection
from trustprobe.store.schema import AgentRow, EvidenceRow, OrganisationRow
from trustprobe.store.store import TrustStore
from trustprobe.store.totals import (
    AgentTotals,
    add_readings,
    config_key,
    decaying_dimensions,
    in_future,
    load_totals,
    merge_totals,
    save_totals,
    score_from_totals,
    totals_from_history,
)
from trustprobe.trust import (
    Dimension,
    Evidence,
    ItemReading,
    TrustConfig,
    TrustScore,
    check_now,
    check_observed_in_time,
    decay_limits,
    epoch_microseconds,
    evidence_canonical_json,
)


class _Prepared(NamedTuple):  # a tuple: built once per record, cheaper than a dataclass
    position: int
    record: Evidence
    content: str
    digest: str
    columns: tuple[Any, ...]
    """Its row's columns from ``evidence_id`` to ``content_sha256``, as the dialect stores them."""
    origin: tuple[str | None, str | None, str | None]
    """Its row's ``source_tool``, ``source_run_id`` and ``source_file_sha256``."""
    link: str
    """Its :func:`~trustprobe.store.chains.evidence_link_head`."""
    reading: tuple[ItemReading, int]
    """Its item reading and observation time (:func:`readings_of`)."""


@dataclass
class AgentBatch:
    """One agent's records of a batch, their readings, and the totals they add up to."""

    records: list[Evidence] = field(default_factory=list)
    readings: list[tuple[ItemReading, int]] = field(default_factory=list)
    totals: AgentTotals = field(default_factory=dict)


@dataclass
class PreparedBatch:
    """What ingesting a batch computes from its records alone, before any lock is taken.

    Each record's canonical JSON, digest, item reading, the columns of its row that do not
    depend on the chain and the start of the text its row hash covers; and each agent's part of
    the batch with the totals it adds. Under the organisation's lock (on SQLite, the database's
    one write lock) only what depends on the stored rows is left: duplicates, keys, the chain's
    hashes, the agents' stored totals and their new scores.
    """

    items: list[_Prepared]
    agents: dict[str, AgentBatch]
    """Every record's agent part: valid while every record is accepted (nearly always)."""


def prepare_batch(
    store: TrustStore,
    records: Sequence[Evidence],
    *,
    now: datetime,
    positions: Sequence[int] | None = None,
) -> PreparedBatch:
    """Compute what a batch's ingestion needs from ``records`` alone (no database access).

    ``positions`` numbers the records in rejections (default: their 0-based index).

    Raises:
        InputError: a record is observed later than ``now`` allows; nothing is stored.
    """
    check_observed_in_time(records, now=now)
    config = store.config or TrustConfig()
    numbers = range(len(records)) if positions is None else positions
    readings = readings_of(records, config)
    spell = _observed_spelling(store.engine.dialect.name)
    items = []
    for number, record, reading in zip(numbers, records, readings, strict=True):
        content = evidence_canonical_json(record)
        digest = sha256_hex(content)
        origin = record.source
        items.append(
            _Prepared(
                number,
                record,
                content,
                digest,
                (
                    record.id,
                    str(record.dimension),
                    record.kind,
                    spell(record.observed_at),
                    content,
                    digest,
                ),
                (None, None, None)
                if origin is None
                else (origin.tool, origin.run_id, origin.file_sha256),
                evidence_link_head(content),
                reading,
            )
        )
    return PreparedBatch(items, _agent_batches(items))


def _agent_batches(items: Sequence[_Prepared]) -> dict[str, AgentBatch]:
    """The records of ``items`` by agent, with their readings and the totals they add."""
    agents: dict[str, AgentBatch] = defaultdict(AgentBatch)
    for item in items:
        part = agents[item.record.agent_id]
        part.records.append(item.record)
        part.readings.append(item.reading)
    for part in agents.values():
        # The batch's seq is set by Rescoring.save(), once the rows are in.
        add_readings(part.totals, part.records, part.readings, evidence_seq=0)
    return dict(agents)


def _observed_spelling(dialect: str) -> Callable[[datetime], object]:
    """How the dialect's rows hold a time: as ``UTCDateTime`` writes it (text on SQLite)."""
    if dialect != "sqlite":
        return lambda moment: moment
    spelled: dict[datetime, str] = {}  # records of a batch share few distinct times

    def sqlite_time(moment: datetime) -> str:
        text = spelled.get(moment)
        if text is None:
            text = spelled[moment] = utc_text(moment, separator=" ", zone="")
        return text

    return sqlite_time


def ingest_evidence(
    store: TrustStore,
    records: Sequence[Evidence],
    *,
    organisation: str,
    now: datetime,
    source: EvidenceSource,
    positions: Sequence[int] | None = None,
) -> IngestResult:
    """Store new records, skip identical re-sends, refuse conflicts, and rescore the agents.

    Everything happens in one transaction: on any error nothing is stored. ``positions``
    numbers the records in rejections (default: their 0-based index).

    The write is worked out before the write lock is taken (:func:`plan_ingestion`), against
    the organisation's chain as it stands then; under the lock the plan is used only if that
    chain and the agents' score chains are still what it was built on, else it is made again.
    """
    batch = prepare_batch(store, records, now=now, positions=positions)
    plan = plan_ingestion(store, batch, organisation=organisation, now=now, source=source)
    cached = CacheUpdates()
    with write_transaction(store.engine) as connection:
        result = ingest_in_transaction(
            connection,
            store,
            batch,
            organisation=organisation,
            now=now,
            source=source,
            cache_updates=cached,
            plan=plan,
        )
    cached.apply(store.evidence_cache, store.item_cache)  # only now: the rows are committed
    return result


def lock_organisation(connection: Connection, organisation: str, *, now: datetime) -> int:
    """Create the organisation if new and lock it until the transaction ends; returns its id.

    Every write of an organisation (ingestion, review decisions) takes this lock, which
    serialises appends to its chains. SQLite's ``BEGIN IMMEDIATE`` already holds the database.
    """
    check_organisation_name(organisation)
    # A known organisation (nearly every call) is found and locked in one statement.
    known = connection.execute(
        _statements(connection).lock, {"name": organisation}
    ).scalar_one_or_none()
    if known is not None:
        return int(known)
    organisation_id = ensure_organisation(connection, organisation, now=now)
    connection.execute(
        select(OrganisationRow.id).where(OrganisationRow.id == organisation_id).with_for_update()
    )
    return organisation_id


ChainHead = tuple[int, str] | None
"""The seq and row hash of an organisation's last evidence row (``None``: no rows yet)."""


@dataclass
class IngestPlan:
    """Everything a batch's write inserts, worked out against one reading of the store.

    Built on the organisation's evidence chain ending at ``head`` and, for the accepted
    records' agents, on the score chains in ``bases``: its rows, chain hashes, totals, scores
    and transitions are exactly what the write computes from the same reading. Whether a
    record is new, the stored totals and the evidence chain change only when the
    organisation's evidence chain grows (evidence is append-only, and the totals are written
    with the rows that change them); the agents' transitions also change when a review is
    decided, so those are compared apart (:meth:`holds`).
    """

    organisation_id: int
    head: ChainHead
    accepted: list[_Prepared]
    rejected: list[RecordRejection]
    ignored: list[RecordNote]
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    rescoring: Rescoring | None = None
    bases: ChainBases | None = None
    transitions: list[dict[str, Any]] = field(default_factory=list)

    def holds(self, connection: Connection, organisation_id: int, head: ChainHead) -> bool:
        """Whether the plan is still the write's, read under the organisation's lock."""
        if organisation_id != self.organisation_id or head != self.head:
            return False
        if self.bases is None:
            return True
        return chain_bases(connection, list(self.bases_for)) == self.bases

    @property
    def bases_for(self) -> list[int]:
        """The agents whose score chains the plan's transitions extend, in order."""
        return [int(row["agent_pk"]) for row in self.transitions]


def plan_ingestion(
    store: TrustStore,
    batch: PreparedBatch,
    *,
    organisation: str,
    now: datetime,
    source: EvidenceSource,
    probe_run_id: int | None = None,
) -> IngestPlan | None:
    """Work out a batch's write before the write lock, from a read of the store (no writes).

    ``None`` when the organisation or one of the batch's agents does not exist yet (creating
    them needs the lock): the write then works everything out under the lock, as it does when
    the plan no longer holds. A plan costs the batch's reads and computations once more only
    when another write of the same organisation comes between it and the lock.
    """
    if not batch.items:
        return None
    with read_transaction(store.engine) as connection:
        organisation_id = connection.execute(
            _statements(connection).organisation, {"name": organisation}
        ).scalar_one_or_none()
        if organisation_id is None:
            return None
        # The head first: on PostgreSQL each statement sees the rows committed when it starts,
        # so anything read after the head and newer than it shows as a head that moved.
        head = _chain_head(connection, organisation_id)
        agent_ids = sorted({item.record.agent_id for item in batch.items})
        agents = _agent_keys(connection, organisation_id, agent_ids)
        if len(agents) != len(agent_ids):
            return None
        return _plan(
            connection, store, batch, organisation_id, head, agents=agents, now=now,
            source=source, probe_run_id=probe_run_id,
        )  # fmt: skip


def ingest_in_transaction(
    connection: Connection,
    store: TrustStore,
    batch: PreparedBatch,
    *,
    organisation: str,
    now: datetime,
    source: EvidenceSource,
    probe_run_id: int | None = None,
    cache_updates: CacheUpdates | None = None,
    plan: IngestPlan | None = None,
) -> IngestResult:
    """:func:`ingest_evidence` of a :func:`prepare_batch`, in a write transaction of the caller.

    ``plan`` (:func:`plan_ingestion` of the same batch, source and run) is used if it still
    holds under the organisation's lock, else everything is worked out again here.
    ``cache_updates`` collects what the caches should keep of the agents' evidence; the caller
    applies it to the store's caches once the transaction has committed (never before).
    """
    organisation_id = lock_organisation(connection, organisation, now=now)
    head = _chain_head(connection, organisation_id)
    if plan is None or not plan.holds(connection, organisation_id, head):
        plan = _plan(
            connection, store, batch, organisation_id, head, agents=None, now=now,
            source=source, probe_run_id=probe_run_id,
        )  # fmt: skip
    transitions: list[int] = []
    reviews: list[int] = []
    if plan.rescoring is not None and plan.bases is not None:
        _insert_rows(connection, plan.rows)
        plan.rescoring.save(
            connection,
            organisation_id=organisation_id,
            evidence_seq=_last_seq(connection, organisation_id),
            cache_updates=cache_updates,
        )
        appended = write_transitions(
            connection,
            organisation_id=organisation_id,
            rows=plan.transitions,
            bases=plan.bases,
            now=now,
        )
        transitions = [seq for seq, _ in appended]
        reviews = [review for _, review in appended if review is not None]
    return IngestResult(
        accepted=len(plan.accepted),
        duplicate=len(batch.items) - len(plan.accepted) - len(plan.rejected),
        rejected=plan.rejected,
        ignored=sorted(plan.ignored, key=lambda note: note.index),
        transitions=transitions,
        pending_reviews=reviews,
    )


def _plan(
    connection: Connection,
    store: TrustStore,
    batch: PreparedBatch,
    organisation_id: int,
    head: ChainHead,
    *,
    agents: dict[str, int] | None,
    now: datetime,
    source: EvidenceSource,
    probe_run_id: int | None,
) -> IngestPlan:
    """Work out the write of ``batch`` on the chain ending at ``head``, read on ``connection``.

    ``agents`` maps every agent of the batch to its key (read before the lock); ``None``
    creates the agents not yet known (under the lock only).
    """
    prepared = batch.items
    stored = _stored_digests(connection, organisation_id, [p.record.id for p in prepared])
    accepted, rejected, ignored = _sort_out(prepared, stored, now=now)
    plan = IngestPlan(organisation_id, head, accepted, rejected, ignored)
    if not accepted:
        return plan
    if agents is None:
        agents = ensure_agents(
            connection, organisation_id, sorted({a.record.agent_id for a in accepted}), now=now
        )
    plan.rows = _evidence_rows(
        organisation_id,
        agents,
        accepted,
        head=head,
        now=now,
        source=source,
        probe_run_id=probe_run_id,
        dialect=connection.dialect.name,
    )
    # Every record accepted (nearly always): the batch's agent parts hold, else they are made
    # again from the accepted ones.
    new_by_agent = batch.agents if len(accepted) == len(prepared) else _agent_batches(accepted)
    plan.rescoring = Rescoring.read(
        connection,
        store,
        new_records={agents[a]: (a, part) for a, part in new_by_agent.items()},
        previous_seq=0 if head is None else head[0],
        now=now,
    )
    order = sorted(new_by_agent)
    plan.bases = chain_bases(connection, [agents[agent_id] for agent_id in order])
    scores = plan.rescoring.scores()
    plan.transitions = transition_rows(
        store,
        organisation_id=organisation_id,
        rescores=[
            Rescore(
                agent_pk=agents[agent_id],
                agent_id=agent_id,
                score=scores[agent_id],
                trigger=f"evidence:{len(new_by_agent[agent_id].records)} via {source.value}",
            )
            for agent_id in order
        ],
        bases=plan.bases,
        now=now,
    )
    return plan


def _sort_out(
    prepared: Sequence[_Prepared], stored: Mapping[str, str], *, now: datetime
) -> tuple[list[_Prepared], list[RecordRejection], list[RecordNote]]:
    """Each record of a batch accepted, rejected or ignored, given the digests already stored.

    A repeat of a stored or earlier record is a no-op when its content is identical and a
    rejection otherwise (evidence is append-only); a record from slightly in the future is
    accepted with a note.
    """
    accepted: list[_Prepared] = []
    rejected: list[RecordRejection] = []
    ignored: list[RecordNote] = []
    sent: dict[str, _Prepared] = {}
    for item in prepared:
        evidence_id = item.record.id
        earlier = sent.get(evidence_id)
        if evidence_id in stored:
            repeat = _stored_repeat(item, stored[evidence_id])
        elif earlier is not None:
            repeat = _batch_repeat(item, earlier)
        else:
            sent[evidence_id] = item
            accepted.append(item)
            if item.record.observed_at > now:
                ignored.append(_future_note(item, now))
            continue
        if isinstance(repeat, RecordRejection):  # a subclass of RecordNote: asked first
            rejected.append(repeat)
        else:
            ignored.append(repeat)
    return accepted, rejected, ignored


def _stored_repeat(item: _Prepared, stored_digest: str) -> RecordNote | RecordRejection:
    """A record whose id is stored already: a no-op if the same content, else refused."""
    evidence_id = item.record.id
    if stored_digest == item.digest:
        return RecordNote(
            index=item.position,
            evidence_id=evidence_id,
            reason="already stored with identical content (a no-op)",
        )
    return RecordRejection(
        index=item.position,
        evidence_id=evidence_id,
        reason=(
            f"evidence id {evidence_id!r} is already stored with different "
            f"content (stored sha256 {stored_digest[:12]}, sent "
            f"{item.digest[:12]}); evidence is append-only: send corrections "
            "under a new id"
        ),
    )


def _batch_repeat(item: _Prepared, earlier: _Prepared) -> RecordNote | RecordRejection:
    """A record whose id came earlier in its batch: a no-op if the same content, else refused."""
    evidence_id = item.record.id
    if earlier.digest == item.digest:
        return RecordNote(
            index=item.position,
            evidence_id=evidence_id,
            reason=f"sent earlier in this batch (record {earlier.position}) with "
            "identical content (a no-op)",
        )
    return RecordRejection(
        index=item.position,
        evidence_id=evidence_id,
        reason=(
            f"evidence id {evidence_id!r} was sent earlier in this batch "
            f"(record {earlier.position}) with different content"
        ),
    )


def _future_note(item: _Prepared, now: datetime) -> RecordNote:
    """The note on an accepted record observed after ``now``, within the allowed skew."""
    return RecordNote(
        index=item.position,
        evidence_id=item.record.id,
        reason=f"observed at {utc_text(item.record.observed_at)}, after the "
        f"receiver's clock ({utc_text(now)}) but within the allowed skew: stored, "
        "and counted by the agent's first score computed after that time",
    )


@dataclass
class Rescoring:
    """Rescoring the agents of a batch, in three steps around the insert of its rows.

    :meth:`read` reads what the scores need (totals, cached items or records of rows before
    the batch) and counts the new records into the totals; :meth:`scores` computes (no I/O);
    :meth:`save` writes the totals once the batch's last seq is known. An agent is scored from
    its totals; where decay has begun, the sums the totals cannot give come from its items'
    decay sums moved forward to ``now`` (item_readings.py, kept in ``store.item_cache``).
    An agent with an item after ``now``, or with totals made under other item-scoring settings,
    is scored from its whole history, and stale totals are rebuilt from it. Every way, the
    score equals ``store.score`` over the agent's whole history.
    """

    store: TrustStore
    now: datetime
    new_records: Mapping[int, tuple[str, AgentBatch]]
    """The batch's accepted records by agent key: (agent id, its part of the batch)."""
    totals: dict[int, AgentTotals]
    stale: set[int]
    current: dict[str, AgentTotals] = field(default_factory=dict)
    """Agents scored from their totals, by agent id."""
    decaying: dict[int, tuple[list[Dimension], AgentDecay]] = field(default_factory=dict)
    """Agents with decayed dimensions: those dimensions, and the items before the batch."""
    histories: dict[int, tuple[Evidence, ...]] = field(default_factory=dict)
    """Agents scored from their whole history: that history, the batch included."""
    previous_seq: int = 0
    """The organisation's last seq before the batch."""

    @classmethod
    def read(
        cls,
        connection: Connection,
        store: TrustStore,
        *,
        new_records: Mapping[int, tuple[str, AgentBatch]],
        previous_seq: int,
        now: datetime,
    ) -> Rescoring:
        """Read what the scores need and count the batch into the totals.

        The organisation's rows before the batch end at ``previous_seq``; only those are read
        (the batch's records are at hand, and its rows are not in yet).
        """
        config = store.config or TrustConfig()
        now_us = epoch_microseconds(check_now(now))
        totals, stale = load_totals(connection, list(new_records), key=config_key(config))
        plan = cls(store, now, new_records, totals, stale, previous_seq=previous_seq)
        decaying: dict[int, list[Dimension]] = {}
        slow: list[int] = sorted(stale)
        for pk, (agent_id, part) in new_records.items():
            if pk in stale:
                continue
            agent_totals = totals.setdefault(pk, {})
            merge_totals(agent_totals, part.totals)
            if in_future(agent_totals, now_us):
                slow.append(pk)
                continue
            plan.current[agent_id] = agent_totals
            dimensions = decaying_dimensions(agent_totals, now_us, config)
            if dimensions:
                decaying[pk] = dimensions
        if decaying:
            prior = agent_items(
                connection, list(decaying), cache=store.item_cache, up_to=previous_seq,
                config=config,
            )  # fmt: skip
            for pk, dimensions in decaying.items():
                agent_id, part = new_records[pk]
                items = prior[pk]
                counted = Counter(items.counts())
                counted.update(record.dimension for record in part.records)
                if items.seq != previous_seq or counted != {
                    d: total.count for d, total in totals[pk].items()
                }:
                    # The entry lacks rows another thread's update held back, or its counts
                    # disagree with the totals (written with the rows in one transaction, so a
                    # defect): the whole history still gives the right score.
                    del plan.current[agent_id]
                    slow.append(pk)
                    continue
                plan.decaying[pk] = (dimensions, items)
        if slow:
            prior_records = agent_evidence(
                connection, slow, cache=store.evidence_cache, up_to=previous_seq
            )
            for pk in slow:
                plan.histories[pk] = (*prior_records[pk][1], *new_records[pk][1].records)
        return plan

    def scores(self) -> dict[str, TrustScore]:
        """Every agent's score as of ``now`` (no database access)."""
        store = self.store
        config = store.config or TrustConfig()
        now_us = epoch_microseconds(check_now(self.now))
        limits = decay_limits(config)
        sums: dict[str, dict[Dimension, float]] = {}
        for pk, (dimensions, prior) in self.decaying.items():
            agent_id, part = self.new_records[pk]
            with prior.lock:
                by_dimension = prior.sums(dimensions, now_us, limits)
            for record, (reading, observed) in zip(part.records, part.readings, strict=True):
                found = by_dimension.get(record.dimension)
                if found is not None:
                    found.add(reading.size, reading.size * reading.score, now_us - observed)
            sums[agent_id] = {d: found.value() for d, found in by_dimension.items()}
        scores = score_from_totals(
            self.current, now=self.now, config=store.config, weights=store.weights,
            decayed=sums,
        )  # fmt: skip
        for pk, history in self.histories.items():
            agent_id = self.new_records[pk][0]
            scores[agent_id] = store.score(agent_id, history, now=self.now)
        return scores

    def save(
        self,
        connection: Connection,
        *,
        organisation_id: int,
        evidence_seq: int,
        cache_updates: CacheUpdates | None,
    ) -> None:
        """Write the totals (the batch's rows end at ``evidence_seq``); note the cache entries."""
        config = self.store.config or TrustConfig()
        for pk, (_, part) in self.new_records.items():
            if pk in self.stale:
                self.totals[pk] = totals_from_history(
                    ((evidence_seq, record) for record in self.histories[pk]), config
                )
                continue
            agent_totals = self.totals[pk]
            for dimension in part.totals:
                agent_totals[dimension].evidence_seq = evidence_seq
        save_totals(
            connection, organisation_id, self.totals, key=config_key(config), replace=self.stale
        )
        if cache_updates is not None:
            limits = decay_limits(config)
            for pk, (_, items) in self.decaying.items():
                part = self.new_records[pk][1]
                cache_updates.items[pk] = PendingItems(
                    items, after=self.previous_seq, seq=evidence_seq,
                    records=part.records, readings=part.readings, limits=limits,
                )  # fmt: skip
            for pk, history in self.histories.items():
                cache_updates.evidence[pk] = (evidence_seq, history)


def _stored_digests(
    connection: Connection, organisation_id: int, evidence_ids: Sequence[str]
) -> dict[str, str]:
    if connection.dialect.name == "postgresql":
        # One unique-index probe per id, whatever the planner believes about the table: with
        # "= ANY(...)" a table that grew since its last ANALYZE gets scanned whole per lookup,
        # and without the OFFSET 0 fence the planner flattens the lateral subquery into a hash
        # join that reads every row of the organisation (1 s per batch at a million rows).
        # The organisation goes in as an uncorrelated subquery's value, which the planner does
        # not know when it plans: it estimates the organisation's rows as the table's over its
        # distinct organisations, never the one row it assumes for an organisation the last
        # ANALYZE did not see. With that one row, (organisation_id, seq) looks as cheap as the
        # unique index and each id was probed through it, reading every row of the organisation
        # (2.3 s for 5,000 ids against 5,000 such rows, 13 s a batch as they grew).
        # No JIT compilation: with stale statistics the estimate of those probes crosses
        # jit_above_cost, and compiling takes longer than the probes (10-40 ms a batch).
        connection.exec_driver_sql("SET LOCAL jit = off")
        # The ids go as a binary array: the text form quotes each of them in Python.
        rows = connection.exec_driver_sql(_PG_DIGESTS, (sorted(set(evidence_ids)), organisation_id))
        return {evidence_id: digest for evidence_id, digest in rows}
    # The ids go as one JSON array that SQLite unpacks itself (json_each): an IN list costs
    # SQLAlchemy's expansion of the statement and a bound parameter per id, twice the CPU.
    rows = connection.exec_driver_sql(
        _SQLITE_DIGESTS, (organisation_id, json.dumps(sorted(set(evidence_ids))))
    )
    return {evidence_id: digest for evidence_id, digest in rows}


_SQLITE_DIGESTS = (
    "SELECT evidence_id, content_sha256 FROM evidence "
    "WHERE organisation_id = ? AND evidence_id IN (SELECT value FROM json_each(?))"
)
_PG_DIGESTS = (
    "SELECT e.evidence_id, e.content_sha256 "
    "FROM unnest(%b::varchar[]) AS wanted(id) "
    "CROSS JOIN LATERAL (SELECT evidence_id, content_sha256 FROM evidence "
    "WHERE organisation_id = (SELECT %s::integer) AND evidence_id = wanted.id OFFSET 0) AS e"
)


def ensure_agents(
    connection: Connection, organisation_id: int, agent_ids: Sequence[str], *, now: datetime
) -> dict[str, int]:
    """Create the agents not yet known (safe under concurrency); map each id to its key.

    The known agents are looked up first and only the others inserted: a platform's batches
    are mostly about agents it has written before, and the insert of a row per agent, even one
    that does nothing on conflict, costs more than the lookup.
    """
    agents = _agent_keys(connection, organisation_id, agent_ids)
    missing = [agent_id for agent_id in agent_ids if agent_id not in agents]
    if not missing:
        return agents
    values = [
        {"organisation_id": organisation_id, "agent_id": agent_id, "created_at": now}
        for agent_id in missing
    ]
    dialect_insert: Any = (
        postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    )
    connection.execute(dialect_insert(AgentRow).on_conflict_do_nothing(), values)
    agents.update(_agent_keys(connection, organisation_id, missing))
    return agents


def _agent_keys(
    connection: Connection, organisation_id: int, agent_ids: Sequence[str]
) -> dict[str, int]:
    statement = _statements(connection).agent_keys
    agents: dict[str, int] = {}
    for chunk in chunks(agent_ids):
        rows = connection.execute(statement, {"organisation": organisation_id, "ids": list(chunk)})
        agents.update({agent_id: pk for agent_id, pk in rows})
    return agents


@cache
def evidence_adapter() -> TypeAdapter[Evidence]:
    """The one validator of stored evidence content, built once."""
    return TypeAdapter(Evidence)


def agent_evidence(
    connection: Connection,
    agent_pks: Sequence[int],
    *,
    cache: EvidenceCache | None = None,
    up_to: int | None = None,
) -> dict[int, tuple[int, tuple[Evidence, ...]]]:
    """Each agent's stored evidence in sequence order, with the seq of its last row (0: none).

    With ``cache`` the cached records are the start and only the rows appended since are read.
    With ``up_to`` only rows up to that seq are read (the cache never holds later ones for an
    agent whose organisation is locked and whose rows after ``up_to`` are not committed yet).
    """
    stored: dict[int, tuple[int, tuple[Evidence, ...]]] = {}
    for agent_pk in agent_pks:
        entry = None if cache is None else cache.get(agent_pk)
        stored[agent_pk] = (0, ()) if entry is None else entry
    after = {pk: seq for pk, (seq, _) in stored.items()}
    for agent_pk, (seq, records) in rows_after(connection, after, up_to=up_to).items():
        stored[agent_pk] = (seq, (*stored[agent_pk][1], *records))
    return stored


def agent_items(
    connection: Connection,
    agent_pks: Sequence[int],
    *,
    cache: ItemCache,
    up_to: int,
    config: TrustConfig,
) -> dict[int, AgentDecay]:
    """Each agent's cached items brought up to seq ``up_to`` (rows up to it are committed).

    Only the rows appended since the cached seq are read and parsed. Call under the
    organisation's lock, so that no row up to ``up_to`` is still to come.
    """
    limits = decay_limits(config)
    stored = {pk: cache.entry(pk) for pk in agent_pks}
    after = {}
    for agent_pk, entry in stored.items():
        with entry.lock:
            if entry.seq < up_to:
                after[agent_pk] = entry.seq
    for agent_pk, (_, records) in rows_after(connection, after, up_to=up_to).items():
        entry = stored[agent_pk]
        with entry.lock:
            if entry.seq == after[agent_pk]:
                entry.push(records, readings_of(records, config), limits)
    for agent_pk in after:
        entry = stored[agent_pk]
        with entry.lock:
            if entry.seq == after[agent_pk]:
                entry.seq = up_to
        cache.account(agent_pk, entry)
    return stored


def rows_after(
    connection: Connection, after: Mapping[int, int], *, up_to: int | None = None
) -> dict[int, tuple[int, list[Evidence]]]:
    """Each agent's records with a seq above ``after[agent]`` (and at most ``up_to``), parsed.

    Returns the seq of the last row read and the records in sequence order, for the agents that
    have such rows. Agents read from the start and agents read from a cached seq are queried
    apart, so a cold agent does not make the warm ones' whole history travel.
    """
    records: dict[int, list[Evidence]] = defaultdict(list)
    last: dict[int, int] = {}
    adapter = evidence_adapter()
    cold = sorted(pk for pk, seq in after.items() if seq == 0)
    warm = sorted(pk for pk, seq in after.items() if seq > 0)
    for group in (cold, warm):
        for chunk in chunks(group):
            rows = connection.execute(
                select(EvidenceRow.agent_pk, EvidenceRow.seq, EvidenceRow.content)
                .where(
                    member_of(connection, EvidenceRow.agent_pk, chunk),
                    EvidenceRow.seq > min(after[pk] for pk in chunk),
                    *(() if up_to is None else (EvidenceRow.seq <= up_to,)),
                )
                .order_by(EvidenceRow.seq)
            )
            for agent_pk, seq, content in rows:
                if seq > after[agent_pk]:
                    # Stored content was validated on the way in; validate_json skips a
                    # json.loads. STORED_CONTEXT: rules added since it was stored do not make
                    # it unreadable.
                    records[agent_pk].append(
                        adapter.validate_json(content, context={STORED_CONTEXT: True})
                    )
                    last[agent_pk] = seq
    return {pk: (last[pk], found) for pk, found in records.items()}


def last_evidence_seqs(connection: Connection, agent_pks: Sequence[int]) -> dict[int, int]:
    """The seq of each agent's newest evidence row; agents without evidence are left out."""
    last: dict[int, int] = {}
    for chunk in chunks(sorted(agent_pks)):
        rows = connection.execute(
            select(EvidenceRow.agent_pk, func.max(EvidenceRow.seq))
            .where(member_of(connection, EvidenceRow.agent_pk, chunk))
            .group_by(EvidenceRow.agent_pk)
        )
        last.update({pk: seq for pk, seq in rows})
    return last


EVIDENCE_COLUMNS = (
    "organisation_id",
    "agent_pk",
    "evidence_id",
    "dimension",
    "kind",
    "observed_at",
    "content",
    "content_sha256",
    "source",
    "probe_run_id",
    "received_at",
    "prev_hash",
    "row_hash",
    "source_tool",
    "source_run_id",
    "source_file_sha256",
)


def _chain_head(connection: Connection, organisation_id: int) -> ChainHead:
    """The seq and row hash of the organisation's last evidence row (``None``: no rows)."""
    head = connection.execute(
        _statements(connection).head, {"organisation": organisation_id}
    ).one_or_none()
    return None if head is None else (int(head.seq), str(head.row_hash))


def _evidence_rows(
    organisation_id: int,
    agents: dict[str, int],
    accepted: Sequence[_Prepared],
    *,
    head: ChainHead,
    now: datetime,
    source: EvidenceSource,
    probe_run_id: int | None,
    dialect: str,
) -> list[tuple[Any, ...]]:
    """The rows that append ``accepted`` to the organisation's chain ending at ``head``."""
    prev_hash = GENESIS if head is None else head[1]
    hashes = chain_evidence_links(
        prev_hash,
        (item.link for item in accepted),
        evidence_link_tail(source=source.value, received_at=now, probe_run_id=probe_run_id),
    )
    received = _observed_spelling(dialect)(now)
    arrived_by = source.value  # once: an enum's value is a Python-level property
    rows = []
    for item, row_hash in zip(accepted, hashes, strict=True):
        rows.append(
            (organisation_id, agents[item.record.agent_id], *item.columns, arrived_by,
             probe_run_id, received, prev_hash, row_hash, *item.origin)
        )  # fmt: skip
        prev_hash = row_hash
    return rows


_PG_EVIDENCE_TYPES = (
    "int4", "int4", "varchar", "varchar", "varchar", "timestamptz", "text", "varchar",
    "varchar", "int4", "timestamptz", "varchar", "varchar", "varchar", "varchar", "varchar",
)  # fmt: skip
"""The PostgreSQL types of :data:`EVIDENCE_COLUMNS`, in order (a binary COPY names them)."""


def _insert_rows(connection: Connection, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert ``rows`` into the evidence table.

    Plain inserts, not ON CONFLICT DO NOTHING: under the organisation lock a conflict is
    impossible, and a silently skipped row would leave a hole in the chain. The rows go to the
    driver's bulk path directly (executemany on SQLite, COPY on PostgreSQL): SQLAlchemy's
    per-row parameter processing would cost more than the insert itself.
    """
    columns = ", ".join(EVIDENCE_COLUMNS)
    if connection.dialect.name == "sqlite":
        placeholders = ", ".join("?" for _ in EVIDENCE_COLUMNS)
        connection.exec_driver_sql(
            f"INSERT INTO evidence ({columns}) VALUES ({placeholders})", rows
        )
        return
    driver = connection.connection.driver_connection
    assert driver is not None
    # Binary COPY: the driver formats no text (times, escapes) and the server parses none.
    with (
        driver.cursor() as cursor,
        cursor.copy(f"COPY evidence ({columns}) FROM STDIN (FORMAT BINARY)") as copy,
    ):
        copy.set_types(_PG_EVIDENCE_TYPES)
        for row in rows:
            copy.write_row(row)


def _last_seq(connection: Connection, organisation_id: int) -> int:
    last = connection.execute(
        _statements(connection).last_seq, {"organisation": organisation_id}
    ).scalar_one()
    assert last is not None
    return int(last)


class _Statements(NamedTuple):
    """The statements every batch runs, built once per dialect with bound parameters.

    Built per call, each cost about four times the CPU of running it prebuilt (see
    :func:`~trustprobe.store.database.member_of_parameter`).
    """

    lock: Any
    organisation: Any
    agent_keys: Any
    head: Any
    last_seq: Any


def _statements(connection: Connection) -> _Statements:
    return _dialect_statements(connection.dialect.name)


@cache
def _dialect_statements(dialect: str) -> _Statements:
    organisation: Any = bindparam("organisation")
    return _Statements(
        lock=select(OrganisationRow.id)
        .where(OrganisationRow.name == bindparam("name"))
        .with_for_update(),
        organisation=select(OrganisationRow.id).where(OrganisationRow.name == bindparam("name")),
        agent_keys=select(AgentRow.agent_id, AgentRow.id).where(
            AgentRow.organisation_id == organisation,
            member_of_parameter(dialect, AgentRow.agent_id, "ids"),
        ),
        head=select(EvidenceRow.seq, EvidenceRow.row_hash)
        .where(EvidenceRow.organisation_id == organisation)
        .order_by(EvidenceRow.seq.desc())
        .limit(1),
        last_seq=select(func.max(EvidenceRow.seq)).where(
            EvidenceRow.organisation_id == organisation
        ),
    )


def _append_evidence(
    connection: Connection,
    organisation_id: int,
    agents: dict[str, int],
    accepted: Sequence[_Prepared],
    *,
    now: datetime,
    source: EvidenceSource,
    probe_run_id: int | None,
) -> tuple[int, int]:
    """Append the rows to the organisation's chain, nothing else (the store benchmarks' path).

    Returns the seq of the organisation's last row before them (0: none) and of the last one.
    """
    head = _chain_head(connection, organisation_id)
    rows = _evidence_rows(
        organisation_id,
        agents,
        accepted,
        head=head,
        now=now,
        source=source,
        probe_run_id=probe_run_id,
        dialect=connection.dialect.name,
    )
    _insert_rows(connection, rows)
    return (0 if head is None else head[0]), _last_seq(connection, organisation_id)
