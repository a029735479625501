"""Tool-calling scenarios: scenarios per second end to end, and harness CPU per model turn.

A loopback agent in a *separate process* (so its CPU is not counted) answers every chat
completion after 50 ms: at its first two turns of a conversation it calls every offered tool,
at the third it answers in text (every answer is numbered, so no two texts are the same). So
every case is a 3-step conversation over the catalog's tool-calling scenarios.

* ``trustprobe scan`` (headline): the CLI end to end in a subprocess — load the catalog's
  tool-calling scenarios, run them at concurrency 100, score, write responses.jsonl,
  report.json and report.md. Scenarios per wall second of the whole command (start-up
  included) and of its scan (the rate its own progress log reports); CPU of the CLI process
  per step.
* ``run_cases``: the scan engine alone, in this process, same cases: CPU per step.
* ``aiohttp bare`` (baseline): 100 workers holding the same 3-step conversations through one
  plain ``aiohttp.ClientSession`` (post, decode, append the answer and canned tool messages),
  nothing else. The harness's own CPU per step is ``run_cases`` minus this.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from yarl import URL

from trustprobe.probes import Probe, builtin_probes
from trustprobe.runner import ResponseJournal, RunnerSettings, plan_cases, run_cases
from trustprobe.targets import OpenAITargetConfig, create_target, probe_messages
from trustprobe.targets.messages import tool_definitions

DELAY = 0.05
STEPS = 3
SAMPLES = 12
ROUNDS = 3
CONCURRENCY = 100
ROOT = Path(__file__).resolve().parents[1]


_TOOL_NAME = re.compile(rb'"function": \{"name": "([^"]+)"')


def _answer(body: bytes, serial: int) -> bytes:
    """The agent's turn: calls at turns 1 and 2 (every tool), text at turn 3.

    Read from the raw body without decoding it, so the agent's process stays cheap: the turn
    is one more than the assistant messages so far, the tools are the function names in it.
    """
    step = 1 + body.count(b'"role": "assistant"')
    names = list(dict.fromkeys(name.decode() for name in _TOOL_NAME.findall(body)))
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if step < STEPS and names:
        message["tool_calls"] = [
            {
                "id": f"call_{step}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps({"note": f"n{serial}"})},
            }
            for i, name in enumerate(names)
        ]
    else:
        message["content"] = f"I looked into it and did nothing risky (answer {serial})."
    document = {
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340},
    }
    payload = json.dumps(document).encode()
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(payload)).encode()
        + b"\r\n\r\n"
        + payload
    )


class _ToolAgent(asyncio.Protocol):
    """Minimal HTTP/1.1 keep-alive server: every request is answered after ``DELAY``."""

    served = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        loop = asyncio.get_running_loop()
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].lower() + b"\r\n"
            start = head.find(b"content-length:")
            length = int(head[start + 15 : head.find(b"\r\n", start)]) if start >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            _ToolAgent.served += 1
            loop.call_later(DELAY, self._send, _answer(body, _ToolAgent.served))

    def _send(self, response: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(response)


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_ToolAgent, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.sleep(1800)  # bounded: the benchmark stops it long before


def _scenarios() -> list[Probe]:
    return [p for p in builtin_probes() if p.uses_tools]


_PROGRESS_RATE = re.compile(r"([\d.]+) cases/s")


def _cli(base_url: str, probe_file: Path, out: Path) -> tuple[float, float, float]:
    """Wall and CPU seconds of one ``trustprobe scan`` in a subprocess, and its scan rate."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    finished = subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "trustprobe"),
            "scan",
            "--target", "openai",
            "--base-url", base_url,
            "--model", "bench",
            "--probes", str(probe_file),
            "--samples", str(SAMPLES),
            "--concurrency", str(CONCURRENCY),
            "--retries", "0",
            "--out", str(out),
        ],
        check=True,
        capture_output=True,
        text=True,
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, float(_PROGRESS_RATE.findall(finished.stderr)[-1])


async def _engine(base_url: str, probes: list[Probe]) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``run_cases`` over the scenarios, and the steps taken."""
    target = create_target(OpenAITargetConfig(base_url=base_url, model="bench"), env={})
    settings = RunnerSettings(concurrency=CONCURRENCY, timeout=30, retries=0)
    with (
        tempfile.TemporaryDirectory() as tmp,
        ResponseJournal(Path(tmp) / "responses.jsonl") as journal,
    ):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        outcome = await run_cases(target, plan_cases(probes, SAMPLES), settings, journal)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        steps = sum(
            1 + len({c["step"] for c in json.loads(line).get("tool_calls", [])})
            for line in (Path(tmp) / "responses.jsonl").read_text().splitlines()
        )
    await target.aclose()
    if outcome.responses != len(probes) * SAMPLES:
        raise RuntimeError(f"run_cases: {outcome.errors}")
    return wall, cpu, steps


async def _bare(base_url: str, probes: list[Probe]) -> tuple[float, float, int]:
    """The same conversations through plain aiohttp: post, decode, append, nothing else."""
    url = URL(base_url + "/chat/completions")
    pending = iter([p for p in probes for _ in range(SAMPLES)])
    steps = 0
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout()
    ) as session:

        async def worker() -> None:
            nonlocal steps
            for probe in pending:
                messages: list[dict[str, Any]] = list(probe_messages(probe))
                tools = tool_definitions(probe)
                for _ in range(STEPS):
                    body = {"model": "bench", "messages": messages, "tools": tools}
                    async with session.post(url, json=body) as response:
                        message = json.loads(await response.read())["choices"][0]["message"]
                    steps += 1
                    calls = message.get("tool_calls")
                    if not calls:
                        break
                    messages.append(message)
                    messages.extend(
                        {"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls
                    )

        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return wall, cpu, steps


def main() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_tool_calls", "--serve"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    probes = _scenarios()
    cases = len(probes) * SAMPLES
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base_url = f"http://127.0.0.1:{port}/v1"
        with tempfile.TemporaryDirectory() as tmp:
            probe_file = Path(tmp) / "tool-scenarios.jsonl"
            probe_file.write_text(
                "".join(p.model_dump_json(exclude_defaults=True) + "\n" for p in probes)
            )
            asyncio.run(_engine(base_url, probes[:20]))  # warm-up: connections, caches
            cli, engine, bare = [], [], []
            for n in range(ROUNDS):  # interleaved, so each sees the same neighbours
                cli.append(_cli(base_url, probe_file, Path(tmp) / f"run-{n}"))
                engine.append(asyncio.run(_engine(base_url, probes)))
                bare.append(asyncio.run(_bare(base_url, probes)))
    finally:
        server.terminate()
        server.wait(timeout=10)
    steps = engine[0][2]
    print(
        f"{len(probes)} tool-calling scenarios x {SAMPLES} samples = {cases} cases, "
        f"{steps} steps ({steps / cases:.2f} per case); agent answers after "
        f"{DELAY * 1000:.0f} ms in its own process; concurrency {CONCURRENCY}; "
        f"{os.getloadavg()=}"
    )
    for n in range(ROUNDS):
        print(
            f"round {n + 1}: trustprobe scan {cases / cli[n][0]:7.1f} scenarios/s "
            f"(wall {cli[n][0]:5.2f} s, its scan {cli[n][2]:.1f}/s, "
            f"CPU {1000 * cli[n][1] / steps:.3f} ms/step); "
            f"run_cases {cases / engine[n][0]:7.1f}/s CPU {1000 * engine[n][1] / steps:.3f} "
            f"ms/step; aiohttp bare {cases / bare[n][0]:7.1f}/s CPU "
            f"{1000 * bare[n][1] / bare[n][2]:.3f} ms/step"
        )
    own = statistics.median(
        1000 * (e[1] / e[2] - b[1] / b[2]) for e, b in zip(engine, bare, strict=True)
    )
    print(f"harness CPU per step (median of run_cases - aiohttp bare): {own:+.3f} ms")
    print(
        f"best trustprobe scan: {max(cases / c[0] for c in cli):.1f} scenarios/s end to end, "
        f"{max(c[2] for c in cli):.1f}/s in its scan"
    )


if __name__ == "__main__":
    if "--serve" in sys.argv:
        asyncio.run(_serve())
    else:
        main()
