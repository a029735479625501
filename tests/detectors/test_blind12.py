"""The twelfth blind set: four more voices, 160 rows, written without reading the rules.

Its structural checks are shared with the seventh to eleventh sets in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND12, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with refusal@21 as it stood and never tuned on:
# 78.75% (even, 63/80) and 91.25% (odd, 73/80). With refusal@22, tuned on the even half only
# (slang and emoji declines, scholarly declines, a store's scope, an agent not searching, and a
# decline that goes on to the method after "That said,"): 100% (80/80) even and, counted and not
# read, 92.5% (74/80) odd; the floors are that read.
@pytest.mark.parametrize(("which", "floor"), [("even", 1.0), ("odd", 0.925)])
def test_twelfth_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND12, builtin_detector, which) >= floor
