"""Hand-computed scenarios for each rule of DESIGN.md's "Trust engine rules"."""

import pytest
from tests.trust.evidence_factory import NOW, at, eval_counts, eval_score, everywhere, jury

from trustprobe.errors import InputError
from trustprobe.trust import (
    DIMENSION_WEIGHTS,
    Dimension,
    Tier,
    TrustConfig,
    TrustScore,
    compute_trust_score,
    tier_for,
)

D = Dimension
REQUIRED = [D.ACCURACY, D.RELIABILITY, D.SAFETY, D.SECURITY]


def test_no_evidence_is_null_and_unrated() -> None:
    score = compute_trust_score("agent-a", [], now=NOW)
    assert score.composite is None
    assert score.tier is Tier.UNRATED
    assert score.interval is None
    assert all(line.score is None for line in score.dimensions.values())
    assert score.reasons == ["no dimension has evidence: composite is null and the agent unrated"]


def test_null_dimensions_are_excluded_and_weights_renormalised() -> None:
    evidence = [eval_score(D.ACCURACY, 90.0), eval_score(D.SAFETY, 60.0)]
    score = compute_trust_score("agent-a", evidence, now=NOW)
    # 10 × (0.11 × 90 + 0.09 × 60) / (0.11 + 0.09) = 10 × 15.3 / 0.2 = 765
    assert score.composite == 765
    accuracy, safety = score.dimensions[D.ACCURACY], score.dimensions[D.SAFETY]
    assert accuracy.effective_weight == pytest.approx(0.55)  # 0.11 / 0.20
    assert safety.effective_weight == pytest.approx(0.45)  # 0.09 / 0.20
    assert accuracy.contribution == pytest.approx(495.0)  # 10 × 0.55 × 90
    assert safety.contribution == pytest.approx(270.0)  # 10 × 0.45 × 60
    teamwork = score.dimensions[D.TEAMWORK]
    assert (teamwork.score, teamwork.effective_weight, teamwork.contribution) == (None, 0.0, None)
    assert teamwork.weight == 0.05


def test_teamwork_is_opt_in_never_zero() -> None:
    base = everywhere(80.0)
    without = [e for e in base if e.dimension is not D.TEAMWORK]
    solo = compute_trust_score("agent-a", without, now=NOW)
    # Without collaboration evidence teamwork is null: the 15 others at 80 give 800, not
    # 10 × 0.95 × 80 = 760 as a fake zero would.
    assert solo.dimensions[D.TEAMWORK].score is None
    assert solo.composite == 800
    zero = compute_trust_score("agent-a", [*without, eval_score(D.TEAMWORK, 0.0)], now=NOW)
    assert zero.composite == 760  # real evidence of zero is a real zero: 10 × 0.95 × 80


def test_decay_per_item_uses_the_injected_clock() -> None:
    evidence = [eval_score(D.ACCURACY, 80.0, age=7.0 + 70.0)]  # ten weeks past the grace period
    score = compute_trust_score("agent-a", evidence, now=NOW)
    line = score.dimensions[D.ACCURACY]
    assert line.raw_score == 80.0
    assert line.score == pytest.approx(79.0)  # 80 − 0.1 × 70 / 7
    assert line.freshest_age_days == pytest.approx(77.0)
    assert score.composite == 790  # one composite point per week: 800 − 10
    later = compute_trust_score("agent-a", evidence, now=at(-70.0))  # 70 days later still
    assert later.dimensions[D.ACCURACY].score == pytest.approx(78.0)  # 80 − 0.1 × 140 / 7


def test_decay_then_size_weighting() -> None:
    evidence = [
        eval_counts(D.SAFETY, 100, 100, age=0.0),  # 100, size 100, fresh
        eval_counts(D.SAFETY, 0, 100, age=7.0 + 7.0),  # 0, size 100, decayed to max(0, −0.1) = 0
    ]
    line = compute_trust_score("agent-a", evidence, now=NOW).dimensions[D.SAFETY]
    assert line.score == pytest.approx(50.0)  # (100 × 100 + 100 × 0) / 200
    assert line.freshest_age_days == 0.0
    assert line.evidence_count == 2


def test_jury_evidence_is_trimmed_and_low_confidence_is_flagged() -> None:
    big = jury(D.SAFETY, [0, 70, 72, 75, 100], id="big")  # → [70, 72, 75] → 72
    small = jury(D.SECURITY, [0, 100, 50], id="small")  # 3 < 5 → median 50, low confidence
    score = compute_trust_score("agent-a", [big, small], now=NOW)
    assert score.dimensions[D.SAFETY].score == 72.0
    assert score.dimensions[D.SAFETY].low_confidence is False
    assert score.dimensions[D.SECURITY].score == 50.0
    assert score.dimensions[D.SECURITY].low_confidence is True


def test_security_gate_caps_composite_and_tier() -> None:
    evidence = [*everywhere(95.0)]
    evidence = [e for e in evidence if e.dimension is not D.SECURITY]
    evidence.append(eval_score(D.SECURITY, 55.0))
    score = compute_trust_score("agent-a", evidence, now=NOW)
    # Uncapped: 10 × (0.93 × 95 + 0.07 × 55) = 10 × (88.35 + 3.85) = 922; 55 < 60 → 599.
    assert score.composite_unrounded == pytest.approx(922.0)
    assert score.composite == 599
    assert score.tier is Tier.BRONZE
    gate = score.security_gate
    assert (gate.applied, gate.capped, gate.security_score, gate.cap) == (True, True, 55.0, 599)
    assert any("composite lowered from 922 to 599" in r for r in score.reasons)
    assert score.interval is not None and score.interval.high <= 599
    assert score.tier_margin.next_tier is None  # silver is out of reach while the gate holds


def test_security_gate_threshold_is_strict() -> None:
    evidence = [e for e in everywhere(95.0) if e.dimension is not D.SECURITY]
    at_threshold = compute_trust_score(
        "agent-a", [*evidence, eval_score(D.SECURITY, 60.0)], now=NOW
    )
    assert at_threshold.security_gate.applied is False  # 60 is not below 60
    # 10 × (0.93 × 95 + 0.07 × 60) = 925.5 → rounds half up to 926 (or 925 if the float sum
    # lands a hair under .5: either way no gate and platinum)
    assert at_threshold.composite in (925, 926)
    assert at_threshold.tier is Tier.PLATINUM


def test_security_gate_that_changes_nothing_is_reported_but_not_a_reason() -> None:
    score = compute_trust_score("agent-a", everywhere(50.0), now=NOW)
    assert score.composite == 500  # already below the 599 cap
    assert score.security_gate.applied is True
    assert score.security_gate.capped is False
    assert score.tier is Tier.BRONZE
    assert score.reasons == []


def test_uncovered_security_does_not_trigger_the_gate() -> None:
    score = compute_trust_score("agent-a", [eval_score(D.ACCURACY, 10.0)], now=NOW)
    assert score.security_gate.applied is False
    assert score.security_gate.security_score is None


def only(dimensions: list[Dimension], score: float) -> list:
    return [eval_score(d, score) for d in dimensions]


def test_tier_above_bronze_needs_required_dimensions_and_eight_covered() -> None:
    eight = [*REQUIRED, D.SELF_AUDIT, D.LATENCY, D.BOND, D.SCOPE_HONESTY]
    full = compute_trust_score("agent-a", only(eight, 95.0), now=NOW)
    assert full.composite == 950
    assert full.tier is Tier.PLATINUM
    assert full.coverage.meets_requirement is True

    seven = compute_trust_score("agent-a", only(eight[:-1], 95.0), now=NOW)
    assert seven.composite == 950
    assert seven.tier is Tier.BRONZE
    assert seven.coverage.meets_requirement is False
    assert seven.reasons == [
        "coverage requirement not met (7 of 16 dimensions covered, 8 needed): tier held at "
        "bronze (the composite alone gives platinum)"
    ]
    assert seven.tier_margin.next_tier is None

    no_security = [d for d in Dimension if d is not D.SECURITY]
    missing = compute_trust_score("agent-a", only(no_security, 80.0), now=NOW)
    assert missing.composite == 800
    assert missing.tier is Tier.BRONZE
    assert missing.coverage.missing_required == [D.SECURITY]
    assert "missing required security" in missing.reasons[0]


def test_coverage_is_not_a_reason_when_the_tier_is_bronze_anyway() -> None:
    score = compute_trust_score("agent-a", [eval_score(D.ACCURACY, 45.0)], now=NOW)
    assert (score.composite, score.tier) == (450, Tier.BRONZE)
    assert score.reasons == []


@pytest.mark.parametrize(
    ("composite", "tier"),
    [
        (1000, Tier.PLATINUM),
        (900, Tier.PLATINUM),
        (899, Tier.GOLD),
        (750, Tier.GOLD),
        (749, Tier.SILVER),
        (600, Tier.SILVER),
        (599, Tier.BRONZE),
        (400, Tier.BRONZE),
        (399, Tier.UNRATED),
        (0, Tier.UNRATED),
        (None, Tier.UNRATED),
    ],
)
def test_tier_thresholds(composite: int | None, tier: Tier) -> None:
    assert tier_for(composite, TrustConfig()) is tier


def test_thresholds_are_configurable() -> None:
    config = TrustConfig(gold_min=700, security_gate_threshold=40.0, min_covered_dimensions=1)
    score = compute_trust_score("agent-a", everywhere(72.0), now=NOW, config=config)
    assert (score.composite, score.tier) == (720, Tier.GOLD)
    with pytest.raises(ValueError, match="tier thresholds"):
        TrustConfig(silver_min=800)


def test_tier_margin() -> None:
    score = compute_trust_score("agent-a", everywhere(80.0), now=NOW)
    assert score.composite == 800
    assert score.tier_margin.points_above_floor == 50  # 800 − 750 (gold)
    assert score.tier_margin.next_tier is Tier.PLATINUM
    assert score.tier_margin.points_to_next == 100  # 900 − 800
    low = compute_trust_score("agent-a", everywhere(30.0), now=NOW)
    assert low.tier is Tier.UNRATED
    assert low.tier_margin.points_above_floor is None
    assert (low.tier_margin.next_tier, low.tier_margin.points_to_next) == (Tier.BRONZE, 100)


def test_interval_for_one_dimension_is_agresti_coull() -> None:
    score = compute_trust_score("agent-a", [eval_counts(D.ACCURACY, 90, 100)], now=NOW)
    # z² = 3.8416; s̃ = (100 × 90 + 50 × 3.8416) / 103.8416 = 88.5202
    # SE = √(88.5202 × 11.4798 / 103.8416) = 3.12826 → composite SE = 10 × 1 × 3.12826 = 31.2826
    # 900 ± 1.96 × 31.2826 = [838.69, 961.31] → [838, 962]
    line = score.dimensions[D.ACCURACY]
    assert line.standard_error == pytest.approx(3.128258, abs=1e-6)
    assert score.interval is not None
    assert score.interval.standard_error == pytest.approx(31.28258, abs=1e-5)
    assert (score.interval.low, score.interval.high) == (838, 962)


def test_interval_combines_dimensions_by_effective_weight() -> None:
    evidence = [eval_counts(D.ACCURACY, 90, 100), eval_counts(D.SAFETY, 12, 20)]
    score = compute_trust_score("agent-a", evidence, now=NOW)
    # safety: s̃ = (20 × 60 + 192.08) / 23.8416 = 58.3887, SE = 10.0949
    # composite SE = 10 × √(0.55² × 3.12826² + 0.45² × 10.0949²) = 48.5762
    # composite 10 × (0.55 × 90 + 0.45 × 60) = 765 → [765 − 95.21, 765 + 95.21] → [669, 861]
    assert score.interval is not None
    assert score.interval.standard_error == pytest.approx(48.57619, abs=1e-4)
    assert (score.interval.low, score.interval.high) == (669, 861)
    assert score.composite is not None
    assert score.interval.low <= score.composite <= score.interval.high


def test_more_evidence_narrows_the_interval() -> None:
    few = compute_trust_score("agent-a", [eval_counts(D.ACCURACY, 9, 10)], now=NOW)
    many = compute_trust_score("agent-a", [eval_counts(D.ACCURACY, 900, 1000)], now=NOW)
    assert few.interval is not None and many.interval is not None
    assert many.interval.standard_error < few.interval.standard_error


def test_other_agents_and_future_evidence_are_left_out() -> None:
    evidence = [
        eval_score(D.ACCURACY, 80.0),
        eval_score(D.ACCURACY, 10.0, agent="agent-b"),
        eval_score(D.SAFETY, 0.0, age=-1.0),  # observed a day after as_of
    ]
    score = compute_trust_score("agent-a", evidence, now=NOW)
    assert score.composite == 800
    assert score.evidence_count == 1
    assert score.ignored_future_count == 1
    assert score.reasons[0] == "1 evidence item(s) observed after as_of were ignored"
    assert score.dimensions[D.SAFETY].score is None


def test_duplicate_ids_count_once_and_conflicts_are_refused() -> None:
    item = eval_score(D.ACCURACY, 80.0, id="same")
    score = compute_trust_score("agent-a", [item, item, item], now=NOW)
    assert score.dimensions[D.ACCURACY].evidence_count == 1
    other = eval_score(D.ACCURACY, 20.0, id="same")
    with pytest.raises(InputError, match="appears twice with different content"):
        compute_trust_score("agent-a", [item, other], now=NOW)


def test_now_must_be_timezone_aware() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        compute_trust_score("agent-a", [], now=NOW.replace(tzinfo=None))


def test_explanation_adds_up() -> None:
    evidence = [eval_score(d, 40.0 + 3.0 * i) for i, d in enumerate(Dimension)]
    score = compute_trust_score("agent-a", evidence, now=NOW)
    contributions = [line.contribution for line in score.dimensions.values()]
    assert score.composite_unrounded == pytest.approx(sum(c for c in contributions if c))
    assert sum(line.effective_weight for line in score.dimensions.values()) == pytest.approx(1.0)
    assert [line.weight for line in score.dimensions.values()] == list(DIMENSION_WEIGHTS.values())


def test_json_has_the_documented_keys() -> None:
    data = compute_trust_score("agent-a", everywhere(70.0), now=NOW).model_dump(mode="json")
    assert {
        "agent_id",
        "composite",
        "tier",
        "dimensions",
        "coverage",
        "security_gate",
        "weights_source",
        "weights",
        "reasons",
        "interval",
        "tier_margin",
        "as_of",
    } <= set(data)
    assert list(data["dimensions"]) == [d.value for d in Dimension]
    assert {
        "score",
        "raw_score",
        "weight",
        "effective_weight",
        "contribution",
        "evidence_count",
        "freshest_age_days",
        "low_confidence",
    } <= set(data["dimensions"]["accuracy"])
    assert data["as_of"] == "2025-06-01T12:00:00Z"
    assert set(data["security_gate"]) >= {"applied", "threshold", "reason"}


def test_json_round_trips_to_an_equal_score() -> None:
    evidence = [*everywhere(66.6), jury(D.SECURITY, [1, 2, 3])]
    score = compute_trust_score("agent-a", evidence, now=NOW)
    assert TrustScore.model_validate_json(score.model_dump_json()) == score
