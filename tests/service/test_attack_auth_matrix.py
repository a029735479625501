"""Attack suite, authentication: every route of the OpenAPI document × every kind of key.

The routes come from the served ``/openapi.json``, so a route added later is covered without a
change here. Bodies are malformed on purpose: the key must be judged before the body is read,
so a refused key is 401/403/429 whatever the body holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.service.conftest import NOW, Clock, Keys, bearer
from tests.service.live import serve
from trustprobe.service import ServiceSettings
from trustprobe.store import Scope, TrustStore, create_api_key, revoke_api_key

GENEROUS = ServiceSettings(anonymous_rate_limit_per_second=1000, anonymous_rate_limit_burst=10_000)
PATH_VALUES = {"agent_id": "agent-matrix", "review_id": "1"}
MALFORMED_BODY = b'{"not": json'


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    scope: Scope
    has_body: bool

    @property
    def url(self) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: PATH_VALUES[m.group(1)], self.template)

    def send(self, http: httpx.Client, headers: dict[str, str]) -> httpx.Response:
        content = MALFORMED_BODY if self.has_body else None
        headers = {**headers, "Content-Type": "application/json"} if self.has_body else headers
        return http.request(self.method, self.url, content=content, headers=headers)


PUBLIC = {"/healthz", "/readyz"}
"""The orchestrators' probes: the only routes without a key (tested in test_service_health)."""


@pytest.fixture(scope="module")
def matrix_url(store: TrustStore) -> Iterator[str]:
    with serve(store, GENEROUS, clock=Clock()) as url:
        yield url


@pytest.fixture(scope="module")
def routes(matrix_url: str) -> list[Route]:
    schema: dict[str, Any] = httpx.get(f"{matrix_url}/openapi.json").json()
    found = []
    public = {template for template in schema["paths"] if template in PUBLIC}
    assert public == PUBLIC, "the orchestrator probes are documented"
    for template, methods in schema["paths"].items():
        if template in PUBLIC:
            continue
        for method, operation in methods.items():
            assert "x-required-scope" in operation, f"{method} {template} declares no scope"
            assert operation.get("security"), f"{method} {template} documents no security"
            found.append(
                Route(
                    method.upper(),
                    template,
                    Scope(operation["x-required-scope"]),
                    "requestBody" in operation,
                )
            )
    return found


@pytest.fixture(scope="module")
def revoked(store: TrustStore) -> str:
    made = create_api_key(store, organisation="acme", scopes=frozenset(Scope), now=NOW)
    revoke_api_key(store, made.info.id, now=NOW)
    return made.key


def test_the_document_lists_every_route(routes: list[Route]) -> None:
    assert len(routes) == 8  # the /v1 operations; /healthz and /readyz need no key
    assert {r.scope for r in routes} == set(Scope)


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-key"),
        pytest.param({"Authorization": "Bearer"}, id="empty-bearer"),
        pytest.param({"Authorization": "Basic dXNlcjpwYXNz"}, id="basic-scheme"),
        pytest.param({"Authorization": "Bearer tp_000000000000_" + "0" * 43}, id="unknown-key"),
        pytest.param({"Authorization": "Bearer x" * 2000}, id="huge-key"),
    ],
)
def test_no_valid_key_is_401_before_the_body(
    matrix_url: str, routes: list[Route], headers: dict[str, str]
) -> None:
    with httpx.Client(base_url=matrix_url) as http:
        for route in routes:
            answer = route.send(http, headers)
            assert answer.status_code == 401, (route, answer.text)
            assert answer.headers["www-authenticate"] == "Bearer"
            assert answer.json()["code"] == "unauthorized"


def test_a_revoked_key_is_401_on_every_route(
    matrix_url: str, routes: list[Route], revoked: str
) -> None:
    with httpx.Client(base_url=matrix_url) as http:
        for route in routes:
            assert route.send(http, bearer(revoked)).status_code == 401, route


def test_each_key_passes_exactly_the_routes_of_its_scopes(
    matrix_url: str, routes: list[Route], keys: Keys
) -> None:
    held = {
        keys.read: {Scope.READ},
        keys.write: {Scope.WRITE},
        keys.review: {Scope.REVIEW},
        keys.all: set(Scope),
        keys.other_org: set(Scope),
    }
    with httpx.Client(base_url=matrix_url) as http:
        for key, scopes in held.items():
            for route in routes:
                answer = route.send(http, bearer(key))
                if route.scope in scopes:
                    # Admitted: the malformed body or the unknown id is what fails now.
                    assert answer.status_code in (200, 400, 404, 422), (route, answer.text)
                else:
                    assert answer.status_code == 403, (route, answer.text)
                    assert f"'{route.scope.value}' scope" in answer.json()["message"]


def test_keyless_clients_are_limited_by_address(store: TrustStore, keys: Keys) -> None:
    settings = ServiceSettings(anonymous_rate_limit_per_second=0.2, anonymous_rate_limit_burst=3)
    with serve(store, settings, clock=Clock()) as url, httpx.Client(base_url=url) as http:
        statuses = [http.post("/v1/evidence", content=MALFORMED_BODY).status_code for _ in range(5)]
        assert statuses == [401, 401, 401, 429, 429]
        limited = http.post("/v1/evidence", content=MALFORMED_BODY)
        assert limited.headers["retry-after"] == "5"
        assert "address" in limited.json()["message"]
        # A valid key from the same address is not held back by the keyless traffic.
        assert http.get("/v1/reviews", headers=bearer(keys.review)).status_code == 200
