"""The scan configuration: flags or a committed TOML/YAML file, never secrets."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import STDIO, validation_error_to_input_error
from trustprobe.probes import BUILTIN
from trustprobe.reports import DEFAULT_MAX_HARNESS_ERROR_SHARE
from trustprobe.runner.settings import RunnerSettings
from trustprobe.targets import TargetConfig, parse_target_config


class ScanConfig(BaseModel):
    """Everything that defines a scan; stored in ``run.json`` so a run can be resumed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: TargetConfig
    """The agent under test."""
    runner: RunnerSettings = RunnerSettings()
    """Concurrency, pacing, timeout and retries."""
    probes: tuple[str, ...] = Field(default=(BUILTIN,), min_length=1)
    """Probe files, or ``builtin`` for the built-in catalog."""
    categories: tuple[str, ...] = ()
    """Only probes of these categories; empty means all."""
    samples: int = Field(default=1, ge=1, le=1000)
    """Times each probe is sent."""
    fail_under: float | None = Field(default=None, ge=0, le=1)
    """Exit 1 when the pass rate is below this (a CI gate)."""
    max_harness_error_share: float = Field(default=DEFAULT_MAX_HARNESS_ERROR_SHARE, ge=0, le=1)
    """Exit 3 when harness errors exceed this share of the cases (or no case reached the agent)."""


def merge_config(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Lay ``overrides`` (from flags) over ``base`` (from a file), table by table.

    A target of another kind replaces the file's target whole: options of one kind mean
    nothing to another. A file's target that names no kind is merged with the flags' (its
    options, ``max_response_bytes`` say, are for whatever kind the flags name).
    """
    merged = dict(base)
    for key, value in overrides.items():
        current = merged.get(key)
        if isinstance(value, Mapping) and isinstance(current, Mapping):
            if key == "target" and len({value.get("kind"), current.get("kind")} - {None}) > 1:
                merged[key] = dict(value)
            else:
                merged[key] = merge_config(current, value)
        else:
            merged[key] = value
    return merged


def _toml_line(text: str, field: str | None) -> int | None:
    """Find the line of a dotted field in TOML text (tomllib keeps no positions)."""
    if not field:
        return None
    *tables, key = field.split(".")
    table = ".".join(tables)
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"\s*\[([^\[\]]+)\]\s*(#.*)?$", line)
        if header:
            current = header.group(1).strip()
            if current == field:
                return number
            continue
        if current == table and re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number
    return None


def _yaml_line(node: yaml.Node | None, field: str | None) -> int | None:
    """Find the line of a dotted field in a composed YAML document."""
    if node is None or not field:
        return None
    for part in field.split("."):
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == part), None)
            if match is None:
                return node.start_mark.line + 1
            node = match
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
        else:
            break
    return node.start_mark.line + 1


class ConfigFile:
    """A parsed config file that can place a field error on its line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read config file: {exc}", path=path) from exc
        self._yaml_root: yaml.Node | None = None
        self.is_toml = path.suffix.lower() == ".toml"
        if self.is_toml:
            try:
                data: Any = tomllib.loads(self.text)
            except tomllib.TOMLDecodeError as exc:
                raise InputError(f"not valid TOML: {exc}", path=path) from exc
        elif path.suffix.lower() in {".yaml", ".yml"}:
            try:
                self._yaml_root = yaml.compose(self.text, Loader=yaml.SafeLoader)
                data = yaml.safe_load(self.text)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                raise InputError(
                    f"not valid YAML: {getattr(exc, 'problem', exc)}",
                    path=path,
                    line=mark.line + 1 if mark is not None else None,
                ) from exc
        else:
            raise InputError("config file must end in .toml, .yaml or .yml", path=path)
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InputError("config file must hold a table of settings", path=path)
        self.data: dict[str, Any] = data

    def line_of(self, field: str | None) -> int | None:
        """Line where ``field`` (dotted) is set, when it can be found."""
        if self.is_toml:
            return _toml_line(self.text, field)
        return _yaml_line(self._yaml_root, field)

    def resolved_data(self) -> dict[str, Any]:
        """Return the settings, with relative probe paths made relative to the file's folder."""
        data = dict(self.data)
        probes = data.get("probes")
        if isinstance(probes, str):
            probes = [probes]
        if isinstance(probes, list):
            data["probes"] = [
                p
                if not isinstance(p, str) or p in (BUILTIN, STDIO) or Path(p).is_absolute()
                else str(self.path.parent / p)
                for p in probes
            ]
        return data


def build_scan_config(
    overrides: Mapping[str, Any], *, config_file: str | Path | None = None
) -> ScanConfig:
    """Validate the scan configuration from a file (optional) with flag ``overrides`` on top."""
    source = ConfigFile(Path(config_file)) if config_file is not None else None
    data = merge_config(source.resolved_data() if source else {}, overrides)
    if "target" not in data:
        raise InputError(
            "no target: give --target (and its options) or a config file with a [target] table",
            path=source.path if source else None,
            field="target",
        )
    if not isinstance(data["target"], Mapping):
        raise InputError("target must be a table of settings", path=source.path if source else None)
    try:
        # Validated on its own first so an unknown kind gets a plain message, not a union error.
        data["target"] = parse_target_config(data["target"])
    except InputError as exc:
        field = f"target.{exc.field}" if exc.field else "target"
        raise InputError(
            exc.message,
            path=source.path if source else None,
            line=source.line_of(field) if source else None,
            field=field,
        ) from exc
    try:
        return ScanConfig.model_validate(data)
    except ValidationError as exc:
        error = validation_error_to_input_error(exc, path=None, line=None)
        raise InputError(
            error.message,
            path=source.path if source else None,
            line=source.line_of(error.field) if source else None,
            field=error.field,
        ) from exc
