"""The store's tables as typed SQLAlchemy models (the migrations create exactly these)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Integer primary keys become SQLite's rowid (fast appends); BIGINT elsewhere for headroom.
SequenceKey = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite stores naive UTC text)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Refuse naive times; store UTC (naive on SQLite, which has no time zones)."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps written to the store must be timezone-aware")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Read back an aware UTC time."""
        if value is None:
            return None
        assert isinstance(value, datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base carrying the constraint naming convention the migrations use."""

    metadata = MetaData(naming_convention=NAMING)


class OrganisationRow(Base):
    """A tenant: every agent, key, evidence record and review belongs to exactly one."""

    __tablename__ = "organisations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ApiKeyRow(Base):
    """An API key: only its SHA-256 and a short public prefix are stored."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"), index=True)
    prefix: Mapped[str] = mapped_column(String(16), unique=True)
    key_sha256: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[str] = mapped_column(String(100))
    label: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class AgentRow(Base):
    """An agent under assessment, named by the organisation's own agent id."""

    __tablename__ = "agents"
    __table_args__ = (UniqueConstraint("organisation_id", "agent_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"))
    agent_id: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ProbeRunRow(Base):
    """A probe report received for an agent, from which evidence was derived."""

    __tablename__ = "probe_runs"
    __table_args__ = (UniqueConstraint("organisation_id", "agent_pk", "report_sha256"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"))
    agent_pk: Mapped[int] = mapped_column(ForeignKey("agents.id"), index=True)
    report_sha256: Mapped[str] = mapped_column(String(64))
    schema_version: Mapped[str | None] = mapped_column(String(40))
    observed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    evidence_count: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(20))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime())


class EvidenceRow(Base):
    """One evidence record, append-only, chained per organisation in ``seq`` order."""

    __tablename__ = "evidence"
    __table_args__ = (
        UniqueConstraint("organisation_id", "evidence_id"),
        Index(None, "agent_pk", "seq"),
        Index(None, "organisation_id", "seq"),
        # Only records with a source can match a lookup by tool and run (migration 0006).
        Index(
            None,
            "organisation_id",
            "source_tool",
            "source_run_id",
            sqlite_where=text("source_tool IS NOT NULL"),
            postgresql_where=text("source_tool IS NOT NULL"),
        ),
    )

    seq: Mapped[int] = mapped_column(SequenceKey, primary_key=True, autoincrement=True)
    # No foreign keys on the organisation and agent: the ingestion writes a row only after
    # both exist, and ``db verify`` checks they do (migration 0007 says why).
    organisation_id: Mapped[int] = mapped_column(Integer)
    agent_pk: Mapped[int] = mapped_column(Integer)
    evidence_id: Mapped[str] = mapped_column(String(200))
    dimension: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(20))
    observed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    content: Mapped[str] = mapped_column(Text)
    content_sha256: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(20))
    probe_run_id: Mapped[int | None] = mapped_column(ForeignKey("probe_runs.id"))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime())
    prev_hash: Mapped[str] = mapped_column(String(64))
    row_hash: Mapped[str] = mapped_column(String(64))
    # Copies of the record's ``source`` (tool, run, file digest) for looking runs up.
    source_tool: Mapped[str | None] = mapped_column(String(40))
    source_run_id: Mapped[str | None] = mapped_column(String(200))
    source_file_sha256: Mapped[str | None] = mapped_column(String(64))


class TransitionRow(Base):
    """One score recomputation of an agent, chained per agent in ``seq`` order."""

    __tablename__ = "score_history"
    __table_args__ = (Index(None, "agent_pk", "seq"),)

    seq: Mapped[int] = mapped_column(SequenceKey, primary_key=True, autoincrement=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"))
    agent_pk: Mapped[int] = mapped_column(ForeignKey("agents.id"))
    composite: Mapped[int | None] = mapped_column(Integer)
    tier: Mapped[str] = mapped_column(String(20))
    score: Mapped[str] = mapped_column(Text)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    trigger: Mapped[str] = mapped_column(String(200))
    was_anomalous: Mapped[bool] = mapped_column(Boolean)
    baseline_seq: Mapped[int | None] = mapped_column(SequenceKey)
    # The only mutable column: it follows the review's decision (db verify checks they agree).
    status: Mapped[str] = mapped_column(String(20))
    prev_hash: Mapped[str] = mapped_column(String(64))
    row_hash: Mapped[str] = mapped_column(String(64))


class ReviewRow(Base):
    """The human review of one anomalous transition, sealed to it by a hash."""

    __tablename__ = "reviews"
    __table_args__ = (Index(None, "organisation_id", "status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"))
    agent_pk: Mapped[int] = mapped_column(ForeignKey("agents.id"))
    transition_seq: Mapped[int] = mapped_column(ForeignKey("score_history.seq"), unique=True)
    status: Mapped[str] = mapped_column(String(20))
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime())
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    decided_by: Mapped[str | None] = mapped_column(String(200))
    reason: Mapped[str | None] = mapped_column(Text)
    seal: Mapped[str] = mapped_column(String(64))
    # 1: the seal covers the decision; 2: also organisation_id and agent_pk (chains.review_seal).
    seal_version: Mapped[int] = mapped_column(Integer, server_default="1")


class RateBucketRow(Base):
    """A request token bucket shared by every service worker: one per API key or address.

    Not evidence and not chained: rows are updated in place and dropped once full again.
    """

    __tablename__ = "rate_buckets"

    bucket: Mapped[str] = mapped_column(String(120), primary_key=True)
    tokens: Mapped[float] = mapped_column(Double)
    # Seconds since the epoch, from the clock of the worker that last took a token.
    updated_at: Mapped[float] = mapped_column(Double)
    full_at: Mapped[float] = mapped_column(Double, index=True)
    # Whether the last attempt got a token (RETURNING cannot see the row before the update).
    allowed: Mapped[bool] = mapped_column(Boolean)


class ScoreTotalRow(Base):
    """Running totals of one (agent, dimension): what rescoring needs without the evidence.

    Written in the transaction that appends the evidence they sum (docs/store.md, "Running
    totals"); ``db verify`` recomputes them from the evidence.
    """

    __tablename__ = "score_totals"

    agent_pk: Mapped[int] = mapped_column(ForeignKey("agents.id"), primary_key=True)
    dimension: Mapped[str] = mapped_column(String(40), primary_key=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"), index=True)
    config_key: Mapped[str] = mapped_column(String(64))
    evidence_seq: Mapped[int] = mapped_column(SequenceKey)
    item_count: Mapped[int] = mapped_column(BigInteger)
    size_sum: Mapped[str] = mapped_column(Text)
    raw_sum: Mapped[str] = mapped_column(Text)
    low_confidence: Mapped[bool] = mapped_column(Boolean)
    newest_observed_us: Mapped[int] = mapped_column(BigInteger)
    oldest_scored_us: Mapped[int | None] = mapped_column(BigInteger)
    origins: Mapped[str] = mapped_column(Text)
