"""Bearer-key authentication, rate limiting and scope checks, done before a body is read."""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Send
from starlette.types import Scope as AsgiScope

from trustprobe.service.errors import ServiceError, error_response
from trustprobe.service.limits import RateLimiter, StoreRateLimiter
from trustprobe.store import Principal, Scope, TrustStore, authenticate

bearer = HTTPBearer(
    auto_error=False,
    description="An API key made by `trustprobe keys create`, sent as `Bearer <key>`.",
)
_CHALLENGE = {"WWW-Authenticate": "Bearer"}


class PrincipalCache:
    """Recently authenticated keys, so most requests skip the key lookup in the database.

    Entries live ``ttl`` seconds: a revoked key keeps working that long at most. Keys are held
    by their SHA-256 only. Failed lookups are never cached.
    """

    def __init__(
        self,
        ttl: float,
        *,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[bytes, tuple[float, Principal]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _digest(key: str) -> bytes:
        return hashlib.sha256(key.encode("utf-8")).digest()

    def get(self, key: str) -> Principal | None:
        """Return the cached principal of ``key`` unless it expired."""
        digest = self._digest(key)
        with self._lock:
            entry = self._entries.get(digest)
            if entry is None:
                return None
            if entry[0] <= self._clock():
                del self._entries[digest]
                return None
            return entry[1]

    def put(self, key: str, principal: Principal) -> None:
        """Remember a successful authentication for ``ttl`` seconds."""
        if self.ttl <= 0:
            return
        with self._lock:
            self._entries[self._digest(key)] = (self._clock() + self.ttl, principal)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


async def get_store(request: Request) -> TrustStore:
    """Return the store the app was created with (async: no I/O, so no thread-pool hop)."""
    store: TrustStore = request.app.state.store
    return store


REQUIRED_SCOPE = "x-required-scope"
"""OpenAPI extension naming the scope a route needs; :class:`Gatekeeper` reads it."""


def scope_extra(scope: Scope) -> dict[str, Any]:
    """A route's ``openapi_extra`` declaring ``scope`` (documented in the OpenAPI schema)."""
    return {REQUIRED_SCOPE: scope.value}


def _bearer_key(headers: Headers) -> str | None:
    scheme, _, key = headers.get("authorization", "").partition(" ")
    key = key.strip()
    return key if scheme.lower() == "bearer" and key else None


class Gatekeeper:
    """ASGI middleware: authenticate, rate-limit and check the scope before any body is read.

    A request to a ``/v1`` route must carry a valid key with the route's scope (the route's
    :data:`REQUIRED_SCOPE`); otherwise it is answered 401/403/429 here and its body is never
    read or parsed. Clients without a valid key are rate-limited by address, so they cannot
    make the server do work outside every limit. Unknown routes pass through (404, 405).
    """

    def __init__(self, app: ASGIApp, fastapi: FastAPI, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.fastapi = fastapi
        self.routes = [route for route in routes if isinstance(route, APIRoute)]

    def _required_scope(self, scope: AsgiScope) -> Scope | None:
        for route in self.routes:
            if route.matches(scope)[0] is Match.FULL:
                required = (route.openapi_extra or {}).get(REQUIRED_SCOPE)
                return None if required is None else Scope(required)
        return None

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        """Admit the request, or answer it without reading its body."""
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        required = self._required_scope(scope)
        if required is not None:
            try:
                principal = await self._admit(scope, required)
            except ServiceError as exc:
                response = error_response(
                    exc.status_code, str(exc.detail), headers=dict(exc.headers or {})
                )
                await response(scope, receive, send)
                return
            scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def _admit(self, scope: AsgiScope, required: Scope) -> Principal:
        state = self.fastapi.state
        key = _bearer_key(Headers(scope=scope))
        cache: PrincipalCache = state.principals
        principal = None if key is None else cache.get(key)
        if key is not None and principal is None:
            principal = await run_in_threadpool(authenticate, state.store, key)
            if principal is not None:
                cache.put(key, principal)
        if principal is None:
            client = scope.get("client")
            address = client[0] if client else ""
            _limited(await _acquire(state.anonymous_limiter, address), "address")
            if key is None:
                raise ServiceError(
                    401,
                    "missing API key: send the header 'Authorization: Bearer <key>' with a key "
                    "made by `trustprobe keys create`",
                    headers=_CHALLENGE,
                )
            raise ServiceError(
                401, "unknown or revoked API key: check the key you sent", headers=_CHALLENGE
            )
        _limited(await _acquire(state.rate_limiter, principal.key_id), "API key")
        if required not in principal.scopes:
            held = ", ".join(sorted(s.value for s in principal.scopes))
            raise ServiceError(
                403,
                f"this API key lacks the '{required.value}' scope (it has: {held}); "
                f"make one with `trustprobe keys create --scopes {required.value}`",
            )
        return principal


async def _acquire(limiter: RateLimiter | StoreRateLimiter, key: Hashable) -> int | None:
    if limiter.blocking:
        return await run_in_threadpool(limiter.acquire, key)
    return limiter.acquire(key)


def _limited(retry_after: int | None, whose: str) -> None:
    if retry_after is not None:
        raise ServiceError(
            429,
            f"rate limit of this {whose} exceeded; retry after {retry_after} s",
            headers={"Retry-After": str(retry_after)},
        )


def require(scope: Scope) -> Callable[..., Awaitable[Principal]]:
    """Build a dependency returning the principal :class:`Gatekeeper` admitted for ``scope``.

    The bearer scheme is declared here so the OpenAPI schema documents it; the checks ran in
    the middleware, before the body was read.
    """

    async def dependency(
        request: Request,
        _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Principal:
        principal = request.scope.get("state", {}).get("principal")
        if not isinstance(principal, Principal) or scope not in principal.scopes:
            # Only if a route forgot its scope_extra: fail closed.
            raise ServiceError(403, f"route not admitted for the '{scope.value}' scope")
        return principal

    return dependency
