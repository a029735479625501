"""Dimension sums are exact sums rounded once: order and grouping never change a bit."""

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.trust import ExactSum

finite = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(terms=st.lists(finite | st.sampled_from([0.1, 0.2, 0.3, 1e-300, 5e-324]), max_size=60))
def test_exact_sum_equals_fsum_in_any_order_and_grouping(terms: list[float]) -> None:
    whole = ExactSum()
    for term in terms:
        whole.add(term)
    assert whole.value() == math.fsum(terms)
    shuffled = terms[:]
    random.Random(len(terms)).shuffle(shuffled)
    # Summed in two parts kept as text (as the store keeps running totals), then resumed.
    first = ExactSum()
    for term in shuffled[: len(shuffled) // 2]:
        first.add(term)
    resumed = ExactSum.from_text(first.text())
    for term in shuffled[len(shuffled) // 2 :]:
        resumed.add(term)
    assert resumed.value() == whole.value()
    # Two exact sums added together are the exact sum of all their terms.
    second = ExactSum()
    for term in shuffled[len(shuffled) // 2 :]:
        second.add(term)
    first.add_exact(second)
    assert (first.numerator, first.exponent) == (whole.numerator, whole.exponent)


def test_sequential_float_addition_would_differ() -> None:
    # 0.1 + 0.2 + 0.3 left to right is 0.6000000000000001; the exact sum rounds to 0.6.
    total = ExactSum()
    for term in (0.1, 0.2, 0.3):
        total.add(term)
    assert 0.1 + 0.2 + 0.3 == 0.6000000000000001
    assert total.value() == 0.6 == math.fsum([0.1, 0.2, 0.3])
    assert ExactSum.from_text(total.text()).value() == 0.6
