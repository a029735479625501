"""Target: an OpenAI-compatible ``/chat/completions`` endpoint, tool calls included."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.targets.errors import InvalidTargetResponse
from trustprobe.targets.http_transport import JsonEndpoint, resolve_env_headers
from trustprobe.targets.messages import tool_definitions
from trustprobe.targets.models import OpenAITargetConfig, TargetReply
from trustprobe.targets.protocol import Pace
from trustprobe.targets.tool_loop import (
    Turn,
    requested_calls,
    run_tool_loop,
    wire_tool_choice,
)


def _token_count(usage: Any, name: str) -> int | None:
    if not isinstance(usage, dict):
        return None
    value = usage.get(name)
    # bool is an int subclass; a server sending true/false has not reported a count.
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_chat_turn(document: Any) -> Turn:
    """Read one turn of a chat-completions answer: text, tool calls and usage.

    Calls come in ``tool_calls`` or, from older servers, a single ``function_call``. A turn
    that asks for calls may have no text.
    """
    try:
        message = document["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise InvalidTargetResponse("answer has no choices[0].message") from exc
    if not isinstance(message, dict):
        raise InvalidTargetResponse("choices[0].message is not an object")
    calls = requested_calls(message.get("tool_calls"), "choices[0].message.tool_calls")
    legacy = not calls and message.get("function_call") is not None
    if legacy:
        calls = requested_calls([message["function_call"]], "choices[0].message.function_call")
    text = message.get("content")
    if text is None:
        # Some servers put a model-level refusal in its own field and leave content null.
        text = message.get("refusal")
    if not isinstance(text, str) and (text is not None or not calls):
        raise InvalidTargetResponse("choices[0].message has no text content")
    usage = document.get("usage")
    return Turn(
        text=text,
        calls=calls,
        input_tokens=_token_count(usage, "prompt_tokens"),
        output_tokens=_token_count(usage, "completion_tokens"),
        legacy=legacy,
    )


def parse_chat_completion(document: Any) -> TargetReply:
    """Read the reply text and usage from a chat-completions answer that has text."""
    turn = parse_chat_turn(document)
    if turn.text is None:
        raise InvalidTargetResponse("choices[0].message has no text content")
    return TargetReply(turn.text, turn.input_tokens, turn.output_tokens)


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
            max_bytes=config.max_response_bytes,
        )

    async def send(self, probe: Probe, *, sample: int, pace: Pace | None = None) -> TargetReply:
        """Hold the case's conversation: one request per turn, tools offered when it has any."""
        body: dict[str, Any] = {"model": self.config.model}
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        if probe.uses_tools:
            body["tools"] = tool_definitions(probe)
            choice = wire_tool_choice(probe)
            if choice is not None:
                body["tool_choice"] = choice

        async def ask(messages: list[dict[str, Any]], step: int) -> Turn:
            return parse_chat_turn(await self._endpoint.send_json({**body, "messages": messages}))

        return await run_tool_loop(probe, ask, pace)

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._endpoint.aclose()
