"""Score history: append a transition per recomputation, hold big swings for review."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, NamedTuple

from pydantic import BaseModel, TypeAdapter
from sqlalchemy import Connection, Row, and_, bindparam, func, insert, select, update
from sqlalchemy.orm import aliased

from trustprobe.formats import utc_text
from trustprobe.store.chains import (
    GENESIS,
    SEAL_VERSION,
    ReviewHolder,
    link_hash,
    review_seal,
    transition_envelope,
)
from trustprobe.store.database import (
    chunks,
    member_of,
    member_of_parameter,
    read_statement,
    read_transaction,
)
from trustprobe.store.errors import NotFoundError
from trustprobe.store.models import (
    AgentScore,
    HistoryPage,
    Review,
    ReviewStatus,
    Transition,
    TransitionStatus,
)
from trustprobe.store.schema import AgentRow, OrganisationRow, ReviewRow, TransitionRow
from trustprobe.store.store import TrustStore
from trustprobe.trust import TrustScore

CANONICAL_STATUSES = (TransitionStatus.COMMITTED.value, TransitionStatus.APPROVED.value)
PENDING = TransitionStatus.PENDING_REVIEW.value
SYSTEM_ACTOR = "system"
MAX_PAGE = 500


def is_anomalous(previous: int | None, proposed: int | None, threshold: int) -> bool:
    """Whether a move from ``previous`` to ``proposed`` needs review.

    Only a swing between two composites can be measured: a first score, or a move from or to
    "no coverage" (``None``), is committed directly.
    """
    if previous is None or proposed is None:
        return False
    return abs(proposed - previous) > threshold


@dataclass(frozen=True)
class Rescore:
    """One agent's new score, computed from all of its evidence, and what triggered it."""

    agent_pk: int
    agent_id: str
    score: TrustScore
    trigger: str


@dataclass(frozen=True)
class ChainBases:
    """What new transitions of some agents build on: their latest transitions, read once."""

    canonical_seq: dict[int, int]
    """Each agent's latest canonical transition (committed or approved), by agent key."""
    last_seq: dict[int, int]
    """Each agent's latest transition, whatever its status, by agent key."""
    known: dict[int, tuple[int | None, str]]
    """(composite, row hash) of each of those transitions, by seq."""
    held: list[int]
    """The latest transitions that are pending review: the only ones with an open review."""


def chain_bases(connection: Connection, agent_pks: Sequence[int]) -> ChainBases:
    """Read what the agents' next transitions build on (under the organisation's lock).

    Each agent's latest transition is found with one backward probe of the (agent_pk, seq)
    index, and is nearly always canonical too. One that is not was held for review (then
    perhaps superseded or rejected), and its baseline is the agent's latest canonical
    transition: only an agent's newest transition can be pending (a new one supersedes it),
    and a canonical transition stays canonical. So no agent's transitions are searched, however
    many an agent holds; only a baseline that is not canonical (a store written otherwise)
    has the canonical one looked for among all the agent's transitions.
    """
    pks = list(agent_pks)
    last_seq = _latest_seqs(connection, pks)
    links = _links(connection, sorted(set(last_seq.values())))
    canonical_seq = {
        pk: seq for pk, seq in last_seq.items() if links[seq].status in CANONICAL_STATUSES
    }
    baselines: dict[int, int] = {}
    for pk, seq in last_seq.items():
        baseline = links[seq].baseline_seq
        if pk not in canonical_seq and baseline is not None:
            baselines[pk] = baseline
    links.update(_links(connection, sorted(set(baselines.values()))))
    canonical_seq.update(
        {pk: seq for pk, seq in baselines.items() if links[seq].status in CANONICAL_STATUSES}
    )
    others = [pk for pk in last_seq if pk not in canonical_seq]
    if others:
        earlier = _latest_canonical_seqs(connection, others)
        canonical_seq.update(earlier)
        links.update(_links(connection, sorted(set(earlier.values()))))
    known = {seq: (link.composite, link.row_hash) for seq, link in links.items()}
    held = sorted(seq for seq in last_seq.values() if links[seq].status == PENDING)
    return ChainBases(canonical_seq, last_seq, known, held)


def _latest_seqs(connection: Connection, agent_pks: list[int]) -> dict[int, int]:
    """Each agent's latest transition (agents without one are left out)."""
    statement = _latest_seqs_statement(connection.dialect.name)
    found: dict[int, int] = {}
    for chunk in chunks(agent_pks):
        rows = connection.execute(statement, {"agents": list(chunk)})
        found.update({pk: seq for pk, seq in rows if seq is not None})
    return found


@cache
def _latest_seqs_statement(dialect: str) -> Any:
    newest = (
        select(TransitionRow.seq)
        .where(TransitionRow.agent_pk == AgentRow.id)
        .order_by(TransitionRow.agent_pk.desc(), TransitionRow.seq.desc())
        .limit(1)
        .scalar_subquery()
    )
    return select(AgentRow.id, newest).where(member_of_parameter(dialect, AgentRow.id, "agents"))


def _latest_canonical_seqs(connection: Connection, agent_pks: list[int]) -> dict[int, int]:
    found: dict[int, int] = {}
    for chunk in chunks(agent_pks):
        query = (
            select(TransitionRow.agent_pk, func.max(TransitionRow.seq))
            .where(
                member_of(connection, TransitionRow.agent_pk, chunk),
                TransitionRow.status.in_(CANONICAL_STATUSES),
            )
            .group_by(TransitionRow.agent_pk)
        )
        found.update({pk: seq for pk, seq in connection.execute(query)})
    return found


class _Link(NamedTuple):
    """What a new transition needs of an earlier one of its agent."""

    composite: int | None
    row_hash: str
    status: str
    baseline_seq: int | None


def _links(connection: Connection, seqs: list[int]) -> dict[int, _Link]:
    """Composite, row hash, status and baseline of each of the transitions ``seqs``."""
    statement = _links_statement(connection.dialect.name)
    found: dict[int, _Link] = {}
    for chunk in chunks(seqs):
        rows = connection.execute(statement, {"seqs": list(chunk)})
        for seq, composite, row_hash, status, baseline_seq in rows:
            found[seq] = _Link(composite, row_hash, status, baseline_seq)
    return found


@cache
def _links_statement(dialect: str) -> Any:
    return select(
        TransitionRow.seq,
        TransitionRow.composite,
        TransitionRow.row_hash,
        TransitionRow.status,
        TransitionRow.baseline_seq,
    ).where(member_of_parameter(dialect, TransitionRow.seq, "seqs"))


def transition_rows(
    store: TrustStore,
    *,
    organisation_id: int,
    rescores: Sequence[Rescore],
    bases: ChainBases,
    now: datetime,
) -> list[dict[str, Any]]:
    """The score_history rows of ``rescores``, each linked to its agent's chain (no I/O)."""
    rows_out: list[dict[str, Any]] = []
    for rescore in rescores:
        score = rescore.score
        tier = str(score.tier)
        score_json = score.model_dump_json()
        baseline_seq = bases.canonical_seq.get(rescore.agent_pk)
        anomalous = baseline_seq is not None and is_anomalous(
            bases.known[baseline_seq][0], score.composite, store.anomaly_threshold
        )
        previous = bases.last_seq.get(rescore.agent_pk)
        prev_hash = GENESIS if previous is None else bases.known[previous][1]
        row_hash = link_hash(
            prev_hash,
            transition_envelope(
                agent_id=rescore.agent_id,
                composite=score.composite,
                tier=tier,
                score=score_json,
                computed_at=now,
                trigger=rescore.trigger,
                was_anomalous=anomalous,
                baseline_seq=baseline_seq,
            ),
        )
        status = TransitionStatus.PENDING_REVIEW if anomalous else TransitionStatus.COMMITTED
        rows_out.append(
            {
                "organisation_id": organisation_id,
                "agent_pk": rescore.agent_pk,
                "composite": score.composite,
                "tier": tier,
                "score": score_json,
                "computed_at": now,
                "trigger": rescore.trigger,
                "was_anomalous": anomalous,
                "baseline_seq": baseline_seq,
                "status": status.value,
                "prev_hash": prev_hash,
                "row_hash": row_hash,
            }
        )
    return rows_out


def append_transitions(
    connection: Connection,
    store: TrustStore,
    *,
    organisation_id: int,
    rescores: Sequence[Rescore],
    now: datetime,
) -> list[tuple[int, int | None]]:
    """Append each agent's new score; returns (seq, review id) per agent, in order.

    Call inside the write transaction that holds the organisation's lock. A pending review of
    one of these agents is superseded: it judged a score that no longer reflects the evidence.
    A handful of queries serve every agent of the batch, whatever their number.
    """
    if not rescores:
        return []
    bases = chain_bases(connection, [r.agent_pk for r in rescores])
    rows = transition_rows(
        store, organisation_id=organisation_id, rescores=rescores, bases=bases, now=now
    )
    return write_transitions(
        connection, organisation_id=organisation_id, rows=rows, bases=bases, now=now
    )


def write_transitions(
    connection: Connection,
    *,
    organisation_id: int,
    rows: Sequence[dict[str, Any]],
    bases: ChainBases,
    now: datetime,
) -> list[tuple[int, int | None]]:
    """Insert :func:`transition_rows` (built on ``bases``, read in this transaction) and reviews.

    A pending review of one of these agents is superseded first. Returns (seq, review id) per
    row, in order.
    """
    if not rows:
        return []
    _supersede_pending(connection, transition_seqs=bases.held, now=now)
    rows_out = list(rows)
    if connection.dialect.name == "postgresql":
        seqs = _insert_transitions_pipelined(connection, rows_out)
    else:
        seqs = _insert_transitions_sqlite(connection, rows_out)
    reviews = [
        {
            "organisation_id": organisation_id,
            "agent_pk": row["agent_pk"],
            "transition_seq": seq,
            "status": ReviewStatus.PENDING.value,
            "opened_at": now,
            "seal": review_seal(
                transition_hash=row["row_hash"],
                status=ReviewStatus.PENDING.value,
                opened_at=now,
                decided_at=None,
                decided_by=None,
                reason=None,
                holder=ReviewHolder(organisation_id, row["agent_pk"]),
            ),
            "seal_version": SEAL_VERSION,
        }
        for row, seq in zip(rows_out, seqs, strict=True)
        if row["was_anomalous"]
    ]
    review_ids: dict[int, int] = {}
    if reviews:
        ids: Iterable[int]
        if connection.dialect.name == "postgresql":
            # Like the transitions: one prepared statement, pipelined, rather than a statement
            # with a placeholder per value that the driver parses anew every batch.
            ids = _insert_pipelined(
                connection,
                _PG_INSERT_REVIEW,
                [
                    tuple(
                        _utc(review[c]) if c == "opened_at" else review[c]
                        for c in _NEW_REVIEW_COLUMNS
                    )
                    for review in reviews
                ],
            )
        else:
            ids = connection.execute(
                insert(ReviewRow).returning(ReviewRow.id, sort_by_parameter_order=True), reviews
            ).scalars()
        review_ids = {
            review["transition_seq"]: review_id
            for review, review_id in zip(reviews, ids, strict=True)
        }
    return [(seq, review_ids.get(seq)) for seq in seqs]


TRANSITION_COLUMNS = (
    "organisation_id",
    "agent_pk",
    "composite",
    "tier",
    "score",
    "computed_at",
    "trigger",
    "was_anomalous",
    "baseline_seq",
    "status",
    "prev_hash",
    "row_hash",
)
_PG_INSERT_TRANSITION = (
    f"INSERT INTO score_history ({', '.join(TRANSITION_COLUMNS)}) "
    f"VALUES ({', '.join('%s' for _ in TRANSITION_COLUMNS)}) RETURNING seq"
)


_NEW_REVIEW_COLUMNS = (
    "organisation_id",
    "agent_pk",
    "transition_seq",
    "status",
    "opened_at",
    "seal",
    "seal_version",
)
_PG_INSERT_REVIEW = (
    f"INSERT INTO reviews ({', '.join(_NEW_REVIEW_COLUMNS)}) "
    f"VALUES ({', '.join('%s' for _ in _NEW_REVIEW_COLUMNS)}) RETURNING id"
)


def _utc(moment: datetime) -> datetime:
    """``moment`` in UTC, as the store's time columns take it (aware times only)."""
    if moment.tzinfo is None:
        raise ValueError("timestamps written to the store must be timezone-aware")
    return moment.astimezone(UTC)


def _insert_transitions_pipelined(
    connection: Connection, rows: Sequence[dict[str, Any]]
) -> list[int]:
    """Insert transition rows on PostgreSQL with one prepared statement, pipelined; their seqs.

    SQLAlchemy's many-rows ``INSERT … RETURNING`` renders one statement with a placeholder per
    value (2,400 for 200 agents) that the driver parses anew on every batch; the driver's
    ``executemany`` sends the rows through one server-side prepared statement in a pipeline
    (one round trip), and returns each row's seq in order.
    """
    values = [
        tuple(_utc(row[c]) if c == "computed_at" else row[c] for c in TRANSITION_COLUMNS)
        for row in rows
    ]
    return _insert_pipelined(connection, _PG_INSERT_TRANSITION, values)


_SQLITE_INSERT_TRANSITION = (
    f"INSERT INTO score_history ({', '.join(TRANSITION_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in TRANSITION_COLUMNS)})"
)


def _insert_transitions_sqlite(connection: Connection, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Insert transition rows on SQLite, one prepared statement run per row; their seqs.

    SQLAlchemy's many-rows ``INSERT … RETURNING`` processes every value in Python and renders
    a statement with a placeholder per value; the driver runs its cached statement per row for
    a fifth of the CPU. ``seq`` is the table's rowid, so each row's is the cursor's
    ``lastrowid``. Times are written as SQLAlchemy writes them on SQLite (naive UTC text).
    """
    driver = connection.connection.driver_connection
    assert driver is not None
    cursor = driver.cursor()
    seqs: list[int] = []
    try:
        for row in rows:
            values = tuple(
                utc_text(_utc(row[c]), separator=" ", zone="") if c == "computed_at" else row[c]
                for c in TRANSITION_COLUMNS
            )
            cursor.execute(_SQLITE_INSERT_TRANSITION, values)
            seqs.append(int(cursor.lastrowid))
    finally:
        cursor.close()
    return seqs


def _insert_pipelined(
    connection: Connection, statement: str, values: Sequence[tuple[Any, ...]]
) -> list[int]:
    """Run a one-row ``INSERT … RETURNING`` per tuple of ``values`` (PostgreSQL), pipelined.

    Returns the first returned column of each row, in order.
    """
    driver = connection.connection.driver_connection
    assert driver is not None
    found_ids: list[int] = []
    with driver.cursor() as cursor:
        cursor.executemany(statement, values, returning=True)
        while True:
            found = cursor.fetchone()
            assert found is not None
            found_ids.append(int(found[0]))
            if not cursor.nextset():
                break
    return found_ids


class OpenReview(NamedTuple):
    """A pending review, with what its new seal covers."""

    review_id: int
    transition_seq: int
    transition_hash: str
    holder: ReviewHolder
    opened_at: datetime


def _supersede_pending(
    connection: Connection, *, transition_seqs: list[int], now: datetime
) -> None:
    """Close the open reviews of ``transition_seqs`` (found by the unique index on their seq)."""
    statement = _pending_statement(connection.dialect.name)
    pending = [
        row
        for chunk in chunks(transition_seqs)
        for row in connection.execute(statement, {"seqs": list(chunk)})
    ]
    close_reviews(
        connection,
        [
            OpenReview(
                review_id, seq, transition_hash, ReviewHolder(organisation_id, agent_pk), opened_at
            )
            for review_id, seq, opened_at, transition_hash, organisation_id, agent_pk in pending
        ],
        status=ReviewStatus.SUPERSEDED,
        decided_by=SYSTEM_ACTOR,
        reason="superseded by a newer score of the same agent before it was decided",
        now=now,
    )


@cache
def _pending_statement(dialect: str) -> Any:
    return (
        select(
            ReviewRow.id,
            ReviewRow.transition_seq,
            ReviewRow.opened_at,
            TransitionRow.row_hash,
            ReviewRow.organisation_id,
            ReviewRow.agent_pk,
        )
        .join(TransitionRow, TransitionRow.seq == ReviewRow.transition_seq)
        .where(
            member_of_parameter(dialect, ReviewRow.transition_seq, "seqs"),
            ReviewRow.status == ReviewStatus.PENDING.value,
        )
    )


def close_reviews(
    connection: Connection,
    reviews: Sequence[OpenReview],
    *,
    status: ReviewStatus,
    decided_by: str,
    reason: str,
    now: datetime,
) -> None:
    """Record one decision on ``reviews``, reseal them (current version), move their transitions.

    Two statements whatever their number (one review update per row through one prepared
    statement, one transition update per chunk): a platform's batch about many agents can
    supersede many reviews at once.
    """
    if not reviews:
        return
    close_review, move_transitions = _close_statements(connection.dialect.name)
    decision = {"new_status": status.value, "decided": now, "by": decided_by, "why": reason}
    connection.execute(
        close_review,
        [
            {
                **decision,
                "review_id": review.review_id,
                "new_seal": review_seal(
                    transition_hash=review.transition_hash,
                    status=status.value,
                    opened_at=review.opened_at,
                    decided_at=now,
                    decided_by=decided_by,
                    reason=reason,
                    holder=review.holder,
                ),
            }
            for review in reviews
        ],
    )
    for chunk in chunks(sorted(review.transition_seq for review in reviews)):
        connection.execute(
            move_transitions,
            {"new_status": TransitionStatus(status.value).value, "seqs": list(chunk)},
        )


@cache
def _close_statements(dialect: str) -> tuple[Any, Any]:
    """The two statements of :func:`close_reviews`, built once (each row's values are bound)."""
    close_review = (
        update(ReviewRow)
        .where(ReviewRow.id == bindparam("review_id"))
        .values(
            status=bindparam("new_status"),
            decided_at=bindparam("decided", type_=ReviewRow.decided_at.type),
            decided_by=bindparam("by"),
            reason=bindparam("why"),
            seal=bindparam("new_seal"),
            seal_version=SEAL_VERSION,
        )
    )
    move_transitions = (
        update(TransitionRow)
        .where(member_of_parameter(dialect, TransitionRow.seq, "seqs"))
        .values(status=bindparam("new_status"))
    )
    return close_review, move_transitions


def _agent_pk(connection: Connection, organisation: str, agent_id: str) -> int:
    found = connection.execute(
        select(AgentRow.id)
        .join(OrganisationRow, OrganisationRow.id == AgentRow.organisation_id)
        .where(OrganisationRow.name == organisation, AgentRow.agent_id == agent_id)
    ).scalar_one_or_none()
    if found is None:
        raise NotFoundError(f"no agent {agent_id!r} in this organisation")
    return found


def require_agent(store: TrustStore, *, organisation: str, agent_id: str) -> None:
    """Check the agent exists in ``organisation``; if not, name the organisations that have it.

    For operators with the whole database in hand (the CLI). The service must not call it: an
    API caller may not learn which other tenants know an agent id.
    """
    with read_transaction(store.engine) as connection:
        owners = (
            connection.execute(
                select(OrganisationRow.name)
                .join(AgentRow, AgentRow.organisation_id == OrganisationRow.id)
                .where(AgentRow.agent_id == agent_id)
                .order_by(OrganisationRow.name)
            )
            .scalars()
            .all()
        )
    if organisation in owners:
        return
    elsewhere = (
        f"organisations that have it: {', '.join(owners)}" if owners else "no organisation has it"
    )
    raise NotFoundError(f"no agent {agent_id!r} in organisation {organisation!r}; {elsewhere}")


def _transition(row: Row[Any], agent_id: str) -> Transition:
    return Transition(
        seq=row.seq,
        agent_id=agent_id,
        composite=row.composite,
        tier=row.tier,
        status=TransitionStatus(row.status),
        was_anomalous=row.was_anomalous,
        baseline_seq=row.baseline_seq,
        computed_at=row.computed_at,
        trigger=row.trigger,
        score=TrustScore.model_validate_json(row.score),
        hash=row.row_hash,
    )


REVIEW_COLUMNS = (
    ReviewRow.id,
    AgentRow.agent_id,
    ReviewRow.transition_seq,
    ReviewRow.status,
    TransitionRow.composite,
    TransitionRow.tier,
    TransitionRow.baseline_seq,
    ReviewRow.opened_at,
    ReviewRow.decided_at,
    ReviewRow.decided_by,
    ReviewRow.reason,
)


def review_query() -> Any:
    """Select the columns of :func:`review_from_row`, joined to transition and agent."""
    return (
        select(*REVIEW_COLUMNS)
        .join(TransitionRow, TransitionRow.seq == ReviewRow.transition_seq)
        .join(AgentRow, AgentRow.id == ReviewRow.agent_pk)
    )


def review_from_row(connection: Connection, row: Row[Any]) -> Review:
    """Build a :class:`Review`, looking up the canonical composite it was compared with."""
    canonical_composite = None
    if row.baseline_seq is not None:
        canonical_composite = connection.execute(
            select(TransitionRow.composite).where(TransitionRow.seq == row.baseline_seq)
        ).scalar_one_or_none()
    return Review(
        id=row.id,
        agent_id=row.agent_id,
        transition_seq=row.transition_seq,
        status=ReviewStatus(row.status),
        composite=row.composite,
        canonical_composite=canonical_composite,
        tier=row.tier,
        opened_at=row.opened_at,
        decided_at=row.decided_at,
        decided_by=row.decided_by,
        reason=row.reason,
    )


@cache
def _canonical_statement() -> Any:
    """The one statement of :func:`canonical_score`, built once (GET score is the hot path).

    The agent's newest canonical transition, and its pending review if any (there is at most
    one: a newer transition supersedes it), with the composite the review compares against.
    A single statement reads one consistent snapshot without a transaction around it.
    """
    latest = (
        select(func.max(TransitionRow.seq))
        .where(
            TransitionRow.agent_pk == AgentRow.id,
            TransitionRow.status.in_(CANONICAL_STATUSES),
        )
        .correlate(AgentRow)
        .scalar_subquery()
    )
    review = aliased(ReviewRow)
    held = aliased(TransitionRow)
    baseline = aliased(TransitionRow)
    return (
        select(
            TransitionRow.seq,
            TransitionRow.score,
            TransitionRow.computed_at,
            review.id.label("review_id"),
            review.transition_seq.label("review_transition_seq"),
            review.status.label("review_status"),
            held.composite.label("review_composite"),
            baseline.composite.label("review_canonical_composite"),
            held.tier.label("review_tier"),
            review.opened_at.label("review_opened_at"),
            review.decided_at.label("review_decided_at"),
            review.decided_by.label("review_decided_by"),
            review.reason.label("review_reason"),
        )
        .select_from(AgentRow)
        .join(OrganisationRow, OrganisationRow.id == AgentRow.organisation_id)
        .outerjoin(TransitionRow, TransitionRow.seq == latest)
        .outerjoin(
            review,
            and_(
                review.agent_pk == AgentRow.id,
                review.status == ReviewStatus.PENDING.value,
            ),
        )
        .outerjoin(held, held.seq == review.transition_seq)
        .outerjoin(baseline, baseline.seq == held.baseline_seq)
        .where(
            OrganisationRow.name == bindparam("organisation"),
            AgentRow.agent_id == bindparam("agent_id"),
        )
    )


def _canonical_read(store: TrustStore, organisation: str, agent_id: str) -> Row[Any]:
    row = read_statement(
        store.engine, _canonical_statement(), {"organisation": organisation, "agent_id": agent_id}
    )
    if row is None:
        raise NotFoundError(f"no agent {agent_id!r} in this organisation")
    if row.seq is None:  # every stored agent has a first, committed score; defensive only
        raise NotFoundError(f"agent {agent_id!r} has no committed score yet")
    return row


def _pending_review(row: Row[Any], agent_id: str) -> Review | None:
    if row.review_id is None:
        return None
    return Review(
        id=row.review_id,
        agent_id=agent_id,
        transition_seq=row.review_transition_seq,
        status=ReviewStatus(row.review_status),
        composite=row.review_composite,
        canonical_composite=row.review_canonical_composite,
        tier=row.review_tier,
        opened_at=row.review_opened_at,
        decided_at=row.review_decided_at,
        decided_by=row.review_decided_by,
        reason=row.review_reason,
    )


def canonical_score(store: TrustStore, *, organisation: str, agent_id: str) -> AgentScore:
    """Return the canonical score and any pending review; unknown agents raise NotFoundError."""
    row = _canonical_read(store, organisation, agent_id)
    return AgentScore(
        agent_id=agent_id,
        score=TrustScore.model_validate_json(row.score),
        transition_seq=row.seq,
        computed_at=row.computed_at,
        pending_review=_pending_review(row, agent_id),
    )


class _AgentScoreTail(BaseModel):
    """The fields of :class:`AgentScore` after ``score``, in its order, to serialise alone."""

    transition_seq: int
    """As in :class:`AgentScore`."""
    computed_at: datetime
    """As in :class:`AgentScore`."""
    pending_review: Review | None
    """As in :class:`AgentScore`."""


_AGENT_ID = TypeAdapter(str)


def canonical_score_json(store: TrustStore, *, organisation: str, agent_id: str) -> bytes:
    """The JSON of :func:`canonical_score`, with the score's stored bytes spliced in unparsed.

    The score column holds the JSON the score was hashed into the history chain as
    (``TrustScore.model_dump_json``); it is served as stored. The other fields are serialised
    as :class:`AgentScore` does, so the result equals ``canonical_score(...).model_dump_json()``.
    """
    row = _canonical_read(store, organisation, agent_id)
    tail = _AgentScoreTail(
        transition_seq=row.seq,
        computed_at=row.computed_at,
        pending_review=_pending_review(row, agent_id),
    ).model_dump_json()
    return b"".join(
        (
            b'{"agent_id":',
            _AGENT_ID.dump_json(agent_id),
            b',"score":',
            row.score.encode("utf-8"),
            b",",
            tail[1:].encode("utf-8"),
        )
    )


def score_history(
    store: TrustStore,
    *,
    organisation: str,
    agent_id: str,
    limit: int = 50,
    before: int | None = None,
) -> HistoryPage:
    """Return a page of the agent's transitions, newest first, older than ``before`` when given."""
    limit = max(1, min(limit, MAX_PAGE))
    with read_transaction(store.engine) as connection:
        agent_pk = _agent_pk(connection, organisation, agent_id)
        condition = TransitionRow.agent_pk == agent_pk
        if before is not None:
            condition = and_(condition, TransitionRow.seq < before)
        rows = connection.execute(
            select(TransitionRow)
            .where(condition)
            .order_by(TransitionRow.seq.desc())
            .limit(limit + 1)
        ).all()
    page = [_transition(row, agent_id) for row in rows[:limit]]
    next_before = page[-1].seq if len(rows) > limit else None
    return HistoryPage(agent_id=agent_id, transitions=page, next_before=next_before)
