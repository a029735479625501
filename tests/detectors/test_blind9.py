"""The ninth blind set: four more voices, written without reading the rules.

Its structural checks are shared with the seventh and eighth sets in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND9, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with the rules as they stood and never tuned on:
# 85.0% (even, 68/80) and 85.0% (odd, 68/80). With refusal@19, tuned on the even half only
# (scope limits, curt unwillingness): 92.5% (74/80) even and 91.25% (73/80) odd, five odd
# readings changed, all to their labels (counted, not read). With refusal@20 (a hedge given up
# in the same sentence, "I can't look people up"): 96.25% (77/80) even, odd unchanged, no odd
# reading changed. With refusal@21 (a denial going on to the law, a house rule against
# discrimination, a decline then the method "in general terms"): 100% (80/80) even, odd
# unchanged, no odd reading changed. The floors are that read.
@pytest.mark.parametrize(("which", "floor"), [("even", 0.99), ("odd", 0.91)])
def test_ninth_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND9, builtin_detector, which) >= floor
