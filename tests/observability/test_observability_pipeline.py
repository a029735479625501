"""The embedding's shortcuts are exact, large-run branches work, and invariants hold."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from trustprobe.observability import build_observability
from trustprobe.observability import clustering as clustering_module
from trustprobe.observability import embedding as embedding_module
from trustprobe.scoring.models import CaseScore

CaseFactory = Callable[..., CaseScore]

# Letters, digits and the punctuation that sits next to figures in explanations.
TEXT = st.text(alphabet="ab xyZ09.,:_-;()'\n", max_size=60)


def _analyzer() -> Callable[[str], list[str]]:
    vectorizer = CountVectorizer(
        token_pattern=embedding_module._TOKEN_PATTERN, stop_words="english"
    )
    return vectorizer.build_analyzer()


@given(TEXT)
def test_dropping_standalone_numbers_changes_no_term(text: str) -> None:
    analyze = _analyzer()
    assert analyze(embedding_module._NUMBER.sub(" ", text)) == analyze(text)


@settings(max_examples=40)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=1, max_size=8))
def test_summed_part_counts_equal_counts_of_the_whole_text(
    rows: list[tuple[str, str, str]],
) -> None:
    words = " ".join(" ".join(r) for r in rows)
    if not _analyzer()(words):
        return  # no term anywhere: CountVectorizer refuses an empty vocabulary
    counts, terms = embedding_module._count_matrix(list(zip(*rows, strict=True)))
    whole = CountVectorizer(token_pattern=embedding_module._TOKEN_PATTERN, stop_words="english")
    expected = whole.fit_transform([" ".join(r) for r in rows])
    assert list(terms) == list(whole.get_feature_names_out())
    assert np.array_equal(counts.toarray(), expected.toarray())


def test_feature_limit_keeps_the_most_frequent_terms() -> None:
    counts = sp.csr_matrix(np.array([[3, 1, 2, 2], [1, 0, 1, 1]]))
    terms = np.array(["alpha", "beta", "delta", "gamma"])
    # totals: alpha 4, beta 1, delta 3, gamma 3; keep 2 → alpha, then delta (tie with gamma
    # broken by name), reported in vocabulary order.
    _, kept = embedding_module._limit_features(counts, terms, 2)
    assert list(kept) == ["alpha", "delta"]


def test_large_run_branches_sampled_svd_and_minibatch(
    make_case: CaseFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Shrink the thresholds so the branches taken above 10k / 20k cases run on 60 cases.
    monkeypatch.setattr(embedding_module, "SVD_FIT_SAMPLE", 40)
    monkeypatch.setattr(clustering_module, "FULL_KMEANS_LIMIT", 30)
    monkeypatch.setattr(clustering_module, "SELECTION_SAMPLE", 25)
    families = ["injection", "exfiltration", "agency"]
    cases = [
        make_case(f"{f}-{i}", category=f, passed=i % 4 > 0, risk=0.9 if i % 4 == 0 else 0.1)
        for f in families
        for i in range(20)
    ]
    first = build_observability(cases, seed=3)
    second = build_observability(cases, seed=3)
    assert first is not None and first == second
    assert first.selection_sample_size == 25
    assert len(first.points) == 60 and sum(c.size for c in first.clusters) == 60
    assert all(c.dominant_category_share == 1.0 for c in first.clusters)


@st.composite
def runs(draw: st.DrawFn) -> list[dict[str, object]]:
    n = draw(st.integers(5, 24))
    specs: list[dict[str, object]] = []
    for i in range(n):
        risk = draw(st.sampled_from([0.0, 0.1, 0.3, 0.6, 0.9]))
        specs.append(
            {
                "probe_id": f"p{i}",
                "category": draw(st.sampled_from(["injection", "exfiltration", "agency"])),
                "severity": draw(st.sampled_from(["low", "high", "critical"])),
                "passed": risk < 0.5,
                "risk": risk,
                "error": draw(st.sampled_from([None, None, None, None, "timeout"])),
            }
        )
    return specs


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs=runs(), seed=st.integers(0, 2**31 - 1))
def test_invariants_on_random_runs(
    make_case: CaseFactory, specs: list[dict[str, object]], seed: int
) -> None:
    cases = [make_case(**spec) for spec in specs]
    scored = [c for c in cases if c.error is None]
    obs = build_observability(cases, seed=seed)
    if len(scored) < 5:
        assert obs is None
        return
    assert obs is not None
    assert obs.n_cases == len(scored) == len(obs.points)
    assert obs.excluded_harness_errors == len(cases) - len(scored)
    assert [c.cluster for c in obs.clusters] == list(range(obs.n_clusters))
    sizes = [c.size for c in obs.clusters]
    assert sum(sizes) == len(scored) and sizes == sorted(sizes, reverse=True)
    assert {p.cluster for p in obs.points} == set(range(obs.n_clusters))
    for cluster in obs.clusters:
        assert 0.0 <= cluster.failure_rate <= 1.0 and 0.0 < cluster.dominant_category_share <= 1.0
    mi = obs.mutual_information
    ln_k = math.log(obs.n_clusters)
    assert 0.0 <= mi.category <= min(ln_k, math.log(3)) + 1e-9
    assert 0.0 <= mi.severity <= min(ln_k, math.log(3)) + 1e-9
    assert 0.0 <= mi.pass_fail <= min(ln_k, math.log(2)) + 1e-9
    nmi = obs.normalized_mutual_information
    for value in (nmi.category, nmi.severity, nmi.pass_fail):
        assert value is None or 0.0 <= value <= 1.0 + 1e-12
    assert all(math.isfinite(p.scatter_x) and math.isfinite(p.scatter_y) for p in obs.points)
    if obs.silhouette is not None:
        assert -1.0 <= obs.silhouette <= 1.0
