"""Composite trust: evidence about an agent becomes a 0–1000 score and tier over 16 dimensions.

Pure functions (``now`` is always a parameter); the only I/O is in the explicit loaders
(:func:`load_evidence`, :func:`load_trust_config`, :func:`load_category_mapping`,
:func:`resolve_weights`). Every formula is in docs/trust.md.
"""

from trustprobe.trust.batch import (
    ITEM_SCORING_FIELDS,
    EvidenceTable,
    ReadingGrid,
    compute_trust_scores,
    score_grid,
)
from trustprobe.trust.composite import check_now, compute_trust_score, tier_for
from trustprobe.trust.config import TrustConfig, load_trust_config
from trustprobe.trust.decay import decayed_score, epoch_microseconds, overdue_days
from trustprobe.trust.decayed_sum import (
    DecayedSum,
    DecayLimits,
    decay_limits,
    decayed_total,
)
from trustprobe.trust.dimension_scores import (
    OPERATIONAL_FUNCTIONS,
    DimensionReading,
    ItemReading,
    item_reading,
    reading_from_sums,
)
from trustprobe.trust.dimensions import (
    DIMENSION_WEIGHTS,
    DIMENSIONS,
    WEIGHT_SUM_TOLERANCE,
    Dimension,
    WeightSumError,
    check_weight_sum,
)
from trustprobe.trust.evidence import (
    CLOCK_SKEW,
    EARLIEST_OBSERVED_AT,
    MAX_COUNT,
    OPERATIONAL_RULES,
    EvalEvidence,
    Evidence,
    EvidenceOrigin,
    JuryEvidence,
    ObservedAt,
    OperationalEvidence,
    OperationalRule,
    check_observed_in_time,
    evidence_canonical_json,
    load_evidence,
    parse_evidence,
)
from trustprobe.trust.exact_sum import ExactSum
from trustprobe.trust.from_report import (
    DEFAULT_CATEGORY_DIMENSIONS,
    CategoryMapping,
    evidence_from_report,
    load_category_mapping,
    report_created_at,
    report_digest,
)
from trustprobe.trust.html import render_trust_html, write_trust_html
from trustprobe.trust.jury import JuryVerdict, jury_verdict
from trustprobe.trust.score import (
    CoverageSummary,
    DimensionScore,
    ScoreInterval,
    ScoreSource,
    SecurityGate,
    TierMargin,
    TrustScore,
)
from trustprobe.trust.sources import counted_score_sources, score_sources
from trustprobe.trust.tiers import Tier
from trustprobe.trust.weights import (
    WEIGHTS_OVERRIDE_ENV,
    WeightSet,
    merge_weights,
    resolve_weights,
)

__all__ = [
    "CLOCK_SKEW",
    "CategoryMapping",
    "CoverageSummary",
    "DEFAULT_CATEGORY_DIMENSIONS",
    "DIMENSIONS",
    "DIMENSION_WEIGHTS",
    "DecayLimits",
    "DecayedSum",
    "Dimension",
    "DimensionReading",
    "DimensionScore",
    "EARLIEST_OBSERVED_AT",
    "EvalEvidence",
    "Evidence",
    "EvidenceOrigin",
    "EvidenceTable",
    "ExactSum",
    "ITEM_SCORING_FIELDS",
    "ItemReading",
    "JuryEvidence",
    "JuryVerdict",
    "MAX_COUNT",
    "OPERATIONAL_FUNCTIONS",
    "OPERATIONAL_RULES",
    "ObservedAt",
    "OperationalEvidence",
    "OperationalRule",
    "ReadingGrid",
    "ScoreInterval",
    "ScoreSource",
    "SecurityGate",
    "Tier",
    "TierMargin",
    "TrustConfig",
    "TrustScore",
    "WEIGHTS_OVERRIDE_ENV",
    "WEIGHT_SUM_TOLERANCE",
    "WeightSet",
    "WeightSumError",
    "check_now",
    "check_observed_in_time",
    "check_weight_sum",
    "compute_trust_score",
    "compute_trust_scores",
    "counted_score_sources",
    "decay_limits",
    "decayed_score",
    "decayed_total",
    "epoch_microseconds",
    "evidence_canonical_json",
    "evidence_from_report",
    "item_reading",
    "jury_verdict",
    "load_category_mapping",
    "load_evidence",
    "load_trust_config",
    "merge_weights",
    "overdue_days",
    "parse_evidence",
    "reading_from_sums",
    "render_trust_html",
    "report_created_at",
    "report_digest",
    "resolve_weights",
    "score_grid",
    "score_sources",
    "tier_for",
    "write_trust_html",
]
