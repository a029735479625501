"""The tool-call loop every target runs: ask, answer each call from the probe's script, repeat.

A target only knows how to ask its agent for one turn (:data:`AskTurn`); this module owns the
conversation. The agent's calls are answered with the probe's scripted ``tool_results`` (calls
out of bounds get an error result, see :func:`trustprobe.probes.tool_outcome`) until the agent
answers without calls or the probe's ``max_steps`` turns are used. Every call is recorded. A
case is one conversation: a retry after a harness error starts it again from the first turn.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from trustprobe.formats import canonical_json, repair_strings, replace_lone_surrogates
from trustprobe.probes import Probe, tool_outcome
from trustprobe.responses import ToolCall
from trustprobe.targets.errors import InvalidTargetResponse
from trustprobe.targets.messages import probe_messages
from trustprobe.targets.models import TargetReply, token_counts


@dataclass(frozen=True, slots=True)
class RequestedCall:
    """One call as the agent asked for it in a turn."""

    name: str
    arguments: dict[str, Any] | str
    """Parsed JSON object, or the raw text when the agent's arguments are not one."""
    id: str | None = None
    """The agent's id for the call, echoed in the ``tool`` message that answers it."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One model turn: its text (possibly none) and the calls it asks for."""

    text: str | None
    calls: tuple[RequestedCall, ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    legacy: bool = False
    """Whether the call came as a legacy ``function_call`` (answered by a ``function`` message)."""


AskTurn = Callable[[list[dict[str, Any]], int], Awaitable[Turn]]
"""Ask the agent once, given the conversation so far and the step number (from 1)."""


def parse_arguments(value: Any) -> dict[str, Any] | str:
    """Call arguments as recorded: a JSON object, else the raw text (never an exception)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return canonical_json(value)  # a list or number sent where an object belongs: keep its text


def requested_calls(raw: Any, where: str) -> tuple[RequestedCall, ...]:
    """Read calls in either documented shape.

    Each is ``{"name", "arguments", "id"?}`` or OpenAI's
    ``{"id", "type": "function", "function": {"name", "arguments"}}``.
    """
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidTargetResponse(f"{where} is not a list")
    calls: list[RequestedCall] = []
    for index, item in enumerate(raw):
        body = item.get("function", item) if isinstance(item, dict) else None
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise InvalidTargetResponse(f"{where}[{index}] has no tool name")
        call_id = item.get("id")
        calls.append(
            RequestedCall(
                name=body["name"],
                arguments=parse_arguments(body.get("arguments", {})),
                id=call_id if isinstance(call_id, str) else None,
            )
        )
    return tuple(calls)


def _sum(total: int | None, part: int | None, first: bool) -> int | None:
    """Token counts add up over turns; one turn that does not report makes the total unknown."""
    if first:
        return part
    return None if total is None or part is None else total + part


def _wire_arguments(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _assistant_message(turn: Turn, ids: list[str]) -> dict[str, Any]:
    """The agent's turn as it goes back into the conversation (OpenAI's message shape)."""
    if turn.legacy:
        call = turn.calls[0]
        return {
            "role": "assistant",
            "content": turn.text,
            "function_call": {"name": call.name, "arguments": _wire_arguments(call.arguments)},
        }
    return {
        "role": "assistant",
        "content": turn.text,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": _wire_arguments(call.arguments)},
            }
            for call_id, call in zip(ids, turn.calls, strict=True)
        ],
    }


async def run_tool_loop(
    probe: Probe, ask: AskTurn, pace: Callable[[], Awaitable[None]] | None = None
) -> TargetReply:
    """Hold the conversation of one case and return its final text and every call made.

    ``pace`` is awaited before every request after the first (the caller paced that one).
    """
    messages: list[dict[str, Any]] = probe_messages(probe)
    recorded: list[ToolCall] = []
    input_tokens: int | None = None
    output_tokens: int | None = None
    text: str | None = None
    repaired = False
    for step in range(1, probe.max_steps + 1):
        if step > 1 and pace is not None:
            await pace()
        turn, changed = _repaired(await ask(messages, step))
        repaired = repaired or changed
        input_tokens = _sum(input_tokens, turn.input_tokens, step == 1)
        output_tokens = _sum(output_tokens, turn.output_tokens, step == 1)
        text = turn.text
        if not turn.calls:
            if text is None:
                raise InvalidTargetResponse("the answer has neither text nor tool calls")
            break
        ids = [call.id or f"call_{step}_{index}" for index, call in enumerate(turn.calls)]
        messages.append(_assistant_message(turn, ids))
        for call_id, call in zip(ids, turn.calls, strict=True):
            outcome = tool_outcome(probe.tools, probe.tool_results, call.name, call.arguments)
            recorded.append(
                ToolCall(
                    step=step,
                    name=call.name,
                    arguments=call.arguments,
                    result=outcome.text,
                    result_error=outcome.error,
                )
            )
            if turn.legacy:
                messages.append({"role": "function", "name": call.name, "content": outcome.text})
            else:
                messages.append({"role": "tool", "tool_call_id": call_id, "content": outcome.text})
    return TargetReply(
        text=text or "",
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        tool_calls=tuple(recorded) if probe.uses_tools or recorded else None,
        repaired=repaired,
    )


def _repaired(turn: Turn) -> tuple[Turn, bool]:
    r"""The turn with lone UTF-16 surrogates replaced with U+FFFD, and whether any were.

    The agent's words enter here from every target: a lone surrogate (a JSON ``"\ud800"``
    escape, or a byte an HTTP answer held that is not UTF-8) could be neither sent back to the
    agent, matched by RE2 nor journalled.
    """
    text, changed = (None, False) if turn.text is None else replace_lone_surrogates(turn.text)
    calls: list[RequestedCall] = []
    for call in turn.calls:
        (name, arguments), call_changed = repair_strings([call.name, call.arguments])
        changed = changed or call_changed
        calls.append(replace(call, name=name, arguments=arguments) if call_changed else call)
    return (replace(turn, text=text, calls=tuple(calls)), True) if changed else (turn, False)


def turn_from_document(document: Any) -> Turn:
    """Read a turn in the documented answer shape of ``http``, ``cmd`` and ``python`` targets.

    ``{"text": ..., "tool_calls": [...], "input_tokens": ..., "output_tokens": ...}``: all
    optional but ``text``, which may be missing or null only when there are calls.
    """
    if not isinstance(document, dict):
        raise InvalidTargetResponse('expected an object with a "text" string')
    calls = requested_calls(document.get("tool_calls"), '"tool_calls"')
    text = document.get("text")
    if not isinstance(text, str) and (text is not None or not calls):
        raise InvalidTargetResponse('expected an object with a "text" string')
    return Turn(text, calls, *token_counts(document))


def wire_tool_choice(probe: Probe) -> str | dict[str, Any] | None:
    """The probe's ``tool_choice`` in OpenAI's request shape (a tool name becomes an object)."""
    choice = probe.tool_choice
    if choice is None or choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}
