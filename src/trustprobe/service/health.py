"""Liveness and readiness for orchestrators: no API key, nothing about other tenants."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, ConfigDict

from trustprobe.service.auth import get_store
from trustprobe.store import StoreReadiness, TrustStore, check_readiness


class Liveness(BaseModel):
    """The process answers HTTP."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["alive"] = "alive"
    """Always ``alive``: an answer at all is the signal."""


class Readiness(BaseModel):
    """Whether this instance can serve requests, and why not."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ready", "not_ready"]
    """``ready`` (HTTP 200) or ``not_ready`` (HTTP 503)."""
    store: StoreReadiness
    """The store: reachable, and at the migration revision this version needs."""


def build_health_router() -> APIRouter:
    """``GET /healthz`` (liveness) and ``GET /readyz`` (readiness), outside ``/v1``."""
    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=Liveness, summary="Liveness: the process is up")
    def healthz() -> Liveness:
        # Deliberately touches nothing: a database outage must not get the process restarted.
        return Liveness()

    @router.get(
        "/readyz",
        response_model=Readiness,
        summary="Readiness: the store is reachable and its migrations are current",
        responses={503: {"model": Readiness, "description": "Not ready; the body says why."}},
    )
    def readyz(response: Response, store: Annotated[TrustStore, Depends(get_store)]) -> Readiness:
        state = check_readiness(store)
        if not state.ready:
            response.status_code = 503
        return Readiness(status="ready" if state.ready else "not_ready", store=state)

    return router
