"""KMeans on the embedding, with the number of clusters chosen by silhouette on a sample."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray
from sklearn.cluster import KMeans, MiniBatchKMeans
from sklearn.metrics import silhouette_score

MAX_CLUSTERS: Final = 10
"""Largest k the silhouette scan tries."""
SELECTION_SAMPLE: Final = 2000
"""Cases in the deterministic sample that k is chosen on (silhouette is quadratic in size)."""
FULL_KMEANS_LIMIT: Final = 10_000
"""Up to this many cases the final fit is full KMeans; above, MiniBatchKMeans."""
KMEANS_INIT: Final = 4
"""k-means++ restarts of full KMeans (fixed, so run time does not depend on the data)."""
MINIBATCH_INIT: Final = 3
"""k-means++ restarts of MiniBatchKMeans."""
MINIBATCH_SIZE: Final = 4096
"""Rows per MiniBatchKMeans step."""


@dataclass(frozen=True)
class Clustering:
    """Cluster labels and centroids, relabelled so cluster 0 is the largest."""

    labels: NDArray[np.intp]
    centers: NDArray[np.floating]
    selection: str
    sample_size: int
    scan: tuple[tuple[int, float], ...]
    silhouette: float | None

    @property
    def k(self) -> int:
        """Number of (non-empty) clusters."""
        return len(self.centers)


def _kmeans(vectors: NDArray[np.floating], k: int, seed: int) -> NDArray[np.intp]:
    if len(vectors) <= FULL_KMEANS_LIMIT:
        model = KMeans(n_clusters=k, n_init=KMEANS_INIT, random_state=seed)
        return np.asarray(model.fit_predict(vectors), dtype=np.intp)
    batches = MiniBatchKMeans(
        n_clusters=k, n_init=MINIBATCH_INIT, batch_size=MINIBATCH_SIZE, random_state=seed
    )
    return np.asarray(batches.fit_predict(vectors), dtype=np.intp)


def _distinct_rows(vectors: NDArray[np.floating]) -> int:
    # KMeans warns and returns duplicate centres when asked for more clusters than points.
    return len(np.unique(vectors, axis=0))


def _silhouette(vectors: NDArray[np.floating], labels: NDArray[np.intp]) -> float | None:
    # Defined only for 2 <= clusters <= points - 1.
    if not 2 <= len(np.unique(labels)) <= len(vectors) - 1:
        return None
    return float(silhouette_score(vectors, labels))


def _relabel(
    vectors: NDArray[np.floating], labels: NDArray[np.intp]
) -> tuple[NDArray[np.intp], NDArray[np.floating]]:
    """Renumber non-empty clusters by size (ties by first appearance) and recompute centres."""
    found, first, sizes = np.unique(labels, return_index=True, return_counts=True)
    order = np.lexsort((first, -sizes))
    mapping = np.empty(int(found.max()) + 1, dtype=np.intp)
    mapping[found[order]] = np.arange(len(found))
    relabelled = mapping[labels]
    centers = np.vstack([vectors[relabelled == c].mean(axis=0) for c in range(len(found))])
    return relabelled, centers


def cluster_embedding(
    vectors: NDArray[np.floating], *, seed: int, n_clusters: int | None
) -> Clustering:
    """Cluster the embedding; with ``n_clusters`` None, pick k by the silhouette rule.

    The rule: on a deterministic sample of at most ``SELECTION_SAMPLE`` cases (drawn with
    ``seed``), fit KMeans for every k from 2 to min(10, distinct points, sample size - 1) and
    keep the k with the highest mean silhouette (ties: the smaller k). With no candidate
    (fewer than 3 cases or 2 distinct points) there is one cluster.
    """
    n = len(vectors)
    rng = np.random.default_rng(seed)
    if n <= SELECTION_SAMPLE:
        sample_index = np.arange(n)
    else:
        sample_index = np.sort(rng.choice(n, size=SELECTION_SAMPLE, replace=False))
    sample = vectors[sample_index]
    scan: list[tuple[int, float]] = []

    if n_clusters is not None:
        distinct = _distinct_rows(vectors)
        k = min(n_clusters, distinct)
        selection = f"requested k={n_clusters}"
        if k < n_clusters:
            selection += f", capped to {distinct} distinct points"
    else:
        largest = min(MAX_CLUSTERS, _distinct_rows(sample), len(sample) - 1)
        for candidate in range(2, largest + 1):
            score = _silhouette(sample, _kmeans(sample, candidate, seed))
            if score is not None:
                scan.append((candidate, score))
        if scan:
            k = max(scan, key=lambda item: (item[1], -item[0]))[0]
            selection = f"silhouette over k=2..{largest} on {len(sample)} sampled cases"
        else:
            k = 1
            selection = "single: too few cases or distinct points to compare clusterings"

    labels = np.zeros(n, dtype=np.intp) if k == 1 else _kmeans(vectors, k, seed)
    labels, centers = _relabel(vectors, labels)
    if len(centers) < k:
        selection += f"; {k - len(centers)} empty cluster(s) dropped"
    return Clustering(
        labels=labels,
        centers=centers,
        selection=selection,
        sample_size=len(sample),
        scan=tuple(scan),
        silhouette=_silhouette(sample, labels[sample_index]),
    )
