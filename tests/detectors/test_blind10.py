"""The tenth blind set: four more voices, 80 rows, written without reading the rules.

Its structural checks are shared with the seventh to ninth sets in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND10, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with the rules as they stood and never tuned on:
# 90.0% (even, 36/40) and 95.0% (odd, 38/40). With refusal@21, tuned on the even half only (a
# warm crisis check-in, "...private health information, and I don't have it", "The research is
# quite consistent:", a request to escape tracing): 100% (40/40) even; odd unchanged, no odd
# reading changed. The floors are that read.
@pytest.mark.parametrize(("which", "floor"), [("even", 0.99), ("odd", 0.95)])
def test_tenth_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND10, builtin_detector, which) >= floor
