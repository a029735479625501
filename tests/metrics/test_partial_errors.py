"""A partition's cases are checked as they come: the first problem in case order is raised."""

from __future__ import annotations

import pytest
from tests.metrics.conftest import CaseFactory

from trustprobe.metrics import metrics_partial


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


def test_samples_are_gathered_per_probe_across_groups(make_case: CaseFactory) -> None:
    # Cases of one probe in several groups, interleaved with another probe's: each probe's
    # samples are its own, and a sample repeated in another group is still found.
    cases = [make_case("a", sample=0), make_case("b", sample=5), make_case("a", sample=1)]
    cases.append(make_case("a", sample=2))
    partial = metrics_partial(cases)
    assert partial.samples == {"a": ((0, 3),), "b": ((5, 6),)}
    with pytest.raises(ValueError, match=r"^case 3: probe 'a' sample 1 appears twice"):
        metrics_partial([*cases[:3], make_case("a", sample=1)])
