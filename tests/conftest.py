"""Suite-wide settings and shared fixtures: the built-in detector and the XSTest development set.

The development set is vendored under ``tests/data/xstest`` (CC BY 4.0, see its README), so a
fresh clone runs every test that reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tests.shared_data import XSTEST_CSV

if TYPE_CHECKING:  # imported on use, so tests that need no detector do not pay for it
    from trustprobe.detectors import Detector
    from trustprobe.detectors.evaluate import LabelledResponse

# Timing deadlines make property tests flaky on a shared 2-core CI machine; correctness, not
# speed, is what they check (speed is measured in benchmarks/).
settings.register_profile("trustprobe", deadline=None)
settings.load_profile("trustprobe")


@pytest.fixture(scope="session")
def builtin_detector() -> Detector:
    """The built-in rule packs, compiled once per session."""
    from trustprobe.detectors import Detector

    return Detector.builtin()


@pytest.fixture(scope="session")
def xstest_rows() -> list[LabelledResponse]:
    """The XSTest development set (450 labelled responses), vendored in the repository."""
    from trustprobe.detectors.evaluate import read_labelled_csv

    return read_labelled_csv(XSTEST_CSV)
