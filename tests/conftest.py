"""Suite-wide settings and shared fixtures: the built-in detector, the XSTest set, the CLI.

The development set is vendored under ``tests/data/xstest`` (CC BY 4.0, see its README), so a
fresh clone runs every test that reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tests.shared_data import XSTEST_CSV

if TYPE_CHECKING:  # imported on use, so tests that need no detector or CLI do not pay for it
    from pathlib import Path

    from tests.cli.in_process import Cli
    from trustprobe.detectors import Detector
    from trustprobe.detectors.evaluate import LabelledResponse

# Timing deadlines make property tests flaky on a shared 2-core CI machine; correctness, not
# speed, is what they check (speed is measured in benchmarks/).
settings.register_profile("trustprobe", deadline=None)
settings.load_profile("trustprobe")


@pytest.fixture(scope="session")
def builtin_detector() -> Detector:
    """The built-in rule packs, compiled once per session (shared with the sample reports)."""
    from tests.sample_reports import builtin_detector

    return builtin_detector()


@pytest.fixture(scope="session")
def xstest_rows() -> list[LabelledResponse]:
    """The XSTest development set (450 labelled responses), vendored in the repository."""
    from trustprobe.detectors.evaluate import read_labelled_csv

    return read_labelled_csv(XSTEST_CSV)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """``cli(*ARGS)`` runs ``trustprobe ARGS`` in this process, in ``tmp_path`` unless told.

    Its result holds ``returncode``, ``stdout`` and ``stderr`` apart, like a finished process.
    """
    from tests.cli.in_process import Cli

    return Cli(cwd=tmp_path)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that needs PostgreSQL or a browser, so ``-m`` can select or leave them.

    Derived from what a test uses (the PostgreSQL backend parameter or schema, the browser
    fixture) rather than written on each test, so a new test cannot forget its marker.
    """
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        params = set(map(str, callspec.params.values())) if callspec is not None else set()
        if "browser" in fixtures:
            item.add_marker(pytest.mark.browser)
        if "postgresql" in params or "migrated_postgresql" in fixtures:
            item.add_marker(pytest.mark.postgres)
