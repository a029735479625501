"""Whether the store can serve: the database answers and its schema is the one shipped."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from sqlalchemy.exc import SQLAlchemyError

from trustprobe.store.migration import current_revision, head_revision
from trustprobe.store.store import TrustStore


class StoreReadiness(BaseModel):
    """The store as a readiness probe sees it (``GET /readyz``)."""

    model_config = ConfigDict(extra="forbid")

    reachable: bool
    """Whether the database answered a query."""
    backend: str
    """``sqlite`` or ``postgresql``."""
    revision: str | None
    """Migration revision recorded in the database; ``None`` if unreachable or never upgraded."""
    head: str
    """The revision this version of trustprobe needs."""
    detail: str | None
    """Why the store is not ready, in words; ``None`` when it is."""

    @property
    def ready(self) -> bool:
        """Reachable and at the shipped revision."""
        return self.reachable and self.revision == self.head


def check_readiness(store: TrustStore) -> StoreReadiness:
    """Query the database for its migration revision; never raises for a database failure.

    The detail names the error class only: the answer goes to unauthenticated probes, and a
    driver's message can carry host names or user names.
    """
    head = head_revision()
    try:
        revision = current_revision(store.engine)
    except SQLAlchemyError as exc:
        return StoreReadiness(
            reachable=False,
            backend=store.backend,
            revision=None,
            head=head,
            detail=f"database unreachable ({type(exc).__name__})",
        )
    detail = None
    if revision != head:
        found = "an empty database" if revision is None else f"database at revision {revision}"
        detail = f"{found}, this version needs {head}: run `trustprobe db upgrade`"
    return StoreReadiness(
        reachable=True, backend=store.backend, revision=revision, head=head, detail=detail
    )
