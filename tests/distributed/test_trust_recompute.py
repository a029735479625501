"""Recomputing many agents' trust from PostgreSQL on the cluster equals doing it on one machine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from distributed import Client
from typer.testing import CliRunner

from tests.store.databases import history_rows, store_url, twin_stores
from tests.store.records import eval_record, parsed
from trustprobe.cli.errors import exit_code_for
from trustprobe.cli.main import app
from trustprobe.distributed import (
    DistributedRunError,
    append_scores,
    on_cluster,
    organisation_agents,
    recompute_trust,
    score_agents,
)
from trustprobe.errors import ExitCode
from trustprobe.store import (
    EvidenceSource,
    ReviewStatus,
    TrustStore,
    ingest_evidence,
    list_reviews,
    open_store,
    verify_store,
)
from trustprobe.store.recompute import Agent

T0 = datetime(2021, 1, 4, 9, 0, tzinfo=UTC)
# Five years on, every T0 item has lost 0.1 points a week beyond the 7-day grace: about 26
# points of 100, i.e. about 260 composite points, unless it hits 0 first. An agent at 90 swings
# by more than 200 (held for review); an agent at 15 floors at 0 and swings by only 150.
LATER = T0 + timedelta(days=5 * 365)
DIMENSIONS = ("accuracy", "reliability", "safety", "security")
AGENTS = 40


def _records() -> list[dict[str, Any]]:
    records = []
    for agent in range(AGENTS):
        score = 15.0 + (agent * 37) % 80  # 15..94: some swing past 200, some cannot
        for number, dimension in enumerate(DIMENSIONS):
            records.append(
                eval_record(
                    f"ev-{agent:03d}-{number}",
                    f"agent-{agent:03d}",
                    dimension,
                    min(100.0, score + number),
                    observed_at=T0,
                )
            )
    return records


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[TrustStore, TrustStore]]:
    """Two PostgreSQL stores (fresh schemas) holding the same evidence, ingested identically."""
    evidence = parsed(*_records())
    with twin_stores("postgresql", tmp_path, evidence, organisation="acme", now=T0) as pair:
        yield pair


@pytest.mark.postgres
def test_cluster_recomputation_appends_the_one_machine_history(
    client: Client, stores: tuple[TrustStore, TrustStore]
) -> None:
    local, distributed = stores
    for now in (LATER, LATER + timedelta(weeks=1)):  # the second supersedes the first's reviews
        on_one = recompute_trust(local, organisation="acme", now=now)
        on_cluster_ = recompute_trust(
            distributed,
            organisation="acme",
            now=now,
            map_partitions=on_cluster(client),
            agents_per_partition=7,
        )
        assert on_cluster_.partitions == 6  # 40 agents, 7 per task
        assert on_cluster_.recomputed_on_client == 0
        assert (on_one.transitions, on_one.pending_reviews) == (
            on_cluster_.transitions,
            on_cluster_.pending_reviews,
        )
        assert 0 < len(on_cluster_.pending_reviews) < AGENTS  # some swings held, some not
    transitions, reviews = history_rows(distributed)
    assert (transitions, reviews) == history_rows(local)  # every column, every hash
    assert len(transitions) == 3 * AGENTS  # first score, then two recomputations
    superseded = list_reviews(distributed, organisation="acme", status=ReviewStatus.SUPERSEDED)
    assert len(superseded) == len(on_one.pending_reviews)
    assert verify_store(distributed).ok


@pytest.mark.postgres
def test_cli_on_the_cluster_appends_the_in_process_history(
    client: Client, stores: tuple[TrustStore, TrustStore]
) -> None:
    local, distributed = stores
    now = ("--now", LATER.isoformat())
    in_process = CliRunner().invoke(
        app,
        ["trust", "recompute", "--org", "acme", *now, "--json",
         "--database-url", store_url(local)],
    )  # fmt: skip
    assert in_process.exit_code == 0, in_process.output
    on_dask = CliRunner().invoke(
        app,
        ["trust", "recompute", "--org", "acme", *now, "--json", "--engine", "dask",
         "--scheduler", client.scheduler.address, "--agents-per-partition", "7",
         "--database-url", store_url(distributed)],
    )  # fmt: skip
    assert on_dask.exit_code == 0, on_dask.output
    done = json.loads(on_dask.stdout)
    assert (done["agents"], done["partitions"], done["recomputed_on_client"]) == (AGENTS, 6, 0)
    expected = json.loads(in_process.stdout)
    assert (done["transitions"], done["pending_reviews"]) == (
        expected["transitions"],
        expected["pending_reviews"],
    )
    assert expected["partitions"] == 0
    assert history_rows(distributed) == history_rows(local)
    verified = CliRunner().invoke(app, ["db", "verify", "--database-url", store_url(distributed)])
    assert verified.exit_code == 0
    assert "all chains verify" in verified.stdout


@pytest.mark.postgres
def test_agent_whose_evidence_grew_meanwhile_is_rescored_under_the_lock(
    stores: tuple[TrustStore, TrustStore],
) -> None:
    local, distributed = stores
    agents = organisation_agents(distributed, "acme")
    # Scores computed as a worker would (same function, same database), before new evidence.
    computed = {
        item.pk: item
        for item in score_agents(
            store_url(distributed),
            agents,
            now=LATER,
            config=distributed.config,
            weights=distributed.weights,
        )
    }
    late = parsed(eval_record("ev-late", "agent-003", "accuracy", 99.0, observed_at=LATER))
    for store in (local, distributed):
        ingest_evidence(store, late, organisation="acme", now=LATER, source=EvidenceSource.API)
    appended, on_client = append_scores(
        distributed, organisation="acme", agents=agents, computed=computed, now=LATER
    )
    assert on_client == 1  # agent-003 only
    expected = recompute_trust(local, organisation="acme", now=LATER)
    assert [seq for seq, _ in appended] == expected.transitions
    assert history_rows(distributed) == history_rows(local)


def test_a_worker_that_cannot_read_the_store_is_a_cluster_failure(
    client: Client, tmp_path: Path
) -> None:
    # The workers find no tables in an empty SQLite file: a database error on the cluster.
    empty = tmp_path / "empty.db"
    empty.touch()
    task = partial(score_agents, f"sqlite:///{empty}", now=LATER, config=None, weights=None)
    with pytest.raises(DistributedRunError, match="a worker could not read the store's database"):
        on_cluster(client)(task, [[Agent(1, "agent-001")]])


def test_cluster_failures_exit_with_their_own_code() -> None:
    assert exit_code_for(DistributedRunError("the cluster lost a partition")) == 4
    assert ExitCode.CLUSTER_FAILED == 4 != ExitCode.TARGET_UNREACHABLE


def test_an_organisation_without_agents_needs_no_cluster(tmp_path: Path) -> None:
    # Nothing listens on port 9: reaching the scheduler would fail after 30 s with exit code 3.
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url, upgrade=True)
    try:
        ingest_evidence(store, [], organisation="acme", now=T0, source=EvidenceSource.API)
    finally:
        store.close()
    result = CliRunner().invoke(
        app,
        ["trust", "recompute", "--org", "acme", "--engine", "dask",
         "--scheduler", "tcp://127.0.0.1:9", "--database-url", url],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "0 agent(s) of 'acme' rescored in 0 partition(s) on the cluster" in result.stdout
