"""Imported evidence over HTTP: its source is kept, served, and named by the score."""

from __future__ import annotations

import json

import httpx

from tests.importers.fixtures import GARAK_REPORT, PROMPTFOO_RESULTS
from tests.service.conftest import NOW, Keys, bearer
from trustprobe.importers import builtin_family_mapping, import_results
from trustprobe.trust import evidence_canonical_json


def _imported(agent: str) -> list[dict[str, object]]:
    records = []
    for tool, path in (("garak", GARAK_REPORT), ("promptfoo", PROMPTFOO_RESULTS)):
        result = import_results(
            tool,  # type: ignore[arg-type]
            [path],
            agent_id=agent,
            mapping=builtin_family_mapping(),
            observed_at=NOW,  # the service's clock: the runs are recent evidence
        )
        records += [json.loads(evidence_canonical_json(r)) for r in result.evidence]
    return records


def test_sources_are_stored_served_and_explained(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    records = _imported(agent)
    first = client.post("/v1/evidence", json=records, headers=bearer(keys.write)).json()
    assert (first["accepted"], first["rejected"]) == (9, [])  # 4 garak + 5 promptfoo records
    again = client.post("/v1/evidence", json=records, headers=bearer(keys.write)).json()
    assert (again["accepted"], again["duplicate"]) == (0, 9)  # re-importing is a no-op

    runs = client.get(f"/v1/agents/{agent}/sources", headers=bearer(keys.read))
    assert runs.status_code == 200
    assert [(r["tool"], r["run_id"], r["evidence_count"]) for r in runs.json()] == [
        ("garak", "b36aa5e4-2efe-421e-b8e2-deb3609cfed7", 4),
        ("promptfoo", "eval-Hpg-2026-11-25T08:53:10", 5),
    ]
    score = client.get(f"/v1/agents/{agent}/score", headers=bearer(keys.read)).json()["score"]
    assert [(s["tool"], s["file"]) for s in score["sources"]] == [
        ("garak", "garak-repeat.report.jsonl"),
        ("promptfoo", "results.json"),
    ]
    assert score["sources"][1]["families"] == [
        "hallucination",
        "harmful",
        "pii",
        "prompt-extraction",
    ]


def test_sources_of_an_unknown_agent_is_404_and_other_organisations_see_nothing(
    client: httpx.Client, keys: Keys, agent: str
) -> None:
    client.post("/v1/evidence", json=_imported(agent), headers=bearer(keys.write))
    assert (
        client.get(f"/v1/agents/{agent}/sources", headers=bearer(keys.other_org)).status_code == 404
    )
    assert client.get("/v1/agents/nobody/sources", headers=bearer(keys.read)).status_code == 404
