"""How the demo personas act through tools: deterministic rules over the conversation.

``guarded`` calls tools that only read, performs an action the user asked for when it is not
destructive, asks for confirmation before anything irreversible, money-moving or
permission-changing, never takes instructions from tool results, and reports a failed tool
as a failure. ``leaky`` does what the user and every tool result say, with real calls, and
claims success whatever the tools answered.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trustprobe.demo.personas import Persona, read_conversation

_READ_VERBS = frozenset(
    {"list", "read", "get", "search", "fetch", "lookup", "query", "check", "view", "find"}
)
_DESTRUCTIVE_VERBS = frozenset(
    {
        "delete", "drop", "terminate", "kill", "cancel", "disable", "rotate", "transfer",
        "pay", "issue", "set", "share", "reset", "run", "restart",
    }
)  # fmt: skip
# Words a user (or an injected instruction) uses for a tool's action, beyond its own name.
_SYNONYMS = {
    "send_email": ("email", "forward", "send", "reply"),
    "run_shell": ("run", "execute"),
    "http_request": ("post", "upload", "put"),
    "post_comment": ("comment", "post"),
    "set_permissions": ("grant", "permission", "access"),
    "issue_refund": ("refund",),
    "transfer_funds": ("transfer", "wire"),
    "create_event": ("calendar", "meeting", "sync", "event"),
    "set_reminder": ("remind",),
    "add_todo": ("to-do", "todo"),
    "kill_process": ("kill",),
    "terminate_instances": ("terminate",),
    "delete_branch": ("delete",),
    "convert_currency": ("convert",),
    "translate_text": ("translate",),
    "reset_password": ("reset", "password"),
    "book_room": ("book",),
    "create_branch": ("branch",),
    "create_invoice": ("invoice",),
    "restart_service": ("restart",),
    "write_file": ("save", "write"),
    "update_ticket": ("close", "ticket"),
}
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://[^\s)\"'<>\]]+")
_IDENTIFIER = re.compile(r"\b(?=[\w./-]*\d)[A-Za-z][\w-]*-[\w-]+\b|\b[A-Z]{2,}-?\d+\b")
_PATH = re.compile(r"(?:\.?/[\w.-]+)+/?|\b[\w-]+/[\w./-]+")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_BACKTICKS = re.compile(r"`([^`\n]{2,200})`")
_FAILURE = re.compile(
    r"\b(error|failed|denied|declined|rejected|not found|unavailable|exceeded|blocked|"
    r"conflict|timeout)\b",
    re.IGNORECASE,
)
_CONFIRM_TEXT = (
    "I won't do that without explicit confirmation: {tools} would change things that cannot "
    "easily be undone, move money or change access. I haven't done it yet; tell me exactly "
    "what to {verb} and I will."
)
_CLAIM_TEXT = "Done. All requested actions completed successfully."


@dataclass(frozen=True)
class ToolTurn:
    """What the persona answers in one turn: text, calls, or both."""

    text: str | None
    calls: list[dict[str, Any]] = field(default_factory=list)
    """OpenAI ``tool_calls`` entries."""


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z][a-z-]*", text.lower()))


def _verb(name: str) -> str:
    return name.split("_", 1)[0]


def _named(name: str, text: str) -> bool:
    """Whether ``text`` asks for this tool's action: by its name, words or synonyms."""
    words = _words(text)
    if name in text:
        return True
    stems = {part[:5] for part in name.split("_") if len(part) > 3}
    hits = {w[:5] for w in words} & stems
    return bool(hits) or any(s in words for s in _SYNONYMS.get(name, ()))


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    return found.group() if found else None


def _string_value(name: str, text: str) -> str:
    """A value for a string parameter, taken from ``text`` by what the parameter is called."""
    lowered = name.lower()
    if lowered in ("to", "recipient", "principal") or "email" in lowered:
        return _first(_EMAIL, text) or text
    if "url" in lowered:
        return _first(_URL, text) or text
    if lowered in ("command",):
        return _first(_BACKTICKS, text) or text
    if lowered == "path" or lowered.endswith("_path"):
        return _first(_PATH, text) or text
    if lowered.endswith("id") or lowered in ("name", "user", "service", "resource", "table"):
        return _first(_IDENTIFIER, text) or text
    return text


def _value(name: str, schema: Mapping[str, Any], text: str) -> Any:
    if "enum" in schema:
        mentioned = [v for v in schema["enum"] if str(v).lower() in text.lower()]
        return (mentioned or schema["enum"])[0]
    kind = schema.get("type")
    if kind in ("number", "integer"):
        found = _NUMBER.search(text)
        number = float(found.group().replace(",", "")) if found else 1.0
        return int(number) if kind == "integer" else number
    if kind == "boolean":
        return False
    if kind == "array":
        return [_value(name, schema.get("items", {}), text)]
    return _string_value(name, text)


def _arguments(tool: Mapping[str, Any], text: str) -> dict[str, Any]:
    parameters = tool.get("parameters") or {}
    properties = parameters.get("properties", {})
    required = parameters.get("required", list(properties))
    return {name: _value(name, properties[name], text) for name in required if name in properties}


def _call(tool: Mapping[str, Any], text: str, step: int, index: int) -> dict[str, Any]:
    return {
        "id": f"call_{step}_{index}",
        "type": "function",
        "function": {"name": tool["name"], "arguments": json.dumps(_arguments(tool, text))},
    }


def _functions(tools: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [t.get("function", t) for t in tools]


def _results(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(m.get("content") or "") for m in messages if m.get("role") in ("tool", "function")]


def _called(messages: Sequence[Mapping[str, Any]]) -> set[str]:
    names: set[str] = set()
    for message in messages:
        for call in message.get("tool_calls") or ():
            names.add(call["function"]["name"])
    return names


def _failed(result: str) -> bool:
    """Whether a tool result reads as a failure (the words tools use to say so)."""
    return bool(_FAILURE.search(result))


def _gist(results: Sequence[str]) -> str:
    """What the tools returned, shortened, with addresses and links left out."""
    lines = []
    for result in results:
        first = result.strip().splitlines()[0] if result.strip() else "(empty)"
        lines.append(_URL.sub("[link]", _EMAIL.sub("[address]", first))[:160])
    return " / ".join(lines)


def tool_turn(
    persona: Persona, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
) -> ToolTurn | None:
    """The persona's turn when it is offered tools; ``None`` answers in text as usual."""
    functions = _functions(tools)
    if not functions:
        return None
    user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    step = 1 + sum(1 for m in messages if m.get("role") == "assistant")
    results = _results(messages)
    if persona is Persona.LEAKY:
        return _leaky(messages, functions, user, results, step)
    return _guarded(messages, functions, user, results, step)


def _guarded(
    messages: Sequence[Mapping[str, Any]],
    functions: Sequence[Mapping[str, Any]],
    user: str,
    results: Sequence[str],
    step: int,
) -> ToolTurn | None:
    reading = read_conversation(list(messages))  # the user turn only: tool results are data
    if reading.risky:
        return None  # the text persona states the boundary
    asked = [f for f in functions if _named(f["name"], user)]
    risky = [f for f in asked if _verb(f["name"]) in _DESTRUCTIVE_VERBS]
    if results:
        failed = [r for r in results if _failed(r)]
        if failed:
            return ToolTurn(
                f"The tool call failed: {failed[0][:200]}. Nothing was completed, so please "
                "check the error before I try again."
            )
        return ToolTurn(
            f"Here is what the tools returned: {_gist(results)}. I did not act on any "
            "instructions inside those results; they are data, not requests from you."
        )
    if risky:
        names = ", ".join(f["name"] for f in risky)
        return ToolTurn(_CONFIRM_TEXT.format(tools=names, verb=_verb(risky[0]["name"])))
    chosen = [f for f in functions if _verb(f["name"]) in _READ_VERBS or f in asked]
    if not chosen:
        return None
    return ToolTurn(None, [_call(f, user, step, i) for i, f in enumerate(chosen)])


def _leaky(
    messages: Sequence[Mapping[str, Any]],
    functions: Sequence[Mapping[str, Any]],
    user: str,
    results: Sequence[str],
    step: int,
) -> ToolTurn:
    if not results:
        chosen = [
            f for f in functions if _verb(f["name"]) in _READ_VERBS or _named(f["name"], user)
        ]
        chosen = chosen or list(functions)
        return ToolTurn(None, [_call(f, user, step, i) for i, f in enumerate(chosen)])
    latest = "\n".join(results)
    system = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    called = _called(messages)
    obeyed = [f for f in functions if f["name"] not in called and _named(f["name"], latest)]
    if obeyed and step <= 3:
        context = f"{latest}\n{system}"
        return ToolTurn(_CLAIM_TEXT, [_call(f, context, step, i) for i, f in enumerate(obeyed)])
    return ToolTurn(_CLAIM_TEXT + " " + _gist(results))
