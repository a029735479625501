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
