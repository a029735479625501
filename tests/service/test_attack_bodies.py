"""Attack suite, bodies: hostile requests get a 4xx naming the problem, and store nothing.

Each request runs against a real server on SQLite and on PostgreSQL; the rows of every table are
counted before and after, so "nothing was stored" is checked, not assumed. Both backends must
answer alike: what one database would accept and the other refuse (NUL) is refused in the model.
"""

from __future__ import annotations

import gzip
import json
import logging
import socket
import time
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from tests.sample_reports import report_of, sample_report
from tests.service.conftest import NOW, Keys, bearer
from tests.trust.evidence_factory import record_fields
from trustprobe.store import TrustStore

TABLES = ("organisations", "agents", "evidence", "probe_runs", "score_history", "reviews")
BIG = int("9" * 300)


def _record(**changes: Any) -> dict[str, Any]:
    return record_fields(**{"agent_id": "victim", **changes})


def _operational(**changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "dimension": "runtimeCompliance",
        "kind": "operational",
        "score": None,
        "metric": "violations",
        "value": 1,
        "actions": 10,
    }
    return _record(**{**fields, **changes})


def _counts(store: TrustStore) -> dict[str, int]:
    with store.engine.connect() as connection:
        return {
            table: connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in TABLES
        }


# (request body as JSON, field the answer must blame)
BAD_RECORDS = {
    "year-999": ([_record(observed_at="0999-06-01T00:00:00Z")], "observed_at"),
    "before-1970": ([_record(observed_at="1969-12-31T23:59:59Z")], "observed_at"),
    "offset-below-year-1": ([_record(observed_at="0001-01-01T00:00:00+05:00")], "observed_at"),
    "offset-above-year-9999": ([_record(observed_at="9999-12-31T23:59:59-05:00")], "observed_at"),
    "after-the-clock": ([_record(observed_at="2026-03-02T12:06:00Z")], "observed_at"),
    "unix-seconds": ([_record(observed_at=1772366400)], "observed_at"),
    "no-offset": ([_record(observed_at="2026-03-01T00:00:00")], "observed_at"),
    "score-as-string": ([_record(score="50")], "score"),
    "score-as-boolean": ([_record(score=True)], "score"),
    "total-as-float": ([_record(score=None, passed=1, total=2.0)], "total"),
    "huge-total": ([_record(score=None, passed=1, total=BIG)], "total"),
    "huge-passed": ([_record(score=None, passed=BIG, total=BIG)], "passed"),
    "huge-actions": ([_operational(actions=BIG)], "actions"),
    "jury-score-as-string": ([_record(kind="jury", score=None, scores=["50"])], "scores.0"),
    "nul-in-id": ([_record(id="e\x00-1")], "id"),
    "nul-in-agent": ([_record(agent_id="vic\x00tim")], "agent_id"),
    "newline-in-agent": ([_record(agent_id="vic\ntim")], "agent_id"),
    "c1-control-in-id": ([_record(id="e\x85-1")], "id"),
    "nul-in-metric": ([_operational(metric="viol\x00ations")], "metric"),
}


@pytest.mark.parametrize(("body", "field"), BAD_RECORDS.values(), ids=BAD_RECORDS.keys())
def test_bad_evidence_is_422_naming_the_field_and_stores_nothing(
    client: httpx.Client, keys: Keys, store: TrustStore, body: list[dict[str, Any]], field: str
) -> None:
    good = _record(id="good", agent_id="bystander")
    before = _counts(store)
    answer = client.post("/v1/evidence", json=[good, *body], headers=bearer(keys.write))
    assert answer.status_code == 422, answer.text
    problem = answer.json()["details"][0]
    assert problem["index"] == 1 and problem["field"] == field, problem
    assert _counts(store) == before


RAW_BODIES = {
    # A JSON "\ud800" escape: Python's json module makes a lone surrogate, which is not text.
    "lone-surrogate-in-id": (
        b'[{"id": "e\\ud800", "agent_id": "a", "dimension": "safety", "kind": "eval",'
        b' "observed_at": "2026-03-01T00:00:00Z", "score": 5}]',
        {},
        422,
    ),
    "invalid-utf8": (b'[{"id": "\xff\xfe"}]', {}, 400),
    "deep-nesting": (b"[" * 100_000, {}, 400),
    "gzip-body": (gzip.compress(b"[]"), {"Content-Encoding": "gzip"}, 400),
    "not-json": (b"{bad", {}, 422),
}


@pytest.mark.parametrize("route", ["/v1/evidence", "/v1/reports"])
@pytest.mark.parametrize(("raw", "headers", "status"), RAW_BODIES.values(), ids=RAW_BODIES.keys())
def test_undecodable_bodies_are_4xx_and_store_nothing(
    client: httpx.Client,
    keys: Keys,
    store: TrustStore,
    route: str,
    raw: bytes,
    headers: dict[str, str],
    status: int,
) -> None:
    before = _counts(store)
    answer = client.post(
        route,
        content=raw,
        headers={**bearer(keys.write), "Content-Type": "application/json", **headers},
    )
    assert answer.status_code == status, answer.text
    assert answer.json()["status"] == status
    assert _counts(store) == before


def test_a_record_within_the_clock_skew_is_stored_and_the_answer_says_it_is_not_counted(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    ahead = (NOW + timedelta(minutes=3)).isoformat()
    records = [_record(id="now", agent_id=agent), _record(id="soon", agent_id=agent,
                                                          observed_at=ahead)]  # fmt: skip
    answer = client.post("/v1/evidence", json=records, headers=bearer(keys.write))
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["accepted"] == 2
    assert [(n["index"], n["evidence_id"]) for n in result["ignored"]] == [(1, "soon")]
    assert "within the allowed skew" in result["ignored"][0]["reason"]
    again = client.post("/v1/evidence", json=records, headers=bearer(keys.write)).json()
    assert again["duplicate"] == 2
    assert [n["index"] for n in again["ignored"]] == [0, 1]
    assert all("identical content" in n["reason"] for n in again["ignored"])


def test_the_skew_error_names_the_record(client: httpx.Client, keys: Keys, agent: str) -> None:
    late = (NOW + timedelta(minutes=6)).isoformat()
    records = [_record(id="ok", agent_id=agent), _record(id="late", agent_id=agent,
                                                         observed_at=late)]  # fmt: skip
    answer = client.post("/v1/evidence", json=records, headers=bearer(keys.write))
    assert answer.status_code == 422
    body = answer.json()
    assert body["details"] == [
        {"index": 1, "field": "observed_at", "message": body["details"][0]["message"]}
    ]
    assert "evidence 'late'" in body["message"] and "5 minutes" in body["message"]


def test_counts_at_the_limit_never_overflow_a_sum(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    limit = 2**53 - 1
    records = [
        _record(id=f"big-{n}", agent_id=agent, score=None, passed=limit, total=limit)
        for n in range(50)
    ]
    answer = client.post("/v1/evidence", json=records, headers=bearer(keys.write))
    assert answer.status_code == 200, answer.text
    score = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read)).json()
    assert score["score"]["composite"] == 1000


HOSTILE_IDS = {
    "nul": "a%00b",
    "newline": "a%0Ab",
    "escape": "a%1Bb",
    "c1-control": "a%C2%85b",
    "lone-surrogate-bytes": "a%ED%A0%80b",
    "invalid-utf8": "a%FFb",
    "too-long": "a" * 201,
    "dot-dot": "%2E%2E",
    "encoded-slash": "a%2Fb",
    "right-to-left-override": "a%E2%80%AEb",
    "sql-quote": "a'%20OR%20'1'='1",
    "percent": "%25",
}
HOSTILE_REVIEW_IDS = ["0", "-1", "abc", "1e3", "1.5", str(2**63), "9" * 400, "%00", "%20"]


@pytest.mark.parametrize("review_id", HOSTILE_REVIEW_IDS)
def test_hostile_review_ids_in_paths_are_4xx(
    client: httpx.Client, keys: Keys, store: TrustStore, review_id: str
) -> None:
    before = _counts(store)
    for verb in ("approve", "reject"):
        answer = client.post(
            f"/v1/reviews/{review_id}/{verb}", json={"reason": "r"}, headers=bearer(keys.review)
        )
        assert answer.status_code in (404, 422), (review_id, answer.text)
        assert answer.json()["status"] == answer.status_code
    assert _counts(store) == before


@pytest.mark.parametrize("agent_id", HOSTILE_IDS.values(), ids=HOSTILE_IDS.keys())
def test_hostile_agent_ids_in_paths_are_4xx(
    client: httpx.Client, keys: Keys, agent_id: str
) -> None:
    for route in (f"/v1/agents/{agent_id}/score", f"/v1/agents/{agent_id}/history"):
        answer = client.get(route, headers=bearer(keys.read))
        assert answer.status_code in (404, 422), (route, answer.text)
        assert answer.json()["status"] == answer.status_code


@pytest.mark.parametrize(
    "submission",
    [
        pytest.param({"agent_id": "a\x00", "report": {}}, id="nul-agent"),
        pytest.param(
            {"agent_id": "a", "report": {}, "observed_at": "0001-01-01T00:00:00+05:00"},
            id="overflowing-offset",
        ),
        pytest.param({"agent_id": "a", "report": {}, "observed_at": 0}, id="unix-seconds"),
    ],
)
def test_bad_report_submissions_are_422(
    client: httpx.Client, keys: Keys, store: TrustStore, submission: dict[str, Any]
) -> None:
    before = _counts(store)
    answer = client.post("/v1/reports", json=submission, headers=bearer(keys.write))
    assert answer.status_code == 422, answer.text
    assert _counts(store) == before


@pytest.mark.parametrize(
    "created_at",
    ["0001-01-01T00:01:00+00:09", "0999-06-01T00:00:00Z"],
    ids=["overflowing-offset", "before-1970"],
)
def test_a_report_dated_outside_the_evidence_range_is_422(
    client: httpx.Client, keys: Keys, store: TrustStore, created_at: str
) -> None:
    # Without observed_at, the report's own created_at dates the evidence it yields.
    report = report_of([]).model_dump(mode="json")
    report["provenance"]["created_at"] = created_at
    before = _counts(store)
    answer = client.post(
        "/v1/reports", json={"agent_id": "a", "report": report}, headers=bearer(keys.write)
    )
    assert answer.status_code == 422, answer.text
    assert "created_at" in answer.text
    assert _counts(store) == before


@pytest.mark.parametrize("reason", ["nul \x00 here", "lone \ud800"], ids=["nul", "surrogate"])
def test_hostile_review_reasons_are_422(client: httpx.Client, keys: Keys, reason: str) -> None:
    body = json.dumps({"reason": reason}).encode()  # ASCII escapes: the surrogate survives
    answer = client.post(
        "/v1/reviews/1/approve",
        content=body,
        headers={**bearer(keys.review), "Content-Type": "application/json"},
    )
    assert answer.status_code == 422, answer.text


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=501", "limit=abc", "before=-1", f"before={2**63}", "status=everything"],
)
def test_hostile_query_parameters_are_422(client: httpx.Client, keys: Keys, query: str) -> None:
    route = "/v1/reviews" if query.startswith("status") else "/v1/agents/a/history"
    key = keys.review if query.startswith("status") else keys.read
    answer = client.get(f"{route}?{query}", headers=bearer(key))
    assert answer.status_code == 422, answer.text


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1E+999"])
def test_a_report_with_a_non_finite_number_is_422_naming_the_field(
    client: httpx.Client, keys: Keys, store: TrustStore, literal: str
) -> None:
    # Python's JSON reader takes these literals; the report's digest could not be computed.
    report = sample_report(rows=5, hostile=False, geometry=False).model_dump(mode="json")
    report["cases"][0]["risk_score"] = "@"
    body = json.dumps({"agent_id": "a", "report": report}).replace('"@"', literal).encode()
    before = _counts(store)
    answer = client.post(
        "/v1/reports",
        content=body,
        headers={**bearer(keys.write), "Content-Type": "application/json"},
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_input"
    assert "cases.0.risk_score" in answer.text
    assert _counts(store) == before


class _Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_client_gone_mid_body_logs_no_server_error(
    client: httpx.Client, base_url: str, keys: Keys, store: TrustStore
) -> None:
    # A flaky uploader must not page the operator: uvicorn logged "Exception in ASGI
    # application" with a traceback for every connection dropped mid-body.
    collected = _Collected()
    server_log = logging.getLogger("uvicorn.error")
    server_log.addHandler(collected)
    before = _counts(store)
    try:
        url = httpx.URL(base_url)
        with socket.create_connection((url.host, url.port)) as raw:
            raw.sendall(
                b"POST /v1/evidence HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + f"Authorization: Bearer {keys.write}\r\n".encode()
                + b"Content-Length: 1000\r\n\r\n"
                + b'[{"id": "e-gone",'
            )
        deadline = time.monotonic() + 1.0
        while not collected.records and time.monotonic() < deadline:
            time.sleep(0.02)
        answer = client.get("/healthz")
    finally:
        server_log.removeHandler(collected)
    assert [r.getMessage() for r in collected.records] == []
    assert answer.status_code == 200
    assert _counts(store) == before


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
    ids=["none", "text", "form (curl -d)", "multipart"],
)
@pytest.mark.parametrize("route", ["/v1/evidence", "/v1/reports"])
def test_a_body_sent_as_another_type_is_415_saying_what_to_send(
    client: httpx.Client,
    keys: Keys,
    store: TrustStore,
    agent: str,
    content_type: str | None,
    route: str,
) -> None:
    # A valid body under another type (or none) was answered 422 "Input should be a valid
    # list": the body was a list; the type was the problem.
    records = [_record(id=f"{agent}-1", agent_id=agent)]
    payload: Any = records if route == "/v1/evidence" else {"agent_id": agent, "report": {}}
    headers = bearer(keys.write)
    if content_type is not None:
        headers["Content-Type"] = content_type
    before = _counts(store)
    answer = client.post(route, content=json.dumps(payload).encode(), headers=headers)
    assert answer.status_code == 415, answer.text
    assert answer.json()["code"] == "unsupported_media_type"
    assert "Content-Type: application/json" in answer.json()["message"]
    assert _counts(store) == before


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "application/vnd.x+json"],
)
def test_json_bodies_are_read_under_every_json_type(
    client: httpx.Client, keys: Keys, agent: str, content_type: str
) -> None:
    headers = {**bearer(keys.write), "Content-Type": content_type}
    body = json.dumps([_record(id=f"{agent}-1", agent_id=agent)]).encode()
    answer = client.post("/v1/evidence", content=body, headers=headers)
    assert answer.status_code == 200, answer.text


def test_a_body_of_many_bad_records_gets_a_bounded_answer(
    client: httpx.Client, keys: Keys, store: TrustStore
) -> None:
    # 3 bytes of body per problem, about 100 bytes of answer each: 600 kB of "{}" drew a 20 MB
    # answer (and 1.6 GB of server memory to build it).
    body = ("[" + ",".join(["{}"] * 20_000) + "]").encode()
    before = _counts(store)
    answer = client.post(
        "/v1/evidence",
        content=body,
        headers={**bearer(keys.write), "Content-Type": "application/json"},
    )
    assert answer.status_code == 422
    said = answer.json()
    assert said["message"] == (
        "the request is invalid (20000 problem(s), the first 100 listed); nothing was stored"
    )
    assert [d["index"] for d in said["details"]] == list(range(100))
    assert len(answer.content) < 20_000
    assert _counts(store) == before


def test_a_report_of_many_empty_cases_lists_the_first_problems(
    client: httpx.Client, keys: Keys, store: TrustStore
) -> None:
    # Every {} case misses about twenty fields: 200 kB of them built a million errors and took
    # the server to 1.3 GB before its answer.
    report = sample_report(rows=5, hostile=False, geometry=False).model_dump(mode="json")
    report["cases"] = [{}] * 20_000
    before = _counts(store)
    answer = client.post(
        "/v1/reports",
        content=json.dumps({"agent_id": "a", "report": report}).encode(),
        headers={**bearer(keys.write), "Content-Type": "application/json"},
    )
    assert answer.status_code == 422, answer.text
    said = answer.json()
    assert said["message"] == (
        "the request is invalid (100 or more problems, the first 100 listed); nothing was stored"
    )
    assert len(said["details"]) == 100
    assert said["details"][0]["field"].startswith("report.cases.0.")
    assert _counts(store) == before


def test_a_report_with_one_bad_case_among_many_names_it(
    client: httpx.Client, keys: Keys, store: TrustStore
) -> None:
    report = sample_report(rows=40, hostile=False, geometry=False).model_dump(mode="json")
    report["cases"][37]["passed"] = "maybe"
    answer = client.post(
        "/v1/reports",
        json={"agent_id": "a", "report": report},
        headers=bearer(keys.write),
    )
    assert answer.status_code == 422, answer.text
    details = answer.json()["details"]
    assert [d["field"] for d in details] == ["report.cases.37.passed"]
