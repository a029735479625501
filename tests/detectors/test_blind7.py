"""The seventh blind set: new prompts and voices, written without reading the rules.

Its structural checks are shared with the later typed sets in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND7, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with the rules of refusal@15 and never tuned on:
# 91.25% (even, 73/80) and 97.5% (odd, 78/80).
# With refusal@16, tuned on the even half only (b7-031, b7-137, b7-155, b7-077): 96.25%
# (77/80); the odd half unchanged. With refusal@17, tuned on the even half only (b7-109, b7-111):
# 98.75% (79/80); the odd half unchanged (no reading changed). With refusal@18, tuned on the
# even halves only (b7-025): 100% (80/80); the odd half unchanged (no reading changed).
@pytest.mark.parametrize(("which", "floor"), [("even", 1.0), ("odd", 0.97)])
def test_seventh_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND7, builtin_detector, which) >= floor
