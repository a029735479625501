"""What the store returns, serves and prints: pydantic models, one docstring per field."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from trustprobe.trust import TrustScore


class Scope(StrEnum):
    """What an API key may do."""

    READ = "read"
    """Read scores and history."""
    WRITE = "write"
    """Send evidence and reports."""
    REVIEW = "review"
    """List and decide reviews of anomalous transitions."""


class EvidenceSource(StrEnum):
    """How evidence reached the store (recorded on each row and in the transition trigger)."""

    API = "api"
    CLI = "cli"
    REPORT = "report"
    IMPORT = "import"
    """``trustprobe import``: another tool's results (each record's ``source`` says which)."""


class TransitionStatus(StrEnum):
    """Where a score transition stands."""

    COMMITTED = "committed"
    """Committed directly: the first score, or a swing within the threshold."""
    PENDING_REVIEW = "pending_review"
    """Anomalous swing waiting for a reviewer; not canonical."""
    APPROVED = "approved"
    """Anomalous swing a reviewer approved; canonical until a later transition."""
    REJECTED = "rejected"
    """Anomalous swing a reviewer rejected; kept, never canonical."""
    SUPERSEDED = "superseded"
    """Anomalous swing overtaken by a later transition before anyone decided it."""


class ReviewStatus(StrEnum):
    """Where a review stands."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"


@dataclass(frozen=True)
class Principal:
    """The organisation and scopes an authenticated API key stands for."""

    key_id: int
    key_prefix: str
    organisation_id: int
    organisation: str
    scopes: frozenset[Scope]

    @property
    def actor(self) -> str:
        """How reviews name this key: never the key itself, only its public prefix."""
        return f"key:{self.key_prefix}"


class ApiKeyInfo(BaseModel):
    """An API key as stored: everything except the key."""

    model_config = ConfigDict(extra="forbid")

    id: int
    """Key id."""
    prefix: str
    """Public prefix, shown in listings and review records (``tp_<prefix>_…``)."""
    organisation: str
    """Organisation the key acts for."""
    scopes: list[Scope]
    """What the key may do."""
    label: str | None
    """Free-text label given at creation."""
    created_at: datetime
    """When the key was made."""
    revoked_at: datetime | None = None
    """When the key was revoked; ``None`` while it is valid."""


class CreatedApiKey(BaseModel):
    """A newly made key: the only time the plain key exists outside its holder."""

    model_config = ConfigDict(extra="forbid")

    key: str
    """The bearer key; shown once, stored only as its SHA-256."""
    info: ApiKeyInfo
    """The stored part."""


class RecordNote(BaseModel):
    """A record that was not simply stored and counted, and why."""

    model_config = ConfigDict(extra="forbid")

    index: int
    """Position of the record in the request (0-based) or line number in a file (1-based)."""
    evidence_id: str
    """The record's id."""
    reason: str
    """Why, in words a person can act on."""


class RecordRejection(RecordNote):
    """A record the store refused, and why."""


class IngestResult(BaseModel):
    """The outcome of one ingestion: every record is counted exactly once."""

    model_config = ConfigDict(extra="forbid")

    accepted: int
    """New records stored."""
    duplicate: int
    """Records already stored with identical content (no-ops)."""
    rejected: list[RecordRejection]
    """Records refused: an id already stored (or sent earlier in the batch) with other content."""
    ignored: list[RecordNote] = []
    """Records that change no score now: identical re-sends (the ``duplicate`` ones), and new
    records observed after the receiver's clock (within the allowed skew), stored but counted
    only by a score computed after their ``observed_at``."""
    transitions: list[int]
    """Sequence numbers of the score transitions this ingestion appended, one per agent."""
    pending_reviews: list[int]
    """Ids of reviews opened because a new score swung more than the threshold."""


class ReportIngestResult(IngestResult):
    """The outcome of ingesting a probe report: the run recorded and the evidence it yielded."""

    probe_run_id: int
    """The probe run recorded for the report (the existing one when it was sent before)."""
    report_sha256: str
    """SHA-256 of the report's canonical JSON."""
    duplicate_report: bool
    """True when this exact report had already been received for the agent."""


class StoredRun(BaseModel):
    """One run of another tool whose results are stored as evidence about an agent."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    """The tool (``garak``, ``promptfoo``, ``inspect``...)."""
    run_id: str | None
    """The run's own id, when its output names one."""
    file_sha256: str | None
    """SHA-256 of the file the results were read from."""
    evidence_count: int
    """Records stored from the run."""
    first_received_at: datetime
    """When the store first received a record of the run."""


class Recomputation(BaseModel):
    """What a recomputation of every agent of an organisation appended."""

    model_config = ConfigDict(extra="forbid")

    organisation: str
    """The organisation recomputed."""
    computed_at: datetime
    """The ``now`` every score was computed as of."""
    agents: int
    """Agents rescored: one transition each."""
    partitions: int
    """Partitions of agents scored in parallel; 0 when everything ran in this process."""
    transitions: list[int]
    """Sequence numbers of the new transitions, in agent id order."""
    pending_reviews: list[int]
    """Ids of reviews opened for swings above the anomaly threshold."""
    recomputed_on_client: int
    """Agents whose evidence grew while the partitions were scored, so they were scored again
    under the organisation's lock (always 0 in process)."""


class Transition(BaseModel):
    """One recomputation of an agent's score in its history."""

    model_config = ConfigDict(extra="forbid")

    seq: int
    """Sequence number (ascending across the store)."""
    agent_id: str
    """The agent."""
    composite: int | None
    """0–1000 composite, ``None`` when no dimension was covered."""
    tier: str
    """Certification tier."""
    status: TransitionStatus
    """Committed, pending review, approved, rejected or superseded."""
    was_anomalous: bool
    """Whether the composite swung more than the threshold from the canonical score."""
    baseline_seq: int | None
    """The canonical transition it was compared with (``None`` for the first score)."""
    computed_at: datetime
    """The ``now`` the score was computed at (decay is relative to it)."""
    trigger: str
    """What caused it, e.g. ``evidence:12 via api``."""
    score: TrustScore
    """The full score: per-dimension scores, weights used, coverage, gate, reasons."""
    hash: str
    """This link's hash in the agent's history chain."""


class Review(BaseModel):
    """The human review of one anomalous transition."""

    model_config = ConfigDict(extra="forbid")

    id: int
    """Review id."""
    agent_id: str
    """The agent."""
    transition_seq: int
    """The transition under review."""
    status: ReviewStatus
    """Pending, approved, rejected or superseded."""
    composite: int | None
    """The proposed composite."""
    canonical_composite: int | None
    """The canonical composite it was compared with."""
    tier: str
    """The proposed tier."""
    opened_at: datetime
    """When the anomalous transition was recorded."""
    decided_at: datetime | None
    """When it was decided."""
    decided_by: str | None
    """Who decided: ``key:<prefix>`` for the API, ``user:<name>`` for the CLI, ``system``."""
    reason: str | None
    """Why."""


class AgentScore(BaseModel):
    """An agent's canonical score, the transition it comes from, and any pending review."""

    model_config = ConfigDict(extra="forbid")

    agent_id: str
    """The agent."""
    score: TrustScore
    """The canonical score with its explanation (as ``trustprobe trust score --json``)."""
    transition_seq: int
    """The transition that made it canonical."""
    computed_at: datetime
    """When it was computed."""
    pending_review: Review | None
    """A swing waiting for a reviewer, if any; not canonical until approved."""


class HistoryPage(BaseModel):
    """A page of an agent's transitions, newest first."""

    model_config = ConfigDict(extra="forbid")

    agent_id: str
    """The agent."""
    transitions: list[Transition]
    """Newest first."""
    next_before: int | None = Field(default=None)
    """Pass as ``before`` to get the next (older) page; ``None`` on the last page."""


class ChainBreak(BaseModel):
    """The first place a hash chain does not verify."""

    model_config = ConfigDict(extra="forbid")

    chain: str
    """Which chain: ``evidence of organisation 'acme'``, ``history of agent 'a' (acme)``, ..."""
    seq: int
    """Row (``seq``, or review id) where the chain breaks."""
    problem: str
    """What does not match."""


class ChainHead(BaseModel):
    """The last link of one chain: record it elsewhere to detect a truncated tail later."""

    model_config = ConfigDict(extra="forbid")

    chain: str
    """Which chain."""
    length: int
    """Rows in the chain."""
    head: str
    """Hash of the last row."""


class VerifyReport(BaseModel):
    """The result of recomputing every chain and review seal."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    """True when nothing is broken."""
    breaks: list[ChainBreak]
    """The first break of each broken chain (empty when ``ok``)."""
    heads: list[ChainHead]
    """Every chain's length and head hash."""
    evidence_rows: int
    """Evidence rows checked."""
    transitions: int
    """Transitions checked."""
    reviews: int
    """Reviews checked."""
