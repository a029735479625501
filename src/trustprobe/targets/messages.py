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


def probe_request(probe: Probe, *, sample: int) -> dict[str, Any]:
    """Build the request document for command and Python targets (JSON on a command's stdin)."""
    return {
        "messages": probe_messages(probe),
        "task": probe.task,
        "input": probe.input,
        "sample": sample,
    }


def probe_text(probe: Probe) -> str:
    """Plain-text form for commands that read text: the task, a blank line, the input."""
    return f"{probe.task}\n\n{probe.input}"
