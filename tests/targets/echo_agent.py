"""Echo agents for the target contract test: a command script and Python callables.

Run as a script it reads the request document (JSON) on stdin; ``--fail`` exits non-zero.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any


def _echo(request: dict[str, Any]) -> str:
    messages = request["messages"]
    system = next(m["content"] for m in messages if m["role"] == "system")
    user = next(m["content"] for m in messages if m["role"] == "user")
    return f"system={system} | user={user} | sample={request['sample']}"


def respond(request: dict[str, Any]) -> dict[str, Any]:
    return {"text": _echo(request), "input_tokens": 7, "output_tokens": 3}


async def respond_async(request: dict[str, Any]) -> str:
    await asyncio.sleep(0)
    return _echo(request)


def fail(request: dict[str, Any]) -> str:
    raise RuntimeError("the agent crashed")


def main() -> None:
    if "--fail" in sys.argv:
        print("agent exploded: out of coffee", file=sys.stderr)
        sys.exit(3)
    request = json.load(sys.stdin)
    if "--json" in sys.argv:
        print(json.dumps(respond(request)))
    else:
        print(_echo(request))


if __name__ == "__main__":
    main()
