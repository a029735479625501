"""The trust store: evidence log, score history with anomaly review, keys, hash chains."""

from trustprobe.store.chains import GENESIS
from trustprobe.store.database import create_store_engine
from trustprobe.store.errors import (
    NotFoundError,
    ReviewClosedError,
    SchemaOutOfDateError,
    StoreError,
)
from trustprobe.store.evidence import ingest_evidence
from trustprobe.store.history import (
    canonical_score,
    canonical_score_json,
    is_anomalous,
    require_agent,
    score_history,
)
from trustprobe.store.keys import (
    authenticate,
    create_api_key,
    list_api_keys,
    parse_scopes,
    revoke_api_key,
)
from trustprobe.store.location import (
    DATABASE_URL_ENV,
    HOME_ENV,
    default_database_path,
    describe_store,
    resolve_database_url,
    shown_database_url,
)
from trustprobe.store.migration import current_revision, head_revision, upgrade_database
from trustprobe.store.models import (
    AgentScore,
    ApiKeyInfo,
    ChainBreak,
    ChainHead,
    CreatedApiKey,
    EvidenceSource,
    HistoryPage,
    IngestResult,
    Principal,
    Recomputation,
    RecordNote,
    RecordRejection,
    ReportIngestResult,
    Review,
    ReviewStatus,
    Scope,
    StoredRun,
    Transition,
    TransitionStatus,
    VerifyReport,
)
from trustprobe.store.rate_buckets import drop_full_buckets, take_token
from trustprobe.store.readiness import StoreReadiness, check_readiness
from trustprobe.store.recompute import recompute_trust
from trustprobe.store.reports import record_report, submit_report
from trustprobe.store.reviews import decide_review, list_reviews
from trustprobe.store.sources import stored_runs
from trustprobe.store.store import (
    ANOMALY_THRESHOLD,
    DEFAULT_ORGANISATION,
    ORGANISATION_ENV,
    TrustStore,
    open_store,
)
from trustprobe.store.verify import verify_store

__all__ = [
    "ANOMALY_THRESHOLD",
    "AgentScore",
    "ApiKeyInfo",
    "ChainBreak",
    "ChainHead",
    "CreatedApiKey",
    "DATABASE_URL_ENV",
    "DEFAULT_ORGANISATION",
    "EvidenceSource",
    "GENESIS",
    "HOME_ENV",
    "HistoryPage",
    "IngestResult",
    "NotFoundError",
    "ORGANISATION_ENV",
    "Principal",
    "Recomputation",
    "RecordNote",
    "RecordRejection",
    "ReportIngestResult",
    "Review",
    "ReviewClosedError",
    "ReviewStatus",
    "SchemaOutOfDateError",
    "Scope",
    "StoreError",
    "StoreReadiness",
    "StoredRun",
    "Transition",
    "TransitionStatus",
    "TrustStore",
    "VerifyReport",
    "authenticate",
    "canonical_score",
    "canonical_score_json",
    "check_readiness",
    "create_api_key",
    "create_store_engine",
    "current_revision",
    "decide_review",
    "default_database_path",
    "describe_store",
    "drop_full_buckets",
    "head_revision",
    "ingest_evidence",
    "is_anomalous",
    "list_api_keys",
    "list_reviews",
    "open_store",
    "parse_scopes",
    "recompute_trust",
    "record_report",
    "require_agent",
    "resolve_database_url",
    "revoke_api_key",
    "score_history",
    "shown_database_url",
    "stored_runs",
    "submit_report",
    "take_token",
    "upgrade_database",
    "verify_store",
]
