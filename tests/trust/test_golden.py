"""Golden scenarios in data/golden/*.json, hand-computed (the arithmetic is in each file)."""

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from tests.trust.validated import assert_as_validated

from trustprobe.trust import (
    EvidenceTable,
    TrustConfig,
    compute_trust_score,
    compute_trust_scores,
    parse_evidence,
    resolve_weights,
)

GOLDEN = sorted((Path(__file__).parent / "data" / "golden").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_there_are_golden_scenarios() -> None:
    assert len(GOLDEN) >= 8


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_scenario(path: Path, tmp_path: Path) -> None:
    scenario = load(path)
    assert scenario["arithmetic"], "each golden scenario shows its hand computation"
    evidence = [parse_evidence(e) for e in scenario["evidence"]]
    config = TrustConfig.model_validate(scenario["config"])
    override = None
    if scenario["weights_override"] is not None:
        override = tmp_path / "weights.json"
        override.write_text(json.dumps(scenario["weights_override"]), encoding="utf-8")
    weights = resolve_weights(config, override_path=override, environ={})
    now = datetime.fromisoformat(scenario["as_of"])

    score = compute_trust_score("agent-g", evidence, now=now, config=config, weights=weights)
    expect = scenario["expect"]
    assert score.composite == expect["composite"]
    assert score.tier.value == expect["tier"]
    assert score.security_gate.applied is expect["security_gate_applied"]
    assert score.reasons == expect["reasons"]
    for name, value in expect["dimensions"].items():
        actual = score.model_dump(mode="json")["dimensions"][name]["score"]
        assert actual == (None if value is None else pytest.approx(value, abs=1e-9)), name
    if "weights_source" in expect:
        assert score.weights_source == expect["weights_source"]
    if "points_above_floor" in expect:
        assert score.tier_margin.points_above_floor == expect["points_above_floor"]

    # The batch path gives the identical score.
    table = EvidenceTable.from_evidence(evidence, config=config)
    batch = compute_trust_scores(table, now=now, config=config, weights=weights)["agent-g"]
    assert batch == score
    # Both built their models unvalidated: they are the models validation builds.
    assert_as_validated(score)
    assert_as_validated(batch)
