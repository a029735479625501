"""Recompute every hash chain and review seal and report the first break of each chain.

Verification reads a database that may have been edited by hand, so nothing it reads is trusted
to be well formed: a missing agent or organisation row, or a timestamp no parser understands, is
reported as a break of the chain or row it belongs to, never raised. Timestamps are read as text
(on PostgreSQL formatted in UTC by the database) and parsed here for the same reason.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Row, String, func, select, type_coerce

from trustprobe.formats import STORED_CONTEXT, sha256_hex
from trustprobe.store.chains import (
    GENESIS,
    ReviewHolder,
    evidence_envelope,
    link_hash,
    review_seal,
    transition_envelope,
)
from trustprobe.store.database import read_transaction
from trustprobe.store.evidence import evidence_adapter
from trustprobe.store.models import ChainBreak, ChainHead, VerifyReport
from trustprobe.store.schema import (
    AgentRow,
    EvidenceRow,
    OrganisationRow,
    ReviewRow,
    TransitionRow,
)
from trustprobe.store.store import TrustStore
from trustprobe.store.totals import (
    AgentTotals,
    DimensionTotal,
    add_records,
    config_key,
    load_totals,
)
from trustprobe.trust import TrustConfig

STREAM_BATCH = 5000
_STORED_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")


def _stream(connection: Connection, query: Any) -> Iterator[Row[Any]]:
    result = connection.execution_options(yield_per=STREAM_BATCH).execute(query)
    yield from result


def _time_text(connection: Connection, column: Any) -> ColumnElement[str]:
    """``column`` as UTC text, whatever it holds (SQLite: the stored text itself)."""
    if connection.dialect.name == "postgresql":
        utc = func.timezone("UTC", column)
        return func.to_char(utc, 'YYYY-MM-DD"T"HH24:MI:SS.US').label(column.key)
    return type_coerce(column, String).label(column.key)


class _BadTime(ValueError):
    """A stored timestamp that does not parse; names the column."""


def _parse_time(text: str | None, column: str) -> datetime:
    match = None if text is None else _STORED_TIME.fullmatch(text)
    if match is None:
        raise _BadTime(f"column {column!r} holds {text!r}, not a timestamp")
    year, month, day, hour, minute, second, fraction = match.groups()
    try:
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second),
            int((fraction or "0").ljust(6, "0")), tzinfo=UTC,
        )  # fmt: skip
    except ValueError as exc:
        raise _BadTime(f"column {column!r} holds {text!r}, not a timestamp ({exc})") from None


def _optional_time(text: str | None, column: str) -> datetime | None:
    return None if text is None else _parse_time(text, column)


class _Chain:
    """Walks one chain in order and remembers its first break."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.prev = GENESIS
        self.length = 0
        self.first_break: ChainBreak | None = None

    def check(self, seq: int, prev_hash: str, row_hash: str, expected: str, extra: str) -> None:
        self.length += 1
        if self.first_break is None:
            problem = ""
            if prev_hash != self.prev:
                problem = (
                    f"stored previous hash {prev_hash[:12]} does not match the preceding row's "
                    f"hash {self.prev[:12]} (a row was edited, removed or inserted before it)"
                )
            elif row_hash != expected:
                problem = (
                    f"stored hash {row_hash[:12]} does not match the hash of its content "
                    f"{expected[:12]} (the row was edited)"
                )
            elif extra:
                problem = extra
            if problem:
                self.first_break = ChainBreak(chain=self.name, seq=seq, problem=problem)
        self.prev = row_hash

    def head(self) -> ChainHead:
        return ChainHead(chain=self.name, length=self.length, head=self.prev)


@dataclass
class _Directory:
    """Organisation names and agents by key, naming what is missing instead of failing."""

    organisations: dict[int, str]
    agents: dict[int, tuple[str, int]]

    def organisation(self, organisation_id: int, *, quoted: bool = False) -> str:
        """The organisation's name (``quoted``: as a Python literal), or what is missing."""
        name = self.organisations.get(organisation_id)
        if name is None:
            return f"#{organisation_id} (row missing)"
        return repr(name) if quoted else name

    def agent(self, agent_pk: int) -> tuple[str | None, int | None]:
        agent_id, organisation_id = self.agents.get(agent_pk, (None, None))
        return agent_id, organisation_id

    def agent_problem(self, agent_pk: int, organisation_id: int) -> str:
        """Why the row's agent cannot be the one it names, or ``""``."""
        agent_id, agent_organisation = self.agent(agent_pk)
        if agent_id is None:
            return f"its agent row (key {agent_pk}) is missing"
        if organisation_id not in self.organisations:
            return f"its organisation row (key {organisation_id}) is missing"
        if agent_organisation != organisation_id:
            return "the row's agent belongs to another organisation"
        return ""


def _evidence_columns_problem(row: Row[Any], agent_id: str, observed_at: datetime) -> str:
    if sha256_hex(row.content) != row.content_sha256:
        return "content_sha256 does not match the stored content"
    try:
        content = json.loads(row.content)
    except json.JSONDecodeError:
        return "stored content is not valid JSON"
    if not isinstance(content, dict):
        return "stored content is not a JSON object"
    expected = {
        "id": row.evidence_id,
        "agent_id": agent_id,
        "dimension": row.dimension,
        "kind": row.kind,
    }
    for field, value in expected.items():
        if content.get(field) != value:
            return f"column {field!r} ({value!r}) disagrees with the hashed content"
    try:
        hashed = datetime.fromisoformat(str(content.get("observed_at")))
    except ValueError:
        return "the hashed content's observed_at is not a timestamp"
    if hashed != observed_at:
        return "column 'observed_at' disagrees with the hashed content"
    source = content.get("source") or {}
    for column, field in (
        ("source_tool", "tool"),
        ("source_run_id", "run_id"),
        ("source_file_sha256", "file_sha256"),
    ):
        if getattr(row, column) != source.get(field):
            return f"column {column!r} disagrees with the hashed content's source.{field}"
    return ""


def _transition_columns_problem(row: Row[Any]) -> str:
    try:
        score = json.loads(row.score)
    except json.JSONDecodeError:
        return "stored score is not valid JSON"
    if not isinstance(score, dict):
        return "stored score is not a JSON object"
    if score.get("composite") != row.composite or score.get("tier") != row.tier:
        return "composite or tier columns disagree with the hashed score"
    return ""


@dataclass(frozen=True)
class _TransitionFacts:
    row_hash: str
    status: str
    organisation_id: int
    agent_pk: int


@dataclass
class _Walk:
    """What one verification has seen so far."""

    directory: _Directory
    chains: dict[tuple[str, int], _Chain]
    transitions: dict[int, _TransitionFacts]
    unreviewed: dict[int, str]
    breaks: list[ChainBreak]
    counts: dict[str, int]
    config: TrustConfig
    totals: dict[int, AgentTotals] = dataclasses.field(default_factory=dict)
    """Running totals recomputed from the evidence rows read."""

    def count_item(self, agent_pk: int, seq: int, content: str) -> None:
        """Add one evidence row to the recomputed totals.

        Content that does not parse is left to the chain check, which reports the edit.
        """
        try:
            record = evidence_adapter().validate_json(content, context={STORED_CONTEXT: True})
        except ValueError:
            return
        add_records(self.totals.setdefault(agent_pk, {}), (record,), self.config, evidence_seq=seq)

    def chain(self, key: tuple[str, int], name: str) -> _Chain:
        if key not in self.chains:
            self.chains[key] = _Chain(name)
        return self.chains[key]


def verify_store(store: TrustStore) -> VerifyReport:
    """Recompute the evidence chains, history chains and review seals of the whole store."""
    with read_transaction(store.engine) as connection:
        directory = _Directory(
            organisations=dict(
                connection.execute(select(OrganisationRow.id, OrganisationRow.name)).all()
            ),
            agents={
                pk: (agent_id, organisation_id)
                for pk, agent_id, organisation_id in connection.execute(
                    select(AgentRow.id, AgentRow.agent_id, AgentRow.organisation_id)
                )
            },
        )
        walk = _Walk(
            directory,
            {},
            {},
            {},
            [],
            {"evidence": 0, "transitions": 0, "reviews": 0},
            store.config or TrustConfig(),
        )
        _verify_evidence(connection, walk)
        _verify_totals(connection, walk)
        _verify_history(connection, walk)
        _verify_reviews(connection, walk)
    breaks = [c.first_break for c in walk.chains.values() if c.first_break is not None]
    breaks.extend(walk.breaks)
    breaks.extend(
        ChainBreak(chain=name, seq=seq, problem="anomalous transition without its review")
        for seq, name in walk.unreviewed.items()
    )
    return VerifyReport(
        ok=not breaks,
        breaks=breaks,
        heads=[c.head() for c in walk.chains.values()],
        evidence_rows=walk.counts["evidence"],
        transitions=walk.counts["transitions"],
        reviews=walk.counts["reviews"],
    )


def _verify_evidence(connection: Connection, walk: _Walk) -> None:
    query = select(
        EvidenceRow.seq,
        EvidenceRow.organisation_id,
        EvidenceRow.agent_pk,
        EvidenceRow.evidence_id,
        EvidenceRow.dimension,
        EvidenceRow.kind,
        EvidenceRow.content,
        EvidenceRow.content_sha256,
        EvidenceRow.source,
        EvidenceRow.source_tool,
        EvidenceRow.source_run_id,
        EvidenceRow.source_file_sha256,
        EvidenceRow.probe_run_id,
        EvidenceRow.prev_hash,
        EvidenceRow.row_hash,
        _time_text(connection, EvidenceRow.received_at),
        _time_text(connection, EvidenceRow.observed_at),
    ).order_by(EvidenceRow.organisation_id, EvidenceRow.seq)
    for row in _stream(connection, query):
        walk.counts["evidence"] += 1
        organisation = walk.directory.organisation(row.organisation_id, quoted=True)
        chain = walk.chain(
            ("evidence", row.organisation_id), f"evidence of organisation {organisation}"
        )
        agent_id, _ = walk.directory.agent(row.agent_pk)
        extra = walk.directory.agent_problem(row.agent_pk, row.organisation_id)
        # Totals follow the hashed content; a broken column is the chain check's to report.
        walk.count_item(row.agent_pk, row.seq, row.content)
        try:
            received_at = _parse_time(row.received_at, "received_at")
            observed_at = _parse_time(row.observed_at, "observed_at")
        except _BadTime as exc:
            chain.check(row.seq, row.prev_hash, row.row_hash, row.row_hash, str(exc))
            continue
        expected = link_hash(
            row.prev_hash,
            evidence_envelope(
                content=row.content,
                source=row.source,
                received_at=received_at,
                probe_run_id=row.probe_run_id,
            ),
        )
        if not extra and agent_id is not None:
            extra = _evidence_columns_problem(row, agent_id, observed_at)
        chain.check(row.seq, row.prev_hash, row.row_hash, expected, extra)


def _verify_totals(connection: Connection, walk: _Walk) -> None:
    """Compare the stored running totals with the ones recomputed from the evidence.

    Totals made under other item-scoring settings are left alone: the next rescoring of their
    agent rebuilds them from its history. A missing or different row is reported, unless the
    organisation's evidence chain is broken: that break is the finding, and it explains the rest.
    """
    broken = {
        organisation_id
        for (kind, organisation_id), chain in walk.chains.items()
        if kind == "evidence" and chain.first_break is not None
    }
    key = config_key(walk.config)
    stored, _other_settings = load_totals(connection, list(walk.directory.agents), key=key)
    with_other_settings = set(_other_settings)
    for agent_pk in sorted(set(stored) | set(walk.totals)):
        agent_id, organisation_id = walk.directory.agent(agent_pk)
        if agent_pk in with_other_settings or organisation_id in broken:
            continue
        who = f"agent {agent_id!r}" if agent_id is not None else f"agent key {agent_pk}"
        if organisation_id is not None:
            who += f" ({walk.directory.organisation(organisation_id)})"
        found, expected = stored.get(agent_pk, {}), walk.totals.get(agent_pk, {})
        for dimension in sorted(set(found) | set(expected)):
            problem = _totals_problem(found.get(dimension), expected.get(dimension))
            if problem:
                row = found.get(dimension) or expected[dimension]
                walk.breaks.append(
                    ChainBreak(
                        chain="totals",
                        seq=row.evidence_seq,
                        problem=f"running totals of {who}, {dimension.value}: {problem}",
                    )
                )


def _totals_problem(found: DimensionTotal | None, expected: DimensionTotal | None) -> str:
    if found is None:
        return "missing, though the agent has evidence in this dimension"
    if expected is None:
        return "stored, though the agent has no evidence in this dimension"
    if found.evidence_seq < expected.evidence_seq:
        return (
            f"evidence_seq {found.evidence_seq} is before the dimension's last evidence row "
            f"{expected.evidence_seq}"
        )
    differ = [
        name
        for name, mine, theirs in (
            ("item_count", found.count, expected.count),
            ("size_sum", found.size.text(), expected.size.text()),
            ("raw_sum", found.raw.text(), expected.raw.text()),
            ("low_confidence", found.low_confidence, expected.low_confidence),
            ("newest_observed_us", found.newest_us, expected.newest_us),
            ("oldest_scored_us", found.oldest_scored_us, expected.oldest_scored_us),
            ("origins", found.origins, expected.origins),
        )
        if mine != theirs
    ]
    if differ:
        return f"{', '.join(differ)} disagree with the evidence rows (the row was edited)"
    return ""


def _verify_history(connection: Connection, walk: _Walk) -> None:
    query = select(
        TransitionRow.seq,
        TransitionRow.organisation_id,
        TransitionRow.agent_pk,
        TransitionRow.composite,
        TransitionRow.tier,
        TransitionRow.score,
        TransitionRow.trigger,
        TransitionRow.was_anomalous,
        TransitionRow.baseline_seq,
        TransitionRow.status,
        TransitionRow.prev_hash,
        TransitionRow.row_hash,
        _time_text(connection, TransitionRow.computed_at),
    ).order_by(TransitionRow.agent_pk, TransitionRow.seq)
    for row in _stream(connection, query):
        walk.counts["transitions"] += 1
        agent_id, organisation_id = walk.directory.agent(row.agent_pk)
        owner = walk.directory.organisation(
            organisation_id if organisation_id is not None else row.organisation_id
        )
        shown = repr(agent_id) if agent_id is not None else f"#{row.agent_pk} (row missing)"
        chain = walk.chain(("history", row.agent_pk), f"history of agent {shown} ({owner})")
        walk.transitions[row.seq] = _TransitionFacts(
            row.row_hash, row.status, row.organisation_id, row.agent_pk
        )
        if row.was_anomalous:
            walk.unreviewed[row.seq] = chain.name
        extra = walk.directory.agent_problem(row.agent_pk, row.organisation_id)
        try:
            computed_at = _parse_time(row.computed_at, "computed_at")
        except _BadTime as exc:
            chain.check(row.seq, row.prev_hash, row.row_hash, row.row_hash, str(exc))
            continue
        expected = link_hash(
            row.prev_hash,
            transition_envelope(
                agent_id=agent_id or "",
                composite=row.composite,
                tier=row.tier,
                score=row.score,
                computed_at=computed_at,
                trigger=row.trigger,
                was_anomalous=row.was_anomalous,
                baseline_seq=row.baseline_seq,
            ),
        )
        if not extra:
            extra = _transition_columns_problem(row)
        if not extra and row.was_anomalous != (row.status != "committed"):
            extra = f"status {row.status!r} does not fit was_anomalous={row.was_anomalous}"
        chain.check(row.seq, row.prev_hash, row.row_hash, expected, extra)


def _verify_reviews(connection: Connection, walk: _Walk) -> None:
    query = select(
        ReviewRow.id,
        ReviewRow.organisation_id,
        ReviewRow.agent_pk,
        ReviewRow.transition_seq,
        ReviewRow.status,
        ReviewRow.decided_by,
        ReviewRow.reason,
        ReviewRow.seal,
        ReviewRow.seal_version,
        _time_text(connection, ReviewRow.opened_at),
        _time_text(connection, ReviewRow.decided_at),
    ).order_by(ReviewRow.id)
    for row in _stream(connection, query):
        walk.counts["reviews"] += 1
        walk.unreviewed.pop(row.transition_seq, None)
        problem = _review_problem(row, walk.transitions)
        if problem:
            agent_id, _ = walk.directory.agent(row.agent_pk)
            shown = repr(agent_id) if agent_id is not None else f"#{row.agent_pk} (row missing)"
            walk.breaks.append(
                ChainBreak(
                    chain=f"review {row.id} of agent {shown} "
                    f"({walk.directory.organisation(row.organisation_id)})",
                    seq=row.id,
                    problem=problem,
                )
            )


def _review_problem(row: Row[Any], transitions: dict[int, _TransitionFacts]) -> str:
    transition = transitions.get(row.transition_seq)
    if transition is None:
        return f"its transition {row.transition_seq} is missing"
    if (row.organisation_id, row.agent_pk) != (transition.organisation_id, transition.agent_pk):
        return (
            "its organisation or agent disagrees with its transition's (the review was moved, "
            "so someone else could decide it)"
        )
    if row.seal_version not in (1, 2):
        return f"unknown seal version {row.seal_version!r}"
    try:
        opened_at = _parse_time(row.opened_at, "opened_at")
        decided_at = _optional_time(row.decided_at, "decided_at")
    except _BadTime as exc:
        return str(exc)
    seal = review_seal(
        transition_hash=transition.row_hash,
        status=row.status,
        opened_at=opened_at,
        decided_at=decided_at,
        decided_by=row.decided_by,
        reason=row.reason,
        holder=ReviewHolder(row.organisation_id, row.agent_pk) if row.seal_version == 2 else None,
    )
    if seal != row.seal:
        return (
            "its seal does not match its decision (status, who, when, why, or whose review it "
            "is was edited)"
        )
    expected_status = "pending_review" if row.status == "pending" else row.status
    if transition.status != expected_status:
        return (
            f"transition status {transition.status!r} disagrees with review status {row.status!r}"
        )
    return ""
