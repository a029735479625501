"""Arrows point down: each package imports only packages below it (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import trustprobe

ROOT = Path(trustprobe.__file__).parent

LAYERS: tuple[str, ...] = (
    # the pure core, in data-flow order
    "errors",
    "formats",
    "detectors",
    "probes",
    "responses",
    "scoring",
    "metrics",
    "observability",
    "reports",
    "comparison",
    "trust",
    # the edges: I/O, processes, the network, the user
    "importers",
    "targets",
    "judging",
    "runner",
    "store",
    "service",
    "distributed",
    "demo",
    "cli",
)
"""Bottom first. Docs/architecture.md shows the same order, one line a package."""


def _package(path: Path) -> str:
    return path.relative_to(ROOT).parts[0].removesuffix(".py")


def _imported_packages(path: Path) -> set[str]:
    """Every trustprobe package ``path`` imports, at module level, in functions or for typing."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {n.split(".")[1] for n in names if n.startswith("trustprobe.")}
    return found


MODULES = sorted(
    p for p in ROOT.rglob("*.py") if "migrations" not in p.parts and p.name != "__main__.py"
)


def test_every_package_has_a_layer() -> None:
    packages = {_package(p) for p in MODULES} - {"__init__"}
    assert packages <= set(LAYERS), f"place these in LAYERS: {sorted(packages - set(LAYERS))}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path: Path) -> None:
    package = _package(path)
    if package == "__init__":
        return  # trustprobe/__init__.py holds the version only
    rank = LAYERS.index(package)
    upward = sorted(
        target for target in _imported_packages(path) - {package} if LAYERS.index(target) > rank
    )
    assert not upward, f"{package} may not import {upward} (they sit above it)"


def test_only_entry_points_import_the_cli() -> None:
    """``python -m`` modules (``__main__.py``) may start the CLI; no library module may."""
    importers = {
        str(p.relative_to(ROOT))
        for p in MODULES
        if _package(p) != "cli" and "cli" in _imported_packages(p)
    }
    assert not importers
