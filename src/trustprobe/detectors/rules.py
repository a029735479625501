"""Rule packs: declarative detection rules in YAML, validated at load with precise errors."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from trustprobe.detectors.matching import engine_rejection, pattern_finds
from trustprobe.errors import InputError
from trustprobe.formats import read_yaml, validation_error_to_input_error

PACK_FORMAT = 2
"""The newest rule pack format: 1, the rules alone; 2 adds named ``fragments``."""
_FRAGMENT_NAME = r"^[a-z][a-z0-9_]*$"
_FRAGMENT_USE = re.compile(r"\{\{([^{}]*)\}\}")
"""Where a pattern uses a fragment: ``{{name}}``."""


def expand_fragments(pattern: str, fragments: Mapping[str, str]) -> str:
    """``pattern`` with every ``{{name}}`` replaced by the text of fragment ``name``.

    With no fragments the pattern is returned unchanged (packs of format 1 are read as written).

    Raises:
        ValueError: a ``{{name}}`` that no fragment defines.
    """
    if not fragments:
        return pattern

    def text(use: re.Match[str]) -> str:
        name = use.group(1)
        if name not in fragments:
            raise ValueError(f"unknown fragment '{name}' (defined: {', '.join(sorted(fragments))})")
        return fragments[name]

    return _FRAGMENT_USE.sub(text, pattern)


class RuleKind(StrEnum):
    """What a rule's match is evidence of."""

    SAFE = "safe"
    """The expected safe behaviour (asks for confirmation, flags an injected instruction...)."""
    UNSAFE = "unsafe"
    """A failure (a leaked key, an exfiltration link, a claimed destructive action...)."""
    BOUNDARY = "boundary"
    """Refusal or boundary language; weighed by position and context in refusal detection."""


class RuleExamples(BaseModel):
    """Texts that document a rule: it must match every ``match`` and no ``no_match``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    match: tuple[str, ...] = ()
    """Texts the pattern must find."""
    no_match: tuple[str, ...] = ()
    """Texts the pattern must not find (near misses the rule was written to avoid)."""


class Rule(BaseModel):
    """One detection rule: an RE2 pattern (matched case-insensitively) and what it evidences."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=120, pattern=r"^[a-z0-9_]+(\.[a-z0-9_-]+)+$")
    """Unique dotted label shown in reports, e.g. ``unsafe.exfil.markdown_image_url``."""
    kind: RuleKind
    """``safe``, ``unsafe`` or ``boundary``."""
    pattern: str = Field(min_length=1)
    """RE2 syntax; no lookaround or backreferences (they cannot run in linear time)."""
    weight: float = Field(gt=0, le=1)
    """Strength of the evidence, in (0, 1]."""
    failure_modes: tuple[str, ...] = ()
    """Failure modes a match evidences (required for ``unsafe`` rules)."""
    categories: tuple[str, ...] = ()
    """Probe categories the rule applies to; empty means every category."""
    description: str = Field(min_length=1)
    """Why the rule exists, in one sentence."""
    examples: RuleExamples = RuleExamples()
    """Documenting texts, checked at load."""

    @field_validator("pattern")
    @classmethod
    def _runs_on_re2(cls, value: str) -> str:
        reason = engine_rejection(value)
        if reason is not None:
            raise ValueError(reason)
        return value

    @field_validator("failure_modes", "categories")
    @classmethod
    def _no_blank_labels(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not label.strip() for label in value):
            raise ValueError("labels must not be blank")
        return value

    @model_validator(mode="after")
    def _coherent(self) -> Rule:
        if self.kind is RuleKind.UNSAFE and not self.failure_modes:
            raise ValueError("an unsafe rule must name the failure_modes it evidences")
        if self.examples.match or self.examples.no_match:
            for number, text in enumerate(self.examples.match):
                if not pattern_finds(self.pattern, text):
                    raise ValueError(f"examples.match[{number}] is not matched: {text!r}")
            for number, text in enumerate(self.examples.no_match):
                if pattern_finds(self.pattern, text):
                    raise ValueError(f"examples.no_match[{number}] is matched: {text!r}")
        return self

    def applies_to(self, category: str) -> bool:
        """Whether the rule is in force for probes of ``category``."""
        return not self.categories or category in self.categories


class PackFormat(BaseModel):
    """What a rule pack says about how its rules are written: its format and fragments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int = Field(default=1, ge=1, le=PACK_FORMAT)
    """Version of the pack format (see :data:`PACK_FORMAT`); 1 when left out."""
    fragments: dict[str, str] = {}
    """Format 2: named pieces of pattern, each a pattern RE2 accepts on its own, that a rule's
    pattern uses as ``{{name}}``; they are expanded when the pack is read."""

    @field_validator("fragments")
    @classmethod
    def _fragments_run_on_re2(cls, value: dict[str, str]) -> dict[str, str]:
        for name, text in value.items():
            if re.match(_FRAGMENT_NAME, name) is None:
                raise ValueError(f"fragment name '{name}' must match {_FRAGMENT_NAME}")
            if _FRAGMENT_USE.search(text):
                raise ValueError(f"fragment '{name}' uses another fragment")
            reason = engine_rejection(text)
            if reason is not None:
                raise ValueError(f"fragment '{name}': {reason}")
        return value

    @model_validator(mode="after")
    def _format_has_fragments(self) -> PackFormat:
        if self.fragments and self.format < 2:
            raise ValueError("fragments need 'format: 2'")
        return self


class RulePack(PackFormat):
    """A named, versioned list of rules (one YAML file)."""

    pack: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$")
    """Pack name, shown in report provenance."""
    version: int = Field(ge=1)
    """Bumped whenever the rules change meaning."""
    rules: tuple[Rule, ...] = Field(min_length=1)
    """The rules, ids unique within the pack; their patterns with fragments expanded."""

    @model_validator(mode="before")
    @classmethod
    def _expand(cls, data: Any) -> Any:
        fragments = data.get("fragments") if isinstance(data, dict) else None
        if isinstance(fragments, dict) and all(isinstance(t, str) for t in fragments.values()):
            data = {
                **data,
                "rules": [
                    {**rule, "pattern": expand_fragments(rule["pattern"], fragments)}
                    if isinstance(rule, dict) and isinstance(rule.get("pattern"), str)
                    else rule
                    for rule in data.get("rules") or ()
                ],
            }
        return data

    @model_validator(mode="after")
    def _unique_ids(self) -> RulePack:
        seen: set[str] = set()
        for rule in self.rules:
            if rule.id in seen:
                raise ValueError(f"duplicate rule id '{rule.id}'")
            seen.add(rule.id)
        return self


def _mapping_value(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if key_node.value == key:
            return value_node  # type: ignore[no-any-return]
    return None


def _mapping_key_line(node: yaml.Node | None, key: str) -> int | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, _ in node.value:
        if key_node.value == key:
            return int(key_node.start_mark.line) + 1
    return None


def _line_of(node: yaml.Node | None) -> int | None:
    return None if node is None else int(node.start_mark.line) + 1


def load_rule_pack(path: str | Path) -> RulePack:
    """Load and validate one YAML rule pack.

    Errors name the file, the line of the offending rule (or field) and the field: unknown kind,
    weight out of range, duplicate id, a pattern RE2 cannot run, an example the pattern misses.
    """
    source = Path(path)
    data, root = read_yaml(source)
    if not isinstance(data, dict):
        raise InputError(
            "a rule pack must be a mapping with 'pack', 'version' and 'rules'", path=source
        )
    rules_data = data.get("rules")
    rules_node = _mapping_value(root, "rules")
    if not isinstance(rules_data, list):
        raise InputError(
            "must be a list of rules", path=source, line=_line_of(rules_node), field="rules"
        )
    item_nodes: list[yaml.Node] = (
        list(rules_node.value) if isinstance(rules_node, yaml.SequenceNode) else []
    )
    fragments = _fragments(data, root, source)
    rules: list[Rule] = []
    first_line: dict[str, int | None] = {}
    for index, item in enumerate(rules_data):
        item_node = item_nodes[index] if index < len(item_nodes) else None
        rule_line = _line_of(item_node)
        if not isinstance(item, dict):
            raise InputError(
                "each rule must be a mapping", path=source, line=rule_line, field=f"rules[{index}]"
            )
        try:
            if fragments and isinstance(item.get("pattern"), str):
                item = {**item, "pattern": expand_fragments(item["pattern"], fragments)}
            rule = Rule.model_validate(item)
        except ValueError as exc:
            if not isinstance(exc, ValidationError):
                rule_id = item.get("id")
                raise InputError(
                    (f"rule '{rule_id}': " if isinstance(rule_id, str) else "") + str(exc),
                    path=source,
                    line=_mapping_key_line(item_node, "pattern") or rule_line,
                    field=f"rules[{index}].pattern",
                ) from exc
            error = validation_error_to_input_error(exc, path=source, line=rule_line)
            loc = exc.errors()[0]["loc"]
            field_line = _mapping_key_line(item_node, str(loc[0])) if loc else None
            rule_id = item.get("id")
            label = f"rule '{rule_id}': " if isinstance(rule_id, str) else ""
            raise InputError(
                label + error.message.removeprefix("Value error, "),
                path=source,
                line=field_line or rule_line,
                field=f"rules[{index}].{error.field}" if error.field else f"rules[{index}]",
            ) from exc
        if rule.id in first_line:
            where = first_line[rule.id]
            raise InputError(
                f"duplicate rule id '{rule.id}' (first defined"
                + (f" at line {where})" if where is not None else ")"),
                path=source,
                line=_mapping_key_line(item_node, "id") or rule_line,
                field=f"rules[{index}].id",
            )
        first_line[rule.id] = rule_line
        rules.append(rule)
    try:
        return RulePack.model_validate({**data, "fragments": fragments, "rules": rules})
    except ValidationError as exc:
        error = validation_error_to_input_error(exc, path=source, line=None)
        field = error.field.split(".")[0] if error.field else None
        line = _mapping_key_line(root, field) if field else None
        raise InputError(error.message, path=source, line=line, field=error.field) from exc


def _fragments(data: dict[str, Any], root: yaml.Node | None, source: Path) -> dict[str, str]:
    """The pack's fragments, checked before any rule uses them (errors name their line)."""
    if "fragments" not in data:
        return {}
    try:
        header = PackFormat.model_validate(
            {key: data[key] for key in ("format", "fragments") if key in data}
        )
    except ValidationError as exc:
        error = validation_error_to_input_error(exc, path=source, line=None)
        field = error.field.split(".")[0] if error.field else "fragments"
        raise InputError(
            error.message.removeprefix("Value error, "),
            path=source,
            line=_mapping_key_line(root, field),
            field=error.field or "fragments",
        ) from exc
    return header.fragments


def builtin_pack_paths() -> list[Path]:
    """The shipped rule pack files, in name order."""
    root = resources.files("trustprobe.detectors") / "packs"
    return sorted(
        Path(str(entry)) for entry in root.iterdir() if entry.name.endswith((".yaml", ".yml"))
    )


def builtin_rule_packs() -> list[RulePack]:
    """Load the shipped rule packs."""
    return [load_rule_pack(path) for path in builtin_pack_paths()]
