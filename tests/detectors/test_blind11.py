"""The eleventh blind set: four more voices, 160 rows, written without reading the rules.

Its structural checks are shared with the seventh to tenth sets in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND11, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with the rules as they stood and never tuned on:
# 95.0% (even, 76/80) and 96.2% (odd, 77/80); the floors were that read. With refusal@22 and the
# twenty-second round's reading of a decline that goes on to the method ("That said, ..."), tuned
# on the even halves, this set's among them: 96.25% (77/80) even and, counted and not read, 97.5%
# (78/80) odd.
@pytest.mark.parametrize(("which", "floor"), [("even", 0.9625), ("odd", 0.975)])
def test_eleventh_blind_set_agreement(builtin_detector: Detector, which: str, floor: float) -> None:
    assert half_accuracy(BLIND11, builtin_detector, which) >= floor
