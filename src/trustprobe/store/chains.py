r"""Hash chains: canonical content, row hashes, and the seals that bind reviews to transitions.

Evidence rows are chained per organisation, score-history transitions per agent. Each row stores
the previous row's hash and ``sha256(prev_hash + "\\n" + canonical envelope)``; editing, deleting
or reordering a row breaks the link to the next one, which ``db verify`` reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from hashlib import sha256
from json.encoder import encode_basestring  # json.dumps(str, ensure_ascii=False)
from typing import Any

from trustprobe.formats import canonical_json, sha256_hex, utc_text

GENESIS = "0" * 64
"""The ``prev_hash`` of the first row of every chain."""


def timestamp_text(moment: datetime) -> str:
    """Spell a timestamp the one way spelling hashes use: UTC, microseconds, ``Z``."""
    return utc_text(moment)


def link_hash(prev_hash: str, envelope: dict[str, Any]) -> str:
    """Hash one chain link: its predecessor's hash and its canonical envelope."""
    return sha256_hex(prev_hash + "\n" + canonical_json(envelope))


def evidence_envelope(
    *, content: str, source: str, received_at: datetime, probe_run_id: int | None
) -> dict[str, Any]:
    """Build what an evidence row's hash covers (``content`` is the record's canonical JSON)."""
    return {
        "content": content,
        "probe_run_id": probe_run_id,
        "received_at": timestamp_text(received_at),
        "source": source,
    }


def evidence_link_head(content: str) -> str:
    """What an evidence link hashes after the previous hash, up to the shared members.

    Depends on the record alone, so a batch computes it before taking the organisation's lock.
    """
    # Keys sort as content < probe_run_id < received_at < source, so the envelope is the
    # content member followed by the shared members.
    return '\n{"content":' + encode_basestring(content)


def evidence_link_tail(*, source: str, received_at: datetime, probe_run_id: int | None) -> str:
    """The envelope members a batch's links share, as each link's hashed text ends."""
    shared = canonical_json(
        {
            "probe_run_id": probe_run_id,
            "received_at": timestamp_text(received_at),
            "source": source,
        }
    )
    return "," + shared[1:]


def chain_evidence_links(prev_hash: str, heads: Iterable[str], tail: str) -> list[str]:
    """The row hashes of links with these :func:`evidence_link_head` and shared ``tail``.

    Equal to ``link_hash(prev, evidence_envelope(...))`` link by link (a test holds it to that),
    but serialises the envelope's shared part once per batch instead of once per record.
    """
    hashes = []
    for head in heads:
        # sha256_hex inlined: a call per record costs a tenth of the hash.
        prev_hash = sha256((prev_hash + head + tail).encode()).hexdigest()
        hashes.append(prev_hash)
    return hashes


def transition_envelope(
    *,
    agent_id: str,
    composite: int | None,
    tier: str,
    score: str,
    computed_at: datetime,
    trigger: str,
    was_anomalous: bool,
    baseline_seq: int | None,
) -> dict[str, Any]:
    """Build what a transition's hash covers; its review status is sealed in the review instead."""
    return {
        "agent_id": agent_id,
        "baseline_seq": baseline_seq,
        "composite": composite,
        "computed_at": timestamp_text(computed_at),
        "score": score,
        "tier": tier,
        "trigger": trigger,
        "was_anomalous": was_anomalous,
    }


SEAL_VERSION = 2
"""The review seal written now; version 1 (before schema 0002) did not cover the holder."""


@dataclass(frozen=True)
class ReviewHolder:
    """The columns that decide who may act on a review: its organisation and agent."""

    organisation_id: int
    agent_pk: int


def review_seal(
    *,
    transition_hash: str,
    status: str,
    opened_at: datetime,
    decided_at: datetime | None,
    decided_by: str | None,
    reason: str | None,
    holder: ReviewHolder | None,
) -> str:
    """Hash binding a review's state, and who may act on it, to its transition's hash.

    ``holder`` is sealed in version 2; ``None`` computes a version-1 seal (older reviews).
    """
    envelope: dict[str, Any] = {
        "decided_at": None if decided_at is None else timestamp_text(decided_at),
        "decided_by": decided_by,
        "opened_at": timestamp_text(opened_at),
        "reason": reason,
        "status": status,
    }
    if holder is not None:
        envelope["agent_pk"] = holder.agent_pk
        envelope["organisation_id"] = holder.organisation_id
    return link_hash(transition_hash, envelope)
