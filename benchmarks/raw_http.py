"""HTTP for the service benchmarks: waiting for ``trustprobe serve``, and a bare load client.

The load client is HTTP/1.1 on asyncio streams. A generator that spends more CPU per request
than the server it measures (httpx does, on this kind of machine) would measure itself; this one
only writes prepared bytes and reads the answer.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import httpx

START_SECONDS = 180
"""How long a server may take to answer (the CLI imports every command group first)."""
LOG_LINES = 15
"""Lines of a server's stderr shown when it did not start."""


def wait_until_serving(
    url: str, server: subprocess.Popen[bytes], name: str, log: Path | None = None
) -> None:
    """Poll ``url`` until it answers 2xx; raise if ``server`` exits or takes too long.

    ``log`` is the file the server's stderr goes to: its last lines explain a failed start.
    """
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            httpx.get(url, timeout=1).raise_for_status()
            return
        except (httpx.TransportError, httpx.HTTPStatusError):
            exited = server.poll()
            if time.monotonic() > deadline or exited is not None:
                why = "timed out" if exited is None else f"exited with status {exited}"
                said = "" if log is None else "\n".join(log.read_text().splitlines()[-LOG_LINES:])
                raise RuntimeError(f"{name} did not start ({why})\n{said}".rstrip()) from None
            time.sleep(0.2)


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes
) -> bytes:
    """Send one prepared request on a keep-alive connection; its status line, body read."""
    writer.write(data)
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    await reader.readexactly(length)
    return head.split(b"\r\n", 1)[0]
