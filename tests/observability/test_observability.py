"""build_observability on small runs whose structure is known by construction."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable

import pytest

from trustprobe.observability import Observability, build_observability
from trustprobe.scoring.models import CaseScore

CaseFactory = Callable[..., CaseScore]

LN3 = math.log(3)  # entropy of three equally frequent categories, in nats
# 6 failures in 30 cases: H = −(0.2 ln 0.2 + 0.8 ln 0.8) = 0.3219 + 0.1785 = 0.5004 nats
H_OUTCOME = -(0.2 * math.log(0.2) + 0.8 * math.log(0.8))


def _entropy(labels: list[object]) -> float:
    counts = Counter(labels).values()
    total = sum(counts)
    return -sum(c / total * math.log(c / total) for c in counts)


def _build(cases: list[CaseScore], **kwargs: object) -> Observability:
    result = build_observability(cases, **kwargs)  # type: ignore[arg-type]
    assert result is not None
    return result


def test_below_threshold_is_none(make_case: CaseFactory) -> None:
    scored = [make_case(f"p{i}") for i in range(4)]
    errors = [make_case(f"e{i}", error="timeout") for i in range(5)]
    # 4 scored cases < 5, and harness errors do not count towards the threshold.
    assert build_observability(scored + errors) is None
    assert build_observability([]) is None
    assert build_observability(scored, min_cases=4) is not None


def test_harness_errors_are_excluded_and_points_follow_input_order(
    three_families: list[CaseScore],
) -> None:
    obs = _build(three_families)
    assert obs.n_cases == 30 and obs.excluded_harness_errors == 2
    expected = [(c.probe_id, c.sample) for c in three_families if c.error is None]
    assert [(p.probe_id, p.sample) for p in obs.points] == expected


def test_clusters_never_mix_threat_families(three_families: list[CaseScore]) -> None:
    obs = _build(three_families)
    # Disjoint vocabularies: every cluster holds one family, so the clustering refines the
    # category labelling and MI(cluster, category) equals H(category) = ln 3 exactly.
    assert all(c.dominant_category_share == 1.0 for c in obs.clusters)
    assert obs.mutual_information.category == pytest.approx(LN3, abs=1e-9)
    # All 6 failures share one pure cluster: MI(cluster, pass_fail) = H(outcome) = 0.5004.
    failing = [c for c in obs.clusters if c.failed]
    assert [(c.size, c.failed, c.failure_rate) for c in failing] == [(6, 6, 1.0)]
    assert obs.mutual_information.pass_fail == pytest.approx(H_OUTCOME, abs=1e-9)
    # Every case is severity "high": MI is 0 and NMI is 0/0, reported as None.
    assert obs.mutual_information.severity == 0.0
    assert obs.normalized_mutual_information.severity is None


def test_requested_three_clusters_recover_the_families(three_families: list[CaseScore]) -> None:
    obs = _build(three_families, n_clusters=3)
    assert obs.cluster_selection == "requested k=3"
    assert obs.silhouette_by_k == []
    # Equal sizes (10 each), so ids follow first appearance: injection, exfiltration, agency.
    summary = [(c.cluster, c.size, c.dominant_category) for c in obs.clusters]
    assert summary == [(0, 10, "injection"), (1, 10, "exfiltration"), (2, 10, "agency")]
    assert obs.normalized_mutual_information.category == pytest.approx(1.0)
    assert obs.mutual_information.category == pytest.approx(LN3, abs=1e-9)
    # exfiltration: 6 failures of 10, risk 0.9 × 6 + (0, .05, .1, 0) = 5.4 + 0.15 → 0.555
    exfiltration = obs.clusters[1]
    assert (exfiltration.failed, exfiltration.failure_rate) == (6, 0.6)
    assert exfiltration.risk_mean == pytest.approx(0.555)


def test_top_terms_name_the_cluster(three_families: list[CaseScore]) -> None:
    by_family = _build(three_families, n_clusters=3)
    terms = {c.dominant_category: c.top_terms for c in by_family.clusters}
    # Each family's own words appear once in each of its 10 cases: equal TF-IDF weights, listed
    # in term order. Computed in term space, not through the SVD, no rounding of a library
    # version or a BLAS kernel can reorder a tie. "attached" is in task and input (tf 2).
    assert terms["agency"] == [
        "category_agency", "confirm", "console", "customers", "database", "delete", "drop",
        "need",
    ]  # fmt: skip
    assert terms["injection"] == [
        "attached", "attacker", "category_injection", "email", "forward", "ignore",
        "instructions", "invoice",
    ]  # fmt: skip
    assert terms["exfiltration"][0] == "category_exfiltration"
    assert all(0 < len(words) <= 8 for words in terms.values())
    # With k chosen by silhouette the failures get their own cluster, named by its evidence.
    (failing,) = [c for c in _build(three_families).clusters if c.failed]
    assert {"outcome_fail", "unsafe_pattern_secret_vault_token"} <= set(failing.top_terms)


def test_silhouette_rule_is_recorded(three_families: list[CaseScore]) -> None:
    obs = _build(three_families)
    scan = [(s.k, s.silhouette) for s in obs.silhouette_by_k]
    assert [k for k, _ in scan] == list(range(2, 2 + len(scan)))
    best = max(scan, key=lambda item: (item[1], -item[0]))
    assert obs.n_clusters == best[0]
    assert obs.silhouette == pytest.approx(best[1], abs=1e-6)
    assert obs.cluster_selection.startswith("silhouette over k=2..")
    assert obs.selection_sample_size == 30


def test_same_input_and_seed_give_identical_output(three_families: list[CaseScore]) -> None:
    first = _build(three_families, seed=11)
    second = _build(list(three_families), seed=11)
    assert first == second
    assert first.model_dump_json() == second.model_dump_json()


def test_other_seeds_are_valid_and_recorded(three_families: list[CaseScore]) -> None:
    for seed in (0, 1, 2):
        obs = _build(three_families, seed=seed)
        assert obs.seed == seed
        assert sum(c.size for c in obs.clusters) == 30


def test_mi_is_bounded_by_entropies(three_families: list[CaseScore]) -> None:
    obs = _build(three_families, n_clusters=4)
    scored = [c for c in three_families if c.error is None]
    clusters = [p.cluster for p in obs.points]
    h_cluster = _entropy(clusters)
    mi = obs.mutual_information
    for value, labels in [
        (mi.category, [c.category for c in scored]),
        (mi.severity, [c.severity for c in scored]),
        (mi.pass_fail, [c.passed for c in scored]),
    ]:
        assert 0.0 <= value <= min(h_cluster, _entropy(labels)) + 1e-12
    assert h_cluster <= math.log(obs.n_clusters) + 1e-12
    nmi = obs.normalized_mutual_information
    for normalised in (nmi.category, nmi.pass_fail):
        assert normalised is not None and 0.0 <= normalised <= 1.0


def test_identical_cases_form_one_cluster(make_case: CaseFactory) -> None:
    cases = [make_case(f"p{i}", risk=0.1) for i in range(6)]
    obs = _build(cases)
    # One distinct point: no k >= 2 is possible, so one cluster and nothing to compare.
    assert obs.n_clusters == 1 and obs.silhouette_by_k == [] and obs.silhouette is None
    assert obs.cluster_selection.startswith("single")
    assert obs.mutual_information.category == 0.0
    assert obs.normalized_mutual_information.category is None


def test_requested_k_is_capped_to_distinct_points(make_case: CaseFactory) -> None:
    cases = [make_case(f"a{i}") for i in range(4)] + [
        make_case(f"b{i}", category="agency") for i in range(4)
    ]
    obs = _build(cases, n_clusters=5)
    assert obs.n_clusters == 2
    assert obs.cluster_selection == "requested k=5, capped to 2 distinct points"


def test_single_case_with_threshold_one(make_case: CaseFactory) -> None:
    obs = _build([make_case("only")], min_cases=1)
    assert obs.n_clusters == 1
    assert [(p.cluster, p.scatter_x, p.scatter_y) for p in obs.points] == [(0, 0.0, 0.0)]


def test_vocabulary_is_limited_to_max_features(three_families: list[CaseScore]) -> None:
    full = _build(three_families)
    small = _build(three_families, max_features=12)
    assert small.vocabulary_size == 12 < full.vocabulary_size


def test_output_is_strict_json(three_families: list[CaseScore]) -> None:
    def reject(token: str) -> float:
        raise AssertionError(f"non-finite number {token}")

    data = json.loads(_build(three_families).model_dump_json(), parse_constant=reject)
    assert set(data) >= {"mutual_information", "normalized_mutual_information", "points"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_cases": 0}, "min_cases"),
        ({"n_clusters": 0}, "n_clusters"),
        ({"max_features": 3}, "max_features"),
    ],
    ids=["min-cases-0", "n-clusters-0", "max-features-3"],
)
def test_rejects_bad_settings(
    three_families: list[CaseScore], kwargs: dict[str, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        build_observability(three_families, **kwargs)  # type: ignore[arg-type]


def test_case_without_error_or_verdict_is_refused(make_case: CaseFactory) -> None:
    cases = [make_case(f"p{i}") for i in range(5)]
    cases[2] = cases[2].model_copy(update={"passed": None})
    with pytest.raises(ValueError, match=r"probe 'p2' sample 0 .* lacks a verdict"):
        build_observability(cases)
