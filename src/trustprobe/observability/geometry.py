"""``build_observability``: the geometry of a run's failures, from scored cases.

One code path serves a single process and a cluster. The model (vocabulary, IDF, SVDs, KMeans)
is fitted on a deterministic sample of the scored cases (:func:`fit_sample_positions`,
:func:`fit_geometry`); every case is then placed by :func:`place_cases`, which returns a
mergeable :class:`GeometryPartial` (counts and contingency tables) and the case's points; one
:func:`finalize_geometry` turns the merged partial into the report's :class:`Observability`.
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np
from numpy.typing import NDArray
from pydantic import TypeAdapter
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

if TYPE_CHECKING:  # SciPy takes seconds to import: only when a geometry is made
    import scipy.sparse as sp

from trustprobe.formats.canonical import SMALL_DECIMALS
from trustprobe.metrics.distribution import Distribution
from trustprobe.observability import embedding as embedding_module
from trustprobe.observability.clustering import ClusterModel, assign_clusters, fit_clusters
from trustprobe.observability.embedding import CaseText, EmbeddingModel, case_texts, fit_embedding
from trustprobe.observability.models import (
    ClusterSummary,
    MutualInformation,
    NormalizedMutualInformation,
    Observability,
    ObservabilityPoint,
    SilhouetteScore,
)
from trustprobe.scoring.models import CaseScore
from trustprobe.scoring.rows import ScoredCases

TOP_TERMS: Final = 8
"""Terms listed per cluster."""
LABELS: Final = ("category", "severity", "pass_fail")
"""The case labels whose association with the clusters is measured."""


def fit_sample_size() -> int:
    """Scored cases in the fitting sample (``embedding.SVD_FIT_SAMPLE``, 20,000)."""
    return int(embedding_module.SVD_FIT_SAMPLE)


def sample_priority(seed: int, probe_id: str, sample: int) -> int:
    """A case's 64-bit draw for the fitting sample: a keyed hash of (seed, probe id, sample).

    It depends on the case alone, so every partition can rank its own cases and the smallest
    draws over the whole run are the same however the run was split.
    """
    digest = hashlib.blake2b(f"{seed}\x00{probe_id}\x00{sample}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def sample_draws(seed: int, keys: Iterable[tuple[str, int]]) -> list[int]:
    """:func:`sample_priority` of each (probe id, sample) (see :func:`grouped_draws`)."""
    groups: dict[str, int] = {}
    group_of: list[int] = []
    samples: list[int] = []
    for probe_id, sample in keys:
        group_of.append(groups.setdefault(probe_id, len(groups)))
        samples.append(sample)
    return grouped_draws(seed, list(groups), group_of, samples)


_COPY: Final = hashlib.blake2b.copy
_UPDATE: Final = hashlib.blake2b.update
_DIGEST: Final = hashlib.blake2b.digest
_DIGITS: Final = cast("Callable[[int], bytes]", dict(enumerate(SMALL_DECIMALS)).get)
"""A sample's digits by number (a dictionary's ``get``: a fast call in a pass), ``None`` beyond
the table (which :meth:`hashlib.blake2b.update` refuses)."""


def grouped_draws(
    seed: int, probe_ids: Sequence[str], group_of: Sequence[int], samples: Sequence[int]
) -> list[int]:
    """:func:`sample_priority` of each case: its group's probe id (by ``group_of``), its sample.

    BLAKE2b reads its input in order, so the state after ``seed`` and the probe id, copied,
    then fed the sample number, gives the same digest as hashing the whole key: each probe's
    part is hashed once. A draw is made for every scored case of a run, so each step over the
    cases (copy, feed the sample's digits, looked up rather than formatted, digest, read the
    integer, big-endian by default) is one pass in C: no bytecode a case (docs/benchmarks.md,
    "The edges of a run").
    """
    prefix_of = {
        probe_id: hashlib.blake2b(f"{seed}\x00{probe_id}\x00".encode(), digest_size=8)
        for probe_id in dict.fromkeys(probe_ids)
    }
    prefixes = list(map(prefix_of.__getitem__, probe_ids))
    draws: list[int] = []
    for at in range(0, len(group_of), _DRAW_BLOCK):
        cases = slice(at, at + _DRAW_BLOCK)
        states = list(map(_COPY, map(prefixes.__getitem__, group_of[cases])))
        try:
            deque(map(_UPDATE, states, map(_DIGITS, samples[cases])), maxlen=0)
        except TypeError:  # a sample beyond the table (its digits None): each spelled out
            states = list(map(_COPY, map(prefixes.__getitem__, group_of[cases])))
            deque(map(_UPDATE, states, map(b"%d".__mod__, samples[cases])), maxlen=0)
        draws.extend(map(int.from_bytes, map(_DIGEST, states)))
    return draws


_DRAW_BLOCK: Final = 512
"""Cases drawn a block: their hash states (about 400 bytes each) stay in the processor's cache
between the passes; a chunk's 16,384 at once took 17–32% more time a draw (docs/benchmarks.md)."""


def fit_sample_positions(keys: Sequence[tuple[str, int]], *, seed: int) -> list[int]:
    """Positions of the fitting sample among scored cases' (probe_id, sample), in input order.

    Every case when there are at most :func:`fit_sample_size`; otherwise the cases with the
    smallest :func:`sample_priority` (ties by position).
    """
    if len(keys) <= fit_sample_size():
        return list(range(len(keys)))  # every case: no draw needed
    return smallest_draws(sample_draws(seed, keys))


def smallest_draws(draws: Sequence[int]) -> list[int]:
    """Positions, ascending, of the :func:`fit_sample_size` smallest ``draws`` (ties by position).

    Each draw (64 bits, :func:`sample_draws`) and its position are one integer,
    ``draw << 64 | position``: one integer compares faster than a pair.
    """
    size = fit_sample_size()
    if len(draws) <= size:
        return list(range(len(draws)))
    keys = [draw << 64 | at for at, draw in enumerate(draws)]
    # A sample barely over the size (a stratified sample's cases) sorts faster than a heap
    # selects; a whole run's cases do not (20,077 keys: 3.5 ms against 11; 400,000: 139 against 75).
    smallest = sorted(keys)[:size] if len(keys) < 4 * size else heapq.nsmallest(size, keys)
    return sorted(key & _LOW_64 for key in smallest)


_LOW_64: Final = (1 << 64) - 1


TERM_DECIMALS: Final = 6
"""Decimals a term weight is compared at: float32 TF-IDF holds about 7 significant digits, so
closer weights are one weight, and their order is the term order, not float noise."""


@dataclass(frozen=True, eq=False)
class GeometryModel:
    """Everything fitted on the sample: the embedding and the clusters, plus the seed."""

    embedding: EmbeddingModel
    clusters: ClusterModel
    seed: int
    top_terms: tuple[tuple[str, ...], ...]
    """Per cluster id, the terms that name it (:func:`cluster_top_terms`)."""


def _one_thread() -> threadpool_limits:
    """BLAS and OpenMP held to one thread, scikit-learn's OpenMP runtime loaded first.

    threadpoolctl limits only the thread pools loaded when it is entered, and scikit-learn is
    imported lazily: entered first, it would leave KMeans and the distance kernels free to
    start a thread per core.
    """
    import sklearn.cluster  # noqa: F401  (loads the OpenMP runtime of the KMeans kernels)

    return threadpool_limits(limits=1)


def fit_geometry(
    texts: Sequence[CaseText], *, seed: int, n_clusters: int | None, max_features: int
) -> GeometryModel:
    """Fit embedding and clustering on the fitting sample's texts (in input order)."""
    # One thread for BLAS and OpenMP: on these sizes thread hand-offs cost more than the
    # parallel work saves, and on a busy machine several times more (docs/benchmarks.md).
    with _one_thread():
        return _fit(texts, seed=seed, n_clusters=n_clusters, max_features=max_features)[0]


def _fit(
    texts: Sequence[CaseText], *, seed: int, n_clusters: int | None, max_features: int
) -> tuple[GeometryModel, sp.csr_matrix]:
    """:func:`fit_geometry`, and the sample's TF-IDF rows (``tfidf_rows`` of ``texts``).

    The caller holds :func:`_one_thread`. The model's ``clusters.labels`` are the sample's
    clusters as :func:`assign_clusters` gives them from its embedding rows
    (``embedding.embed`` of those TF-IDF rows).
    """
    embedding, tfidf = fit_embedding(texts, seed=seed, max_features=max_features)
    clusters = fit_clusters(embedding.embed(tfidf), seed=seed, n_clusters=n_clusters)
    top_terms = cluster_top_terms(embedding.terms, tfidf, clusters.labels, clusters.k)
    model = GeometryModel(embedding=embedding, clusters=clusters, seed=seed, top_terms=top_terms)
    return model, tfidf


def fit_and_place(
    cases: Sequence[CaseScore],
    texts: Sequence[CaseText],
    positions: Sequence[int],
    *,
    seed: int,
    n_clusters: int | None,
    max_features: int,
) -> tuple[GeometryModel, GeometryPartial, list[ObservabilityPoint]]:
    """:func:`fit_geometry` on the scored cases at ``positions``, then :func:`place_cases`.

    The fitted cases' TF-IDF rows and clusters are taken from the fit instead of computed
    again: the rows are those the model gives them, bit for bit
    (``tests/observability/test_embedding.py``), and a row is embedded, assigned and projected
    by its own values alone, so each fitted case's cluster is the one the fit assigned it, and
    every point is the one :func:`place_cases` would make.

    Args:
        cases: Scored cases (harness errors left out), in run order; as columns
            (:class:`~trustprobe.scoring.rows.ScoredCases`), none is built.
        texts: Their texts (:func:`scored_case_texts`).
        positions: The fitting sample (:func:`fit_sample_positions`), ascending.
        seed: As for :func:`fit_geometry`.
        n_clusters: As for :func:`fit_geometry`.
        max_features: As for :func:`fit_geometry`.
    """
    rows_of = ScoredCases.of(cases)
    rest = sorted(set(range(len(cases))).difference(positions))
    with _one_thread():
        model, fitted = _fit(
            [texts[i] for i in positions],
            seed=seed,
            n_clusters=n_clusters,
            max_features=max_features,
        )
        labels, scatter = model.clusters.labels, model.embedding.scatter(fitted)
        if rest:
            others = model.embedding.tfidf_rows([texts[i] for i in rest])
            placed = assign_clusters(model.embedding.embed(others), model.clusters.centers)
            # Back to run order: the fitted cases, then the others, put where they are.
            order = np.argsort(np.concatenate([positions, rest]), kind="stable")
            labels = np.concatenate([labels, placed])[order]
            scatter = np.concatenate([scatter, model.embedding.scatter(others)])[order]
    return model, *_place(model, rows_of, _verdicts(rows_of.groups), labels, scatter)


def cluster_top_terms(
    terms: NDArray[np.str_], tfidf: sp.csr_matrix, labels: NDArray[np.intp], k: int
) -> tuple[tuple[str, ...], ...]:
    """Per cluster, up to ``TOP_TERMS`` terms of largest mean TF-IDF weight over its members.

    Weighed in term space rather than by mapping the embedded centroid back through the SVD:
    that mapping adds float noise of the order of the last bits, which differs between
    scikit-learn, numpy and BLAS builds and reorders terms of equal weight. Weights are
    compared at ``TERM_DECIMALS`` decimals; equal ones list in term (alphabetical) order.
    """
    named: list[tuple[str, ...]] = []
    for cluster in range(k):
        members = tfidf[labels == cluster].astype(np.float64)
        weights = np.round(np.asarray(members.mean(axis=0)).ravel(), TERM_DECIMALS)
        order = np.argsort(-weights, kind="stable")[:TOP_TERMS]
        named.append(tuple(str(terms[i]) for i in order if weights[i] > 0))
    return tuple(named)


@dataclass(frozen=True)
class GeometryPartial:
    """Per-cluster tallies of a partition of cases; merged by adding counts."""

    n_cases: int = 0
    excluded_harness_errors: int = 0
    risk: Mapping[int, Distribution] = field(default_factory=dict)
    """Per cluster, its members' risk scores."""
    contingency: Mapping[tuple[str, str, int], int] = field(default_factory=dict)
    """Cases per (label kind, label, cluster): the tables mutual information is computed from."""

    def merge(self, other: GeometryPartial) -> GeometryPartial:
        """Tallies of both partitions together."""
        risk = dict(self.risk)
        for cluster, values in other.risk.items():
            mine = risk.get(cluster)
            risk[cluster] = values if mine is None else mine.merge(values)
        return GeometryPartial(
            n_cases=self.n_cases + other.n_cases,
            excluded_harness_errors=self.excluded_harness_errors + other.excluded_harness_errors,
            risk=risk,
            contingency=dict(Counter(self.contingency) + Counter(other.contingency)),
        )


def merge_geometry(partials: Iterable[GeometryPartial]) -> GeometryPartial:
    """Merge partials of disjoint partitions."""
    merged = GeometryPartial()
    for partial in partials:
        merged = merged.merge(partial)
    return merged


def case_verdict(case: CaseScore) -> tuple[bool, float]:
    """A scored case's (passed, risk score); ``ValueError`` if it lacks either."""
    if case.passed is None or case.risk_score is None:
        raise ValueError(
            f"probe '{case.probe_id}' sample {case.sample} has no harness error but lacks"
            " a verdict (passed and risk_score must be set)"
        )
    return case.passed, case.risk_score


def _verdicts(cases: Sequence[CaseScore]) -> list[tuple[bool, float]]:
    return [case_verdict(case) for case in cases]


def case_keys(cases: Sequence[CaseScore]) -> list[tuple[str, int]]:
    """Each case's (probe id, sample), read from the columns (:class:`ScoredCases`)."""
    rows = ScoredCases.of(cases)
    probe_of = [case.probe_id for case in rows.groups]
    return list(zip(map(probe_of.__getitem__, rows.group_of), rows.samples, strict=True))


def scored_case_texts(cases: Sequence[CaseScore]) -> list[CaseText]:
    """The texts of scored cases (harness errors must be left out by the caller).

    A case's text is its verdict's part alone (not its sample nor its response), so cases
    given as columns (:class:`ScoredCases`) share their group's text, made once.
    """
    rows = ScoredCases.of(cases)
    texts = case_texts(rows.groups, _verdicts(rows.groups))
    return list(map(texts.__getitem__, rows.group_of))


def place_cases(
    model: GeometryModel, cases: Sequence[CaseScore], texts: Sequence[CaseText] | None = None
) -> tuple[GeometryPartial, list[ObservabilityPoint]]:
    """Embed and assign a partition's cases; tallies plus one point per scored case, in order.

    ``texts`` are the scored cases' texts (:func:`scored_case_texts`) if the caller has them.
    """
    scored = ScoredCases.of([c for c in cases if c.error is None])
    verdicts = _verdicts(scored.groups)
    if texts is None:
        texts = case_texts(scored.groups, verdicts)
    elif len(texts) != len(scored):
        raise ValueError(f"{len(texts)} texts given for {len(scored)} scored cases")
    with _one_thread():
        vectors, scatter = model.embedding.transform(texts)
        labels = assign_clusters(vectors, model.clusters.centers)
    partial, points = _place(model, scored, verdicts, labels, scatter)
    return replace(partial, excluded_harness_errors=len(cases) - len(scored)), points


def _place(
    model: GeometryModel,
    scored: ScoredCases,
    verdicts: Sequence[tuple[bool, float]],
    clusters: NDArray[np.intp],
    scatter: NDArray[np.floating],
) -> tuple[GeometryPartial, list[ObservabilityPoint]]:
    """Tallies and points of scored cases whose clusters and scatter rows are given.

    ``verdicts`` are per group of ``scored`` (:attr:`ScoredCases.groups`): every field read
    here but the sample is the group's.
    """
    labels = clusters.tolist()
    groups, group_of = scored.groups, scored.group_of

    def per_case(values: list[Any]) -> list[Any]:
        return list(map(values.__getitem__, group_of))

    tallies = {
        "category": Counter(zip(per_case([c.category for c in groups]), labels, strict=True)),
        "severity": Counter(zip(per_case([c.severity.value for c in groups]), labels, strict=True)),
        "pass_fail": Counter(
            zip(per_case(["pass" if ok else "fail" for ok, _ in verdicts]), labels, strict=True)
        ),
    }
    risks = per_case([risk for _, risk in verdicts])
    table = {
        (kind, label, cluster): count
        for kind, tally in tallies.items()
        for (label, cluster), count in tally.items()
    }
    values: dict[int, Counter[float]] = {}
    for (cluster, risk), count in Counter(zip(labels, risks, strict=True)).items():
        values.setdefault(cluster, Counter())[risk] += count
    # One validation call over plain dicts: three times faster than a model per point.
    points = TypeAdapter(list[ObservabilityPoint]).validate_python(
        [
            {
                "probe_id": probe_id,
                "sample": sample,
                "cluster": k,
                "scatter_x": x,
                "scatter_y": y,
            }
            for probe_id, sample, k, (x, y) in zip(
                per_case([c.probe_id for c in groups]),
                scored.samples,
                labels,
                scatter.tolist(),
                strict=True,
            )
        ]
    )
    partial = GeometryPartial(
        n_cases=len(group_of),
        risk={cluster: Distribution.of_counts(v) for cluster, v in sorted(values.items())},
        contingency=table,
    )
    return partial, points


def _table(partial: GeometryPartial, kind: str, k: int) -> tuple[list[str], NDArray[np.int64]]:
    """Contingency of one label kind: rows are its labels in sorted order, columns cluster ids."""
    labels = sorted({label for (which, label, _) in partial.contingency if which == kind})
    row = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), k), dtype=np.int64)
    for (which, label, cluster), count in partial.contingency.items():
        if which == kind:
            table[row[label], cluster] += count
    return labels, table


def _entropy(counts: NDArray[np.int64]) -> float:
    from scipy.stats import entropy  # SciPy takes a second to import: only when needed

    present = counts[counts > 0]
    return float(entropy(present.astype(np.float64)))


def _nmi(table: NDArray[np.int64], mi: float) -> float | None:
    # With a constant labelling both entropies can be 0 and NMI is 0/0; sklearn reports 1.0
    # by convention, which would claim a perfect association from no variation at all.
    rows, columns = table.sum(axis=1), table.sum(axis=0)
    if np.count_nonzero(rows) < 2 or np.count_nonzero(columns) < 2:
        return None
    # As sklearn's normalized_mutual_info_score: MI over the arithmetic mean of the entropies.
    if abs(mi) < np.finfo(np.float64).eps:
        return 0.0
    return float(mi / np.mean([_entropy(rows), _entropy(columns)]))


def _summary(
    model: GeometryModel,
    partial: GeometryPartial,
    cluster: int,
    categories: tuple[list[str], NDArray[np.int64]],
    outcomes: tuple[list[str], NDArray[np.int64]],
) -> ClusterSummary:
    names, column = categories[0], categories[1][:, cluster]
    size = int(column.sum())
    risk_mean = partial.risk[cluster].mean() if cluster in partial.risk else None
    if size == 0 or risk_mean is None:
        # Every cluster has a member in the fitting sample, so this cannot happen.
        raise ValueError(f"cluster {cluster} has no member")
    dominant = min(np.flatnonzero(column).tolist(), key=lambda i: (-column[i], names[i]))
    failed = int(outcomes[1][outcomes[0].index("fail"), cluster]) if "fail" in outcomes[0] else 0
    return ClusterSummary(
        cluster=cluster,
        size=size,
        failed=failed,
        failure_rate=failed / size,
        risk_mean=risk_mean,
        dominant_category=names[dominant],
        dominant_category_share=int(column[dominant]) / size,
        top_terms=list(model.top_terms[cluster]),
    )


def finalize_geometry(
    model: GeometryModel,
    partial: GeometryPartial,
    points: Sequence[ObservabilityPoint],
    *,
    sampled_from: int | None = None,
) -> Observability:
    """The report's observability from the merged partial and every point, in input order.

    ``sampled_from`` is the run's count of scored cases when the partial covers a sample.
    """
    from sklearn.metrics import mutual_info_score

    k = model.clusters.k
    tables = {kind: _table(partial, kind, k) for kind in LABELS}
    mi = {
        kind: float(mutual_info_score(None, None, contingency=table))
        for kind, (_, table) in tables.items()
    }
    nmi = {kind: _nmi(table, mi[kind]) for kind, (_, table) in tables.items()}
    return Observability(
        n_cases=partial.n_cases,
        sampled_from=sampled_from,
        excluded_harness_errors=partial.excluded_harness_errors,
        seed=model.seed,
        vocabulary_size=len(model.embedding.terms),
        embedding_dimensions=model.embedding.dimensions,
        n_clusters=k,
        cluster_selection=model.clusters.selection,
        selection_sample_size=model.clusters.sample_size,
        silhouette_by_k=[SilhouetteScore(k=c, silhouette=s) for c, s in model.clusters.scan],
        silhouette=model.clusters.silhouette,
        mutual_information=MutualInformation(
            category=mi["category"], severity=mi["severity"], pass_fail=mi["pass_fail"]
        ),
        normalized_mutual_information=NormalizedMutualInformation(
            category=nmi["category"], severity=nmi["severity"], pass_fail=nmi["pass_fail"]
        ),
        clusters=[
            _summary(model, partial, c, tables["category"], tables["pass_fail"]) for c in range(k)
        ],
        points=list(points),
    )


def check_settings(*, min_cases: int, n_clusters: int | None, max_features: int) -> None:
    """Raise ``ValueError`` for settings :func:`build_observability` refuses."""
    if min_cases < 1:
        raise ValueError(f"min_cases must be >= 1, got {min_cases}")
    if n_clusters is not None and n_clusters < 1:
        raise ValueError(f"n_clusters must be >= 1, got {n_clusters}")
    if max_features < 4:
        raise ValueError(f"max_features must be >= 4 (one term per label kind), got {max_features}")
