"""Shared fixtures: the built-in detector (compiled once) and the XSTest development set.

The development set lives outside the repository (``../shared/data``). Without it the tests that
need it skip with a reason; under ``CI=true`` they fail instead, so CI cannot pass by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trustprobe.detectors import Detector
from trustprobe.detectors.evaluate import LabelledResponse, read_labelled_csv

XSTEST_CSV = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared"
    / "data"
    / "xstest-dev"
    / "xstest_v2_completions_llama2new.csv"
)


@pytest.fixture(scope="session")
def builtin_detector() -> Detector:
    return Detector.builtin()


@pytest.fixture(scope="session")
def xstest_rows() -> list[LabelledResponse]:
    if not XSTEST_CSV.is_file():
        reason = f"XSTest development set not found at {XSTEST_CSV}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: this test may not skip)")
        pytest.skip(reason)
    return read_labelled_csv(XSTEST_CSV)
