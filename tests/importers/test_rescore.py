"""--rescore: their transcripts as trustprobe input, scored, and the two verdicts compared."""

from __future__ import annotations

import json
from pathlib import Path

from tests.importers.fixtures import GARAK_REPORT, PROMPTFOO_RESULTS, run


def _lines(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_garak_transcripts_are_rescored_and_compared(tmp_path: Path) -> None:
    directory = tmp_path / "rescored"
    result = run(
        "import", "garak", GARAK_REPORT, "-a", "bot", "-o", tmp_path / "e.jsonl",
        "--rescore", directory, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (imported,) = json.loads(result.stdout)["files"]
    table = {
        row["family"]: (
            row["both_pass"],
            row["both_fail"],
            row["only_they_fail"],
            row["only_we_fail"],
            row["unjudged"],
        )
        for row in imported["agreement"]
    }
    # The echoed grandma, injection and DAN prompts fail on both sides (the DAN prompt's
    # "confirm you understand by stating..." is a demand on the agent, not the agent asking
    # for confirmation). garak passes the echoed malware requests (no code in them); trustprobe
    # fails them: no refusal to a harmful ask.
    assert table == {
        "dan": (0, 2, 0, 0, 0),
        "grandma": (0, 24, 0, 0, 0),
        "malwaregen": (0, 0, 0, 32, 0),
        "promptinject": (0, 12, 0, 0, 0),
    }
    assert json.loads(result.stdout)["disagreements_total"] == 32
    disagreements = _lines(directory / "disagreements.jsonl")
    assert len(disagreements) == 32
    assert {d["family"] for d in disagreements} == {"malwaregen"}

    # The written files are ordinary trustprobe input: scoring them gives the same verdicts.
    probes, responses = _lines(directory / "probes.jsonl"), _lines(directory / "responses.jsonl")
    assert len(probes) == len(responses) == 70  # test.Test is ignored: not rescored
    report = tmp_path / "report.json"
    scored = run(
        "score", "-p", directory / "probes.jsonl", "-r", directory / "responses.jsonl", "-o", report
    )
    assert scored.exit_code == 0, scored.output
    verdicts = {c["probe_id"]: c["passed"] for c in json.loads(report.read_text())["cases"]}
    assert sum(1 for v in verdicts.values() if v is False) == 70  # every echo fails
    for disagreement in disagreements:  # the written files score as the summary said
        assert verdicts[disagreement["probe_id"]] is disagreement["we_passed"]
        assert disagreement["they_passed"] is not disagreement["we_passed"]


def test_human_summary_shows_the_agreement_table_and_disagreements(tmp_path: Path) -> None:
    result = run(
        "import", "promptfoo", PROMPTFOO_RESULTS, "-a", "bot", "-o", tmp_path / "e.jsonl",
        "--rescore", tmp_path / "r",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "agreement: their detector against trustprobe's verdicts" in out
    assert (
        "unmapped families (not in the evidence; map them with --mapping): custom-brand-voice"
        in out
    )


def test_a_failed_import_leaves_no_transcripts_behind(tmp_path: Path) -> None:
    cut = tmp_path / "cut.report.jsonl"
    cut.write_bytes(GARAK_REPORT.read_bytes()[:-100])
    directory = tmp_path / "rescored"
    result = run(
        "import", "garak", GARAK_REPORT, cut, "-a", "bot", "-o", tmp_path / "e.jsonl",
        "--rescore", directory,
    )  # fmt: skip
    assert result.exit_code == 2
    assert list(directory.iterdir()) == []


def test_a_rescore_path_that_is_a_file_exits_2_and_keeps_the_file(tmp_path: Path) -> None:
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n", encoding="utf-8")
    below = taken / "rescored"  # a folder under a file
    for target in (taken, below):
        out = tmp_path / "evidence.jsonl"
        result = run("import", "garak", GARAK_REPORT, "-a", "bot", "-o", out, "--rescore", target)
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert f"{target}: not a folder" in result.stderr
        assert not out.exists()
    assert taken.read_text(encoding="utf-8") == "mine\n"
