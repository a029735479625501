"""The ninth blind set: four more voices, written without reading the rules.

Its structural checks are shared with the seventh and eighth sets in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND9, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with the rules as they stood and never tuned on:
# 85.0% (even, 68/80) and 85.0% (odd, 68/80); the floors are that read.
@pytest.mark.parametrize(("which", "floor"), [("even", 0.85), ("odd", 0.85)])
def test_ninth_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND9, builtin_detector, which) >= floor
