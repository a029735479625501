"""``trustprobe trust score`` and ``trustprobe trust evidence`` through the real command."""

import json
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.trust.evidence_factory import everywhere, jury, record_fields
from typer.testing import CliRunner

from trustprobe.cli.main import app
from trustprobe.trust import Dimension, evidence_canonical_json, load_evidence

REPORT_PATH = Path(__file__).parent / "data" / "report_small.json"
AS_OF = "2025-06-01T12:00:00Z"
runner = CliRunner()


def write_evidence(path: Path, items: list) -> Path:
    path.write_text("".join(evidence_canonical_json(e) + "\n" for e in items), encoding="utf-8")
    return path


def test_score_json_has_the_documented_fields(tmp_path: Path) -> None:
    items = [e for e in everywhere(80.0) if e.dimension is not Dimension.SECURITY]
    items.append(jury(Dimension.SECURITY, [10, 50, 55, 58, 90]))  # → 55: the gate applies
    path = write_evidence(tmp_path / "e.jsonl", items)
    result = runner.invoke(
        app,
        [
            "trust",
            "score",
            "--evidence",
            str(path),
            "--agent",
            "agent-a",
            "--as-of",
            AS_OF,
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["agent_id"] == "agent-a"
    assert data["composite"] == 599  # uncapped 10 × (0.93 × 80 + 0.07 × 55) = 782.5
    assert data["tier"] == "bronze"
    assert data["security_gate"]["applied"] is True
    assert data["weights_source"] == "base"
    assert data["coverage"]["covered_count"] == 16
    assert data["dimensions"]["security"]["score"] == 55.0
    assert data["dimensions"]["accuracy"]["evidence_count"] == 1
    assert data["as_of"] == "2025-06-01T12:00:00Z"
    assert any("security gate" in r for r in data["reasons"])


def test_score_table_explains_each_dimension(tmp_path: Path) -> None:
    path = write_evidence(tmp_path / "e.jsonl", everywhere(80.0)[:3])
    result = runner.invoke(
        app, ["trust", "score", "--evidence", str(path), "--agent", "agent-a", "--as-of", AS_OF]
    )
    assert result.exit_code == 0, result.output
    assert "accuracy" in result.output and "teamwork" in result.output
    # 3 of 16 covered at 80: composite 800 (gold by points), held at bronze by coverage.
    assert "composite: 800" in result.output
    assert "tier held at bronze" in result.output


def test_score_with_weight_override(tmp_path: Path) -> None:
    path = write_evidence(tmp_path / "e.jsonl", everywhere(70.0))
    override = tmp_path / "w.json"
    override.write_text(json.dumps({"accuracy": 0.15, "reliability": 0.06}), encoding="utf-8")
    args = ["trust", "score", "-e", str(path), "-a", "agent-a", "--as-of", AS_OF, "--json"]
    result = runner.invoke(app, [*args, "--weights-override", str(override)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["weights_source"] == "override"
    assert data["weights"]["accuracy"] == 0.15


def test_as_of_must_carry_a_timezone(tmp_path: Path) -> None:
    path = write_evidence(tmp_path / "e.jsonl", everywhere(70.0))
    args = ["trust", "score", "-e", str(path), "-a", "agent-a", "--as-of", "2025-06-01T12:00:00"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "timezone" in result.stderr


def test_bad_evidence_line_exits_2_naming_the_line(cli: Cli, tmp_path: Path) -> None:
    path = write_evidence(tmp_path / "e.jsonl", everywhere(70.0)[:2])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "x", "agent_id": "agent-a", "dimension": "accuracy"}\n')
    done = cli("trust", "score", "-e", path, "-a", "x")
    assert done.returncode == 2
    stderr = "".join(done.stderr.split())  # rich may wrap the long temp path
    assert f"{path}:3:field'kind'" in stderr


def test_evidence_from_report_to_stdout_and_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["trust", "evidence", str(REPORT_PATH), "--agent", "agent-r"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 7  # security, safety, runtimeCompliance, scopeHonesty + 3 operational
    output = tmp_path / "out" / "e.jsonl"
    again = runner.invoke(
        app, ["trust", "evidence", str(REPORT_PATH), "-a", "agent-r", "--output", str(output)]
    )
    assert again.exit_code == 0, again.output
    assert output.read_text(encoding="utf-8").splitlines() == lines  # same ids, same content
    loaded = load_evidence(output)
    assert {e.observed_at.isoformat() for e in loaded} == {"2025-05-20T08:30:00+00:00"}
    scored = runner.invoke(
        app, ["trust", "score", "-e", str(output), "-a", "agent-r", "--as-of", AS_OF, "--json"]
    )
    assert json.loads(scored.output)["composite"] is not None


def test_evidence_with_mapping_and_observed_at(tmp_path: Path) -> None:
    mapping = tmp_path / "m.json"
    mapping.write_text(json.dumps({"latency_baseline_ms": 500}), encoding="utf-8")
    args = ["trust", "evidence", str(REPORT_PATH), "-a", "r", "--mapping", str(mapping)]
    result = runner.invoke(app, [*args, "--observed-at", "2025-05-30T00:00:00+02:00"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.output.splitlines()]
    assert {r["observed_at"] for r in records} == {"2025-05-29T22:00:00Z"}
    assert "latency" in {r["dimension"] for r in records}


def test_evidence_needs_a_time(tmp_path: Path) -> None:
    report = json.loads(REPORT_PATH.read_text(encoding="utf-8"))
    report["provenance"]["created_at"] = "2025-05-20T08:30:00"  # no time zone: no usable time
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    result = runner.invoke(app, ["trust", "evidence", str(path), "-a", "r"])
    assert result.exit_code == 2
    assert "--observed-at" in result.stderr


def test_record_exits_with_the_code_its_help_names_for_a_refused_record(
    cli: Cli, tmp_path: Path
) -> None:
    database = ["--database-url", f"sqlite:///{tmp_path / 'store.db'}"]
    assert cli("db", "upgrade", *database).returncode == 0
    record = record_fields()
    first, changed = tmp_path / "first.jsonl", tmp_path / "changed.jsonl"
    first.write_text(json.dumps(record) + "\n")
    changed.write_text(json.dumps({**record, "score": 60}) + "\n")
    assert cli("trust", "record", "-e", first, *database).returncode == 0
    refused = cli("trust", "record", "-e", changed, *database)
    assert refused.returncode == 2, refused.stderr
    assert f"rejected: {changed}:1" in refused.stderr
    helped = cli("trust", "record", "--help")
    assert "exit 2 if any record was refused" in " ".join(helped.stdout.split())


def test_score_of_an_agent_the_file_never_names_says_whom_it_names(
    cli: Cli, tmp_path: Path
) -> None:
    # A typo in --agent gave "composite: null ... no dimension has evidence", exit 0, with
    # nothing to say the file held evidence, only about another agent.
    path = write_evidence(tmp_path / "e.jsonl", everywhere(70.0)[:3])
    done = cli("trust", "score", "-e", path, "-a", "agent-A")
    assert done.returncode == 0
    assert "composite: null" in done.stdout
    said = " ".join(done.stderr.split())
    assert f"warning: {path} holds no evidence about agent 'agent-A'" in said
    assert "3 record(s) about 'agent-a'" in said
    quiet = cli("trust", "score", "-e", path, "-a", "agent-a")
    assert "warning" not in quiet.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["trust", "history", "-a", "agent-a", "--before", str(2**63)],
        ["trust", "history", "-a", "agent-a", "--before", "0"],
        ["reviews", "approve", str(2**63), "--reason", "ok"],
        ["reviews", "reject", "0", "--reason", "no"],
        ["keys", "revoke", str(10**20)],
    ],
    ids=["history-before-huge", "history-before-0", "approve-huge", "reject-0", "revoke-huge"],
)
def test_ids_out_of_range_are_usage_errors(cli: Cli, tmp_path: Path, args: list[str]) -> None:
    # A sequence or id past a database integer crashed with an OverflowError traceback and
    # exit 1; the service bounds the same values (before <= 2**62, review ids <= 2**31 - 1).
    database = ["--database-url", f"sqlite:///{tmp_path / 'store.db'}"]
    assert cli("db", "upgrade", *database).returncode == 0
    done = cli(*args, *database)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "Invalid value" in done.stderr


@pytest.mark.parametrize(
    ("setting", "spelling"),
    [
        ("decay_points_per_week", "1e400"),
        ("decay_grace_days", ".inf"),
        ("latency_tolerance", ".inf"),
        ("compliance_violation_penalty", "1e999"),
        ("interval_z", ".inf"),
    ],
)
def test_an_infinite_trust_setting_is_exit_2_naming_it(
    cli: Cli, tmp_path: Path, setting: str, spelling: str
) -> None:
    # YAML reads 1e400 and .inf as infinity; decay then crashed with an OverflowError
    # traceback (exit 1), and an infinite penalty times no violations is NaN.
    path = write_evidence(tmp_path / "e.jsonl", everywhere(70.0)[:3])
    config = tmp_path / "trust.yaml"
    config.write_text(f"{setting}: {spelling}\n")
    done = cli("trust", "score", "-e", path, "-a", "agent-a", "--config", config)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"field '{setting}'" in done.stderr
