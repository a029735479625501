"""A factory for ``CaseScore`` objects, so tests state only the fields they are about."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tests.sample_reports import build_case

from trustprobe.scoring.models import CaseScore

CaseFactory = Callable[..., CaseScore]
"""What the ``make_case`` fixture returns: :func:`build_case`."""


@pytest.fixture(scope="session")
def make_case() -> CaseFactory:
    """The case factory (session-scoped: it is a pure function, safe under Hypothesis)."""
    return build_case
