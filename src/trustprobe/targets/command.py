"""Target: a local command reading the probe on stdin and writing the answer on stdout."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from collections.abc import Mapping
from typing import Any

from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.targets.errors import InvalidTargetResponse, TargetFailed, read_bounded
from trustprobe.targets.messages import probe_request, probe_text
from trustprobe.targets.models import CommandTargetConfig, TargetReply
from trustprobe.targets.protocol import Pace
from trustprobe.targets.tool_loop import Turn, run_tool_loop, turn_from_document

_STDERR_TAIL = 300
_STOP_SECONDS = 5.0
"""How long a killed agent's pipes are read to their ends before they are left behind."""
_STOPPED = "the command was stopped"


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
            stdout, stderr = await self._exchange(process, stdin)
        except BaseException:
            # Timed out, interrupted or past a limit: never leave the agent running behind us.
            await _stop(process)
            raise
        if process.returncode != 0:
            tail = stderr.decode("utf-8", errors="replace").strip()[-_STDERR_TAIL:]
            raise TargetFailed(f"exit status {process.returncode}: {tail or '(no stderr)'}")
        # Bytes that are not UTF-8 stay lone surrogates, which the tool loop replaces and reports.
        text = stdout.decode("utf-8", errors="surrogateescape")
        if self.config.output_format == "text":
            return Turn(text.rstrip("\n"))
        try:
            document = json.loads(text)
        except RecursionError as exc:
            raise InvalidTargetResponse("stdout is JSON nested too deeply to read") from exc
        except ValueError as exc:
            raise InvalidTargetResponse(f"stdout is not JSON: {text[:200]!r}") from exc
        return turn_from_document(document)

    async def _exchange(
        self, process: asyncio.subprocess.Process, stdin: bytes
    ) -> tuple[bytes, bytes]:
        """Write ``stdin``, read stdout and stderr to their ends (each bounded), wait for exit.

        The first of the three to fail stops the other two (the caller then kills the process).
        """
        assert process.stdin and process.stdout and process.stderr
        limit = self.config.max_response_bytes
        writer = asyncio.ensure_future(_write_all(process.stdin, stdin))
        stdout = asyncio.ensure_future(read_bounded(process.stdout, limit, "stdout", _STOPPED))
        stderr = asyncio.ensure_future(read_bounded(process.stderr, limit, "stderr", _STOPPED))
        parts = (writer, stdout, stderr)
        try:
            await asyncio.wait(parts, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for part in parts:
                part.cancel()  # those still running, once one failed (or this one was cancelled)
            await asyncio.gather(*parts, return_exceptions=True)
        for part in parts:
            if not part.cancelled() and part.exception() is not None:
                raise part.exception()  # type: ignore[misc]
        await process.wait()
        return stdout.result(), stderr.result()

    async def aclose(self) -> None:
        """Nothing is kept open between probes."""


async def _write_all(stream: asyncio.StreamWriter, data: bytes) -> None:
    """Write ``data`` and close; an agent that exits without reading it all is its own affair."""
    try:
        stream.write(data)
        await stream.drain()
        stream.close()
    except (BrokenPipeError, ConnectionResetError):
        pass


async def _stop(process: asyncio.subprocess.Process) -> None:
    """Kill the process and wait for it, its pipes read to their ends.

    ``wait()`` returns only once every pipe is closed, and a pipe whose reader stopped
    (its buffer full) is never read to its end: read here, it ends once the process is gone.
    """
    if process.returncode is None:
        process.kill()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(_STOP_SECONDS):  # a child that kept a pipe open: leave it
            for stream in (process.stdout, process.stderr):
                while stream is not None and await stream.read(1 << 16):
                    pass
            await process.wait()
