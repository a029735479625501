"""Every package's public surface is a sorted ``__all__`` of names that really exist."""

import importlib
import pkgutil
from importlib.metadata import entry_points

import pytest

import trustprobe

# The CLI's surface is the command line, not Python names (see the last test).
PACKAGES = sorted(
    info.name
    for info in pkgutil.walk_packages(trustprobe.__path__, prefix="trustprobe.")
    if info.ispkg
    and ".migrations" not in info.name
    and not info.name.endswith(".catalog")
    and info.name != "trustprobe.cli"
)


def test_packages_were_found() -> None:
    assert {"trustprobe.probes", "trustprobe.scoring", "trustprobe.detectors"} <= set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_resolvable(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert list(exported) == sorted(exported), f"{name}.__all__ is not sorted"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"


def test_cli_surface_is_the_console_script() -> None:
    scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
    assert scripts["trustprobe"] == "trustprobe.cli.main:main"
    assert callable(importlib.import_module("trustprobe.cli.main").main)
