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


@pytest.mark.parametrize("system", ["darwin", "win32", "freebsd14"])
def test_other_systems_are_left_alone(monkeypatch: pytest.MonkeyPatch, system: str) -> None:
    # Their C libraries have no such thresholds: nothing is loaded or called.
    monkeypatch.setattr(sys, "platform", system)
    assert keep_freed_memory() is False
