"""A raw asyncio HTTP/1.1 server on loopback whose answer to each request follows a script.

Raw sockets rather than a framework, so it can misbehave in ways a framework will not:
answer with broken JSON, stall past the client's timeout, or drop the connection halfway
through a response body. It records every request (arrival time, headers, body) so tests can
count retries and check pacing server-side.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Action:
    """What the server does with one request."""

    status: int = 200
    text: str | None = None  # None: echo the request's system and user messages
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    raw_body: bytes | None = None  # sent as-is instead of a chat completion
    drop: bool = False  # send headers and half a body, then close the connection
    usage: bool = True
    content_type: str = "application/json"
    drip: float | None = None  # seconds between the bytes of a body that never ends
    endless: bool = False  # a chunked body of zeros as fast as the client reads, never ending


def ok(text: str | None = None, *, delay: float = 0.0) -> Action:
    return Action(text=text, delay=delay)


def status(code: int, *, retry_after: str | None = None) -> Action:
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    body = json.dumps({"error": {"message": f"scripted {code}"}}).encode()
    return Action(status=code, headers=headers, raw_body=body)


def slow(seconds: float) -> Action:
    return Action(delay=seconds)


def malformed() -> Action:
    return Action(raw_body=b'{"choices": [{"message": {"content": "unterminated')


def drop() -> Action:
    return Action(drop=True)


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    at: float
    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def user(self) -> str:
        """The last user message (probe input), the key scripts use to tell cases apart."""
        if isinstance(self.body, dict):
            for message in reversed(self.body.get("messages", [])):
                if message.get("role") == "user":
                    return str(message.get("content"))
            if "input" in self.body:
                return str(self.body["input"])
        return ""

    @property
    def system(self) -> str:
        if isinstance(self.body, dict):
            for message in self.body.get("messages", []):
                if message.get("role") == "system":
                    return str(message.get("content"))
        return ""


Script = Callable[[Seen, int], Action]
"""Maps a request and how many earlier requests carried the same user message to an action."""


def echo_text(seen: Seen) -> str:
    return f"system={seen.system} | user={seen.user}"


@dataclass
class FaultServer:
    script: Script = lambda seen, nth: ok()
    host: str = "127.0.0.1"
    seen: list[Seen] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    connections: int = 0  # TCP connections accepted: fewer than requests means keep-alive

    def __post_init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="fault-server", daemon=True)
        self._stop: asyncio.Event | None = None
        self.port = 0

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> FaultServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fault server did not start")
        return self

    def __exit__(self, *_: object) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        finally:
            self._loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        handlers: set[asyncio.Task[None]] = set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            handlers.add(task)
            self.connections += 1
            try:
                await self._serve(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
                pass
            finally:
                handlers.discard(task)
                writer.close()

        server = await asyncio.start_server(on_connect, self.host, 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop.wait()
        server.close()
        for task in list(handlers):
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()

    # -- one connection ----------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            request_line = await reader.readline()
            if not request_line:
                return
            method, path, _ = request_line.decode("latin-1").split(" ", 2)
            headers: dict[str, str] = {}
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
                name, _, value = line.decode("latin-1").partition(":")
                key = name.strip().lower()
                # A repeated header is combined as HTTP allows, so tests can see the repeat.
                headers[key] = (
                    f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
                )
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            seen = Seen(time.monotonic(), method, path, headers, body)
            with self._lock:
                nth = self._counts[seen.user]
                self._counts[seen.user] += 1
                self.seen.append(seen)
            action = self.script(seen, nth)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                if action.delay:
                    await asyncio.sleep(action.delay)
                if action.drip is not None or action.endless:
                    await self._endless(writer, action)
                    return
                if action.drop:
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        b'Content-Length: 400\r\n\r\n{"choices": [{"mess'
                    )
                    await writer.drain()
                    return  # closing mid-body: the client sees a dropped connection
                payload = self._payload(seen, action)
                head = [f"HTTP/1.1 {action.status} X", f"Content-Type: {action.content_type}"]
                head += [f"{k}: {v}" for k, v in action.headers]
                head.append(f"Content-Length: {len(payload)}")
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
                await writer.drain()
            finally:
                self.in_flight -= 1

    async def _endless(self, writer: asyncio.StreamWriter, action: Action) -> None:
        """A 200 whose chunked body never ends: a byte at a time, or 64 KiB chunks flat out."""
        writer.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: {action.content_type}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        chunk = b" " if action.drip is not None else b"0" * 65536
        while True:  # until the client hangs up (a ConnectionError) or the server stops
            writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            await writer.drain()
            await asyncio.sleep(action.drip or 0)

    def _payload(self, seen: Seen, action: Action) -> bytes:
        if action.raw_body is not None:
            return action.raw_body
        text = action.text if action.text is not None else echo_text(seen)
        document: dict[str, Any] = {
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
        }
        if seen.path.startswith("/custom"):
            document = {"data": {"answer": text}, "meta": {"in": 7, "out": 3}}
        if action.usage:
            document["usage"] = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
        return json.dumps(document).encode()

    # -- what tests ask ----------------------------------------------------------------------
    def count(self, user: str) -> int:
        with self._lock:
            return self._counts[user]

    def arrivals(self, user: str) -> list[float]:
        with self._lock:
            return [s.at for s in self.seen if s.user == user]
