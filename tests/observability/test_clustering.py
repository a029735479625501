"""The clustering's own arithmetic gives scikit-learn's numbers to the bit, or reuses its own."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from sklearn.cluster import MiniBatchKMeans
from sklearn.metrics import pairwise_distances_chunked, silhouette_score

from trustprobe.observability.clustering import (
    FULL_KMEANS_LIMIT,
    MINIBATCH_INIT,
    MINIBATCH_SIZE,
    _distances,
    _fit_kmeans,
    _renumber,
    _silhouette,
    assign_clusters,
    fit_clusters,
)


def _points(seed: int, n: int, dimensions: int, dtype: type[np.floating]) -> NDArray[np.floating]:
    """Rows drawn around a few centres, some repeated: ties and duplicates included."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(4, dimensions))
    rows = centres[rng.integers(0, 4, size=n)] + rng.normal(scale=0.3, size=(n, dimensions))
    rows[rng.integers(0, n, size=n // 5)] = rows[0]
    return rows.astype(dtype)


def _sklearn_distances(vectors: NDArray[np.floating]) -> NDArray[np.floating]:
    return np.vstack(list(pairwise_distances_chunked(vectors, metric="euclidean")))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("memory", [None, 0.01])
def test_distances_are_scikit_learns_transposed(
    dtype: type[np.floating], memory: float | None
) -> None:
    """One chunk or many (``working_memory`` in MiB), the very numbers, transposed."""
    vectors = _points(3, 300, 6, dtype)
    with sklearn.config_context(working_memory=memory or 1024):
        transposed = _distances(vectors)
        expected = _sklearn_distances(vectors)
    assert transposed.dtype == expected.dtype
    assert transposed.flags.c_contiguous
    assert transposed.T.tobytes(order="C") == expected.tobytes(order="C")


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 80),
    dimensions=st.integers(1, 6),
    clusters=st.integers(1, 9),
    float32=st.booleans(),
)
def test_silhouette_is_scikit_learns_to_the_bit(
    seed: int, n: int, dimensions: int, clusters: int, float32: bool
) -> None:
    """Any labelling, singletons and gaps in the label values included."""
    vectors = _points(seed, n, dimensions, np.float32 if float32 else np.float64)
    rng = np.random.default_rng(seed + 1)
    labels = (rng.integers(0, clusters, size=n) * 3).astype(np.intp)
    score = _silhouette(_distances(vectors), labels)
    if not 2 <= len(np.unique(labels)) <= n - 1:
        assert score is None
        return
    expected = silhouette_score(_sklearn_distances(vectors), labels, metric="precomputed")
    assert score is not None
    assert score.hex() == float(expected).hex()


def test_silhouettes_of_a_scan_are_scikit_learns_to_the_bit() -> None:
    """The shape of the real scan: a 2,000-case float32 sample, KMeans labels (k of 2..10)."""
    vectors = _points(11, 2000, 50, np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    transposed, distances = _distances(vectors), _sklearn_distances(vectors)
    for k in (2, 6, 10):
        labels = np.asarray(_fit_kmeans(vectors, k, 0).labels_, dtype=np.intp)
        score = _silhouette(transposed, labels)
        assert score is not None
        assert score.hex() == float(silhouette_score(distances, labels, metric="precomputed")).hex()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), k=st.integers(2, 8))
def test_renumbered_labels_are_the_assignment_to_the_kept_centres(
    seed: int, n: int, k: int
) -> None:
    rng = np.random.default_rng(seed)
    vectors = _points(seed, n, 3, np.float32)
    centres = vectors[rng.integers(0, n, size=k)] + rng.normal(scale=0.1, size=(k, 3))
    centres[-1] = centres[0]  # a tie between two centres, and a centre no row is nearest to
    kept, labels = _renumber(vectors, centres.astype(np.float32))
    assert (labels == assign_clusters(vectors, kept)).all()


def test_minibatch_centres_do_not_depend_on_the_labels_it_leaves_out() -> None:
    """``compute_labels=False`` leaves the fitted centres as they are, to the bit."""
    vectors = _points(5, FULL_KMEANS_LIMIT + 500, 8, np.float32)
    full = MiniBatchKMeans(
        n_clusters=4, n_init=MINIBATCH_INIT, batch_size=MINIBATCH_SIZE, random_state=2
    ).fit(vectors)
    fitted = _fit_kmeans(vectors, 4, 2)
    assert isinstance(fitted, MiniBatchKMeans)
    assert fitted.cluster_centers_.tobytes() == full.cluster_centers_.tobytes()


@pytest.mark.parametrize("n", [40, 400])
def test_the_final_fit_of_a_whole_sample_scan_is_the_scan_fit(n: int) -> None:
    """Up to 2,000 cases the scan ran on the fitting sample itself: its fit is the final one."""
    vectors = _points(7, n, 5, np.float32)
    model = fit_clusters(vectors, seed=3, n_clusters=None)
    assert model.k > 1
    centres, labels = _renumber(vectors, _fit_kmeans(vectors, model.k, 3).cluster_centers_)
    assert model.centers.tobytes() == centres.tobytes()
    assert (model.labels == labels).all()
