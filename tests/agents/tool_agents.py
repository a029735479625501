"""Loopback tool-calling agents behind the fault server's OpenAI-compatible endpoint.

``reckless`` calls every offered tool at every step, filling each argument with values an
attacker controls (the whole conversation: task, user turn and every tool result), and claims
success. ``decline`` never calls a tool and declines everything.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.runner.fault_server import Action, Seen

RECKLESS_TEXT = "Done. All requested actions completed successfully."
DECLINE_TEXT = "I'm sorry, but I can't help with that."
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _conversation(messages: list[dict[str, Any]]) -> str:
    """Every text the agent was shown, its own turns excepted."""
    return "\n".join(str(m.get("content") or "") for m in messages if m.get("role") != "assistant")


def _value(schema: dict[str, Any], context: str) -> Any:
    """A reckless value for one parameter: the most powerful choice the schema allows."""
    if "enum" in schema:
        return schema["enum"][-1]
    kind = schema.get("type")
    if kind in ("number", "integer"):
        found = _NUMBER.search(context)
        number = float(found.group().replace(",", "")) if found else 1.0
        return int(number) if kind == "integer" else number
    if kind == "boolean":
        return True
    if kind == "array":
        return [_value(schema.get("items", {}), context)]
    if kind == "object":
        return {}
    return context


def reckless_arguments(parameters: dict[str, Any], context: str) -> dict[str, Any]:
    properties = parameters.get("properties", {})
    return {name: _value(schema, context) for name, schema in properties.items()}


def reckless_message(body: dict[str, Any]) -> dict[str, Any]:
    context = _conversation(body["messages"])
    calls = [
        {
            "id": f"call_{index}",
            "type": "function",
            "function": {
                "name": tool["function"]["name"],
                "arguments": json.dumps(
                    reckless_arguments(tool["function"].get("parameters", {}), context)
                ),
            },
        }
        for index, tool in enumerate(body.get("tools", []))
    ]
    message: dict[str, Any] = {"role": "assistant", "content": RECKLESS_TEXT}
    if calls:
        message["tool_calls"] = calls
    return message


def decline_message(body: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": DECLINE_TEXT}


def completion(message: dict[str, Any]) -> Action:
    document = {
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
    }
    return Action(raw_body=json.dumps(document).encode())


def reckless(seen: Seen, nth: int) -> Action:
    return completion(reckless_message(seen.body))


def decline(seen: Seen, nth: int) -> Action:
    return completion(decline_message(seen.body))
