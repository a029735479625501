"""Target: a generic JSON endpoint described by a body template and a response path."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from trustprobe.probes import Probe
from trustprobe.targets.errors import InvalidTargetResponse
from trustprobe.targets.http_transport import JsonEndpoint, resolve_env_headers
from trustprobe.targets.json_path import PathNotFound, find_path
from trustprobe.targets.messages import probe_request
from trustprobe.targets.models import HttpTargetConfig, TargetReply
from trustprobe.targets.protocol import Pace
from trustprobe.targets.tool_loop import Turn, requested_calls, run_tool_loop

_PLACEHOLDER = re.compile(r"\{(task|input|sample|messages|tools|tool_choice|step)\}")


def fill_template(template: Any, fields: Mapping[str, Any]) -> Any:
    """Copy a JSON template, filling ``{name}`` placeholders from ``fields``.

    A string that is exactly one placeholder becomes the field's JSON value (so
    ``"{messages}"`` becomes a list and ``"{sample}"`` a number); placeholders inside longer
    strings are replaced by text. Other braces are left alone.
    """
    if isinstance(template, dict):
        return {key: fill_template(value, fields) for key, value in template.items()}
    if isinstance(template, list):
        return [fill_template(item, fields) for item in template]
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            return fields[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: str(fields[m.group(1)]), template)
    return template


# What the tool placeholders hold for a probe that offers no tools.
_TOOL_FIELDS: dict[str, Any] = {"tools": [], "tool_choice": None, "step": 1}


def _names_tools(template: Any) -> bool:
    """Whether a body template places ``{tools}`` itself."""
    if isinstance(template, dict):
        return any(_names_tools(value) for value in template.values())
    if isinstance(template, list):
        return any(_names_tools(item) for item in template)
    return isinstance(template, str) and "{tools}" in template


def _tokens(document: Any, path: str | None) -> int | None:
    if path is None:
        return None
    try:
        value = find_path(document, path)
    except PathNotFound:
        return None  # usage is optional evidence: its absence is "not reported", not an error
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class HttpTarget:
    """Fills the body template with the probe and reads the answer at ``response_path``."""

    def __init__(self, config: HttpTargetConfig, *, env: Mapping[str, str]) -> None:
        self.config = config
        secret_headers = resolve_env_headers(config.headers_env, env, field="headers_env")
        self._endpoint = JsonEndpoint(
            config.url,
            method=config.method,
            headers={**config.headers, **secret_headers},
            secrets=list(secret_headers.values()),
            env=env,
            field="url",
            max_bytes=config.max_response_bytes,
        )
        self._places_tools = _names_tools(config.body)

    async def send(self, probe: Probe, *, sample: int, pace: Pace | None = None) -> TargetReply:
        """Post the filled template once per turn of the case's conversation."""

        async def ask(messages: list[dict[str, Any]], step: int) -> Turn:
            request = probe_request(probe, sample=sample, messages=messages, step=step)
            body = fill_template(self.config.body, _TOOL_FIELDS | request)
            if probe.tools and isinstance(body, dict) and not self._places_tools:
                body.update(
                    {name: request[name] for name in ("tools", "tool_choice") if name in request}
                )
            return self._read(await self._endpoint.send_json(body))

        return await run_tool_loop(probe, ask, pace)

    def _read(self, document: Any) -> Turn:
        """The turn in an answer: text at ``response_path``, calls at ``tool_calls_path``."""
        config = self.config
        try:
            raw_calls = find_path(document, config.tool_calls_path)
        except PathNotFound:
            raw_calls = None
        calls = requested_calls(raw_calls, f"tool_calls_path {config.tool_calls_path}")
        try:
            text = find_path(document, config.response_path)
        except PathNotFound as exc:
            if not calls:
                raise InvalidTargetResponse(f"response_path {config.response_path}: {exc}") from exc
            text = None
        if not isinstance(text, str) and (text is not None or not calls):
            raise InvalidTargetResponse(
                f"response_path {config.response_path} holds a {type(text).__name__}, not text"
            )
        return Turn(
            text,
            calls,
            _tokens(document, config.input_tokens_path),
            _tokens(document, config.output_tokens_path),
        )

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._endpoint.aclose()
