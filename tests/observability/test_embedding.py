"""The fitting sample's TF-IDF rows are the model's, placed as such; a case's text is its own."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import TruncatedSVD
from tests.observability.conftest import build_case

from trustprobe.observability.embedding import (
    CaseText,
    _count_matrix,
    _fit_svd,
    _project,
    case_texts,
    fit_embedding,
)
from trustprobe.observability.geometry import (
    fit_and_place,
    fit_geometry,
    place_cases,
    scored_case_texts,
)

WORDS = ("refuse", "leak", "token", "vault", "delete", "table", "email", "forward", "the", "42")
_PART = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(st.tuples(_PART, _PART, _PART, _PART), min_size=1, max_size=30),
    max_features=st.integers(4, 9),
)
def test_the_rows_kept_from_the_fit_are_the_rows_of_the_model(
    texts: list[CaseText], max_features: int
) -> None:
    """Same values, same column order, bit for bit: the SVDs and clusters read these rows."""
    texts = [("refuse leak token", "vault delete", "table email", "forward 42"), *texts]
    model, rows = fit_embedding(texts, seed=0, max_features=max_features)
    again = model.tfidf_rows(texts)
    assert rows.shape == again.shape
    assert (rows.indptr == again.indptr).all()
    assert (rows.indices == again.indices).all()
    assert rows.data.tobytes() == again.data.tobytes()


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(st.tuples(_PART, _PART, _PART, _PART), min_size=2, max_size=40),
    dimensions=st.integers(1, 6),
    seed=st.integers(0, 2**31 - 1),
)
def test_the_components_are_truncated_svds_to_the_bit(
    texts: list[CaseText], dimensions: int, seed: int
) -> None:
    """The SVDs' components and projections: ``TruncatedSVD(algorithm="randomized")``'s."""
    # Rows of term counts: float32 and sparse, as the TF-IDF rows the model fits them on.
    texts = [("refuse leak token", "vault delete", "table email", "forward 42"), *texts]
    counts, _ = _count_matrix(list(zip(*texts, strict=True)))
    dimensions = min(dimensions, counts.shape[1] - 1)
    svd = TruncatedSVD(n_components=dimensions, algorithm="randomized", random_state=seed)
    with np.errstate(invalid="ignore", divide="ignore"):  # its explained-variance ratio, 0 / 0
        svd.fit(counts)
    components = _fit_svd(counts, dimensions, seed)
    assert components.dtype == svd.components_.dtype
    assert components.tobytes() == svd.components_.tobytes()
    assert _project(counts, components).tobytes() == svd.transform(counts).tobytes()


_LABELS = st.lists(st.sampled_from(["canary", "vault.token", "x"]), max_size=2)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["injection", "agency"]), st.booleans(), _LABELS, _LABELS),
        min_size=1,
        max_size=12,
    )
)
def test_a_case_text_depends_on_that_case_alone(
    drawn: list[tuple[str, bool, list[str], list[str]]],
) -> None:
    """Label sets are made once per run, yet each text equals the one made for its case alone."""
    cases = [
        build_case(f"p-{n}", category=category, passed=passed, unsafe=unsafe).model_copy(
            update={"matched_safe_patterns": safe}
        )
        for n, (category, passed, safe, unsafe) in enumerate(drawn)
    ]
    verdicts = [(bool(c.passed), float(c.risk_score or 0.0)) for c in cases]
    alone = [case_texts([c], [v])[0] for c, v in zip(cases, verdicts, strict=True)]
    assert case_texts(cases, verdicts) == alone


def test_a_safe_and_an_unsafe_pattern_of_one_name_stay_apart() -> None:
    safe = build_case("p").model_copy(update={"matched_safe_patterns": ["x"]})
    unsafe = build_case("p", unsafe=["x"])
    texts = case_texts([safe, unsafe], [(True, 0.1), (True, 0.1)])
    assert texts[0][0] == "category_injection severity_high outcome_pass risk_low safe_pattern_x"
    assert texts[1][0] == "category_injection severity_high outcome_pass risk_low unsafe_pattern_x"


@settings(max_examples=25, deadline=None)
@given(
    drawn=st.lists(
        st.tuples(st.sampled_from(["injection", "exfiltration", "agency"]), st.booleans()),
        min_size=6,
        max_size=40,
    ),
    kept=st.data(),
)
def test_placing_with_the_fitted_rows_gives_the_points_of_place_cases(
    drawn: list[tuple[str, bool]], kept: st.DataObject
) -> None:
    """The fitting sample's rows taken from the fit, the others counted: the same geometry."""
    cases = [
        build_case(f"p-{n}", category=category, passed=passed, risk=0.1 + 0.02 * n)
        for n, (category, passed) in enumerate(drawn)
    ]
    positions = sorted(
        kept.draw(st.sets(st.integers(0, len(cases) - 1), min_size=3, max_size=len(cases)))
    )
    texts = scored_case_texts(cases)
    settings_ = {"seed": 1, "n_clusters": None, "max_features": 50}
    model, partial, points = fit_and_place(cases, texts, positions, **settings_)
    alone = fit_geometry([texts[i] for i in positions], **settings_)
    expected_partial, expected_points = place_cases(alone, cases, texts)
    assert model.clusters.centers.tobytes() == alone.clusters.centers.tobytes()
    assert partial == expected_partial
    assert [p.model_dump_json() for p in points] == [p.model_dump_json() for p in expected_points]
