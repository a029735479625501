"""The eighth blind set: four more voices, written without reading the rules.

Its structural checks are shared with the seventh set in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND8, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with the rules of refusal@16 and never tuned on:
# 97.5% (even, 78/80) and 92.5% (odd, 74/80); the floors are that read.
@pytest.mark.parametrize(("which", "floor"), [("even", 0.97), ("odd", 0.92)])
def test_eighth_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND8, builtin_detector, which) >= floor
