"""The auth matrix: every route × no key, bad key, wrong scope, another organisation."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.sample_reports import report_of
from tests.service.conftest import NOW, Keys, bearer
from tests.service.live import serve
from tests.store.records import eval_record
from trustprobe.service import ServiceSettings
from trustprobe.store import Scope, TrustStore, create_api_key, revoke_api_key

EMPTY_REPORT = report_of([]).model_dump(mode="json")
# (method, path template, json body, scope it needs)
ROUTES: list[tuple[str, str, Any, str]] = [
    ("POST", "/v1/evidence", [], "write"),
    ("POST", "/v1/reports", {"agent_id": "{agent}", "report": EMPTY_REPORT}, "write"),
    ("GET", "/v1/agents/{agent}/score", None, "read"),
    ("GET", "/v1/agents/{agent}/history", None, "read"),
    ("GET", "/v1/reviews?status=pending", None, "review"),
    ("POST", "/v1/reviews/{review}/approve", {"reason": "ok"}, "review"),
    ("POST", "/v1/reviews/{review}/reject", {"reason": "no"}, "review"),
]
ROUTE_IDS = [f"{method} {path.split('?')[0]}" for method, path, _, _ in ROUTES]


@pytest.fixture
def review_id(client: httpx.Client, keys: Keys, agent: str) -> int:
    """The agent of acme at 900, then a pending swing to 650 (reviewed by the matrix)."""
    for evidence_id, score in (("e1", 90), ("e2", 40)):
        response = client.post(
            "/v1/evidence",
            json=[eval_record(f"{agent}-{evidence_id}", agent, "accuracy", score, observed_at=NOW)],
            headers=bearer(keys.write),
        )
        assert response.status_code == 200, response.text
    (pending,) = response.json()["pending_reviews"]
    return int(pending)


def _call(
    client: httpx.Client,
    route: tuple[str, str, Any, str],
    review: int | str,
    key: str | None,
    agent: str,
) -> httpx.Response:
    method, path, body, _ = route
    headers = {} if key is None else bearer(key)
    if isinstance(body, dict) and body.get("agent_id") == "{agent}":
        body = {**body, "agent_id": agent}
    url = path.replace("{review}", str(review)).replace("{agent}", agent)
    return client.request(method, url, json=body, headers=headers)


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
def test_no_key_is_401(
    client: httpx.Client, review_id: int, route: tuple[str, str, Any, str], agent: str
) -> None:
    response = _call(client, route, review_id, None, agent)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    body = response.json()
    assert body["code"] == "unauthorized"
    assert "Authorization: Bearer" in body["message"]


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
@pytest.mark.parametrize(
    "key",
    ["not-a-key", "tp_000000000000_" + "A" * 43],
    ids=["malformed", "unknown"],
)
def test_bad_key_is_401(
    client: httpx.Client, review_id: int, route: tuple[str, str, Any, str], key: str, agent: str
) -> None:
    response = _call(client, route, review_id, key, agent)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
def test_wrong_scope_is_403(
    client: httpx.Client, keys: Keys, review_id: int, route: tuple[str, str, Any, str], agent: str
) -> None:
    needed = route[3]
    for scope in ("read", "write", "review"):
        if scope == needed:
            continue
        response = _call(client, route, review_id, getattr(keys, scope), agent)
        assert response.status_code == 403, (scope, response.text)
        body = response.json()
        assert body["code"] == "forbidden"
        assert f"'{needed}' scope" in body["message"]


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
def test_other_organisation_sees_nothing(
    client: httpx.Client, keys: Keys, review_id: int, route: tuple[str, str, Any, str], agent: str
) -> None:
    _method, path, _, _ = route
    response = _call(client, route, review_id, keys.other_org, agent)
    if "{agent}" in path or "{review}" in path:
        # Exactly as if it did not exist: compare with ids that exist nowhere.
        absent = _call(client, route, 999999, keys.other_org, "nobody")
        assert response.status_code == absent.status_code == 404
        assert response.json()["code"] == absent.json()["code"] == "not_found"
        # Unlike the CLI, the API never names the organisations that do have the agent.
        assert "organisation" not in response.json()["message"].replace("this organisation", "")
    elif path.startswith("/v1/reviews"):
        assert response.status_code == 200
        assert response.json() == []
    else:  # writes land in globex's own namespace, never in acme's
        assert response.status_code in (200, 422)
    # acme's data is untouched by whatever globex did.
    score = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read))
    assert score.json()["score"]["composite"] == 900
    assert score.json()["pending_review"]["id"] == review_id


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
def test_right_scope_is_admitted(
    client: httpx.Client, keys: Keys, review_id: int, route: tuple[str, str, Any, str], agent: str
) -> None:
    response = _call(client, route, review_id, getattr(keys, route[3]), agent)
    assert response.status_code in (200, 409, 422), response.text


def test_a_revoked_key_is_refused_at_once_without_the_auth_cache(
    store: TrustStore, agent: str
) -> None:
    created = create_api_key(store, organisation="acme", scopes=frozenset({Scope.READ}), now=NOW)
    path = f"/v1/agents/{agent}/score"
    with (
        serve(store, ServiceSettings(auth_cache_seconds=0)) as url,
        httpx.Client(base_url=url, timeout=10) as http,
    ):
        assert http.get(path, headers=bearer(created.key)).status_code == 404  # admitted
        revoke_api_key(store, created.info.id, now=NOW)
        refused = http.get(path, headers=bearer(created.key))
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"
    assert refused.json()["code"] == "unauthorized"
