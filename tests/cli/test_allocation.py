"""The C allocator's thresholds for a scoring command's process."""

from __future__ import annotations

import platform
import sys

import pytest

from trustprobe.cli.allocation import keep_freed_memory


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="the thresholds are glibc's",
)
def test_glibc_takes_the_thresholds() -> None:
    assert keep_freed_memory() is True


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="elsewhere than Linux")
def test_other_systems_are_left_alone() -> None:
    assert keep_freed_memory() is False
