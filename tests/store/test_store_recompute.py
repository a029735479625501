"""``trust recompute`` in process: decay becomes visible, big swings are held as at ingestion."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from tests.cli.optional_extras import run_and_list_extras
from tests.store.databases import BACKENDS, history_rows, store_url, twin_stores
from tests.store.records import eval_record, parsed
from trustprobe.cli.main import app
from trustprobe.store import (
    EvidenceSource,
    NotFoundError,
    TrustStore,
    ingest_evidence,
    open_store,
    recompute_trust,
)
from trustprobe.store.schema import OrganisationRow

T0 = datetime(2021, 1, 4, 9, 0, tzinfo=UTC)
WEEKS_10 = T0 + timedelta(weeks=10)
YEARS_5 = T0 + timedelta(days=5 * 365)
# One accuracy eval each, observed at T0; composite = 10 x the decayed score, which loses
# 0.1 points a week after a 7-day grace: 0.9 points at 10 weeks, 25.97 points at 5 years.
SCORES = {"fading": 90.0, "low": 20.0}
EXPECTED = {
    "fading": (900, 891, 640),  # 90 → 89.1 → 64.03: 891 → 640 swings by 251, held for review
    "low": (200, 191, 0),  # 20 → 19.1 → 0 (floored): 191 → 0 swings by 191, committed
}


def _evidence() -> list[Any]:
    return parsed(
        *(eval_record(f"{agent}-1", agent, "accuracy", score, observed_at=T0)
          for agent, score in SCORES.items())
    )  # fmt: skip


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[TrustStore, ...]]:
    """Two stores that scored both agents at T0 (the first ingestion: 900 and 200)."""
    with twin_stores(request.param, tmp_path, _evidence(), organisation="acme", now=T0) as pair:
        yield pair


def _composites(url: str, agent: str) -> list[tuple[int | None, str, str]]:
    shown = _run("trust", "history", "--agent", agent, "--org", "acme", "--json",
                 "--database-url", url)  # fmt: skip
    transitions = json.loads(shown.stdout)["transitions"]
    return [(t["composite"], t["status"], t["trigger"]) for t in reversed(transitions)]


def test_recompute_makes_decay_visible_and_holds_big_swings_for_review(
    stores: tuple[TrustStore, ...],
) -> None:
    url = store_url(stores[0])
    db = ("--database-url", url)
    first = _run("trust", "recompute", "--org", "acme", "--now", WEEKS_10.isoformat(), *db)
    assert first.exit_code == 0, first.output
    assert first.stdout.strip() == (
        "2 agent(s) of 'acme' rescored in process as of 2021-03-15T09:00:00+00:00; "
        "0 review(s) opened"
    )
    second = _run("trust", "recompute", "--org", "acme", "--now", YEARS_5.isoformat(),
                  "--json", *db)  # fmt: skip
    assert second.exit_code == 0, second.output
    done = json.loads(second.stdout)
    assert (done["organisation"], done["agents"], done["partitions"]) == ("acme", 2, 0)
    assert done["computed_at"] == "2026-01-03T09:00:00Z"
    assert len(done["transitions"]) == 2
    (review_id,) = done["pending_reviews"]

    assert _composites(url, "fading") == [
        (900, "committed", "evidence:1 via api"),
        (891, "committed", "recompute"),
        (640, "pending_review", "recompute"),
    ]
    assert _composites(url, "low") == [
        (200, "committed", "evidence:1 via api"),
        (191, "committed", "recompute"),
        (0, "committed", "recompute"),
    ]
    # The review is the one ingestion would open: against the canonical 891, not the first 900.
    listed = json.loads(_run("reviews", "list", "--org", "acme", "--json", *db).stdout)
    assert [(r["id"], r["agent_id"], r["composite"], r["canonical_composite"]) for r in listed] == [
        (review_id, "fading", 640, 891)
    ]
    verified = _run("db", "verify", *db)
    assert verified.exit_code == 0
    assert "all chains verify" in verified.stdout


def test_a_recomputation_supersedes_the_pending_review(stores: tuple[TrustStore, ...]) -> None:
    store = stores[0]
    held = recompute_trust(store, organisation="acme", now=YEARS_5)
    again = recompute_trust(store, organisation="acme", now=YEARS_5 + timedelta(weeks=1))
    (first_review,) = held.pending_reviews
    (second_review,) = again.pending_reviews  # 639 against the canonical 900: held again
    listed = json.loads(
        _run("reviews", "list", "--org", "acme", "--status", "all", "--json",
             "--database-url", store_url(store)).stdout
    )  # fmt: skip
    assert [(r["id"], r["status"], r["decided_by"]) for r in listed] == [
        (first_review, "superseded", "system"),
        (second_review, "pending", None),
    ]


def test_partitions_mapped_in_threads_append_the_in_process_history(
    stores: tuple[TrustStore, ...],
) -> None:
    in_process, partitioned = stores
    expected = recompute_trust(in_process, organisation="acme", now=YEARS_5)
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = recompute_trust(
            partitioned,
            organisation="acme",
            now=YEARS_5,
            map_partitions=pool.map,
            agents_per_partition=1,
        )
    assert (done.partitions, done.recomputed_on_client) == (2, 0)
    assert (done.transitions, done.pending_reviews) == (
        expected.transitions,
        expected.pending_reviews,
    )
    assert history_rows(partitioned) == history_rows(in_process)


def test_unknown_organisation_is_an_error_and_is_not_created(
    stores: tuple[TrustStore, ...],
) -> None:
    store = stores[0]
    result = _run("trust", "recompute", "--org", "globex", "--database-url", store_url(store))
    assert result.exit_code == 2
    assert "no organisation 'globex' in this store" in result.stderr
    with pytest.raises(NotFoundError):
        recompute_trust(store, organisation="globex", now=YEARS_5, map_partitions=map)
    with store.engine.connect() as connection:
        names = connection.execute(select(func.count()).select_from(OrganisationRow))
        assert names.scalar_one() == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--engine", "spark"), "unknown engine 'spark'"),
        (("--workers", "2"), "--workers needs --engine dask"),
        (("--scheduler", "tcp://127.0.0.1:9"), "--scheduler needs --engine dask"),
        (("--engine", "dask", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"),
         "give --scheduler or --workers, not both"),
        (("--agents-per-partition", "10"), "--agents-per-partition needs --engine dask"),
        (("--now", "2026-01-03T09:00:00"), "needs a timezone offset"),
        (("--now", "yesterday"), "not an RFC 3339 time"),
    ],
    ids=["unknown-engine", "workers-alone", "scheduler-alone", "scheduler-and-workers",
         "partition-size-alone", "naive-now", "bad-now"],
)  # fmt: skip
def test_bad_options_are_refused_before_anything_runs(
    tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    url = f"sqlite:///{tmp_path / 'never-created.db'}"
    refused = _run("trust", "recompute", *options, "--database-url", url)
    assert refused.exit_code == 2
    assert re.search(message, refused.stderr)
    assert not (tmp_path / "never-created.db").exists()


def test_recompute_in_process_never_imports_dask(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url, upgrade=True)
    try:
        ingest_evidence(store, _evidence(), organisation="acme", now=T0, source=EvidenceSource.API)
    finally:
        store.close()
    output, loaded = run_and_list_extras(
        ["trust", "recompute", "--org", "acme", "--database-url", url], tmp_path
    )
    assert output[0].startswith("2 agent(s) of 'acme' rescored in process as of ")
    assert loaded == []
