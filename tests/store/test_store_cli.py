"""The store's commands end to end: db, keys, trust record/history, reviews."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from tests.store.records import eval_record
from trustprobe.cli.main import app
from trustprobe.store import authenticate, create_store_engine, open_store
from trustprobe.store.keys import KEY_PATTERN

# The CLI scores at the real current time; evidence from just now is inside the 7-day decay
# grace period, so the expected composites below need no decay.
RECENT = datetime.now(UTC)


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _write(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_commands_refuse_a_database_that_was_not_upgraded(database_url: str) -> None:
    result = _run("trust", "history", "--agent", "alpha", "--database-url", database_url)
    assert result.exit_code == 2
    assert "run `trustprobe db upgrade`" in result.stderr


def test_store_commands_end_to_end(database_url: str, tmp_path: Path) -> None:
    db = ("--database-url", database_url)
    upgraded = _run("db", "upgrade", *db)
    assert upgraded.exit_code == 0
    assert "upgraded from an empty database to 0004_score_totals" in upgraded.stdout
    assert "already at 0004_score_totals" in _run("db", "upgrade", *db).stdout

    created = _run("keys", "create", "--org", "acme", "--scopes", "read,write", *db)
    assert created.exit_code == 0
    key = created.stdout.strip()
    assert KEY_PATTERN.match(key)
    assert created.stdout == key + "\n"  # the key alone on stdout
    assert key not in created.stderr
    store = open_store(database_url)
    try:
        principal = authenticate(store, key)
    finally:
        store.close()
    assert principal is not None
    assert principal.organisation == "acme"

    first = _write(
        tmp_path / "first.jsonl",
        eval_record("e1", "alpha", "accuracy", 90, observed_at=RECENT),
        eval_record("e2", "alpha", "accuracy", 90, observed_at=RECENT),
    )
    recorded = _run("trust", "record", "--evidence", str(first), "--org", "acme", *db)
    assert recorded.exit_code == 0, recorded.output
    assert "accepted 2, duplicate 0, rejected 0; 1 agent(s) rescored" in recorded.stdout

    # A conflict on line 2 is refused and named; the new record on line 1 still lands, and
    # it swings the score: mean(90, 90, 30) = 70 → 700, 200 below 900... exactly 200: direct.
    second = _write(
        tmp_path / "second.jsonl",
        eval_record("e3", "alpha", "accuracy", 30, observed_at=RECENT),
        eval_record("e1", "alpha", "accuracy", 10, observed_at=RECENT),
    )
    recorded = _run("trust", "record", "--evidence", str(second), "--org", "acme", *db)
    assert recorded.exit_code == 2  # bad input, not a failed gate
    assert f"{second}:2: field 'id'" in recorded.stderr
    assert "already stored with different content" in recorded.stderr

    # mean(90, 90, 30, 0, 0) = 42 → 420: 280 below 700, held for review
    third = _write(
        tmp_path / "third.jsonl",
        eval_record("e4", "alpha", "accuracy", 0, observed_at=RECENT),
        eval_record("e5", "alpha", "accuracy", 0, observed_at=RECENT),
    )
    recorded = _run("trust", "record", "--evidence", str(third), "--org", "acme", "--json", *db)
    assert recorded.exit_code == 0
    (review_id,) = json.loads(recorded.stdout)["pending_reviews"]

    history = _run("trust", "history", "--agent", "alpha", "--org", "acme", "--json", *db)
    transitions = json.loads(history.stdout)["transitions"]
    assert [(t["composite"], t["status"]) for t in transitions] == [
        (420, "pending_review"),
        (700, "committed"),
        (900, "committed"),
    ]
    assert [t["trigger"] for t in transitions] == [
        "evidence:2 via cli",
        "evidence:1 via cli",
        "evidence:2 via cli",
    ]
    table = _run("trust", "history", "--agent", "alpha", "--org", "acme", *db)
    assert "420" in table.stdout and "cli" in table.stdout

    listed = json.loads(_run("reviews", "list", "--org", "acme", "--json", *db).stdout)
    assert [(r["id"], r["composite"], r["canonical_composite"]) for r in listed] == [
        (review_id, 420, 700)
    ]
    approved = _run(
        "reviews",
        "approve",
        str(review_id),
        "--reason",
        "bad eval batch confirmed",
        "--reviewer",
        "ana",
        "--org",
        "acme",
        *db,
    )
    assert approved.exit_code == 0, approved.output
    assert "user:ana" in approved.stdout
    again = _run("reviews", "reject", str(review_id), "--reason", "x", "--org", "acme", *db)
    assert again.exit_code == 2
    assert "already approved" in again.stderr
    elsewhere = _run("reviews", "reject", str(review_id), "--reason", "x", "--org", "globex", *db)
    assert elsewhere.exit_code == 2
    assert "no review" in elsewhere.stderr
    assert "no pending reviews" in _run("reviews", "list", "--org", "acme", *db).stdout

    verified = _run("db", "verify", *db)
    assert verified.exit_code == 0
    assert "all chains verify" in verified.stdout
    engine = create_store_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE evidence SET received_at = observed_at"))
    finally:
        engine.dispose()
    broken = _run("db", "verify", *db)
    assert broken.exit_code == 1
    assert "broken: evidence of organisation 'acme' at" in broken.stderr


def test_bad_evidence_files_name_the_line_and_field(database_url: str, tmp_path: Path) -> None:
    _run("db", "upgrade", "--database-url", database_url)
    bad = tmp_path / "bad.jsonl"
    good = eval_record("e1", "alpha", "accuracy", 90, observed_at=RECENT)
    bad.write_text(json.dumps(good) + "\n" + json.dumps({**good, "score": 101}) + "\n")
    refused = _run("trust", "record", "--evidence", str(bad), "--database-url", database_url)
    assert refused.exit_code == 2
    assert f"error: {bad}:2: field 'score':" in refused.stderr
    store = open_store(database_url)
    try:
        with store.engine.connect() as connection:
            assert connection.execute(text("SELECT count(*) FROM evidence")).scalar_one() == 0
    finally:
        store.close()


def test_keys_create_refuses_unknown_scopes(database_url: str) -> None:
    _run("db", "upgrade", "--database-url", database_url)
    refused = _run("keys", "create", "--scopes", "read,admin", "--database-url", database_url)
    assert refused.exit_code == 2
    assert "unknown scope 'admin'" in refused.stderr


def test_keys_list_and_revoke(database_url: str) -> None:
    db = ("--database-url", database_url)
    _run("db", "upgrade", *db)
    assert _run("keys", "list", *db).stdout.strip() == "no keys"
    key = _run("keys", "create", "--org", "acme", "--scopes", "read", "--label", "ci", *db)
    _run("keys", "create", "--org", "globex", "--scopes", "review", *db)
    (listed,) = json.loads(_run("keys", "list", "--org", "acme", "--json", *db).stdout)
    assert set(listed) == {
        "id", "prefix", "organisation", "scopes", "label", "created_at", "revoked_at"
    }  # fmt: skip
    assert (listed["organisation"], listed["scopes"], listed["label"], listed["revoked_at"]) == (
        "acme",
        ["read"],
        "ci",
        None,
    )
    table = _run("keys", "list", *db).stdout
    assert listed["prefix"] in table and "globex" in table
    assert key.stdout.strip() not in table

    revoked = _run("keys", "revoke", str(listed["id"]), *db)
    assert revoked.exit_code == 0
    assert f"revoked key {listed['id']} (prefix {listed['prefix']}) of organisation 'acme'" in (
        revoked.stdout
    )
    again = _run("keys", "revoke", str(listed["id"]), *db)
    assert again.exit_code == 0
    assert "was already revoked at" in again.stdout
    (after,) = json.loads(_run("keys", "list", "--org", "acme", "--json", *db).stdout)
    assert after["revoked_at"] is not None
    store = open_store(database_url)
    try:
        assert authenticate(store, key.stdout.strip()) is None
    finally:
        store.close()

    unknown = _run("keys", "revoke", "999", *db)
    assert unknown.exit_code == 2
    assert "no API key with id 999" in unknown.stderr


def test_organisation_comes_from_trustprobe_org(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = ("--database-url", database_url)
    assert _run("db", "upgrade", *db).exit_code == 0
    evidence = _write(
        tmp_path / "e.jsonl", eval_record("e1", "alpha", "accuracy", 90, observed_at=RECENT)
    )
    monkeypatch.setenv("TRUSTPROBE_ORG", "acme")
    recorded = _run("trust", "record", "--evidence", str(evidence), *db)
    assert recorded.exit_code == 0, recorded.output
    history = _run("trust", "history", "--agent", "alpha", "--json", *db)
    assert history.exit_code == 0, history.output
    assert [t["composite"] for t in json.loads(history.stdout)["transitions"]] == [900]
    # --org still wins over the environment.
    elsewhere = _run("trust", "history", "--agent", "alpha", "--org", "default", *db)
    assert elsewhere.exit_code == 2
    monkeypatch.delenv("TRUSTPROBE_ORG")
    # Without the variable the default organisation is 'default', which has no alpha: the
    # error names the organisation asked and the ones that do have the agent.
    missing = _run("trust", "history", "--agent", "alpha", *db)
    assert missing.exit_code == 2
    assert (
        "no agent 'alpha' in organisation 'default'; organisations that have it: acme"
        in " ".join(missing.stderr.split())
    )
    unknown = _run("trust", "history", "--agent", "nobody", *db)
    assert "no agent 'nobody' in organisation 'default'; no organisation has it" in " ".join(
        unknown.stderr.split()
    )


@pytest.mark.parametrize(
    "command",
    [
        ("trust", "record"),
        ("trust", "history"),
        ("trust", "recompute"),
        ("reviews", "list"),
        ("reviews", "approve"),
        ("reviews", "reject"),
        ("keys", "create"),
        ("keys", "list"),
    ],
)
def test_every_org_option_documents_trustprobe_org(command: tuple[str, str]) -> None:
    shown = _run(*command, "--help")
    assert shown.exit_code == 0
    assert "TRUSTPROBE_ORG" in shown.stdout, shown.stdout
