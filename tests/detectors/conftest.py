"""The built-in refusal detector, compiled once (the detector and XSTest: tests/conftest.py)."""

from __future__ import annotations

import pytest

from trustprobe.detectors import RefusalDetector


@pytest.fixture(scope="session")
def refusal_detector() -> RefusalDetector:
    return RefusalDetector.builtin()
