"""The geometry of failures: TF-IDF + SVD embedding, KMeans clusters, mutual information.

``build_observability`` is ``fit_geometry`` on a deterministic sample, ``place_cases`` per
partition, ``merge_geometry`` and ``finalize_geometry``: one code path for both engines.
"""

from trustprobe.observability.embedding import CaseText
from trustprobe.observability.geometry import (
    GeometryModel,
    GeometryPartial,
    build_observability,
    check_settings,
    finalize_geometry,
    fit_geometry,
    fit_sample_positions,
    fit_sample_size,
    merge_geometry,
    place_cases,
    sample_priority,
    scored_case_texts,
)
from trustprobe.observability.models import (
    ClusterSummary,
    MutualInformation,
    NormalizedMutualInformation,
    Observability,
    ObservabilityPoint,
    SilhouetteScore,
)

__all__ = [
    "CaseText",
    "ClusterSummary",
    "GeometryModel",
    "GeometryPartial",
    "MutualInformation",
    "NormalizedMutualInformation",
    "Observability",
    "ObservabilityPoint",
    "SilhouetteScore",
    "build_observability",
    "check_settings",
    "finalize_geometry",
    "fit_geometry",
    "fit_sample_positions",
    "fit_sample_size",
    "merge_geometry",
    "place_cases",
    "sample_priority",
    "scored_case_texts",
]
