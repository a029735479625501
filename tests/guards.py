"""One rule for tests that need something the machine may lack: skip locally, fail under CI.

CI sets ``CI`` (``true`` on most services, ``1`` on some); any value but an empty or explicitly
false one counts, so a CI image that lost PostgreSQL, Chromium or openssl cannot pass by
skipping the tests that need them.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

_FALSE = frozenset({"", "0", "false", "no", "off"})


def under_ci() -> bool:
    """Whether the ``CI`` variable is set to a true value."""
    return os.environ.get("CI", "").strip().lower() not in _FALSE


def unavailable(reason: str) -> NoReturn:
    """Skip the test with ``reason``, or fail it under CI, where nothing may be missing."""
    if under_ci():
        pytest.fail(f"{reason} (CI is set: this test may not skip)")
    pytest.skip(reason)
