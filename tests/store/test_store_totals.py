"""Running totals: ingestion scores equal a recompute from the whole history, field by field."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select, text, update

from tests.store.databases import BACKENDS, database, run_alembic
from tests.trust.validated import assert_as_validated
from trustprobe.store import (
    EvidenceSource,
    TrustStore,
    ingest_evidence,
    open_store,
    upgrade_database,
    verify_store,
)
from trustprobe.store.migration import head_revision
from trustprobe.store.schema import ScoreTotalRow, TransitionRow
from trustprobe.store.totals import (
    AgentTotals,
    add_records,
    config_key,
    in_future,
    load_totals,
    merge_totals,
    undecayed,
)
from trustprobe.trust import (
    CLOCK_SKEW,
    Dimension,
    Evidence,
    EvidenceTable,
    TrustConfig,
    TrustScore,
    compute_trust_score,
    compute_trust_scores,
    epoch_microseconds,
    parse_evidence,
)

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
DAY_US = 86_400_000_000
AGENTS = tuple(f"agent-{i:02d}" for i in range(24))
OPERATIONAL = {
    Dimension.LATENCY: ("latency_ms", "baseline_ms", 400.0),
    Dimension.COST_EFFICIENCY: ("cost", "task_value", 2.0),
    Dimension.RUNTIME_COMPLIANCE: ("violations", "actions", 50),
    Dimension.TEAMWORK: ("successful_collaborations", "collaborations", 20),
}
ORIGINS = (
    None,
    None,
    {"tool": "garak", "tool_version": "0.9", "run_id": "run-1", "family": "dan"},
    {"tool": "garak", "tool_version": "0.9", "run_id": "run-1", "family": "encoding"},
    {"tool": "promptfoo", "run_id": "eval-7", "file": "results.json"},
)


def random_record(rng: np.random.Generator, number: int, *, now: datetime) -> dict[str, Any]:
    """A random record about a random agent, observed from 20 days ago to just after ``now``."""
    agent = AGENTS[int(rng.integers(len(AGENTS)))]
    # Mostly within the 7-day grace; some decayed; a few inside the allowed clock skew.
    pick = rng.random()
    if pick < 0.94:
        age_us = int(rng.integers(0, 5 * DAY_US))
    elif pick < 0.98:
        age_us = int(rng.integers(7 * DAY_US, 20 * DAY_US))
    else:
        age_us = -int(rng.integers(1, CLOCK_SKEW // timedelta(microseconds=1)))
    record: dict[str, Any] = {
        "id": f"ev-{number:05d}-{int(rng.integers(1 << 30)):x}",
        "agent_id": agent,
        "observed_at": (now - timedelta(microseconds=age_us)).isoformat(),
    }
    kind = rng.random()
    if kind < 0.2:
        dimension = list(OPERATIONAL)[int(rng.integers(len(OPERATIONAL)))]
        metric, reference, scale = OPERATIONAL[dimension]
        value = float(rng.uniform(0, 1.5)) * scale
        if isinstance(scale, int):
            value = int(rng.integers(scale + 1))
        record |= {"kind": "operational", "dimension": dimension.value, "metric": metric}
        record |= {"value": value, reference: scale}
    else:
        dimension = (
            Dimension.ACCURACY,
            Dimension.SAFETY,
            Dimension.SECURITY,
            Dimension.SCOPE_HONESTY,
        )[int(rng.integers(4))]
        record |= {"kind": "eval" if kind < 0.85 else "jury", "dimension": dimension.value}
        if kind >= 0.85:
            record["scores"] = rng.uniform(0, 100, int(rng.integers(1, 8))).round(2).tolist()
        elif rng.random() < 0.5:
            total = int(rng.integers(1, 300))
            record |= {"passed": int(rng.integers(total + 1)), "total": total}
        else:
            # Zeros and low scores: those never lose points to decay, or lose them all.
            record["score"] = float(rng.choice([0.0, 0.5, rng.uniform(0, 100)]))
    origin = ORIGINS[int(rng.integers(len(ORIGINS)))]
    if origin is not None:
        record["source"] = origin
    return record


def stored_score_texts(store: TrustStore) -> dict[int, str]:
    """The score of every transition as stored, by seq."""
    with store.engine.connect() as connection:
        return dict(connection.execute(select(TransitionRow.seq, TransitionRow.score)).all())


def stored_scores(store: TrustStore) -> dict[int, TrustScore]:
    """The score of every transition, by seq."""
    return {
        seq: TrustScore.model_validate_json(text) for seq, text in stored_score_texts(store).items()
    }


def full_recompute(agent_id: str, history: list[Evidence], now: datetime) -> TrustScore:
    """The reference: the one-agent path over the agent's whole history."""
    return compute_trust_score(agent_id, history, now=now)


@pytest.mark.parametrize("seed", [3, 17])
def test_ingestion_scores_equal_a_full_recompute_on_random_histories(
    store: TrustStore, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    history: list[Evidence] = []
    now = START
    paths = {"totals": 0, "decayed items": 0, "history": 0}
    number = 0
    for _batch in range(14):
        # The clock moves on by up to six hours, so groups cross the 7-day grace between batches.
        now += timedelta(microseconds=int(rng.integers(0, DAY_US // 4)))
        size = int(rng.integers(1, 40))
        records = [parse_evidence(random_record(rng, number + i, now=now)) for i in range(size)]
        number += size
        key = config_key(store.config)
        before = set(stored_scores(store))
        result = ingest_evidence(
            store, records, organisation="acme", now=now, source=EvidenceSource.API
        )
        history.extend(records)
        assert result.accepted == size
        texts = stored_score_texts(store)
        new = {
            seq: TrustScore.model_validate_json(texts[seq]) for seq in texts if seq not in before
        }
        assert sorted(new) == result.transitions
        with store.engine.connect() as connection:
            pks = dict(connection.execute(text("SELECT agent_id, id FROM agents")).all())
            totals, stale = load_totals(connection, list(pks.values()), key=key)
        assert not stale
        for seq, score in new.items():
            reference = full_recompute(score.agent_id, history, now)
            assert score == reference
            # The bytes the chain hashes are those of a score whose models were all validated.
            assert_as_validated(reference)
            assert texts[seq] == reference.model_dump_json()
            agent_totals = totals[pks[score.agent_id]]
            now_us = epoch_microseconds(now)
            if undecayed(agent_totals, now_us, TrustConfig()):
                paths["totals"] += 1
            else:
                paths["history" if in_future(agent_totals, now_us) else "decayed items"] += 1
        # The batch engine over the same history gives the same scores.
        batch = compute_trust_scores(EvidenceTable.from_evidence(history), now=now)
        for score in new.values():
            assert batch[score.agent_id] == score
    # Every path was exercised, or the comparison above proves less than it claims.
    assert min(paths.values()) >= 3, paths


@pytest.mark.parametrize("seed", [5, 11])
def test_merged_totals_equal_totals_counted_record_by_record(seed: int) -> None:
    rng = np.random.default_rng(seed)
    config = TrustConfig()
    records = [parse_evidence(random_record(rng, number, now=START)) for number in range(300)]
    one_by_one: AgentTotals = {}
    merged: AgentTotals = {}
    for first in range(0, len(records), 70):  # an agent's history, then one batch after another
        part: AgentTotals = {}
        for record in records[first : first + 70]:
            add_records(one_by_one, [record], config, evidence_seq=0)
            add_records(part, [record], config, evidence_seq=0)
        merge_totals(merged, part)

    def spelled(totals: AgentTotals) -> dict[Dimension, tuple[Any, ...]]:
        return {
            dimension: (
                total.count, total.size.text(), total.raw.text(), total.low_confidence,
                total.newest_us, total.oldest_scored_us, total.origins, total.evidence_seq,
            )
            for dimension, total in totals.items()
        }  # fmt: skip

    assert spelled(merged) == spelled(one_by_one)
    assert len(one_by_one) >= 6 and any(total.origins for total in one_by_one.values())


def test_totals_made_under_other_item_settings_are_rebuilt(store: TrustStore) -> None:
    now = START
    first = [
        {"id": "j1", "agent_id": "a", "dimension": "safety", "kind": "jury",
         "observed_at": now.isoformat(), "scores": [10, 50, 60, 70, 100]},
    ]  # fmt: skip
    ingest_evidence(
        store, [parse_evidence(r) for r in first], organisation="acme", now=now,
        source=EvidenceSource.API,
    )  # fmt: skip
    config = TrustConfig(jury_min_verdicts=10)  # the jury becomes low-confidence
    other = TrustStore(store.engine, config=config)
    second = [parse_evidence({**first[0], "id": "j2", "scores": [20, 30]})]
    result = ingest_evidence(other, second, organisation="acme", now=now, source=EvidenceSource.API)
    score = stored_scores(store)[result.transitions[0]]
    history = [parse_evidence(first[0]), *second]
    assert score == compute_trust_score("a", history, now=now, config=config)
    assert score.dimensions[Dimension.SAFETY].low_confidence is True
    with store.engine.connect() as connection:
        keys = connection.execute(select(ScoreTotalRow.config_key)).scalars().all()
    assert keys == [config_key(config)]


@pytest.mark.parametrize("seed", [5, 11])
def test_moved_decay_sums_equal_a_full_recompute_as_now_goes_back_and_forth(
    store: TrustStore, seed: int
) -> None:
    # Steep decay (items reach 0 within weeks), records observed long before the batch that
    # brings them, and nows that go back: the moved sums are rebuilt or moved, never stale. A
    # second store on the same cache, with other decay settings, rebuilds the queues it shares.
    rng = np.random.default_rng(seed)
    steep = TrustConfig(decay_points_per_week=20.0, decay_grace_days=1.5)
    stores = (TrustStore(store.engine, config=steep, item_cache=store.item_cache), store)
    history: list[Evidence] = []
    for number in range(12):
        # Every record is observed before START and every now after it: no item is ever after
        # now, so each decaying agent takes the moved sums, whichever way now went.
        now = START + timedelta(microseconds=int(rng.integers(0, 30 * DAY_US)))
        handle = stores[number % 3 == 2]
        records = [
            parse_evidence(
                {"id": f"m{number}-{i}", "agent_id": f"agent-{int(rng.integers(3))}",
                 "dimension": ("accuracy", "safety")[int(rng.integers(2))], "kind": "eval",
                 "observed_at": (
                     START - timedelta(microseconds=int(rng.integers(0, 60 * DAY_US)))
                 ).isoformat(),
                 "score": float(rng.choice([0.0, 3.5, 50.0, 100.0]))}
            )
            for i in range(int(rng.integers(1, 12)))
        ]  # fmt: skip
        result = ingest_evidence(
            handle, records, organisation="acme", now=now, source=EvidenceSource.API
        )
        history.extend(records)
        texts = stored_score_texts(store)
        for seq in result.transitions:
            score = TrustScore.model_validate_json(texts[seq])
            reference = compute_trust_score(score.agent_id, history, now=now, config=handle.config)
            assert score == reference
    assert verify_store(store).ok


def _legacy_store(url: str, records: list[Evidence], now: datetime) -> None:
    """A store at 0003 holding ``records`` and their scores, as a 0003 trustprobe left it."""
    engine = open_store(url, upgrade=True).engine
    ingest_evidence(
        TrustStore(engine), records, organisation="acme", now=now, source=EvidenceSource.API
    )
    engine.dispose()
    run_alembic(url, "downgrade", "0003_evidence_source")


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrade_from_0003_backfills_the_totals(backend: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    records = [parse_evidence(random_record(rng, i, now=START)) for i in range(120)]
    later = START + timedelta(hours=1)
    with database(backend, tmp_path) as url:
        _legacy_store(url, records, START)
        store = open_store(url, upgrade=True)
        try:
            with store.engine.connect() as connection:
                counted = connection.execute(
                    text("SELECT sum(item_count) FROM score_totals")
                ).scalar_one()
            assert counted == len(records)
            extra = [parse_evidence(random_record(rng, 1000 + i, now=later)) for i in range(30)]
            result = ingest_evidence(
                store, extra, organisation="acme", now=later, source=EvidenceSource.API
            )
            history = [*records, *extra]
            for seq, score in stored_scores(store).items():
                if seq in result.transitions:
                    assert score == full_recompute(score.agent_id, history, later)
            assert verify_store(store).ok
        finally:
            store.close()


def test_verify_flags_totals_that_disagree_with_the_evidence(store: TrustStore) -> None:
    rng = np.random.default_rng(9)
    records = [parse_evidence(random_record(rng, i, now=START)) for i in range(60)]
    ingest_evidence(store, records, organisation="acme", now=START, source=EvidenceSource.API)
    assert verify_store(store).ok
    with store.engine.begin() as connection:
        victim = connection.execute(
            select(ScoreTotalRow.agent_pk, ScoreTotalRow.dimension).limit(1)
        ).one()
        connection.execute(
            update(ScoreTotalRow)
            .where(
                ScoreTotalRow.agent_pk == victim.agent_pk,
                ScoreTotalRow.dimension == victim.dimension,
            )
            .values(raw_sum="999/0")
        )
    report = verify_store(store)
    assert not report.ok
    problems = [b for b in report.breaks if b.chain == "totals"]
    assert len(problems) == 1
    assert victim.dimension in problems[0].problem
    assert "raw_sum" in json.dumps(problems[0].model_dump(mode="json"))


def test_upgrade_database_is_current_after_backfill(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url, upgrade=True)
    try:
        assert upgrade_database(store.engine)[1] == head_revision()
    finally:
        store.close()
