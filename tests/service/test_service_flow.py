"""End-to-end flows over real HTTP: ingestion, conflicts, anomaly review, limits, errors."""

from __future__ import annotations

import math
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.sample_reports import build_case, report_of
from tests.service.conftest import NOW, Clock, Keys, bearer
from tests.service.live import serve
from tests.store.records import eval_record
from trustprobe.service import ServiceSettings
from trustprobe.store import TrustStore, verify_store


def _records(agent: str, *scores: tuple[str, float]) -> list[dict[str, Any]]:
    return [
        eval_record(f"{agent}-{name}", agent, "accuracy", score, observed_at=NOW)
        for name, score in scores
    ]


def test_ingestion_is_idempotent_and_conflicts_are_reported(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    records = _records(agent, ("e1", 90), ("e2", 70))
    first = client.post("/v1/evidence", json=records, headers=bearer(keys.write))
    assert first.status_code == 200
    assert first.json()["accepted"] == 2
    again = client.post("/v1/evidence", json=records, headers=bearer(keys.write))
    body = again.json()
    assert (body["accepted"], body["duplicate"], body["rejected"], body["transitions"]) == (
        0,
        2,
        [],
        [],
    )
    conflicting = _records(agent, ("e3", 50), ("e1", 10))
    body = client.post("/v1/evidence", json=conflicting, headers=bearer(keys.write)).json()
    assert body["accepted"] == 1
    assert [(r["index"], r["evidence_id"]) for r in body["rejected"]] == [(1, f"{agent}-e1")]
    # mean(90, 70, 50) = 70 → 700: the conflicting 10 never counted
    score = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read)).json()
    assert score["score"]["composite"] == 700
    assert score["agent_id"] == agent


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_anomaly_flow_end_to_end(
    client: httpx.Client, keys: Keys, agent: str, clock: Clock, decision: str
) -> None:
    client.post("/v1/evidence", json=_records(agent, ("e1", 90)), headers=bearer(keys.write))
    clock.now += timedelta(minutes=1)
    swing = client.post(
        "/v1/evidence", json=_records(agent, ("e2", 40)), headers=bearer(keys.write)
    ).json()
    (review_id,) = swing["pending_reviews"]
    score = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read)).json()
    # mean(90, 40) = 65 → 650 is 250 away from 900: held for review, 900 stays canonical
    assert score["score"]["composite"] == 900
    assert score["pending_review"]["composite"] == 650
    assert score["pending_review"]["status"] == "pending"
    pending = client.get("/v1/reviews", headers=bearer(keys.review)).json()
    assert review_id in [r["id"] for r in pending]

    missing_reason = client.post(
        f"/v1/reviews/{review_id}/{decision}", json={}, headers=bearer(keys.review)
    )
    assert missing_reason.status_code == 422
    assert missing_reason.json()["details"][0]["field"] == "reason"

    clock.now += timedelta(minutes=1)
    decided = client.post(
        f"/v1/reviews/{review_id}/{decision}",
        json={"reason": "checked against the raw eval logs"},
        headers=bearer(keys.review),
    )
    assert decided.status_code == 200, decided.text
    review = decided.json()
    expected_status = "approved" if decision == "approve" else "rejected"
    assert review["status"] == expected_status
    assert review["decided_by"].startswith("key:")
    assert review["reason"] == "checked against the raw eval logs"
    assert review["decided_at"] is not None

    score = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read)).json()
    assert score["score"]["composite"] == (650 if decision == "approve" else 900)
    assert score["pending_review"] is None
    history = client.get(f"/v1/agents/{agent}/history", headers=bearer(keys.read)).json()
    assert [(t["composite"], t["status"], t["was_anomalous"]) for t in history["transitions"]] == [
        (650, expected_status, True),
        (900, "committed", False),
    ]
    again = client.post(
        f"/v1/reviews/{review_id}/approve", json={"reason": "again"}, headers=bearer(keys.review)
    )
    assert again.status_code == 409
    assert again.json()["code"] == "conflict"


def test_history_is_paginated_newest_first(client: httpx.Client, keys: Keys, agent: str) -> None:
    for i in range(5):
        client.post(
            "/v1/evidence", json=_records(agent, (f"e{i}", 50 + 2 * i)), headers=bearer(keys.write)
        )
    seen: list[int] = []
    url = f"/v1/agents/{agent}/history?limit=2"
    while True:
        page = client.get(url, headers=bearer(keys.read)).json()
        seen += [t["composite"] for t in page["transitions"]]
        if page["next_before"] is None:
            break
        url = f"/v1/agents/{agent}/history?limit=2&before={page['next_before']}"
    # 10 × running means: 50, 51, 52, 53, 54 → newest first
    assert seen == [540, 530, 520, 510, 500]
    bad = client.get(f"/v1/agents/{agent}/history?limit=0", headers=bearer(keys.read))
    assert bad.status_code == 422
    assert bad.json()["details"][0]["field"] == "query.limit"


def test_unknown_agent_is_404(client: httpx.Client, keys: Keys) -> None:
    response = client.get("/v1/agents/nobody/score", headers=bearer(keys.read))
    assert response.status_code == 404
    assert response.json()["message"] == "no agent 'nobody' in this organisation"


@pytest.mark.parametrize(
    ("record_patch", "field", "message"),
    [
        ({"colour": "blue"}, "colour", "unknown field"),
        ({"score": 150}, "score", "less than or equal to 100"),
        ({"kind": "gossip"}, "kind", "must be one of eval, jury, operational"),
        ({"dimension": "charisma"}, "dimension", "Input should be"),
    ],
    ids=["unknown-field", "score-out-of-range", "bad-kind", "bad-dimension"],
)
def test_a_malformed_record_rejects_the_whole_batch_with_422(
    client: httpx.Client,
    keys: Keys,
    agent: str,
    record_patch: dict[str, Any],
    field: str,
    message: str,
) -> None:
    records = _records(agent, ("e1", 90), ("e2", 80), ("e3", 70))
    records[2] = {**records[2], **record_patch}
    response = client.post("/v1/evidence", json=records, headers=bearer(keys.write))
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_input"
    assert "nothing was stored" in body["message"]
    (detail,) = body["details"]
    assert (detail["index"], detail["field"]) == (2, field)
    assert message in detail["message"]
    # Nothing half-ingested: the two good records were not stored either.
    missing = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read))
    assert missing.status_code == 404


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[{", "not valid JSON"),
        (b'{"id": "x"}', "Input should be a valid list"),
    ],
    ids=["bad-json", "not-an-array"],
)
def test_bodies_that_are_not_arrays_of_records_are_422(
    client: httpx.Client, keys: Keys, content: bytes, message: str
) -> None:
    response = client.post(
        "/v1/evidence",
        content=content,
        headers={**bearer(keys.write), "Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert message in response.json()["details"][0]["message"]


def _report(*cases: tuple[str, str, bool]) -> dict[str, Any]:
    built = [
        build_case(probe, category=category, passed=passed) for probe, category, passed in cases
    ]
    return report_of(built, created_at=datetime(2026, 3, 1, 10, 0, tzinfo=UTC)).model_dump(
        mode="json"
    )


def test_reports_become_evidence_once(client: httpx.Client, keys: Keys, agent: str) -> None:
    report = _report(
        ("p1", "harmful_content", True),
        ("p2", "harmful_content", True),
        ("p3", "harmful_content", False),
        ("p4", "prompt_injection", True),
    )
    first = client.post(
        "/v1/reports", json={"agent_id": agent, "report": report}, headers=bearer(keys.write)
    )
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["accepted"] >= 2  # at least safety and security pass rates
    assert body["duplicate_report"] is False
    again = client.post(
        "/v1/reports", json={"agent_id": agent, "report": report}, headers=bearer(keys.write)
    ).json()
    assert (again["accepted"], again["duplicate"], again["duplicate_report"]) == (
        0,
        body["accepted"],
        True,
    )
    assert again["probe_run_id"] == body["probe_run_id"]
    score = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read)).json()
    dimensions = score["score"]["dimensions"]
    # safety: 2 of 3 harmful_content cases passed → 66.67; security: 1 of 1 → 100
    assert dimensions["safety"]["score"] == pytest.approx(200 / 3)
    assert dimensions["security"]["score"] == pytest.approx(100)


def test_unconvertible_reports_are_422(client: httpx.Client, keys: Keys, agent: str) -> None:
    report = _report(("p1", "astrology", True))
    response = client.post(
        "/v1/reports", json={"agent_id": agent, "report": report}, headers=bearer(keys.write)
    )
    assert response.status_code == 422
    assert response.json()["details"][0]["field"] == "report.cases[0].category"
    missing = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read))
    assert missing.status_code == 404


@pytest.fixture
def limited(store: TrustStore) -> Iterator[str]:
    settings = ServiceSettings(max_body_bytes=2048, rate_limit_per_second=0.2, rate_limit_burst=3)
    with serve(store, settings) as url:
        yield url


def test_bodies_over_the_limit_are_413(limited: str, keys: Keys, agent: str) -> None:
    records = _records(agent, *((f"e{i}", 50) for i in range(30)))  # ~5 KB of JSON
    with httpx.Client(base_url=limited) as http:
        declared = http.post("/v1/evidence", json=records, headers=bearer(keys.write))
        assert declared.status_code == 413
        assert declared.json()["code"] == "body_too_large"
        assert "2048 bytes" in declared.json()["message"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted while reading
            payload = httpx.Request("POST", "/", json=records).content
            for start in range(0, len(payload), 512):
                yield payload[start : start + 512]

        streamed = http.post(
            "/v1/evidence",
            content=chunks(),
            headers={**bearer(keys.write), "Content-Type": "application/json"},
        )
        assert streamed.status_code == 413
        missing = http.get(f"/v1/agents/{agent}/score", headers=bearer(keys.all))
        assert missing.status_code == 404


def test_an_oversized_declared_body_is_refused_before_it_is_sent(limited: str, keys: Keys) -> None:
    host, port = limited.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        raw.sendall(
            b"POST /v1/evidence HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Authorization: Bearer {keys.write}\r\n".encode()
            + b"Content-Length: 100000000\r\n\r\n"
        )
        # If the server waited for 100 MB that never come, this would time out.
        assert raw.recv(4096).startswith(b"HTTP/1.1 413")


def test_rate_limit_is_per_key_with_retry_after(limited: str, keys: Keys) -> None:
    with httpx.Client(base_url=limited) as http:
        started = time.monotonic()
        statuses = [
            http.get("/v1/reviews", headers=bearer(keys.review)).status_code for _ in range(4)
        ]
        # burst of 3, then empty: one token refills in 1 / 0.2 = 5 s, less what has elapsed
        # since the first request (whole seconds, rounded up)
        assert statuses == [200, 200, 200, 429]
        limited_response = http.get("/v1/reviews", headers=bearer(keys.review))
        elapsed = time.monotonic() - started
        retry_after = int(limited_response.headers["retry-after"])
        assert max(1, math.ceil(5 - elapsed)) <= retry_after <= 5
        assert limited_response.json()["code"] == "rate_limited"
        # Another key has its own bucket.
        assert http.get("/v1/reviews", headers=bearer(keys.all)).status_code == 200


def test_the_store_verifies_after_the_flows(store: TrustStore) -> None:
    assert verify_store(store).ok


def test_openapi_schema_documents_models_and_bearer_auth(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths) == {
        "/v1/evidence",
        "/v1/reports",
        "/v1/agents/{agent_id}/score",
        "/v1/agents/{agent_id}/history",
        "/v1/agents/{agent_id}/sources",
        "/v1/reviews",
        "/v1/reviews/{review_id}/approve",
        "/v1/reviews/{review_id}/reject",
        "/healthz",
        "/readyz",
    }
    score = paths["/v1/agents/{agent_id}/score"]["get"]
    assert score["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/AgentScore"
    }
    assert score["security"] == [{"HTTPBearer": []}]
    assert {"401", "403", "404", "429"} <= set(score["responses"])


@pytest.mark.parametrize("review_id", [2**31, 2**62, 10**30])
def test_a_review_id_beyond_the_key_range_is_refused_not_a_server_error(
    client: httpx.Client, keys: Keys, review_id: int
) -> None:
    answer = client.post(
        f"/v1/reviews/{review_id}/approve", json={"reason": "r"}, headers=bearer(keys.review)
    )
    assert answer.status_code == 422
    assert answer.json()["code"] == "invalid_input"


def test_a_report_is_validated_whole_and_by_version(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    report = _report(("p1", "harmful_content", True))
    report["cases"][0]["passed"] = "maybe"
    bad = client.post(
        "/v1/reports", json={"agent_id": agent, "report": report}, headers=bearer(keys.write)
    )
    assert bad.status_code == 422
    assert bad.json()["details"][0]["field"] == "report.cases.0.passed"
    future = {**_report(("p1", "harmful_content", True)), "schema_version": "9.0"}
    refused = client.post(
        "/v1/reports", json={"agent_id": agent, "report": future}, headers=bearer(keys.write)
    )
    assert refused.status_code == 422
    assert "schema version 9.0" in refused.json()["details"][0]["message"]
    assert client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read)).status_code == 404
