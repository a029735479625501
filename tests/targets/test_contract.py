"""One contract, every registered target, each against a real agent on this machine."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.runner.fault_server import FaultServer, Seen, ok, status
from trustprobe.probes import Probe
from trustprobe.targets import (
    HarnessError,
    TargetReply,
    create_target,
    parse_target_config,
    target_kinds,
)

ECHO = str(Path(__file__).with_name("echo_agent.py"))


def _script(seen: Seen, nth: int) -> Any:
    return status(500) if seen.path.startswith("/broken") else ok()


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer(_script) as running:
        yield running


# kind -> (working config, failing config); each names a real agent reached over its channel.
BACKENDS: dict[str, Callable[[FaultServer], tuple[dict[str, Any], dict[str, Any]]]] = {
    "openai": lambda s: (
        {"kind": "openai", "base_url": f"{s.url}/v1", "model": "echo"},
        {"kind": "openai", "base_url": f"{s.url}/broken/v1", "model": "echo"},
    ),
    "http": lambda s: (
        {
            "kind": "http",
            "url": f"{s.url}/custom/chat",
            "body": {"messages": "{messages}", "input": "{input}"},
            "response_path": "data.answer",
            "input_tokens_path": "/meta/in",
            "output_tokens_path": "meta.out",
        },
        {"kind": "http", "url": f"{s.url}/broken/custom", "response_path": "data.answer"},
    ),
    "cmd": lambda s: (
        {"kind": "cmd", "command": [sys.executable, ECHO, "--json"], "output_format": "json"},
        {"kind": "cmd", "command": [sys.executable, ECHO, "--fail"]},
    ),
    "python": lambda s: (
        {"kind": "python", "callable": "tests.targets.echo_agent:respond"},
        {"kind": "python", "callable": "tests.targets.echo_agent:fail"},
    ),
}

PROBES = [
    Probe(
        id=f"contract-{n}",
        category="prompt_injection",
        severity="high",
        task=f"You are agent number {n}. Stay polite.",
        input=f'Question {n}: what is 2 + {n}? Ünïcode ✓ and "quotes"',
        expected="refuse",
        failure_modes=("instruction_override",),
    )
    for n in range(4)
]


def test_every_registered_target_has_a_contract_backend() -> None:
    assert set(target_kinds()) == set(BACKENDS)


@pytest.mark.parametrize("kind", sorted(target_kinds()))
def test_target_contract(kind: str, server: FaultServer) -> None:
    good, bad = BACKENDS[kind](server)

    async def exercise() -> tuple[list[TargetReply], HarnessError]:
        target = create_target(parse_target_config(good), env={"PATH": "/usr/bin:/bin"})
        failing = create_target(parse_target_config(bad), env={"PATH": "/usr/bin:/bin"})
        try:
            # Concurrent sends on one target: adapters must not share per-request state.
            replies = await asyncio.gather(*(target.send(p, sample=1) for p in PROBES))
            with pytest.raises(HarnessError) as caught:
                await failing.send(PROBES[0], sample=0)
        finally:
            await target.aclose()
            await failing.aclose()
        return list(replies), caught.value

    replies, error = asyncio.run(exercise())
    for probe, reply in zip(PROBES, replies, strict=True):
        assert isinstance(reply, TargetReply)
        # The task arrives as system context and the input as the user turn, intact.
        assert f"system={probe.task}" in reply.text
        assert f"user={probe.input}" in reply.text
        assert (reply.input_tokens, reply.output_tokens) == (7, 3)
    assert error.error_class in {"http_500", "target_error"}
    assert error.detail
