"""How a probe becomes what the agent sees: messages, a request document, or plain text.

The task is system context and the input is the user turn. Nothing else about the probe
(id, category, expected behaviour, signals) is sent: an agent under test must not be able
to tell it is being tested, nor key its answers to probe ids.
"""

from __future__ import annotations

from typing import Any

from trustprobe.probes import Probe


def probe_messages(probe: Probe) -> list[dict[str, str]]:
    """Chat messages for a probe: the task as ``system``, the input as ``user``."""
    return [
        {"role": "system", "content": probe.task},
        {"role": "user", "content": probe.input},
    ]


def tool_definitions(probe: Probe) -> list[dict[str, Any]]:
    """The probe's tools in OpenAI's request shape: ``{"type": "function", "function": ...}``."""
    return [{"type": "function", "function": tool.model_dump(mode="json")} for tool in probe.tools]


def probe_request(
    probe: Probe,
    *,
    sample: int,
    messages: list[dict[str, Any]] | None = None,
    step: int = 1,
) -> dict[str, Any]:
    """Build the request document for command and Python targets (JSON on a command's stdin).

    A probe that offers tools adds ``tools`` (OpenAI's request shape), ``tool_choice`` when it
    sets one, and ``step``; ``messages`` is then the conversation so far, tool results included.
    """
    request: dict[str, Any] = {
        "messages": probe_messages(probe) if messages is None else messages,
        "task": probe.task,
        "input": probe.input,
        "sample": sample,
    }
    if probe.tools:
        request["tools"] = tool_definitions(probe)
        request["step"] = step
        if probe.tool_choice is not None:
            request["tool_choice"] = probe.tool_choice
    return request


def probe_text(probe: Probe) -> str:
    """Plain-text form for commands that read text: the task, a blank line, the input."""
    return f"{probe.task}\n\n{probe.input}"
