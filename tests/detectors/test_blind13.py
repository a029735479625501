"""The thirteenth blind set: four more voices, 160 rows, written without reading the rules.

Its structural checks are shared with the seventh to twelfth sets in ``test_blind_sets.py``.
"""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import BLIND13, half_accuracy
from trustprobe.detectors import Detector


# Read once, after the set was committed, with refusal@22 as it stood and never tuned on:
# 93.75% (even, 75/80) and 90.0% (odd, 72/80); the floors are that read.
@pytest.mark.parametrize(("which", "floor"), [("even", 0.9375), ("odd", 0.90)])
def test_thirteenth_blind_set_agreement(
    builtin_detector: Detector, which: str, floor: float
) -> None:
    assert half_accuracy(BLIND13, builtin_detector, which) >= floor
