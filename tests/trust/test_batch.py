"""The vectorised batch path gives exactly the per-agent result."""

from datetime import timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from tests.trust.evidence_factory import NOW, eval_score
from tests.trust.strategies import evidence_lists
from tests.trust.validated import assert_as_validated

from trustprobe.errors import InputError
from trustprobe.trust import (
    Dimension,
    EvalEvidence,
    EvidenceTable,
    JuryEvidence,
    TrustConfig,
    WeightSet,
    compute_trust_score,
    compute_trust_scores,
)

AGENTS = ("agent-a", "agent-b", "agent-c")


def per_agent(evidence: list, **kwargs: object) -> dict:
    agents = sorted({e.agent_id for e in evidence})
    return {a: compute_trust_score(a, evidence, now=NOW, **kwargs) for a in agents}  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(evidence=evidence_lists(agents=AGENTS, max_size=40))
def test_batch_equals_per_agent_on_random_evidence(evidence: list) -> None:
    table = EvidenceTable.from_evidence(evidence)
    scores = compute_trust_scores(table, now=NOW)
    assert scores == per_agent(evidence)
    for score in scores.values():
        assert_as_validated(score)


def random_evidence(seed: int, agents: int, items: int) -> list:
    """Many items per (agent, dimension), so sums run long enough for order to matter."""
    rng = np.random.default_rng(seed)
    dimensions = list(Dimension)
    evidence: list = []
    for i in range(items):
        agent = f"agent-{int(rng.integers(agents)):03d}"
        dimension = dimensions[int(rng.integers(len(dimensions)))]
        age = timedelta(microseconds=int(rng.integers(-86_400_000_000, 900 * 86_400_000_000)))
        common = {"id": f"ev-{rng.integers(1 << 40):x}-{i}", "agent_id": agent}
        common |= {"dimension": dimension, "observed_at": NOW - age}
        if rng.random() < 0.15:
            scores = rng.uniform(0, 100, int(rng.integers(1, 9))).tolist()
            evidence.append(JuryEvidence(scores=scores, **common))
        elif rng.random() < 0.5:
            total = int(rng.integers(1, 200))
            evidence.append(
                EvalEvidence(passed=int(rng.integers(total + 1)), total=total, **common)
            )
        else:
            evidence.append(EvalEvidence(score=float(rng.uniform(0, 100)), **common))
    return evidence


def test_batch_equals_per_agent_with_long_groups() -> None:
    evidence = random_evidence(seed=7, agents=12, items=4000)  # ≈ 21 items per agent × dimension
    table = EvidenceTable.from_evidence(evidence)
    batch = compute_trust_scores(table, now=NOW)
    assert batch == per_agent(evidence)
    assert max(line.evidence_count for s in batch.values() for line in s.dimensions.values()) > 30


def test_batch_with_weights_and_config() -> None:
    evidence = random_evidence(seed=11, agents=5, items=600)
    config = TrustConfig(decay_points_per_week=2.0, security_gate_threshold=55.0, gold_min=700)
    weights = WeightSet({**dict.fromkeys(Dimension, 0.0625)}, "override")
    table = EvidenceTable.from_evidence(evidence, config=config)
    batch = compute_trust_scores(table, now=NOW, config=config, weights=weights)
    assert batch == per_agent(evidence, config=config, weights=weights)


def test_empty_table() -> None:
    assert compute_trust_scores(EvidenceTable.from_evidence([]), now=NOW) == {}


def test_agent_with_only_future_evidence_is_scored_unrated() -> None:
    future = eval_score(Dimension.ACCURACY, 90.0, age=-3.0)
    batch = compute_trust_scores(EvidenceTable.from_evidence([future]), now=NOW)
    assert batch["agent-a"] == compute_trust_score("agent-a", [future], now=NOW)
    assert batch["agent-a"].composite is None
    assert batch["agent-a"].ignored_future_count == 1


def columns(**overrides: object) -> EvidenceTable:
    base: dict[str, object] = {
        "agent_ids": ("agent-a",),
        "agent": np.array([0, 0], dtype=np.int64),
        "dimension": np.array([0, 0], dtype=np.int64),
        "item_id": np.array(["x", "x"]),
        "score": np.array([50.0, 50.0]),
        "size": np.array([1.0, 1.0]),
        "low_confidence": np.array([False, False]),
        "observed_us": np.array([0, 0], dtype=np.int64),
    }
    return EvidenceTable(**(base | overrides))  # type: ignore[arg-type]


def test_columns_with_a_repeated_id_count_once() -> None:
    score = compute_trust_scores(columns(), now=NOW)["agent-a"]
    assert score.dimensions[Dimension.ACCURACY].evidence_count == 1
    assert score.dimensions[Dimension.ACCURACY].raw_score == 50.0


def test_columns_with_a_conflicting_id_are_refused() -> None:
    with pytest.raises(InputError, match="evidence id 'x' appears twice"):
        compute_trust_scores(columns(score=np.array([50.0, 60.0])), now=NOW)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param({"score": np.array([50.0])}, "column 'score' has 1 rows", id="short-column"),
        pytest.param({"agent": np.array([0, 1])}, "agent codes", id="unknown-agent"),
        pytest.param({"dimension": np.array([0, 16])}, "dimension codes", id="bad-dimension"),
        pytest.param({"score": np.array([50.0, 101.0])}, "within 0–100", id="score-range"),
        pytest.param({"size": np.array([1.0, 0.5])}, "at least 1", id="size-range"),
        pytest.param({"agent": np.array([0.0, 0.0])}, "integers", id="float-codes"),
        pytest.param({"agent_ids": ("a", "a")}, "unique", id="repeated-agent-id"),
    ],
)
def test_malformed_columns_are_refused(overrides: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        columns(**overrides)


def test_config_that_changes_item_readings_needs_a_new_table() -> None:
    table = EvidenceTable.from_evidence([eval_score(Dimension.ACCURACY, 50.0)])
    with pytest.raises(ValueError, match="jury_min_verdicts"):
        compute_trust_scores(table, now=NOW, config=TrustConfig(jury_min_verdicts=3))
    # Decay, gates and tiers do not touch item readings: the same table serves them.
    compute_trust_scores(table, now=NOW, config=TrustConfig(decay_grace_days=0.0))
