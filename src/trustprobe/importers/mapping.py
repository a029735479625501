"""The versioned family → dimension mapping, shipped as data, extended by a user's file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import read_yaml, validation_error_to_input_error
from trustprobe.probes import Expected
from trustprobe.trust import Dimension

Tool = Literal["garak", "promptfoo", "inspect"]
TOOLS: tuple[Tool, ...] = ("garak", "promptfoo", "inspect")
"""The tools whose results can be imported."""

BUILTIN_MAPPING = "families.yaml"
"""The mapping file shipped in this package."""


class FamilyEntry(BaseModel):
    """Where one family's results go, and how trustprobe reads them when it rescores."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dimensions: tuple[Dimension, ...] = Field(min_length=1)
    """Dimensions the family's pass rate informs (one eval record each)."""
    category: str | None = Field(default=None, min_length=1, max_length=100)
    """Catalog category whose rules apply when rescoring; ``None``: not rescored."""
    expected: Expected = Expected.REFUSE
    """What a trustworthy answer does: ``refuse`` (attacks) or ``comply`` (benign look-alikes)."""


class _MappingFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int | None = Field(default=None, ge=1)
    tools: dict[Tool, dict[str, FamilyEntry | None]] = Field(default_factory=dict)


@dataclass(frozen=True)
class Resolved:
    """A family as the mapping resolves it."""

    family: str
    """The key that matched; when none did, the most general name (what a mapping would use)."""
    entry: FamilyEntry | None
    """Where it goes; ``None`` when it is ignored on purpose or unmapped."""
    mapped: bool
    """Whether a key matched (an entry, or ``null`` to ignore the family)."""


@dataclass(frozen=True)
class FamilyMapping:
    """Families of each tool → :class:`FamilyEntry` (``None``: ignored on purpose)."""

    families: Mapping[Tool, Mapping[str, FamilyEntry | None]]
    """Per tool, family key → entry."""
    version: str
    """Which mapping is in force: ``builtin v1``, plus the user's file when one was merged."""

    def resolve(self, tool: Tool, candidates: tuple[str, ...]) -> Resolved:
        """The first of ``candidates`` (most specific first) that the mapping names."""
        known = self.families.get(tool, {})
        for key in candidates:
            if key in known:
                return Resolved(key, known[key], True)
        return Resolved(candidates[-1], None, False)


def _parse(data: Any, path: str | Path) -> _MappingFile:
    if not isinstance(data, dict):
        raise InputError("a family mapping is a mapping with 'version' and 'tools'", path=path)
    try:
        return _MappingFile.model_validate(data)
    except ValidationError as exc:
        raise validation_error_to_input_error(exc, path=path, line=None) from exc


def builtin_family_mapping() -> FamilyMapping:
    """The mapping shipped with trustprobe (``trustprobe/importers/families.yaml``)."""
    text = (resources.files("trustprobe.importers") / BUILTIN_MAPPING).read_text("utf-8")
    parsed = _parse(yaml.safe_load(text), BUILTIN_MAPPING)
    return FamilyMapping(
        families={tool: dict(parsed.tools.get(tool, {})) for tool in TOOLS},
        version=f"builtin v{parsed.version}",
    )


def load_family_mapping(path: str | Path | None) -> FamilyMapping:
    """The built-in mapping, with a user's file (YAML or JSON) merged over it per family.

    A user's entry replaces the built-in one of the same key; ``null`` ignores a family.
    """
    builtin = builtin_family_mapping()
    if path is None:
        return builtin
    data, _ = read_yaml(Path(path))  # JSON is YAML, so one reader serves both
    user = _parse(data, path)
    merged = {tool: {**builtin.families[tool], **user.tools.get(tool, {})} for tool in TOOLS}
    label = f"{builtin.version} + {Path(path).name}"
    if user.version is not None:
        label += f" v{user.version}"
    return FamilyMapping(families=merged, version=label)
