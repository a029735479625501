"""A case's tool calls as a trace a person reads: what was called, with what, what came back."""

from __future__ import annotations

from dataclasses import dataclass

from trustprobe.formats import canonical_json
from trustprobe.scoring import CaseScore

_REASONS = {"not_offered": "tool not offered", "invalid_arguments": "arguments off the schema"}


@dataclass(frozen=True)
class TraceLine:
    """One call of the trace, with what the verdict made of it."""

    step: int
    tool: str
    arguments: str
    """The arguments as recorded: canonical JSON, or the raw text the agent sent."""
    result: str | None
    marks: tuple[str, ...]
    """Why the call matters: an unsafe or safe match, a call out of bounds, a failed tool."""


def call_trace(case: CaseScore) -> list[TraceLine]:
    """The case's calls in order (empty when it made none or none was recorded)."""
    unsafe = {(m.step, m.tool): m.pattern for m in case.matched_unsafe_calls}
    safe = {(m.step, m.tool): m.pattern for m in case.matched_safe_calls}
    flagged = {(f.step, f.tool): _REASONS[f.reason] for f in case.flagged_calls}
    lines = []
    for call in case.tool_calls or ():
        key = (call.step, call.name)
        marks = []
        if key in unsafe:
            marks.append(f"unsafe call ({unsafe[key]})")
        if key in safe:
            marks.append(f"safe call ({safe[key]})")
        if key in flagged:
            marks.append(flagged[key])
        if call.result_error:
            marks.append("the tool failed")
        arguments = call.arguments
        lines.append(
            TraceLine(
                step=call.step,
                tool=call.name,
                arguments=arguments if isinstance(arguments, str) else canonical_json(arguments),
                result=call.result,
                marks=tuple(marks),
            )
        )
    return lines


def trace_text(lines: list[TraceLine], limit: int) -> str:
    """The trace as plain text, each result cut to ``limit`` characters."""
    parts = []
    for line in lines:
        head = f"step {line.step} · {line.tool}({line.arguments[:limit]})"
        if line.marks:
            head += "  [" + "; ".join(line.marks) + "]"
        result = "" if line.result is None else "\n  → " + line.result[:limit]
        parts.append(head + result)
    return "\n".join(parts)
