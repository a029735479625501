"""``POST /v1/evidence`` reads its body with one ``validate_json``: same records, same errors.

The records read straight from the raw bytes must be, field for field and type for type, those
``json.loads`` then validation gives (the stored bytes are their canonical JSON); a body that
``validate_json`` refuses goes the ordinary way, so its error answer is the one it always was.
"""

from __future__ import annotations

import json
import random

import httpx
import pytest
from pydantic import TypeAdapter, ValidationError
from sqlalchemy import select

from tests.service.conftest import Keys, bearer
from trustprobe.store import TrustStore
from trustprobe.store.schema import EvidenceRow
from trustprobe.trust import Evidence, evidence_canonical_json

RECORDS: TypeAdapter[list[Evidence]] = TypeAdapter(list[Evidence])
RECORD = (
    '{"id":"%s","agent_id":"%s","dimension":"safety","kind":"eval",'
    '"observed_at":"2026-03-01T02:00:00+02:00",%s}'
)
# Members where reading JSON text and reading Python objects could part ways.
EDGES = (
    '"score":5',
    '"score":1e1',
    '"score":-0.0',
    '"score":0.1000000000000000055511151231257827',
    '"score":99.99999999999999999999',
    '"score":3,"score":4',
    '"score":NaN',
    '"score":1e400',
    '"passed":1,"total":2',
    '"passed":1,"total":2.0',
    '"passed":1,"total":"2"',
    '"passed":true,"total":2',
    '"score":5,"source":{"tool":"\\ud800"}',
    '"score":5,"source":{"tool":"caf\\u00e9","run_id":"\\"r\\"\\/1"}',
    '"score":5,"note":"extra"',
)


def _slow(body: str) -> list[Evidence] | None:
    try:
        return RECORDS.validate_python(json.loads(body))
    except (ValidationError, ValueError):
        return None


def _bodies() -> list[str]:
    rng = random.Random(7)
    members = list(EDGES)
    for _ in range(500):
        members.append(f'"score":{rng.uniform(0, 100)!r}')
        members.append(f'"score":{rng.randrange(10**18)}e-{rng.randrange(16, 20)}')
    return ["[" + RECORD % (f"e{i}", "a", member) + "]" for i, member in enumerate(members)]


@pytest.mark.parametrize("body", [*_bodies()[: len(EDGES)], "[]", "[1]", "{}", "[", ""])
def test_validate_json_accepts_only_what_the_ordinary_path_accepts_alike(body: str) -> None:
    slow = _slow(body)
    try:
        fast = RECORDS.validate_json(body)
    except ValidationError:
        return  # the route falls back to the ordinary path, whatever it answers
    assert slow is not None
    assert [evidence_canonical_json(r) for r in fast] == [evidence_canonical_json(r) for r in slow]
    assert [type(getattr(r, "score", None)) for r in fast] == [
        type(getattr(r, "score", None)) for r in slow
    ]


def test_numbers_read_from_text_are_the_numbers_json_loads_gives() -> None:
    for body in _bodies()[len(EDGES) :]:
        fast = RECORDS.validate_json(body)
        assert fast == _slow(body), body


def test_stored_bytes_are_those_of_the_ordinary_path(
    client: httpx.Client, keys: Keys, store: TrustStore, agent: str
) -> None:
    members = [m for m in EDGES if _slow("[" + RECORD % ("x", agent, m) + "]") is not None]
    body = "[" + ",".join(RECORD % (f"{agent}-{i}", agent, m) for i, m in enumerate(members)) + "]"
    answer = client.post(
        "/v1/evidence",
        content=body.encode(),
        headers={**bearer(keys.write), "Content-Type": "application/json"},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["accepted"] == len(members) >= 6
    with store.engine.connect() as connection:
        stored = dict(
            connection.execute(
                select(EvidenceRow.evidence_id, EvidenceRow.content).where(
                    EvidenceRow.evidence_id.startswith(f"{agent}-")
                )
            ).all()
        )
    expected = {r.id: evidence_canonical_json(r) for r in RECORDS.validate_python(json.loads(body))}
    assert stored == expected


def test_a_body_refused_by_validate_json_gets_the_ordinary_answer(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    body = "[" + RECORD % ("e1", agent, '"passed":1,"total":"2"') + "]"
    answer = client.post(
        "/v1/evidence",
        content=body.encode(),
        headers={**bearer(keys.write), "Content-Type": "application/json"},
    )
    assert answer.status_code == 422
    assert answer.json()["details"] == [
        {"index": 0, "field": "total", "message": "Input should be a valid integer"}
    ]
    broken = client.post(
        "/v1/evidence",
        content=b'[{"id": ',
        headers={**bearer(keys.write), "Content-Type": "application/json"},
    )
    assert broken.status_code == 422
    assert broken.json()["details"][0]["message"].startswith("the body is not valid JSON (")
