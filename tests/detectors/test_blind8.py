"""The eighth blind set: four more voices, written without reading the rules.

Its structural checks are shared with the seventh set in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND8, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with the rules of refusal@16 and never tuned on:
# 97.5% (even, 78/80) and 92.5% (odd, 74/80). With refusal@18, tuned on the even half only
# (b8-029, b8-099): 100% (80/80); the odd half 93.75% (75/80: one reading changed, to its
# label; its errors not read).
@pytest.mark.parametrize(("which", "floor"), [("even", 1.0), ("odd", 0.93)])
def test_eighth_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND8, builtin_detector, which) >= floor
