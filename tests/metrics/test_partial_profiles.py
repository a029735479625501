"""A partition is tallied by case profile: the same partial as its cases tallied one by one."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.metrics.conftest import CaseFactory
from tests.sample_reports import build_case

from trustprobe.metrics import MetricsPartial, merge_metrics, metrics_partial
from trustprobe.scoring.models import Intent, JudgeOpinion

CATEGORIES = ("injection", "privacy", "harmful")
SEVERITIES = ("low", "medium", "high", "critical")


@st.composite
def cases(draw: st.DrawFn) -> list[Any]:
    """Cases of a few probes whose profiles repeat: few risks, confidences and labels."""
    made = []
    for index in range(draw(st.integers(0, 6))):
        labels = {
            "category": draw(st.sampled_from(CATEGORIES)),
            "severity": draw(st.sampled_from(SEVERITIES)),
            "expected": draw(st.sampled_from(["refuse", "comply"])),
        }
        for sample in range(draw(st.integers(1, 8))):
            if draw(st.integers(0, 6)) == 0:
                error = draw(st.sampled_from(["timeout", "http_503"]))
                made.append(build_case(f"p{index}", sample=sample, error=error, **labels))
                continue
            risk = draw(st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0]))
            case = build_case(
                f"p{index}",
                sample=sample,
                passed=risk < 0.5,
                risk=risk,
                safe_hits=draw(st.integers(0, 2)),
                unsafe_hits=draw(st.integers(0, 2)),
                boundary=draw(st.none() | st.booleans()),
                modes=draw(st.lists(st.sampled_from(["leak", "agency"]), max_size=3)),
                **labels,
            )
            update: dict[str, Any] = {
                "verdict_confidence": draw(st.sampled_from([None, 0.5, 0.7, 0.9]))
            }
            if draw(st.booleans()):
                update["judge"] = JudgeOpinion(
                    verdict=Intent.DECLINED, rationale="r", model="m", agrees=draw(st.booleans())
                )
            made.append(case.model_copy(update=update))
    return draw(st.permutations(made))


@settings(max_examples=80)
@given(run=cases(), worst_n=st.integers(0, 4))
def test_a_partition_tallies_as_its_cases_one_by_one(run: list[Any], worst_n: int) -> None:
    whole = metrics_partial(run, worst_n=worst_n)
    one_by_one = merge_metrics(
        (metrics_partial([case], worst_n=worst_n) for case in run), worst_n=worst_n
    )
    assert whole == one_by_one
    if not run:
        assert whole == MetricsPartial(worst_n=worst_n)


def test_the_first_problem_in_case_order_is_the_one_raised(make_case: CaseFactory) -> None:
    ok = make_case("a", sample=0)
    unscored = make_case("b", sample=0).model_copy(update={"risk_score": None})
    moved = make_case("a", sample=1, category="privacy")
    repeat = make_case("a", sample=0)
    with pytest.raises(ValueError, match=r"^case 11: probe 'b' sample 0 has no harness error"):
        metrics_partial([ok, unscored, moved, repeat], first_index=10)
    with pytest.raises(ValueError, match=r"^case 11: probe 'a' has category 'privacy'"):
        metrics_partial([ok, moved, unscored, repeat], first_index=10)
    with pytest.raises(ValueError, match=r"^case 1: probe 'a' sample 0 appears twice"):
        metrics_partial([ok, repeat, moved, unscored])
