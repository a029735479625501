"""The geometry of failures: TF-IDF + SVD embedding, KMeans clusters, mutual information.

``build_observability`` is ``fit_geometry`` on a deterministic sample, ``place_cases`` per
partition, ``merge_geometry`` and ``finalize_geometry``: one code path for both engines.
"""

from trustprobe.observability.build import build_observability, observe_cases, observe_sample
from trustprobe.observability.embedding import CaseText
from trustprobe.observability.geometry import (
    GeometryModel,
    GeometryPartial,
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
from trustprobe.observability.sampling import SAMPLE_SIZE, STRATUM_FLOOR, ObservabilitySample

__all__ = [
    "CaseText",
    "ClusterSummary",
    "GeometryModel",
    "GeometryPartial",
    "MutualInformation",
    "NormalizedMutualInformation",
    "Observability",
    "ObservabilityPoint",
    "ObservabilitySample",
    "SAMPLE_SIZE",
    "STRATUM_FLOOR",
    "SilhouetteScore",
    "build_observability",
    "check_settings",
    "finalize_geometry",
    "fit_geometry",
    "fit_sample_positions",
    "fit_sample_size",
    "merge_geometry",
    "observe_cases",
    "observe_sample",
    "place_cases",
    "sample_priority",
    "scored_case_texts",
]
