"""Bearer-key authentication, per-key rate limiting and scope checks, as route dependencies."""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from trustprobe.service.errors import ServiceError
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


def require(scope: Scope) -> Callable[..., Awaitable[Principal]]:
    """Build a dependency that admits a valid, not rate-limited key holding ``scope``."""

    async def dependency(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Principal:
        if credentials is None:
            raise ServiceError(
                401,
                "missing API key: send the header 'Authorization: Bearer <key>' with a key "
                "made by `trustprobe keys create`",
                headers=_CHALLENGE,
            )
        key = credentials.credentials
        cache: PrincipalCache = request.app.state.principals
        principal = cache.get(key)
        if principal is None:
            store: TrustStore = request.app.state.store
            principal = await run_in_threadpool(authenticate, store, key)
            if principal is None:
                raise ServiceError(
                    401, "unknown or revoked API key: check the key you sent", headers=_CHALLENGE
                )
            cache.put(key, principal)
        retry_after = request.app.state.rate_limiter.acquire(principal.key_id)
        if retry_after is not None:
            raise ServiceError(
                429,
                f"rate limit of this API key exceeded; retry after {retry_after} s",
                headers={"Retry-After": str(retry_after)},
            )
        if scope not in principal.scopes:
            held = ", ".join(sorted(s.value for s in principal.scopes))
            raise ServiceError(
                403,
                f"this API key lacks the '{scope.value}' scope (it has: {held}); "
                f"make one with `trustprobe keys create --scopes {scope.value}`",
            )
        return principal

    return dependency
