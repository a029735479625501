"""Score models built without validation (``unvalidated``) are the ones validation builds."""

import math

import pytest
from tests.trust.evidence_factory import NOW
from tests.trust.validated import assert_as_validated

from trustprobe.trust import Dimension, WeightSet, compute_trust_score
from trustprobe.trust.score import ScoreInterval, TierMargin, unvalidated
from trustprobe.trust.tiers import Tier


def test_a_field_left_out_takes_its_default_and_stays_unset() -> None:
    built = unvalidated(ScoreInterval)(low=400, high=460, standard_error=14.5, z=1.96)
    validated = ScoreInterval(low=400, high=460, standard_error=14.5, z=1.96)
    assert built.__getstate__() == validated.__getstate__()
    assert built.model_fields_set == {"low", "high", "standard_error", "z"}
    assert_as_validated(built)


def test_fields_given_out_of_order_are_kept_in_the_models_order() -> None:
    built = unvalidated(TierMargin)(next_tier=Tier.GOLD, points_to_next=3, points_above_floor=97)
    assert list(built.__dict__) == list(TierMargin.model_fields)
    assert built.model_dump_json() == (
        '{"points_above_floor":97,"next_tier":"gold","points_to_next":3}'
    )
    assert_as_validated(built)


def test_an_unknown_or_missing_field_is_refused() -> None:
    build = unvalidated(TierMargin)
    with pytest.raises(TypeError, match="TierMargin has no field 'tier'"):
        build(points_above_floor=1, next_tier=None, points_to_next=None, tier=Tier.GOLD)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="TierMargin needs field 'points_to_next'"):
        build(points_above_floor=1, next_tier=None)  # type: ignore[call-arg]


def test_the_check_finds_a_value_validation_would_convert() -> None:
    built = unvalidated(ScoreInterval)(low=400, high=460, standard_error=14, z=1.96)
    with pytest.raises(AssertionError, match="standard_error"):
        assert_as_validated(built)


def test_weights_are_kept_as_floats_of_dimensions() -> None:
    weights = WeightSet({"security": 1, Dimension.ACCURACY: 0})  # type: ignore[dict-item]
    assert list(weights.weights.items()) == [(Dimension.SECURITY, 1.0), (Dimension.ACCURACY, 0.0)]
    assert all(type(w) is float and type(d) is Dimension for d, w in weights.weights.items())


def test_a_zero_weight_keeps_its_sign_in_a_line_without_evidence() -> None:
    base = dict(WeightSet().weights)
    for zero, text in ((0.0, '"weight":0.0'), (-0.0, '"weight":-0.0')):
        weights = WeightSet({**base, Dimension.BOND: zero})
        score = compute_trust_score("agent-z", [], now=NOW, weights=weights)
        line = score.dimensions[Dimension.BOND]
        assert math.copysign(1.0, line.weight) == math.copysign(1.0, zero)
        assert text in line.model_dump_json()
        assert_as_validated(score)
