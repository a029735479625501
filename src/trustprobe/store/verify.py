"""Recompute every hash chain and review seal and report the first break of each chain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, Row, select

from trustprobe.formats import sha256_hex
from trustprobe.store.chains import (
    GENESIS,
    evidence_envelope,
    link_hash,
    review_seal,
    transition_envelope,
)
from trustprobe.store.database import read_transaction
from trustprobe.store.models import ChainBreak, ChainHead, VerifyReport
from trustprobe.store.schema import (
    AgentRow,
    EvidenceRow,
    OrganisationRow,
    ReviewRow,
    TransitionRow,
)
from trustprobe.store.store import TrustStore

STREAM_BATCH = 5000


def _stream(connection: Connection, query: Any) -> Iterator[Row[Any]]:
    result = connection.execution_options(yield_per=STREAM_BATCH).execute(query)
    yield from result


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


def _evidence_columns_problem(row: Row[Any], agent_id: str) -> str:
    if sha256_hex(row.content) != row.content_sha256:
        return "content_sha256 does not match the stored content"
    try:
        content = json.loads(row.content)
    except json.JSONDecodeError:
        return "stored content is not valid JSON"
    expected = {
        "id": row.evidence_id,
        "agent_id": agent_id,
        "dimension": row.dimension,
        "kind": row.kind,
    }
    for field, value in expected.items():
        if content.get(field) != value:
            return f"column {field!r} ({value!r}) disagrees with the hashed content"
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
    if score.get("composite") != row.composite or score.get("tier") != row.tier:
        return "composite or tier columns disagree with the hashed score"
    return ""


def verify_store(store: TrustStore) -> VerifyReport:
    """Recompute the evidence chains, history chains and review seals of the whole store."""
    chains: dict[tuple[str, int], _Chain] = {}
    transition_hashes: dict[int, tuple[str, str]] = {}
    unreviewed: dict[int, str] = {}
    breaks: list[ChainBreak] = []
    evidence_rows = transitions = reviews = 0
    with read_transaction(store.engine) as connection:
        organisations = dict(
            connection.execute(select(OrganisationRow.id, OrganisationRow.name)).all()
        )
        agents = {
            pk: (agent_id, organisation_id)
            for pk, agent_id, organisation_id in connection.execute(
                select(AgentRow.id, AgentRow.agent_id, AgentRow.organisation_id)
            )
        }
        for row in _stream(
            connection, select(EvidenceRow).order_by(EvidenceRow.organisation_id, EvidenceRow.seq)
        ):
            evidence_rows += 1
            key = ("evidence", row.organisation_id)
            if key not in chains:
                chains[key] = _Chain(
                    f"evidence of organisation {organisations[row.organisation_id]!r}"
                )
            expected = link_hash(
                row.prev_hash,
                evidence_envelope(
                    content=row.content,
                    source=row.source,
                    received_at=row.received_at,
                    probe_run_id=row.probe_run_id,
                ),
            )
            agent_id, agent_organisation = agents[row.agent_pk]
            extra = _evidence_columns_problem(row, agent_id)
            if not extra and agent_organisation != row.organisation_id:
                extra = "the row's agent belongs to another organisation"
            chains[key].check(row.seq, row.prev_hash, row.row_hash, expected, extra)

        for row in _stream(
            connection, select(TransitionRow).order_by(TransitionRow.agent_pk, TransitionRow.seq)
        ):
            transitions += 1
            agent_id, organisation_id = agents[row.agent_pk]
            key = ("history", row.agent_pk)
            if key not in chains:
                chains[key] = _Chain(
                    f"history of agent {agent_id!r} ({organisations[organisation_id]})"
                )
            expected = link_hash(
                row.prev_hash,
                transition_envelope(
                    agent_id=agent_id,
                    composite=row.composite,
                    tier=row.tier,
                    score=row.score,
                    computed_at=row.computed_at,
                    trigger=row.trigger,
                    was_anomalous=row.was_anomalous,
                    baseline_seq=row.baseline_seq,
                ),
            )
            extra = _transition_columns_problem(row)
            if not extra and row.was_anomalous != (row.status != "committed"):
                extra = f"status {row.status!r} does not fit was_anomalous={row.was_anomalous}"
            chains[key].check(row.seq, row.prev_hash, row.row_hash, expected, extra)
            transition_hashes[row.seq] = (row.row_hash, row.status)
            if row.was_anomalous:
                unreviewed[row.seq] = chains[key].name

        for row in _stream(connection, select(ReviewRow).order_by(ReviewRow.id)):
            reviews += 1
            unreviewed.pop(row.transition_seq, None)
            problem = _review_problem(row, transition_hashes)
            if problem:
                agent_id, organisation_id = agents[row.agent_pk]
                breaks.append(
                    ChainBreak(
                        chain=f"review {row.id} of agent {agent_id!r} "
                        f"({organisations[organisation_id]})",
                        seq=row.id,
                        problem=problem,
                    )
                )
    breaks[:0] = [c.first_break for c in chains.values() if c.first_break is not None]
    breaks.extend(
        ChainBreak(chain=name, seq=seq, problem="anomalous transition without its review")
        for seq, name in unreviewed.items()
    )
    return VerifyReport(
        ok=not breaks,
        breaks=breaks,
        heads=[c.head() for c in chains.values()],
        evidence_rows=evidence_rows,
        transitions=transitions,
        reviews=reviews,
    )


def _review_problem(row: Row[Any], transition_hashes: dict[int, tuple[str, str]]) -> str:
    transition = transition_hashes.get(row.transition_seq)
    if transition is None:
        return f"its transition {row.transition_seq} is missing"
    transition_hash, transition_status = transition
    seal = review_seal(
        transition_hash=transition_hash,
        status=row.status,
        opened_at=row.opened_at,
        decided_at=row.decided_at,
        decided_by=row.decided_by,
        reason=row.reason,
    )
    if seal != row.seal:
        return "its seal does not match its decision (status, who, when or why was edited)"
    expected_status = "pending_review" if row.status == "pending" else row.status
    if transition_status != expected_status:
        return (
            f"transition status {transition_status!r} disagrees with review status {row.status!r}"
        )
    return ""
