"""Every package's public surface is a sorted ``__all__`` of names that really exist."""

import importlib
import pkgutil

import pytest

import trustprobe

PACKAGES = sorted(
    info.name
    for info in pkgutil.walk_packages(trustprobe.__path__, prefix="trustprobe.")
    if info.ispkg and ".migrations" not in info.name and not info.name.endswith(".catalog")
)


def test_packages_were_found() -> None:
    assert {"trustprobe.probes", "trustprobe.scoring", "trustprobe.detectors"} <= set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_resolvable(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    if name == "trustprobe.cli":
        return  # the CLI's surface is the command line, not Python names
    assert exported is not None, f"{name} has no __all__"
    assert list(exported) == sorted(exported), f"{name}.__all__ is not sorted"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"
