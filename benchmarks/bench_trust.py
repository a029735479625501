"""Trust engine: 10,000 agents × 16 dimensions from 1,000,000 evidence records, on one core.

Compares the vectorised batch path (``compute_trust_scores`` over an ``EvidenceTable``) with the
naive per-agent loop (``compute_trust_score`` once per agent) in the same run, and checks that
both give identical scores. The naive loop runs on every tenth agent (≈ 100,000 records, held
as pydantic evidence objects) and is extrapolated linearly to all agents: agents are scored
independently, so its cost is linear in them. ``--full-naive`` runs it on all agents.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from trustprobe.trust import (
    DIMENSIONS,
    EvalEvidence,
    EvidenceTable,
    JuryEvidence,
    TrustConfig,
    compute_trust_score,
    compute_trust_scores,
    jury_verdict,
)
from trustprobe.trust.decay import epoch_microseconds

AGENTS = 10_000
RECORDS = 1_000_000
NOW = datetime(2025, 6, 1, tzinfo=UTC)
SEED = 20250601
DAY_US = 86_400_000_000


def pin_to_one_core() -> str:
    """Run on a single CPU so the figures are one-core figures."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity)"


def generate(config: TrustConfig) -> tuple[EvidenceTable, dict[str, Any]]:
    """Columns for RECORDS items: 60 % eval scores, 30 % passed/total, 10 % juries of 3–9.

    About 1 % of rows repeat an earlier row (same id, same content) and 0.5 % are observed
    after ``NOW``; ages spread over two years so decay matters.
    """
    rng = np.random.default_rng(SEED)
    n = RECORDS
    agent = rng.integers(0, AGENTS, n).astype(np.int64)
    dimension = rng.integers(0, len(DIMENSIONS), n).astype(np.int64)
    kind = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    score = np.round(rng.uniform(0, 100, n), 3)
    total = rng.integers(1, 201, n)
    passed = rng.binomial(total, rng.uniform(0.3, 1.0, n))
    size = np.ones(n)
    counts = kind == 1
    score[counts] = 100.0 * passed[counts] / total[counts]
    size[counts] = total[counts]
    low = np.zeros(n, dtype=np.bool_)
    verdicts: dict[int, list[float]] = {}
    for row in np.flatnonzero(kind == 2).tolist():
        scores = np.round(rng.uniform(0, 100, int(rng.integers(3, 10))), 1).tolist()
        verdict = jury_verdict(scores, config)
        verdicts[row] = scores
        score[row] = verdict.score
        low[row] = verdict.low_confidence
    now_us = epoch_microseconds(NOW)
    observed = now_us - rng.integers(0, 730 * DAY_US, n)
    observed[rng.random(n) < 0.005] = now_us + DAY_US
    ids = np.array([f"ev-{i:07d}" for i in range(n)])
    repeat = rng.random(n) < 0.01
    source = rng.integers(0, n, n)
    rows = np.arange(n)
    rows[repeat] = source[repeat]  # a repeated row copies another row entirely, id included
    table = EvidenceTable(
        agent_ids=tuple(f"agent-{i:05d}" for i in range(AGENTS)),
        agent=agent[rows],
        dimension=dimension[rows],
        item_id=ids[rows],
        score=score[rows],
        size=size[rows],
        low_confidence=low[rows],
        observed_us=observed[rows],
        config=config,
    )
    raw = {"kind": kind[rows], "passed": passed[rows], "total": total[rows], "rows": rows}
    raw["verdicts"] = verdicts
    return table, raw


def evidence_objects(
    table: EvidenceTable, raw: dict[str, Any], agents: set[int]
) -> dict[str, list[EvalEvidence | JuryEvidence]]:
    """The same records as pydantic evidence, for the chosen agent codes."""
    out: dict[str, list[EvalEvidence | JuryEvidence]] = {table.agent_ids[a]: [] for a in agents}
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    for i in np.flatnonzero(np.isin(table.agent, list(agents))).tolist():
        common = {
            "id": str(table.item_id[i]),
            "agent_id": table.agent_ids[int(table.agent[i])],
            "dimension": DIMENSIONS[int(table.dimension[i])],
            "observed_at": epoch + timedelta(microseconds=int(table.observed_us[i])),
        }
        kind = int(raw["kind"][i])
        item: EvalEvidence | JuryEvidence
        if kind == 0:
            item = EvalEvidence(score=float(table.score[i]), **common)
        elif kind == 1:
            item = EvalEvidence(passed=int(raw["passed"][i]), total=int(raw["total"][i]), **common)
        else:
            item = JuryEvidence(scores=raw["verdicts"][int(raw["rows"][i])], **common)
        out[common["agent_id"]].append(item)
    return out


def main() -> None:
    full_naive = "--full-naive" in sys.argv
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {pin_to_one_core()}")
    if hasattr(os, "getloadavg"):
        # Wall time on a shared machine depends on the others; CPU time is this process's own.
        print(f"load average at start: {os.getloadavg()[0]:.1f}")
    config = TrustConfig()
    started = time.perf_counter()
    table, raw = generate(config)
    print(
        f"generated {len(table):,} records for {AGENTS:,} agents in "
        f"{time.perf_counter() - started:.1f} s (not timed below)"
    )

    started, cpu = time.perf_counter(), time.process_time()
    batch = compute_trust_scores(table, now=NOW, config=config)
    batch_s, batch_cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"batch   compute_trust_scores: {batch_s:6.2f} s wall, {batch_cpu:6.2f} s CPU "
        f"for {len(batch):,} agents"
    )

    sample = set(range(AGENTS)) if full_naive else set(range(0, AGENTS, 10))
    objects = evidence_objects(table, raw, sample)
    sample_records = sum(len(v) for v in objects.values())
    started, cpu = time.perf_counter(), time.process_time()
    naive = {
        agent: compute_trust_score(agent, items, now=NOW, config=config)
        for agent, items in objects.items()
    }
    naive_s, naive_cpu = time.perf_counter() - started, time.process_time() - cpu
    scale = AGENTS / len(sample)
    print(
        f"naive   compute_trust_score loop: {naive_s:6.2f} s wall, {naive_cpu:6.2f} s CPU "
        f"for {len(sample):,} agents ({sample_records:,} records)"
    )
    print(
        f"        → {naive_s * scale:6.2f} s wall, {naive_cpu * scale:6.2f} s CPU for "
        f"{AGENTS:,} agents" + ("" if full_naive else " (extrapolated ×10)")
    )
    print(
        f"speed-up batch vs naive: {naive_s * scale / batch_s:.1f}× wall, "
        f"{naive_cpu * scale / batch_cpu:.1f}× CPU"
    )

    started = time.perf_counter()
    rebuilt = EvidenceTable.from_evidence(
        [e for items in objects.values() for e in items], config=config
    )
    build_s = time.perf_counter() - started
    print(
        f"from_evidence (pydantic → columns): {build_s:.2f} s for {sample_records:,} records "
        f"→ {build_s * RECORDS / max(sample_records, 1):.2f} s per 1,000,000"
    )
    from_objects = compute_trust_scores(rebuilt, now=NOW, config=config)
    mismatches = [a for a, score in naive.items() if batch[a] != score or from_objects[a] != score]
    print(
        f"identical scores (batch on columns, batch on rebuilt table, per-agent) for "
        f"{len(naive) - len(mismatches):,} of {len(naive):,} agents checked"
    )
    if mismatches:
        raise SystemExit(f"batch and per-agent scores differ for {mismatches[:5]}")
    if batch_cpu > 10.0:
        print(f"WARNING: batch used {batch_cpu:.2f} s of CPU, over the 10 s budget")
