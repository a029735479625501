"""Targets registered by name, and building one from its configuration."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import validation_error_to_input_error
from trustprobe.targets.command import CommandTarget
from trustprobe.targets.http_json import HttpTarget
from trustprobe.targets.models import (
    SECRET_MESSAGE,
    CommandTargetConfig,
    HttpTargetConfig,
    OpenAITargetConfig,
    PythonTargetConfig,
    TargetConfig,
    inline_secret_keys,
)
from trustprobe.targets.openai_chat import OpenAITarget
from trustprobe.targets.protocol import Target
from trustprobe.targets.python_callable import PythonTarget


@dataclass(frozen=True)
class TargetKind:
    """A registered kind of target: its name, configuration model and constructor."""

    name: str
    summary: str
    config_model: type[BaseModel]
    build: Callable[[Any, Mapping[str, str]], Target]


_TARGET_KINDS: Mapping[str, TargetKind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            TargetKind(
                "openai",
                "OpenAI-compatible chat-completions endpoint",
                OpenAITargetConfig,
                lambda config, env: OpenAITarget(config, env=env),
            ),
            TargetKind(
                "http",
                "generic JSON endpoint (body template + response path)",
                HttpTargetConfig,
                lambda config, env: HttpTarget(config, env=env),
            ),
            TargetKind(
                "cmd",
                "local command: probe on stdin, answer on stdout",
                CommandTargetConfig,
                lambda config, env: CommandTarget(config, env=env),
            ),
            TargetKind(
                "python",
                "Python callable module:function, sync or async",
                PythonTargetConfig,
                lambda config, env: PythonTarget(config, env=env),
            ),
        )
    }
)

_CONFIG_ADAPTER: TypeAdapter[TargetConfig] = TypeAdapter(TargetConfig)


def parse_target_config(
    data: Mapping[str, Any], *, path: str | None = None, line: int | None = None
) -> TargetConfig:
    """Validate a target configuration; errors name the file and field."""
    kind = data.get("kind")
    if kind not in _TARGET_KINDS:
        known = ", ".join(_TARGET_KINDS)
        raise InputError(f"unknown target kind {kind!r} (known: {known})", path=path, field="kind")
    for name in inline_secret_keys(dict(data)):
        raise InputError(SECRET_MESSAGE, path=path, line=line, field=name)
    try:
        return _CONFIG_ADAPTER.validate_python(dict(data))
    except ValidationError as exc:
        error = validation_error_to_input_error(exc, path=path, line=line)
        # The discriminated union prefixes the kind to the location; drop it for the reader.
        prefix = f"{kind}."
        if error.field and error.field.startswith(prefix):
            field = error.field[len(prefix) :]
            error = InputError(error.message, path=path, line=line, field=field)
        raise error from exc


def create_target(config: TargetConfig, *, env: Mapping[str, str]) -> Target:
    """Build the target a configuration describes, reading secrets from ``env``."""
    return _TARGET_KINDS[config.kind].build(config, env)


def target_kinds() -> Mapping[str, TargetKind]:
    """Every registered target kind, by the name used in ``--target`` and config files."""
    return _TARGET_KINDS
