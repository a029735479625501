"""Settings of the HTTP service, passed to :func:`create_app`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_MAX_BODY_BYTES = 1024 * 1024


class ServiceSettings(BaseModel):
    """Everything the service needs to know; nothing is read from the environment here."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    database_url: str | None = None
    """Store URL; ``None`` means ``$TRUSTPROBE_DATABASE_URL`` or the embedded SQLite default."""
    max_body_bytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=0)
    """Largest request body accepted; larger ones get 413 as soon as the limit is crossed."""
    rate_limit_per_second: float = Field(default=50.0, gt=0)
    """Sustained requests per second allowed per API key."""
    rate_limit_burst: int = Field(default=100, ge=1)
    """Requests a key may make at once before the sustained rate applies."""
    anonymous_rate_limit_per_second: float = Field(default=5.0, gt=0)
    """Sustained requests per second per client address without a valid key (answered 401)."""
    anonymous_rate_limit_burst: int = Field(default=20, ge=1)
    """Requests without a valid key an address may make at once."""
    shared_rate_limits: bool = False
    """Keep the rate-limit buckets in the store, shared by every worker process (and host)
    serving from it; otherwise each process keeps its own, right only for a single worker."""
    auth_cache_seconds: float = Field(default=5.0, ge=0)
    """Seconds a successful key lookup is reused; a revoked key works at most this long (0: off)."""
    history_page_size: int = Field(default=50, ge=1, le=500)
    """Transitions per history page when the client does not say."""
