"""Target: an OpenAI-compatible ``/chat/completions`` endpoint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.targets.errors import InvalidTargetResponse
from trustprobe.targets.http_transport import JsonEndpoint, resolve_env_headers
from trustprobe.targets.messages import probe_messages
from trustprobe.targets.models import OpenAITargetConfig, TargetReply


def _token_count(usage: Any, name: str) -> int | None:
    if not isinstance(usage, dict):
        return None
    value = usage.get(name)
    # bool is an int subclass; a server sending true/false has not reported a count.
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_chat_completion(document: Any) -> TargetReply:
    """Read the reply text and usage from a chat-completions answer."""
    try:
        message = document["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise InvalidTargetResponse("answer has no choices[0].message") from exc
    if not isinstance(message, dict):
        raise InvalidTargetResponse("choices[0].message is not an object")
    text = message.get("content")
    if text is None:
        # Some servers put a model-level refusal in its own field and leave content null.
        text = message.get("refusal")
    if not isinstance(text, str):
        raise InvalidTargetResponse("choices[0].message has no text content")
    usage = document.get("usage")
    return TargetReply(
        text=text,
        input_tokens=_token_count(usage, "prompt_tokens"),
        output_tokens=_token_count(usage, "completion_tokens"),
    )


class OpenAITarget:
    """Sends each probe as a chat completion: task as system message, input as user message."""

    def __init__(self, config: OpenAITargetConfig, *, env: Mapping[str, str]) -> None:
        self.config = config
        secret_headers = resolve_env_headers(config.headers_env, env, field="headers_env")
        headers = {**config.headers, **secret_headers}
        secrets = list(secret_headers.values())
        if config.api_key_env is not None:
            key = env.get(config.api_key_env)
            if not key:
                raise InputError(
                    f"environment variable {config.api_key_env} is not set", field="api_key_env"
                )
            headers["authorization"] = f"Bearer {key}"
            secrets.append(key)
        self._endpoint = JsonEndpoint(
            config.base_url.rstrip("/") + "/chat/completions",
            headers=headers,
            secrets=secrets,
            env=env,
            field="base_url",
        )

    async def send(self, probe: Probe, *, sample: int) -> TargetReply:
        """Ask the endpoint once."""
        body: dict[str, Any] = {"model": self.config.model, "messages": probe_messages(probe)}
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        document = await self._endpoint.send_json(body)
        return parse_chat_completion(document)

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._endpoint.aclose()
