"""Imported evidence in the store: the source columns, their migration, runs, verification."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from tests.importers.fixtures import GARAK_REPORT, INSPECT_LOG, PROMPTFOO_RESULTS, run
from tests.store.conftest import NOW
from tests.store.databases import run_alembic
from tests.store.records import eval_record, parsed
from trustprobe.importers import builtin_family_mapping, import_results
from trustprobe.store import (
    EvidenceSource,
    TrustStore,
    canonical_score,
    create_store_engine,
    ingest_evidence,
    open_store,
    stored_runs,
    verify_store,
)

SOURCE_COLUMNS = {"source_tool", "source_run_id", "source_file_sha256"}


def test_0002_adds_source_columns_and_keeps_existing_evidence(database_url: str) -> None:
    store = open_store(database_url, upgrade=True)
    ingest_evidence(
        store,
        parsed(eval_record("old-1", "alpha", "accuracy", 80, observed_at=NOW)),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.CLI,
    )
    store.close()
    run_alembic(database_url, "downgrade", "0001_initial")
    engine = create_store_engine(database_url)
    columns = {c["name"] for c in inspect(engine).get_columns("evidence")}
    engine.dispose()
    assert not columns & SOURCE_COLUMNS

    run_alembic(database_url, "upgrade", "head")
    store = open_store(database_url)
    try:
        with store.engine.connect() as connection:
            row = connection.execute(
                text("SELECT evidence_id, source_tool, source_run_id FROM evidence")
            ).one()
        assert tuple(row) == ("old-1", None, None)  # kept; no source: empty columns
        assert verify_store(store).ok
        assert canonical_score(store, organisation="acme", agent_id="alpha").score.composite == 800
    finally:
        store.close()


def test_imported_records_fill_the_columns_and_list_their_runs(store: TrustStore) -> None:
    evidence = []
    for tool, path in (("garak", GARAK_REPORT), ("promptfoo", PROMPTFOO_RESULTS)):
        evidence += import_results(
            tool,  # type: ignore[arg-type]
            [path],
            agent_id="alpha",
            mapping=builtin_family_mapping(),
            observed_at=NOW,
        ).evidence
    result = ingest_evidence(
        store, evidence, organisation="acme", now=NOW, source=EvidenceSource.IMPORT
    )
    assert result.accepted == 9
    runs = stored_runs(store, organisation="acme", agent_id="alpha")
    assert [(r.tool, r.evidence_count) for r in runs] == [("garak", 4), ("promptfoo", 5)]
    assert runs[0].file_sha256 == evidence[0].source.file_sha256  # type: ignore[union-attr]
    assert verify_store(store).ok

    # a column that no longer matches the hashed content is a break db verify names
    with store.engine.begin() as connection:
        connection.execute(
            text("UPDATE evidence SET source_run_id = 'forged' WHERE source_tool = 'garak'")
        )
    report = verify_store(store)
    assert not report.ok
    assert "column 'source_run_id' disagrees" in report.breaks[0].problem


def test_cli_imports_three_tools_into_the_store_once(database_url: str, tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    db = ("--database-url", database_url)
    assert run("db", "upgrade", *db).exit_code == 0
    mapping = tmp_path / "mine.yaml"
    mapping.write_text("tools:\n  inspect:\n    injection_guard: {dimensions: [security]}\n")
    imports = (
        ("garak", GARAK_REPORT),
        ("promptfoo", PROMPTFOO_RESULTS),
        ("inspect", INSPECT_LOG),
    )
    for tool, path in imports:
        result = run("import", tool, path, "-a", "alpha", "--store", "--mapping", mapping, *db)
        assert result.exit_code == 0, result.output
        assert "accepted" in result.stdout and "rejected 0" in result.stdout
    again = run("import", "garak", GARAK_REPORT, "-a", "alpha", "--store", *db)
    assert "accepted 0, duplicate 4, rejected 0" in again.stdout

    history = json.loads(run("trust", "history", "-a", "alpha", "--json", *db).stdout)
    transitions = history["transitions"]  # newest first
    assert len(transitions) == 3  # one per import, none for the no-op
    assert transitions[0]["trigger"] == "evidence:1 via import"
    newest = transitions[0]["score"]["sources"]
    assert [(s["tool"], s["evidence_count"]) for s in newest] == [
        ("garak", 4),
        ("inspect", 1),
        ("promptfoo", 5),
    ]


SOURCE_INDEX = "ix_evidence_organisation_id_source_tool_source_run_id"


def source_index_condition(database_url: str) -> str | None:
    """The source index's condition; ``None`` when it holds every row."""
    engine = create_store_engine(database_url)
    try:
        (index,) = (i for i in inspect(engine).get_indexes("evidence") if i["name"] == SOURCE_INDEX)
        options = index.get("dialect_options", {})
        condition = options.get("sqlite_where", options.get("postgresql_where"))
        return None if condition is None else str(condition)
    finally:
        engine.dispose()


def evidence_ids(database_url: str) -> list[str]:
    engine = create_store_engine(database_url)
    try:
        with engine.connect() as connection:
            return list(
                connection.execute(text("SELECT evidence_id FROM evidence ORDER BY seq")).scalars()
            )
    finally:
        engine.dispose()


def test_0006_keeps_only_records_with_a_source_in_the_source_index(database_url: str) -> None:
    store = open_store(database_url, upgrade=True)
    evidence = parsed(eval_record("plain-1", "alpha", "accuracy", 80, observed_at=NOW))
    evidence += import_results(
        "garak", [GARAK_REPORT], agent_id="alpha", mapping=builtin_family_mapping(),
        observed_at=NOW,
    ).evidence  # fmt: skip
    ingest_evidence(store, evidence, organisation="acme", now=NOW, source=EvidenceSource.IMPORT)
    store.close()
    stored = evidence_ids(database_url)
    assert len(stored) == 5
    assert "source_tool IS NOT NULL" in (source_index_condition(database_url) or "")

    run_alembic(database_url, "downgrade", "0005_rate_buckets")
    assert source_index_condition(database_url) is None
    run_alembic(database_url, "upgrade", "head")
    assert "source_tool IS NOT NULL" in (source_index_condition(database_url) or "")
    assert evidence_ids(database_url) == stored
    store = open_store(database_url)
    try:
        runs = stored_runs(store, organisation="acme", agent_id="alpha")
        assert [(r.tool, r.evidence_count) for r in runs] == [("garak", 4)]
        assert verify_store(store).ok
    finally:
        store.close()
