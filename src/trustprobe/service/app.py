"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from trustprobe import __version__
from trustprobe.errors import TrustprobeError
from trustprobe.service.auth import Gatekeeper, PrincipalCache
from trustprobe.service.errors import (
    handle_http_error,
    handle_trustprobe_error,
    handle_validation_error,
)
from trustprobe.service.health import build_health_router
from trustprobe.service.limits import BodySizeLimit, RateLimiter, StoreRateLimiter
from trustprobe.service.routes import build_router
from trustprobe.service.settings import ServiceSettings
from trustprobe.store import TrustStore, open_store


def _utc_now() -> datetime:
    return datetime.now(UTC)


def create_app(
    settings: ServiceSettings,
    *,
    store: TrustStore | None = None,
    clock: Callable[[], datetime] = _utc_now,
    close_store: bool = False,
) -> FastAPI:
    """Build the service on ``store`` (or open the one ``settings`` names; closed on shutdown).

    The store must already be at the current schema (``trustprobe db upgrade``). A store passed
    in is closed on shutdown only with ``close_store``.
    """
    owned = store is None or close_store
    active = open_store(settings.database_url) if store is None else store

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        if owned:
            active.close()

    app = FastAPI(
        title="trustprobe",
        version=__version__,
        summary="Evidence in, auditable trust scores out.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.store = active
    if settings.shared_rate_limits:
        app.state.rate_limiter = StoreRateLimiter(
            active, settings.rate_limit_per_second, settings.rate_limit_burst, kind="key"
        )
        app.state.anonymous_limiter = StoreRateLimiter(
            active,
            settings.anonymous_rate_limit_per_second,
            settings.anonymous_rate_limit_burst,
            kind="address",
        )
    else:
        app.state.rate_limiter = RateLimiter(
            settings.rate_limit_per_second, settings.rate_limit_burst
        )
        app.state.anonymous_limiter = RateLimiter(
            settings.anonymous_rate_limit_per_second, settings.anonymous_rate_limit_burst
        )
    app.state.principals = PrincipalCache(settings.auth_cache_seconds)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    router = build_router(clock)
    # Outermost: no body is read before the gatekeeper admits the request.
    app.add_middleware(Gatekeeper, fastapi=app, routes=router.routes)
    app.add_exception_handler(StarletteHTTPException, handle_http_error)
    app.add_exception_handler(RequestValidationError, handle_validation_error)
    app.add_exception_handler(TrustprobeError, handle_trustprobe_error)
    app.include_router(router)
    app.include_router(build_health_router())
    return app
