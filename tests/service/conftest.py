from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx
import pytest

from tests.service.live import serve
from tests.store.databases import BACKENDS, database
from trustprobe.service import ServiceSettings
from trustprobe.store import Scope, TrustStore, create_api_key, open_store

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Keys:
    """Keys of organisation 'acme' with one scope each, all scopes, and one of 'globex'."""

    read: str
    write: str
    review: str
    all: str
    other_org: str


# One store and one server per backend per module (starting them dominates the run time);
# tests stay independent by using agents of their own.
@pytest.fixture(scope="module", params=BACKENDS)
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TrustStore]:
    with database(request.param, tmp_path_factory.mktemp("service")) as url:
        opened = open_store(url, upgrade=True)
        yield opened
        opened.close()


@pytest.fixture(scope="module")
def keys(store: TrustStore) -> Keys:
    def make(organisation: str, *scopes: Scope) -> str:
        return create_api_key(
            store, organisation=organisation, scopes=frozenset(scopes), now=NOW
        ).key

    return Keys(
        read=make("acme", Scope.READ),
        write=make("acme", Scope.WRITE),
        review=make("acme", Scope.REVIEW),
        all=make("acme", Scope.READ, Scope.WRITE, Scope.REVIEW),
        other_org=make("globex", Scope.READ, Scope.WRITE, Scope.REVIEW),
    )


class Clock:
    """A settable clock, advanced by tests (decay and review times depend on it)."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def base_url(store: TrustStore, clock: Clock) -> Iterator[str]:
    # A module's keyless requests (the auth matrix sends 21 in about a second) would outrun the
    # default per-address limit of 20; that limit has a test of its own (test_attack_auth_matrix).
    settings = ServiceSettings(
        anonymous_rate_limit_per_second=1000, anonymous_rate_limit_burst=10_000
    )
    with serve(store, settings, clock=clock) as url:
        yield url


@pytest.fixture(scope="module")
def client(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=10) as http:
        yield http


@pytest.fixture
def agent() -> str:
    return f"agent-{uuid.uuid4().hex[:10]}"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
