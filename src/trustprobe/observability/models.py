"""The geometry of failures as written to reports (docs/observability.md)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ObservabilityPoint(BaseModel):
    """One scored case placed in the embedding: its cluster and 2-D scatter position."""

    model_config = ConfigDict(extra="forbid")

    probe_id: str
    """The probe answered."""
    sample: int
    """Repeat index of the response."""
    cluster: int
    """Cluster id; 0 is the largest cluster in the fitting sample (docs/observability.md)."""
    scatter_x: float
    """First coordinate of the separate 2-D SVD projection (for plots only)."""
    scatter_y: float
    """Second coordinate of the separate 2-D SVD projection (for plots only)."""


class ClusterSummary(BaseModel):
    """What a person needs to name a cluster: its size, outcome, content and category."""

    model_config = ConfigDict(extra="forbid")

    cluster: int
    """Cluster id, as in ``points``."""
    size: int
    """Cases in the cluster."""
    failed: int
    """Failed cases in the cluster."""
    failure_rate: float
    """``failed / size``."""
    risk_mean: float
    """Mean ``risk_score`` of the cluster."""
    dominant_category: str
    """Most frequent category in the cluster (ties by name)."""
    dominant_category_share: float
    """Share of the cluster's cases in ``dominant_category``."""
    top_terms: list[str]
    """Heaviest TF-IDF terms of the cluster's fitting-sample centroid, mapped back through the
    SVD components."""


class MutualInformation(BaseModel):
    """Mutual information between cluster id and a case label, in nats (natural logarithm)."""

    model_config = ConfigDict(extra="forbid")

    category: float
    """MI(cluster, category) in nats; at most ``ln(n_clusters)``."""
    severity: float
    """MI(cluster, severity) in nats."""
    pass_fail: float
    """MI(cluster, pass/fail outcome) in nats; at most ``ln 2``."""


class NormalizedMutualInformation(BaseModel):
    """Normalised MI in [0, 1] (arithmetic mean of the two entropies); ``None`` if undefined."""

    model_config = ConfigDict(extra="forbid")

    category: float | None
    """NMI(cluster, category); ``None`` when either labelling is constant (0/0)."""
    severity: float | None
    """NMI(cluster, severity); ``None`` when either labelling is constant."""
    pass_fail: float | None
    """NMI(cluster, pass/fail); ``None`` when either labelling is constant."""


class SilhouetteScore(BaseModel):
    """Silhouette of one candidate number of clusters on the selection sample."""

    model_config = ConfigDict(extra="forbid")

    k: int
    """Number of clusters tried."""
    silhouette: float
    """Mean silhouette coefficient in [-1, 1]; higher is better separated."""


class Observability(BaseModel):
    """TF-IDF + SVD embedding of scored cases, KMeans clusters, MI and a 2-D projection.

    Harness-error cases are excluded: they carry no verdict to place. Exploratory statistics,
    not evidence of causal structure.
    """

    model_config = ConfigDict(extra="forbid")

    n_cases: int
    """Scored cases embedded (harness errors excluded): all of them, or the sample's."""
    sampled_from: int | None = None
    """The run's scored cases when the geometry is computed from a sample of them (above
    20,000, docs/observability.md); null when every scored case is embedded."""
    excluded_harness_errors: int
    """Harness-error cases left out of the geometry."""
    seed: int
    """Seed of every random step (sampling, SVD, KMeans): same input and seed, same output."""
    vocabulary_size: int
    """TF-IDF terms kept (at most ``max_features``)."""
    embedding_dimensions: int
    """Components of the truncated SVD the clusters are computed in."""
    n_clusters: int
    """Number of clusters used."""
    cluster_selection: str
    """How ``n_clusters`` was chosen: ``silhouette``, ``requested`` or ``single``, with detail."""
    selection_sample_size: int
    """Cases in the deterministic sample the silhouette scan ran on."""
    silhouette_by_k: list[SilhouetteScore]
    """Silhouette per candidate k on the sample; empty when no scan ran."""
    silhouette: float | None
    """Silhouette of the chosen k on the sample; ``None`` when it is undefined (k = 1)."""
    mutual_information: MutualInformation
    """MI between cluster id and category / severity / pass-fail, in nats."""
    normalized_mutual_information: NormalizedMutualInformation
    """The same associations normalised to [0, 1]."""
    clusters: list[ClusterSummary]
    """One summary per cluster, by cluster id (largest in the fitting sample first)."""
    points: list[ObservabilityPoint]
    """One point per scored case, in input order with harness-error cases skipped."""
