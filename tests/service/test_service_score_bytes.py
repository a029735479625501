"""GET score serves the stored score bytes: the same body and headers as a re-serialised model."""

from __future__ import annotations

import uuid
from datetime import timedelta
from urllib.parse import quote

import httpx
import pytest

from tests.service.conftest import NOW, Clock, Keys, bearer
from tests.store.records import eval_record
from trustprobe.service.routes import etag_matches
from trustprobe.store import (
    AgentScore,
    TransitionStatus,
    TrustStore,
    canonical_score,
    list_reviews,
    score_history,
)


def _send(client: httpx.Client, keys: Keys, agent: str, name: str, value: float) -> None:
    record = eval_record(f"{agent}-{name}", agent, "accuracy", value, observed_at=NOW)
    response = client.post("/v1/evidence", json=[record], headers=bearer(keys.write))
    assert response.status_code == 200, response.text


def _old_body(store: TrustStore, agent: str) -> bytes:
    """What the route answered before it served stored bytes: the model, parsed and re-serialised.

    Built from other reads than the route's (the history and the review list), so the check
    does not lean on the statement under test.
    """
    history = score_history(store, organisation="acme", agent_id=agent, limit=500).transitions
    canonical = next(
        t for t in history if t.status in (TransitionStatus.COMMITTED, TransitionStatus.APPROVED)
    )
    pending = [r for r in list_reviews(store, organisation="acme") if r.agent_id == agent]
    return (
        AgentScore(
            agent_id=agent,
            score=canonical.score,
            transition_seq=canonical.seq,
            computed_at=canonical.computed_at,
            pending_review=pending[0] if pending else None,
        )
        .model_dump_json()
        .encode()
    )


@pytest.mark.parametrize(
    "agent_name", ["plain", 'agent «ünïcode» "quoted" \\ slash'], ids=["ascii", "non-ascii"]
)
def test_the_body_is_byte_for_byte_the_re_serialised_model(
    client: httpx.Client, keys: Keys, store: TrustStore, clock: Clock, agent_name: str
) -> None:
    agent = f"{agent_name}-{uuid.uuid4().hex[:8]}"
    url = f"/v1/agents/{quote(agent, safe='')}/score"
    _send(client, keys, agent, "e1", 90)
    first = client.get(url, headers=bearer(keys.read))
    assert first.status_code == 200
    assert first.content == _old_body(store, agent)
    assert first.headers["content-type"] == "application/json"
    assert first.headers["content-length"] == str(len(first.content))
    assert first.json()["pending_review"] is None
    # The model the library returns serialises to the same bytes.
    found = canonical_score(store, organisation="acme", agent_id=agent)
    assert found.model_dump_json().encode() == first.content

    # A swing of 250 points (900 → 650) opens a review: the body now carries it.
    clock.now += timedelta(minutes=1)
    _send(client, keys, agent, "e2", 40)
    second = client.get(url, headers=bearer(keys.read))
    assert second.content == _old_body(store, agent)
    assert second.json()["pending_review"]["composite"] == 650
    assert second.headers["etag"] != first.headers["etag"]


def test_if_none_match_with_the_current_tag_gets_304_and_a_stale_one_the_body(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    _send(client, keys, agent, "e1", 80)
    url = f"/v1/agents/{agent}/score"
    first = client.get(url, headers=bearer(keys.read))
    tag = first.headers["etag"]
    unchanged = client.get(url, headers={**bearer(keys.read), "If-None-Match": tag})
    assert (unchanged.status_code, unchanged.content) == (304, b"")
    assert unchanged.headers["etag"] == tag
    _send(client, keys, agent, "e2", 70)
    changed = client.get(url, headers={**bearer(keys.read), "If-None-Match": tag})
    assert changed.status_code == 200
    assert changed.headers["etag"] != tag
    # mean(80, 70) = 75 → 750
    assert changed.json()["score"]["composite"] == 750

    # The OpenAPI document lists the answer, so clients and schema checks know it.
    documented = client.get("/openapi.json").json()["paths"]["/v1/agents/{agent_id}/score"]
    assert "304" in documented["get"]["responses"]


def test_a_304_still_needs_a_key(client: httpx.Client, keys: Keys, agent: str) -> None:
    _send(client, keys, agent, "e1", 80)
    url = f"/v1/agents/{agent}/score"
    tag = client.get(url, headers=bearer(keys.read)).headers["etag"]
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 401


@pytest.mark.parametrize(
    ("header", "matches"),
    [
        (None, False),
        ('"abc"', True),
        ('W/"abc"', True),
        ('"x", "abc"', True),
        ("*", True),
        ('"abd"', False),
        ("abc", False),
    ],
)
def test_if_none_match_parsing(header: str | None, matches: bool) -> None:
    assert etag_matches(header, '"abc"') is matches
