"""KMeans fitted on the fitting sample, k chosen by silhouette, cases assigned to centres.

The fit runs once, on the client; every case (sampled or not) is then assigned to its nearest
centre by :func:`assign_clusters`, row by row, so a case's cluster does not depend on which
partition it was processed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # scikit-learn takes a second to import: only when a geometry is fitted
    from sklearn.cluster import KMeans, MiniBatchKMeans

MAX_CLUSTERS: Final = 10
"""Largest k the silhouette scan tries."""
SELECTION_SAMPLE: Final = 2000
"""Cases in the deterministic sample that k is chosen on (silhouette is quadratic in size)."""
FULL_KMEANS_LIMIT: Final = 10_000
"""Up to this many fitting cases the fit is full KMeans; above, MiniBatchKMeans."""
KMEANS_INIT: Final = 4
"""k-means++ restarts of full KMeans (fixed, so run time does not depend on the data)."""
MINIBATCH_INIT: Final = 3
"""k-means++ restarts of MiniBatchKMeans."""
MINIBATCH_SIZE: Final = 4096
"""Rows per MiniBatchKMeans step."""


@dataclass(frozen=True, eq=False)
class ClusterModel:
    """Cluster centres in id order (0 is the largest on the fitting sample) and how k was chosen."""

    centers: NDArray[np.floating]
    """Centres cases are assigned to (the fitted KMeans centres, renumbered)."""
    labels: NDArray[np.intp]
    """Cluster of each fitted case, to name the clusters by their members' terms."""
    selection: str
    sample_size: int
    scan: tuple[tuple[int, float], ...]
    silhouette: float | None

    @property
    def k(self) -> int:
        """Number of clusters (each has at least one member in the fitting sample)."""
        return len(self.centers)


def _fit_kmeans(vectors: NDArray[np.floating], k: int, seed: int) -> KMeans | MiniBatchKMeans:
    from sklearn.cluster import KMeans, MiniBatchKMeans

    if len(vectors) <= FULL_KMEANS_LIMIT:
        return KMeans(n_clusters=k, n_init=KMEANS_INIT, random_state=seed).fit(vectors)
    # compute_labels=False: the centres are the same; the labels and inertia of every fitted
    # row, which it would compute after the fit, are not read (_renumber assigns the rows).
    return MiniBatchKMeans(
        n_clusters=k,
        n_init=MINIBATCH_INIT,
        batch_size=MINIBATCH_SIZE,
        random_state=seed,
        compute_labels=False,
    ).fit(vectors)


def _distinct_rows(vectors: NDArray[np.floating]) -> int:
    # KMeans warns and returns duplicate centres when asked for more clusters than points.
    return len(np.unique(vectors, axis=0))


def _distances(vectors: NDArray[np.floating]) -> NDArray[np.floating]:
    """Euclidean distances between the rows as ``silhouette_score`` computes them, transposed.

    Row ``j`` holds every point's distance to point ``j``: :func:`_silhouette` sums a point's
    distances to a cluster down the columns. The same chunked call, so each point's distances
    are the very numbers scikit-learn would compute itself; every silhouette of the scan is then
    read from this one matrix instead of computing the distances again for each k (the sample
    is the same for every k).
    """
    from sklearn.metrics import pairwise_distances_chunked

    transposed = None
    start = 0
    for chunk in pairwise_distances_chunked(vectors, metric="euclidean"):
        if transposed is None:  # made once the first chunk's scratch arrays are freed
            transposed = np.empty((len(vectors), len(vectors)), dtype=chunk.dtype)
        transposed[:, start : start + len(chunk)] = chunk.T
        start += len(chunk)
    assert transposed is not None  # at least one chunk: the sample is never empty
    return transposed


def _silhouette(distances_t: NDArray[np.floating], labels: NDArray[np.intp]) -> float | None:
    """Mean silhouette of ``labels``, as ``silhouette_score(D, labels, metric="precomputed")``.

    ``distances_t`` is the transposed distance matrix (:func:`_distances`). The arithmetic is
    scikit-learn's (``silhouette_samples``), operation for operation and in the same dtypes, so
    the score is equal to the bit (``tests/observability/test_clustering.py`` holds it): each
    point's distances to a cluster summed in float64 in point order, then rounded to the
    distances' dtype. scikit-learn sums them with one ``bincount`` a point; here one reduction
    over the cluster's rows of ``distances_t`` adds the same numbers in the same order for every
    point at once, about a quarter of the time (docs/benchmarks.md).
    """
    # Defined only for 2 <= clusters <= points - 1.
    found, encoded = np.unique(labels, return_inverse=True)
    n = len(encoded)
    if not 2 <= len(found) <= n - 1:
        return None
    sizes = np.bincount(encoded)
    sums = np.empty((len(found), n), dtype=np.float64)
    for cluster in range(len(found)):
        # The cluster's rows in point order, added one after another from 0.0 as bincount adds
        # them: numpy sums pairwise only along the axis it runs innermost, here the n >= 3
        # points' (a test holds it against scikit-learn).
        np.add.reduce(
            distances_t[encoded == cluster],
            axis=0,
            dtype=np.float64,
            out=sums[cluster],
            initial=0.0,
        )
    per_cluster = sums.T.astype(distances_t.dtype)
    own = (np.arange(n), encoded)
    intra = per_cluster[own]
    per_cluster[own] = np.inf
    per_cluster /= sizes
    inter = per_cluster.min(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        intra /= (sizes - 1).take(encoded, mode="clip")
        scores = inter - intra
        scores /= np.maximum(intra, inter)
    # A point alone in its cluster has silhouette 0 (0 / 0 above).
    return float(np.mean(np.nan_to_num(scores, nan=0.0)))


def assign_clusters(
    vectors: NDArray[np.floating], centers: NDArray[np.floating]
) -> NDArray[np.intp]:
    """Index of each row's nearest centre (ties: the lower id).

    Squared distances are summed along each row with plain numpy reductions rather than
    BLAS products, whose blocking can change the last bits of a row with the matrix size.
    """
    if len(centers) == 1 or len(vectors) == 0:
        return np.zeros(len(vectors), dtype=np.intp)
    return _nearest(_squared_distances(vectors, centers))


def _squared_distances(
    vectors: NDArray[np.floating], centers: NDArray[np.floating]
) -> NDArray[np.float64]:
    """Squared distance of each row to each centre, one column per centre.

    A column depends on its centre alone: the columns of some of the centres, in any order,
    are those :func:`assign_clusters` computes for them.
    """
    distances = np.empty((len(vectors), len(centers)), dtype=np.float64)
    for index, center in enumerate(centers):
        difference = vectors - center
        distances[:, index] = np.sum(difference * difference, axis=1)
    return distances


def _nearest(distances: NDArray[np.float64]) -> NDArray[np.intp]:
    return np.asarray(np.argmin(distances, axis=1), dtype=np.intp)


def _renumber(
    vectors: NDArray[np.floating], centers: NDArray[np.floating]
) -> tuple[NDArray[np.floating], NDArray[np.intp]]:
    """Keep centres with a sample member, numbered by sample size (ties by first appearance).

    The kept centres' distances are columns of the first assignment's, not computed again:
    the labels are ``assign_clusters(vectors, kept)``.
    """
    distances = _squared_distances(vectors, centers)
    labels = _nearest(distances)
    found, first, sizes = np.unique(labels, return_index=True, return_counts=True)
    order = found[np.lexsort((first, -sizes))]
    return centers[order], _nearest(distances[:, order])


def fit_clusters(
    vectors: NDArray[np.floating], *, seed: int, n_clusters: int | None
) -> ClusterModel:
    """Fit the clustering on the fitting sample's embedding; with ``n_clusters`` None, choose k.

    The rule: on a deterministic sub-sample of at most ``SELECTION_SAMPLE`` cases (drawn with
    ``seed``), fit KMeans for every k from 2 to min(10, distinct points, sub-sample size - 1)
    and keep the k with the highest mean silhouette (ties: the smaller k). With no candidate
    (fewer than 3 cases or 2 distinct points) there is one cluster.
    """
    n = len(vectors)
    rng = np.random.default_rng(seed)
    if n <= SELECTION_SAMPLE:
        sample_index = np.arange(n)
    else:
        sample_index = np.sort(rng.choice(n, size=SELECTION_SAMPLE, replace=False))
    sample = vectors[sample_index]
    distances = _distances(sample)
    scan: list[tuple[int, float]] = []
    # When the sub-sample is the whole fitting sample, the scan's fit of the chosen k is the
    # final fit itself (the same rows, k and seed): kept rather than fitted again.
    scanned: dict[int, NDArray[np.floating]] = {}

    if n_clusters is not None:
        distinct = _distinct_rows(vectors)
        k = min(n_clusters, distinct)
        selection = f"requested k={n_clusters}"
        if k < n_clusters:
            selection += f", capped to {distinct} distinct points"
    else:
        largest = min(MAX_CLUSTERS, _distinct_rows(sample), len(sample) - 1)
        for candidate in range(2, largest + 1):
            fitted = _fit_kmeans(sample, candidate, seed)
            if len(sample) == n:
                scanned[candidate] = fitted.cluster_centers_
            score = _silhouette(distances, np.asarray(fitted.labels_, dtype=np.intp))
            if score is not None:
                scan.append((candidate, score))
        if scan:
            k = max(scan, key=lambda item: (item[1], -item[0]))[0]
            selection = f"silhouette over k=2..{largest} on {len(sample)} sampled cases"
        else:
            k = 1
            selection = "single: too few cases or distinct points to compare clusterings"

    if k == 1:
        centers = vectors.mean(axis=0, keepdims=True)
        labels = np.zeros(n, dtype=np.intp)
    else:
        fitted_centers = scanned.get(k)
        if fitted_centers is None:
            fitted_centers = _fit_kmeans(vectors, k, seed).cluster_centers_
        centers, labels = _renumber(vectors, fitted_centers)
        if len(centers) < k:
            selection += f"; {k - len(centers)} empty cluster(s) dropped"
    return ClusterModel(
        centers=centers,
        labels=labels,
        selection=selection,
        sample_size=len(sample),
        scan=tuple(scan),
        silhouette=_silhouette(distances, labels[sample_index]),
    )
