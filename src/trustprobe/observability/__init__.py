"""The geometry of failures: TF-IDF + SVD embedding, KMeans clusters, mutual information."""

from trustprobe.observability.geometry import build_observability
from trustprobe.observability.models import (
    ClusterSummary,
    MutualInformation,
    NormalizedMutualInformation,
    Observability,
    ObservabilityPoint,
    SilhouetteScore,
)

__all__ = [
    "ClusterSummary",
    "MutualInformation",
    "NormalizedMutualInformation",
    "Observability",
    "ObservabilityPoint",
    "SilhouetteScore",
    "build_observability",
]
