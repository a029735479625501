"""Run comparison on real reports: flipped probes, exact p-values, thresholds, unpaired probes."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import binom
from tests.comparison.regression_runs import CRITICAL_IDS, regression_base, regression_new
from tests.sample_reports import sample_report

from trustprobe.comparison import (
    DiffThresholds,
    GateKind,
    Verdict,
    compare_reports,
    min_significant_flips,
    render_comparison_html,
)
from trustprobe.errors import InputError
from trustprobe.probes import Probe, Severity
from trustprobe.reports import Report, ReportTarget

COMPLY = "Sure, here is exactly how to do it, step by step."
"""A response with no refusal: it fails every ``refuse`` probe without planted signals."""


@cache
def base() -> Report:
    return sample_report(hostile=False, geometry=False)


@cache
def _flip(probe_ids: frozenset[str]) -> Report:
    def rewrite(probe: Probe, sample: int, text: str) -> str:
        return COMPLY if probe.id in probe_ids else text

    return sample_report(hostile=False, rewrite=rewrite, geometry=False)


@cache
def homonym_probes() -> tuple[str, ...]:
    """The contrast_homonyms probes, all refused (passed) by the recorded model."""
    ids = tuple(c.probe_id for c in base().cases if c.category == "contrast_homonyms")
    assert len(ids) == 25 and all(c.passed for c in base().cases if c.probe_id in ids)
    return ids


def test_identical_runs_are_unchanged() -> None:
    result = compare_reports(base(), base())
    assert result.regression is False
    assert result.overall.verdict is Verdict.UNCHANGED
    assert result.overall.paired.pairs == 450
    assert result.overall.paired.p_value == 1.0  # no discordant pair at all
    assert result.overall.difference == 0.0
    assert result.newly_failing == [] and result.newly_passing == [] and result.unpaired == []
    assert result.warnings == []
    assert len(result.categories) == 18  # XSTest's 18 prompt types


def test_eight_newly_failing_probes_are_a_regression_overall_only() -> None:
    flipped = frozenset(homonym_probes()[:8])
    result = compare_reports(base(), _flip(flipped))
    paired = result.overall.paired
    assert (paired.regressed, paired.fixed) == (8, 0)
    # Exact McNemar: 8 discordant pairs all one way, p = 2 * (1/2)^8 = 0.0078125.
    assert paired.p_value == pytest.approx(0.0078125)
    # Paired change (0 - 8) / 450 = -0.017778.
    assert paired.difference == pytest.approx(-8 / 450)
    assert paired.difference_ci is not None
    assert paired.difference_ci.lower < -8 / 450 < paired.difference_ci.upper < 0
    assert result.overall.verdict is Verdict.REGRESSION
    assert result.regression is True
    assert {c.probe_id for c in result.newly_failing} == flipped
    assert all(
        c.base_passed == c.base_scored == 1 and c.new_passed == 0 for c in result.newly_failing
    )

    homonyms = next(s for s in result.categories if s.scope == "contrast_homonyms")
    # Rates over all cases: 25/25 -> 17/25, a change of -0.32.
    assert (homonyms.base.pass_rate, homonyms.new.pass_rate) == (1.0, 17 / 25)
    assert homonyms.difference == pytest.approx(-0.32)
    # Same raw p as overall, but Holm over 18 categories: 18 * 0.0078125 = 0.140625 >= 0.05.
    assert homonyms.paired.p_value == pytest.approx(0.0078125)
    assert homonyms.p_value_adjusted == pytest.approx(0.140625)
    assert homonyms.verdict is Verdict.UNCHANGED


def test_twelve_newly_failing_probes_are_a_category_regression_too() -> None:
    result = compare_reports(base(), _flip(frozenset(homonym_probes()[:12])))
    homonyms = next(s for s in result.categories if s.scope == "contrast_homonyms")
    # p = 2 * (1/2)^12 = 0.00048828; Holm 18 * p = 0.0087890625 < 0.05.
    assert homonyms.p_value_adjusted == pytest.approx(18 * 2 / 2**12)
    assert homonyms.verdict is Verdict.REGRESSION
    overall_only = compare_reports(
        base(),
        _flip(frozenset(homonym_probes()[:12])),
        thresholds=DiffThresholds(gate_categories=False, min_drop=0.03),
    )
    # Overall drop 12 / 450 = 0.0267 < 0.03, and categories do not gate: no regression.
    assert overall_only.overall.verdict is Verdict.UNCHANGED
    assert "below the minimum" in overall_only.overall.reason
    assert overall_only.regression is False


@pytest.mark.parametrize(
    ("min_drop", "alpha", "regression"),
    [
        pytest.param(0.0, 0.05, True, id="defaults"),
        pytest.param(0.017, 0.05, True, id="drop-8/450=0.0178-meets-0.017"),
        pytest.param(0.02, 0.05, False, id="drop-0.0178-below-0.02"),
        pytest.param(0.0, 0.005, False, id="p-0.0078-above-alpha-0.005"),
    ],
)
def test_thresholds(min_drop: float, alpha: float, regression: bool) -> None:
    thresholds = DiffThresholds(min_drop=min_drop, alpha=alpha)
    result = compare_reports(base(), _flip(frozenset(homonym_probes()[:8])), thresholds=thresholds)
    assert result.regression is regression


def test_improvement_is_not_a_regression() -> None:
    result = compare_reports(_flip(frozenset(homonym_probes()[:8])), base())
    assert result.overall.verdict is Verdict.IMPROVEMENT
    assert result.overall.paired.fixed == 8 and result.regression is False
    assert len(result.newly_passing) == 8


def test_a_probe_fails_when_any_sample_fails() -> None:
    target = homonym_probes()[0]

    def second_sample_complies(probe: Probe, sample: int, text: str) -> str:
        return COMPLY if probe.id == target and sample == 1 else text

    before = sample_report(rows=60, samples=2, hostile=False, geometry=False)
    after = sample_report(
        rows=60, samples=2, hostile=False, rewrite=second_sample_complies, geometry=False
    )
    result = compare_reports(before, after)
    assert [c.probe_id for c in result.newly_failing] == [target]
    change = result.newly_failing[0]
    assert (change.base_passed, change.base_scored, change.new_passed, change.new_scored) == (
        2,
        2,
        1,
        2,
    )
    # Case-level rates still count both samples: one case of 120 flipped.
    assert result.overall.base.scored_cases == result.overall.new.scored_cases == 120


def test_different_probe_sets_warn_and_every_probe_is_accounted_for() -> None:
    smaller = sample_report(
        rows=440, hostile=False, drop=frozenset({"v2-1", "v2-2"}), geometry=False
    )
    result = compare_reports(base(), smaller)
    assert any("different probe sets" in w for w in result.warnings)
    reasons = {u.probe_id: u.reason for u in result.unpaired}
    assert reasons["v2-1"] == reasons["v2-2"] == "unscored_in_new"  # in the set, no response
    assert sum(r == "only_in_base" for r in reasons.values()) == 10  # rows 441-450
    assert result.overall.paired.pairs == 438  # 440 shared - 2 without a response
    assert result.overall.paired.pairs + len(result.unpaired) == 450


def test_different_schema_versions_are_an_error() -> None:
    future = base().model_copy(update={"schema_version": "2.0"})
    with pytest.raises(InputError, match="different schema versions") as caught:
        compare_reports(base(), future)
    assert caught.value.field == "schema_version"


@cache
def _small(flip: frozenset[str], drop: frozenset[str]) -> Report:
    def rewrite(probe: Probe, sample: int, text: str) -> str:
        return COMPLY if probe.id in flip else text

    return sample_report(rows=30, hostile=False, rewrite=rewrite, drop=drop, geometry=False)


small_ids = st.frozensets(st.sampled_from([f"v2-{i}" for i in range(1, 31)]), max_size=8)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flip_a=small_ids, flip_b=small_ids, drop_a=small_ids, drop_b=small_ids)
def test_every_probe_is_paired_or_listed_once(
    flip_a: frozenset[str], flip_b: frozenset[str], drop_a: frozenset[str], drop_b: frozenset[str]
) -> None:
    result = compare_reports(_small(flip_a, drop_a), _small(flip_b, drop_b))
    paired = result.overall.paired
    unpaired = [u.probe_id for u in result.unpaired]
    assert len(unpaired) == len(set(unpaired))
    assert paired.pairs + len(unpaired) == 30
    assert paired.both_passed + paired.regressed + paired.fixed + paired.both_failed == paired.pairs
    assert len(result.newly_failing) == paired.regressed
    assert len(result.newly_passing) == paired.fixed
    assert sum(s.paired.pairs for s in result.categories) == paired.pairs
    gate = result.overall.verdict is Verdict.REGRESSION or any(
        s.verdict is Verdict.REGRESSION for s in result.categories
    )
    assert result.regression is gate


def test_the_significance_test_alone_misses_the_category_collapse() -> None:
    result = compare_reports(regression_base(), regression_new())
    harmful = next(s for s in result.categories if s.scope == "harmful_content")
    # Rates over all cases: 51/66 = 0.773 -> 36/66 = 0.545.
    assert (harmful.base.pass_rate, harmful.new.pass_rate) == (51 / 66, 36 / 66)
    # Two probes flip: p = 2 × ½² = 0.5; Holm over the 2 categories: min(1, 2 × 0.5) = 1.
    assert harmful.paired.p_value == pytest.approx(0.5)
    assert harmful.p_value_adjusted == pytest.approx(1.0)
    assert harmful.verdict is Verdict.UNCHANGED
    assert result.regression is False
    assert [g.gate for g in result.gates] == [GateKind.SIGNIFICANCE]


def test_a_new_critical_failure_fails_the_gate() -> None:
    thresholds = DiffThresholds(fail_on_new_failure=Severity.CRITICAL)
    result = compare_reports(regression_base(), regression_new(), thresholds=thresholds)
    assert result.regression is True
    gate = next(g for g in result.gates if g.gate is GateKind.NEW_FAILURE)
    assert gate.passed is False
    assert gate.probe_ids == list(CRITICAL_IDS)
    assert gate.observed == 2
    assert "hc-00, hc-01" in gate.reason
    # The eight partly failing probes fail more often but never passed every sample before:
    # they are not new failures, whatever the severity.
    low = compare_reports(
        regression_base(),
        regression_new(),
        thresholds=DiffThresholds(fail_on_new_failure=Severity.LOW),
    )
    assert next(g for g in low.gates if g.gate is GateKind.NEW_FAILURE).probe_ids == list(
        CRITICAL_IDS
    )


def test_a_new_failure_below_the_severity_passes_the_gate() -> None:
    flipped = frozenset(homonym_probes()[:1])
    severity = next(c.severity for c in base().cases if c.probe_id in flipped)
    above = Severity(list(Severity)[severity.rank + 1]) if severity.rank < 3 else None
    assert above is not None  # the first homonym probe is critical (index 0) or high
    result = compare_reports(
        base(), _flip(flipped), thresholds=DiffThresholds(fail_on_new_failure=above)
    )
    gate = next(g for g in result.gates if g.gate is GateKind.NEW_FAILURE)
    assert gate.passed is (severity.rank < above.rank)


def test_category_floors_gate_each_named_category() -> None:
    thresholds = DiffThresholds(category_floors={"harmful_content": 0.7, "privacy_pii": 1.0})
    result = compare_reports(regression_base(), regression_new(), thresholds=thresholds)
    floors = {g.subject: g for g in result.gates if g.gate is GateKind.CATEGORY_FLOOR}
    assert floors["harmful_content"].passed is False
    assert floors["harmful_content"].observed == pytest.approx(36 / 66)
    assert "54.5% (36/66)" in floors["harmful_content"].reason
    assert floors["privacy_pii"].passed is True  # 30/30 = 1.0 meets a floor of exactly 1.0
    assert result.regression is True
    met = compare_reports(
        regression_base(),
        regression_new(),
        thresholds=DiffThresholds(category_floors={"harmful_content": 0.5}),
    )
    assert met.regression is False


def test_a_floor_for_a_category_neither_run_has_is_an_error() -> None:
    with pytest.raises(InputError, match="harmful_contnet"):
        compare_reports(
            regression_base(),
            regression_new(),
            thresholds=DiffThresholds(category_floors={"harmful_contnet": 0.7}),
        )


def test_floors_must_be_rates() -> None:
    with pytest.raises(ValueError, match="within 0–1"):
        DiffThresholds(category_floors={"harmful_content": 70})


def test_the_smallest_detectable_change_is_reported_per_scope() -> None:
    result = compare_reports(regression_base(), regression_new())
    overall = result.overall.min_detectable_change
    assert overall is not None
    # 32 paired probes at α = 0.05: 5 one-way flips give p = 2 × ½⁵ = 0.0625, 6 give 0.03125.
    assert (overall.min_flips, overall.alpha) == (6, 0.05)
    assert overall.min_drop == pytest.approx(6 / 32)
    # P(Binomial(32, d) ≥ 6) = 0.8 at the reported d.
    assert overall.drop_at_power is not None
    assert binom.sf(5, 32, overall.drop_at_power) == pytest.approx(0.8)
    harmful = next(s for s in result.categories if s.scope == "harmful_content")
    assert harmful.min_detectable_change is not None
    # Holm over 2 categories: α / 2 = 0.025 needs 7 flips (2 × ½⁷ = 0.0156; 6 give 0.03125).
    assert (harmful.min_detectable_change.alpha, harmful.min_detectable_change.min_flips) == (
        0.025,
        7,
    )


def test_too_few_pairs_can_detect_nothing() -> None:
    assert min_significant_flips(5, 0.05) is None  # 5 flips: p = 0.0625 at best
    assert min_significant_flips(6, 0.05) == 6
    # A minimum drop raises the count: 10% of 200 pairs is 20 flips.
    assert min_significant_flips(200, 0.05, min_drop=0.1) == 20


def test_each_run_is_summarised_with_its_target() -> None:
    old = ReportTarget(kind="openai", model="agent-v1", base_url="https://k:s@api.example/v1")
    new = ReportTarget(kind="openai", model="agent-v2", base_url="https://api.example/v1")
    result = compare_reports(
        regression_base().model_copy(update={"target": old}),
        regression_new().model_copy(update={"target": new}),
    )
    assert result.base.target == old and result.new.target == new
    assert result.base.target is not None
    assert result.base.target.summary == "openai · model agent-v1 · https://api.example/v1"
    page = render_comparison_html(result)
    assert "model agent-v1" in page and "model agent-v2" in page and "k:s@" not in page
