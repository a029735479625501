"""How the runner paces, bounds and retries requests."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RunnerSettings(BaseModel):
    """Runner knobs; stored in ``run.json`` (see docs/scanning.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    concurrency: int = Field(default=8, ge=1, le=2000)
    """Cases in flight at once."""
    rate: float | None = Field(default=None, gt=0)
    """Requests per second across all workers, retries included; ``None`` is unlimited."""
    burst: int = Field(default=1, ge=1)
    """Requests that may start back to back before ``rate`` spacing applies."""
    timeout: float = Field(default=60.0, gt=0)
    """Seconds one attempt may take before it counts as a ``timeout`` (per model turn: a case
    that offers tools gets ``timeout × max_steps`` for its whole conversation)."""
    retries: int = Field(default=2, ge=0, le=20)
    """Extra attempts after a retryable failure (429, 408, 5xx, connection, timeout)."""
    backoff_base: float = Field(default=0.5, ge=0)
    """First backoff ceiling in seconds; it doubles with each attempt (full jitter below it)."""
    backoff_max: float = Field(default=30.0, ge=0)
    """Largest backoff ceiling in seconds."""
    max_retry_after: float = Field(default=120.0, ge=0)
    """Longest ``Retry-After`` we wait; a target asking for more gets no retry."""
    seed: int = 0
    """Seed of the backoff jitter."""
