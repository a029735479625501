"""Request limits: a token bucket per API key or address, and a request body size cap.

Buckets live in the process (:class:`RateLimiter`, enough for one worker) or in the store
(:class:`StoreRateLimiter`, shared by every worker and host serving from it).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import ClassVar

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trustprobe.service.errors import ServiceError, error_response
from trustprobe.store import TrustStore, drop_full_buckets, take_token


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets keyed by API key id or client address; thread-safe.

    At most ``max_entries`` buckets are kept: past that, buckets idle long enough to be full
    again are dropped (forgetting them changes nothing), so many addresses cannot grow it.
    """

    blocking: ClassVar[bool] = False
    """Whether :meth:`acquire` does I/O (and so belongs in the thread pool)."""

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_entries: int = 100_000,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_entries = max_entries
        self._clock = clock
        self._buckets: dict[Hashable, _Bucket] = {}
        self._lock = threading.Lock()

    def acquire(self, key: Hashable) -> int | None:
        """Spend one token; ``None`` if allowed, else whole seconds until a token is due."""
        with self._lock:
            now = self._clock()
            bucket = self._buckets.get(key)
            if bucket is None:
                if len(self._buckets) >= self.max_entries:
                    self._forget_idle(now)
                bucket = self._buckets[key] = _Bucket(float(self.burst), now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return None
            return max(1, math.ceil((1 - bucket.tokens) / self.rate))

    def _forget_idle(self, now: float) -> None:
        refill = self.burst / self.rate
        self._buckets = {k: b for k, b in self._buckets.items() if now - b.updated < refill}


class StoreRateLimiter:
    """Token buckets kept in the store's ``rate_buckets`` table, shared by every worker.

    Each :meth:`acquire` is one atomic statement in the database (see
    :mod:`trustprobe.store.rate_buckets`); bucket names are ``<kind>:<key>``. Every
    ``prune_seconds`` a worker drops the buckets that are full again, so many addresses cannot
    grow the table.
    """

    blocking: ClassVar[bool] = True
    """:meth:`acquire` queries the database."""

    def __init__(
        self,
        store: TrustStore,
        rate: float,
        burst: int,
        *,
        kind: str,
        clock: Callable[[], float] = time.time,
        prune_seconds: float = 60.0,
    ) -> None:
        self.store = store
        self.rate = rate
        self.burst = burst
        self.kind = kind
        self.prune_seconds = prune_seconds
        self._clock = clock
        self._next_prune = clock() + prune_seconds
        self._lock = threading.Lock()

    def acquire(self, key: Hashable) -> int | None:
        """Spend one token; ``None`` if allowed, else whole seconds until a token is due."""
        now = self._clock()
        with self._lock:
            prune = now >= self._next_prune
            if prune:
                self._next_prune = now + self.prune_seconds
        if prune:
            drop_full_buckets(self.store, now=now)
        return take_token(
            self.store, f"{self.kind}:{key}", rate=self.rate, burst=self.burst, now=now
        )


class BodySizeLimit:
    """ASGI middleware: 413 for a declared or streamed request body over ``max_bytes``.

    A declared ``Content-Length`` over the limit is answered before any body is read; a body
    without one (chunked) is counted while it is read and cut off as soon as it crosses the
    limit. Either way the route never runs, so nothing is stored.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self) -> ServiceError:
        return ServiceError(
            413, f"request body exceeds the limit of {self.max_bytes} bytes; send smaller batches"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the declared length, then count the bytes the app reads."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            exc = self._too_large()
            response = error_response(413, str(exc.detail), headers={"Connection": "close"})
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # FastAPI passes HTTP exceptions raised while reading the body through to
                    # the exception handlers, which render it like every other error.
                    raise self._too_large()
            return message

        await self.app(scope, counted, send)
