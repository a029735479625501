"""``build_observability``: the geometry of a run's failures, from scored cases."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray
from pydantic import TypeAdapter
from sklearn.metrics import mutual_info_score, normalized_mutual_info_score
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from trustprobe.observability.clustering import Clustering, cluster_embedding
from trustprobe.observability.embedding import Embedding, case_texts, embed_cases
from trustprobe.observability.models import (
    ClusterSummary,
    MutualInformation,
    NormalizedMutualInformation,
    Observability,
    ObservabilityPoint,
    SilhouetteScore,
)
from trustprobe.scoring.models import CaseScore

TOP_TERMS: Final = 8
"""Terms listed per cluster."""


def _nmi(labels: Sequence[str], clusters: NDArray[np.intp]) -> float | None:
    # With a constant labelling both entropies can be 0 and NMI is 0/0; sklearn reports 1.0
    # by convention, which would claim a perfect association from no variation at all.
    if len(set(labels)) < 2 or len(np.unique(clusters)) < 2:
        return None
    return float(normalized_mutual_info_score(labels, clusters))


def _top_terms(embedding: Embedding, center: NDArray[np.floating]) -> list[str]:
    weights = center @ embedding.components
    # Stable sort over the alphabetical vocabulary: equal weights list in term order.
    order = np.argsort(-weights, kind="stable")[:TOP_TERMS]
    return [str(embedding.terms[i]) for i in order if weights[i] > 0]


def _summaries(
    clustering: Clustering,
    embedding: Embedding,
    categories: Sequence[str],
    passed: NDArray[np.bool_],
    risk: NDArray[np.float64],
) -> list[ClusterSummary]:
    summaries = []
    for cluster in range(clustering.k):
        members = np.flatnonzero(clustering.labels == cluster)
        tally = Counter(categories[i] for i in members.tolist())
        dominant, count = min(tally.items(), key=lambda item: (-item[1], item[0]))
        failed = int(np.count_nonzero(~passed[members]))
        summaries.append(
            ClusterSummary(
                cluster=cluster,
                size=len(members),
                failed=failed,
                failure_rate=failed / len(members),
                risk_mean=float(np.mean(risk[members])),
                dominant_category=dominant,
                dominant_category_share=count / len(members),
                top_terms=_top_terms(embedding, clustering.centers[cluster]),
            )
        )
    return summaries


def build_observability(
    cases: Sequence[CaseScore],
    *,
    min_cases: int = 5,
    seed: int = 0,
    n_clusters: int | None = None,
    max_features: int = 5000,
) -> Observability | None:
    """Embed scored cases, cluster them and measure what the clusters align with.

    Harness-error cases are left out. Returns ``None`` when fewer than ``min_cases`` scored
    cases remain (and always for zero): too few points for a geometry worth reading.

    Args:
        cases: Scored cases of one run.
        min_cases: Scored cases needed before anything is computed.
        seed: Seed of sampling, SVD and KMeans; same input and seed give the same output.
        n_clusters: Number of clusters; ``None`` chooses it by silhouette (docs/observability.md).
        max_features: Largest TF-IDF vocabulary, most frequent terms first.

    Raises:
        ValueError: ``min_cases`` < 1, ``n_clusters`` < 1 or ``max_features`` < 4.
    """
    if min_cases < 1:
        raise ValueError(f"min_cases must be >= 1, got {min_cases}")
    if n_clusters is not None and n_clusters < 1:
        raise ValueError(f"n_clusters must be >= 1, got {n_clusters}")
    if max_features < 4:
        raise ValueError(f"max_features must be >= 4 (one term per label kind), got {max_features}")
    scored = [c for c in cases if c.error is None]
    if len(scored) < min_cases:
        return None
    verdicts: list[tuple[bool, float]] = []
    for case in scored:
        if case.passed is None or case.risk_score is None:
            raise ValueError(
                f"probe '{case.probe_id}' sample {case.sample} has no harness error but lacks"
                " a verdict (passed and risk_score must be set)"
            )
        verdicts.append((case.passed, case.risk_score))
    passed = np.array([p for p, _ in verdicts], dtype=np.bool_)
    risk = np.array([r for _, r in verdicts], dtype=np.float64)
    texts = case_texts(scored, verdicts)
    # One thread for BLAS and OpenMP: on these sizes thread hand-offs cost more than the
    # parallel work saves, and on a busy machine several times more (docs/benchmarks.md).
    with threadpool_limits(limits=1):
        embedding = embed_cases(texts, seed=seed, max_features=max_features)
        clustering = cluster_embedding(embedding.vectors, seed=seed, n_clusters=n_clusters)
    labels = clustering.labels

    categories = [c.category for c in scored]
    severities = [c.severity.value for c in scored]
    outcomes = ["pass" if p else "fail" for p in passed]
    # One validation call over plain dicts: three times faster than a model per point.
    points = TypeAdapter(list[ObservabilityPoint]).validate_python(
        [
            {
                "probe_id": c.probe_id,
                "sample": c.sample,
                "cluster": k,
                "scatter_x": x,
                "scatter_y": y,
            }
            for c, k, (x, y) in zip(
                scored, labels.tolist(), embedding.scatter.tolist(), strict=True
            )
        ]
    )
    return Observability(
        n_cases=len(scored),
        excluded_harness_errors=len(cases) - len(scored),
        seed=seed,
        vocabulary_size=len(embedding.terms),
        embedding_dimensions=embedding.vectors.shape[1],
        n_clusters=clustering.k,
        cluster_selection=clustering.selection,
        selection_sample_size=clustering.sample_size,
        silhouette_by_k=[SilhouetteScore(k=k, silhouette=s) for k, s in clustering.scan],
        silhouette=clustering.silhouette,
        mutual_information=MutualInformation(
            category=float(mutual_info_score(categories, labels)),
            severity=float(mutual_info_score(severities, labels)),
            pass_fail=float(mutual_info_score(outcomes, labels)),
        ),
        normalized_mutual_information=NormalizedMutualInformation(
            category=_nmi(categories, labels),
            severity=_nmi(severities, labels),
            pass_fail=_nmi(outcomes, labels),
        ),
        clusters=_summaries(clustering, embedding, categories, passed, risk),
        points=points,
    )
