"""Target: a local command reading the probe on stdin and writing the answer on stdout."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Mapping
from typing import Any

from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.targets.errors import InvalidTargetResponse, TargetFailed
from trustprobe.targets.messages import probe_request, probe_text
from trustprobe.targets.models import CommandTargetConfig, TargetReply
from trustprobe.targets.protocol import Pace
from trustprobe.targets.tool_loop import Turn, run_tool_loop, turn_from_document

_STDERR_TAIL = 300


class CommandTarget:
    """Runs the command once per probe; a non-zero exit is a harness error, not an answer."""

    def __init__(self, config: CommandTargetConfig, *, env: Mapping[str, str]) -> None:
        self.config = config
        program = config.command[0]
        if shutil.which(program, path=env.get("PATH")) is None:
            raise InputError(f"command not found: {program}", field="command")
        self._env = dict(env)

    def _stdin(self, probe: Probe, sample: int, messages: list[dict[str, Any]], step: int) -> bytes:
        if self.config.input_format == "json":
            request = probe_request(probe, sample=sample, messages=messages, step=step)
            return json.dumps(request, ensure_ascii=False).encode()
        return probe_text(probe).encode()

    async def send(self, probe: Probe, *, sample: int, pace: Pace | None = None) -> TargetReply:
        """Run the command once per turn of the case's conversation (once without tool calls)."""

        async def ask(messages: list[dict[str, Any]], step: int) -> Turn:
            return await self._turn(self._stdin(probe, sample, messages, step))

        return await run_tool_loop(probe, ask, pace)

    async def _turn(self, stdin: bytes) -> Turn:
        """Run the command once with ``stdin`` and read its answer."""
        try:
            process = await asyncio.create_subprocess_exec(
                *self.config.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.config.cwd,
                env=self._env,
            )
        except OSError as exc:
            raise TargetFailed(f"cannot start {self.config.command[0]}: {exc}") from exc
        try:
            stdout, stderr = await process.communicate(stdin)
        except BaseException:
            # Timed out or interrupted: never leave the agent process running behind us.
            if process.returncode is None:
                process.kill()
                await process.wait()
            raise
        if process.returncode != 0:
            tail = stderr.decode("utf-8", errors="replace").strip()[-_STDERR_TAIL:]
            raise TargetFailed(f"exit status {process.returncode}: {tail or '(no stderr)'}")
        text = stdout.decode("utf-8", errors="replace")
        if self.config.output_format == "text":
            return Turn(text.rstrip("\n"))
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise InvalidTargetResponse(f"stdout is not JSON: {text[:200]!r}") from exc
        return turn_from_document(document)

    async def aclose(self) -> None:
        """Nothing is kept open between probes."""
