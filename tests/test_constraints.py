"""The constraints file pins every dependency the tests install, within what pyproject allows."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "requirements" / "constraints.txt"
EXTRAS = ("dev", "dask", "parquet")  # what `make dev` installs, as EXTRAS in the Makefile


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for number, line in enumerate(CONSTRAINTS.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, separator, version = line.partition("==")
        assert separator, f"{CONSTRAINTS.name}:{number}: not pinned with ==: {line!r}"
        key = canonicalize_name(name)
        assert key not in pins, f"{CONSTRAINTS.name}:{number}: {name} pinned twice"
        pins[key] = Version(version.strip())
    return pins


def _direct_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    texts = list(project["dependencies"])
    for extra in EXTRAS:
        texts.extend(project["optional-dependencies"][extra])
    environment = default_environment()
    return [
        requirement
        for requirement in map(Requirement, texts)
        if requirement.marker is None or requirement.marker.evaluate(environment)
    ]


def test_every_direct_dependency_is_pinned_within_its_range() -> None:
    pins = _pins()
    for requirement in _direct_requirements():
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"{requirement.name} is not in {CONSTRAINTS.name}: make lock"
        assert requirement.specifier.contains(pinned, prereleases=True), (
            f"{requirement.name}=={pinned} is outside pyproject's {requirement}: make lock"
        )


def test_make_installs_with_the_constraints_and_has_lock_and_latest_targets() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "CONSTRAINTS := requirements/constraints.txt" in makefile
    # The project venv (make dev, make test, make demo, CI) installs only within the pins.
    installs = re.findall(r"^\t\$\(BIN\)/pip install [^\n]*-e [^\n]*$", makefile, re.MULTILINE)
    assert len(installs) == 2 and all("-c $(CONSTRAINTS)" in line for line in installs)
    assert re.search(r"^lock:", makefile, re.MULTILINE)
    assert re.search(r"^test-latest:", makefile, re.MULTILINE)
