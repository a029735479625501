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

_PLACEHOLDER = re.compile(r"\{(task|input|sample|messages)\}")


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
        )

    async def send(self, probe: Probe, *, sample: int) -> TargetReply:
        """Post the filled template once."""
        body = fill_template(self.config.body, probe_request(probe, sample=sample))
        document = await self._endpoint.send_json(body)
        try:
            text = find_path(document, self.config.response_path)
        except PathNotFound as exc:
            raise InvalidTargetResponse(
                f"response_path {self.config.response_path}: {exc}"
            ) from exc
        if not isinstance(text, str):
            raise InvalidTargetResponse(
                f"response_path {self.config.response_path} holds a {type(text).__name__}, not text"
            )
        return TargetReply(
            text=text,
            input_tokens=_tokens(document, self.config.input_tokens_path),
            output_tokens=_tokens(document, self.config.output_tokens_path),
        )

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._endpoint.aclose()
