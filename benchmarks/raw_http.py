"""The load generators' HTTP client: bare HTTP/1.1 on asyncio streams, cheaper than the server.

A generator that spends more CPU per request than the server it measures (httpx does, on this
kind of machine) would measure itself; this one only writes prepared bytes and reads the answer.
"""

from __future__ import annotations

import asyncio


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
