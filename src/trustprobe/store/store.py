"""The store handle: an engine plus the trust settings every recomputation uses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine

from trustprobe.store.database import create_store_engine
from trustprobe.store.evidence_cache import EvidenceCache, ItemCache
from trustprobe.store.location import resolve_database_url
from trustprobe.store.migration import require_current_schema, upgrade_database
from trustprobe.trust import Evidence, TrustConfig, TrustScore, WeightSet, compute_trust_score

ANOMALY_THRESHOLD = 200
"""A swing of more than this many composite points from the canonical score needs review."""
DEFAULT_ORGANISATION = "default"
"""The organisation the CLI uses when neither ``--org`` nor :data:`ORGANISATION_ENV` is given."""
ORGANISATION_ENV = "TRUSTPROBE_ORG"
"""Environment variable the CLI reads the organisation from when ``--org`` is not given."""


@dataclass(frozen=True)
class TrustStore:
    """An open store: where it is, and how scores are computed when evidence arrives."""

    engine: Engine
    config: TrustConfig | None = None
    """Trust engine settings; ``None`` means the engine's defaults."""
    weights: WeightSet | None = None
    """Resolved weights; ``None`` means the engine resolves its base weights."""
    anomaly_threshold: int = ANOMALY_THRESHOLD
    evidence_cache: EvidenceCache = field(default_factory=EvidenceCache, compare=False, repr=False)
    """Parsed evidence kept between rescorings of this process (see evidence_cache.py)."""
    item_cache: ItemCache = field(default_factory=ItemCache, compare=False, repr=False)
    """Item readings kept between rescorings of this process, for decayed sums."""

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    def score(self, agent_id: str, evidence: Iterable[Evidence], *, now: datetime) -> TrustScore:
        """Score an agent from all of its evidence as of ``now``, with this store's settings."""
        return compute_trust_score(
            agent_id, evidence, now=now, config=self.config, weights=self.weights
        )

    def close(self) -> None:
        """Release the pooled connections."""
        self.engine.dispose()


def open_store(
    database_url: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    upgrade: bool = False,
    config: TrustConfig | None = None,
    weights: WeightSet | None = None,
    anomaly_threshold: int = ANOMALY_THRESHOLD,
) -> TrustStore:
    """Open the store at ``database_url`` (else ``$TRUSTPROBE_DATABASE_URL``, else SQLite).

    With ``upgrade`` pending migrations are applied first; without it a database that is not
    at the shipped schema raises :class:`SchemaOutOfDateError` saying to run ``db upgrade``.
    """
    engine = create_store_engine(resolve_database_url(database_url, environ=environ))
    try:
        if upgrade:
            upgrade_database(engine)
        else:
            require_current_schema(engine)
    except BaseException:
        engine.dispose()
        raise
    return TrustStore(engine, config=config, weights=weights, anomaly_threshold=anomaly_threshold)
