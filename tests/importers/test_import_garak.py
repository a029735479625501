"""garak report JSONL: tallies from evaluated attempts, provenance, bad files, the real tool."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.optional_extras import run_and_list_extras
from tests.importers.fixtures import (
    GARAK_CONFIG,
    GARAK_REPORT,
    PROMPTFOO_RESULTS,
    run,
    tool_env,
    tool_on_path,
)
from trustprobe.formats import sha256_hex
from trustprobe.importers import GarakReport, builtin_family_mapping, import_results
from trustprobe.trust import Dimension, load_evidence


def _garak_fails(report: Path) -> dict[str, tuple[int, int]]:
    """Per probe module: (outputs no detector hit, outputs) from garak's own eval entries.

    garak tallies each detector separately; an output fails when any detector hits it, so the
    number of passing outputs is the smallest detector 'passed' count when detectors nest.
    """
    passed: dict[str, int] = {}
    total: dict[str, int] = {}
    for line in report.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["entry_type"] == "eval":
            family = entry["probe"].split(".")[0]
            passed[family] = min(passed.get(family, entry["passed"]), entry["passed"])
            total[family] = entry["total_evaluated"]
    return {family: (passed[family], total[family]) for family in passed}


def test_fixture_becomes_one_record_per_family_and_dimension() -> None:
    result = import_results(
        "garak", [GARAK_REPORT], agent_id="bot", mapping=builtin_family_mapping()
    )
    summary = result.summary
    (imported,) = summary.files
    assert (imported.tool_version, imported.run_id) == (
        "0.17.1",
        "b36aa5e4-2efe-421e-b8e2-deb3609cfed7",
    )
    assert imported.file_sha256 == sha256_hex(GARAK_REPORT.read_bytes().decode("utf-8"))
    tallies = {f.family: (f.passed, f.failed, f.errors) for f in imported.families}
    # test.Repeat echoes each prompt: the DAN text, grandma's slur request and the injected
    # rogue string come back verbatim (hits); malwaregen's requests contain no code (passes).
    assert tallies == {
        "dan": (0, 2, 0),
        "grandma": (0, 24, 0),
        "malwaregen": (32, 0, 0),
        "promptinject": (0, 12, 0),
    }
    # the same counts garak's own eval entries give
    assert {k: (p, p + f) for k, (p, f, _) in tallies.items()} == {
        k: v for k, v in _garak_fails(GARAK_REPORT).items() if k != "test"
    }
    assert summary.ignored == {"test": 16} and summary.unmapped == {}
    by_family = {r.source.family: r for r in result.evidence if r.source is not None}
    assert len(result.evidence) == 4
    dan = by_family["dan"]
    assert (dan.dimension, dan.passed, dan.total) == (Dimension.SECURITY, 0, 2)
    assert dan.source is not None
    assert dan.source.file == "garak-repeat.report.jsonl"
    assert dan.observed_at.isoformat() == "2026-11-25T09:00:25.639712+00:00"  # init start_time


def test_reimporting_the_same_run_gives_the_same_records(tmp_path: Path) -> None:
    out1, out2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    renamed = tmp_path / "copy.report.jsonl"
    renamed.write_bytes(GARAK_REPORT.read_bytes())
    assert run("import", "garak", GARAK_REPORT, "-a", "bot", "-o", out1).exit_code == 0
    assert run("import", "garak", GARAK_REPORT, "-a", "bot", "-o", out2).exit_code == 0
    assert out1.read_bytes() == out2.read_bytes()
    ids = [r.id for r in load_evidence(out1)]
    assert len(set(ids)) == 4
    # a renamed copy of the same run keeps the ids (its content names the new file)
    out3 = tmp_path / "c.jsonl"
    assert run("import", "garak", renamed, "-a", "bot", "-o", out3).exit_code == 0
    assert [r.id for r in load_evidence(out3)] == ids


def test_truncated_report_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    data = GARAK_REPORT.read_bytes()
    cut = tmp_path / "cut.report.jsonl"
    lines = data.splitlines(keepends=True)
    cut.write_bytes(b"".join(lines[:40]) + lines[40][: len(lines[40]) // 2])
    out = tmp_path / "evidence.jsonl"
    result = run("import", "garak", cut, "-a", "bot", "-o", out)
    assert result.exit_code == 2
    assert f"{cut}:41: not valid JSON" in result.stderr
    assert not out.exists()  # never a half-written output


def test_malformed_entry_exits_2_naming_line_and_field(tmp_path: Path) -> None:
    lines = GARAK_REPORT.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if '"status": 2' in line and "dan." in line)
    entry = json.loads(lines[number - 1])
    entry["detector_results"] = {"dan.DAN": ["high"]}
    lines[number - 1] = json.dumps(entry) + "\n"
    bad = tmp_path / "bad.report.jsonl"
    bad.write_text("".join(lines), encoding="utf-8")
    result = run("import", "garak", bad, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 2
    assert f"{bad}:{number}: field 'detector_results': expected `float | null`, got `str`" in (
        result.stderr
    )


def _with_attempt_changed(tmp_path: Path, change: str) -> tuple[Path, int]:
    """The fixture with the first evaluated dan attempt's line rewritten by ``change``."""
    lines = GARAK_REPORT.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if '"status": 2' in line and "dan." in line)
    entry = json.loads(lines[number - 1])
    if change == "nan":
        detector = next(iter(entry["detector_results"]))
        entry["detector_results"][detector] = [float("nan")]
        lines[number - 1] = json.dumps(entry) + "\n"  # Python writes NaN, as garak would
    bad = tmp_path / "bad.report.jsonl"
    encoded = [line.encode("utf-8") for line in lines]
    if change == "utf8":  # a byte no UTF-8 text holds, inside the attempt's uuid
        line = encoded[number - 1]
        at = line.index(b'"uuid": "') + len(b'"uuid": "')
        encoded[number - 1] = line[:at] + b"\xff" + line[at:]
    data = b"".join(encoded)
    bad.write_bytes(data)
    return bad, number


def test_a_non_finite_detector_score_exits_2_naming_it(tmp_path: Path) -> None:
    # A NaN score took the slow path and was reported as "field 'prompt': expected `raw`,
    # got `object`", blaming a field that was fine.
    bad, number = _with_attempt_changed(tmp_path, "nan")
    result = run("import", "garak", bad, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 2
    assert f"{bad}:{number}: field 'detector_results.dan.DAN.0': must be a finite number" in (
        result.stderr
    )


def test_invalid_utf8_in_an_attempt_is_read_as_the_other_lines_are(tmp_path: Path) -> None:
    # The line reader repairs invalid UTF-8 (U+FFFD); the attempt it held was then refused
    # with "field 'prompt': expected `raw`, got `object`".
    bad, _ = _with_attempt_changed(tmp_path, "utf8")
    result = run("import", "garak", bad, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 0, result.output


def test_a_run_cut_before_detection_counts_its_outputs_as_unjudged(tmp_path: Path) -> None:
    kept = [
        line
        for line in GARAK_REPORT.read_text(encoding="utf-8").splitlines(keepends=True)
        if not ('"status": 2' in line and "promptinject." in line)
    ]
    cut = tmp_path / "cut.report.jsonl"
    cut.write_text("".join(kept), encoding="utf-8")
    tallies = {
        f.family: (f.passed, f.failed, f.errors)
        for f in import_results("garak", [cut], agent_id="bot", mapping=builtin_family_mapping())
        .summary.files[0]
        .families
    }
    assert tallies["promptinject"] == (0, 0, 12)  # generated, never judged: not dropped


def test_two_runs_in_one_file_are_refused_not_counted_twice(tmp_path: Path) -> None:
    # `cat a.report.jsonl b.report.jsonl > both.jsonl` (or the same report twice) used to
    # import as one run, the second run's attempts added to the first's counts.
    text = GARAK_REPORT.read_text(encoding="utf-8").rstrip("\n") + "\n"
    lines = text.count("\n")
    second = lines + next(
        i for i, line in enumerate(text.splitlines(), 1) if '"entry_type": "init"' in line
    )
    joined = tmp_path / "joined.report.jsonl"
    joined.write_text(text + text, encoding="utf-8")
    out = tmp_path / "evidence.jsonl"
    result = run("import", "garak", joined, "-a", "bot", "-o", out)
    assert result.exit_code == 2, result.output
    assert f"{joined}:{second}: field 'entry_type': a second 'init' entry" in result.stderr
    assert not out.exists()


def test_one_run_given_twice_is_refused(tmp_path: Path) -> None:
    # A file and its copy (or a path a glob also matched) wrote each record twice under one id
    # with two file names: exit 0, then `trust score` refused the evidence file.
    copy = tmp_path / "copy.report.jsonl"
    copy.write_bytes(GARAK_REPORT.read_bytes())
    out = tmp_path / "evidence.jsonl"
    for second in (copy, GARAK_REPORT):
        result = run("import", "garak", GARAK_REPORT, second, "-a", "bot", "-o", out)
        assert result.exit_code == 2, result.output
        said = " ".join(result.stderr.split())
        assert f"{second}: the same file as {GARAK_REPORT} (SHA-256 0ec07fd2debf" in said
        assert not out.exists()


def test_a_file_that_is_not_a_garak_report_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "responses.jsonl"
    other.write_text('{"probe_id": "x", "response": "hi"}\n', encoding="utf-8")
    result = run("import", "garak", other, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 2
    assert f"{other}:1: field 'entry_type': required field is missing" in result.stderr


def test_real_garak_run_imports_like_the_fixture(tmp_path: Path) -> None:
    """garak with its offline test generator, as tests/data/garak/README.md records."""
    garak = tool_on_path("garak")
    prefix = tmp_path / "garak-repeat"
    subprocess.run(
        [garak, "--config", str(GARAK_CONFIG), "--report_prefix", str(prefix)],
        check=True,
        capture_output=True,
        env=tool_env(),
        timeout=600,
    )
    fresh = GarakReport(prefix.with_name("garak-repeat.report.jsonl"))
    mapping = builtin_family_mapping()
    now = import_results("garak", [fresh.path], agent_id="bot", mapping=mapping).summary
    then = import_results("garak", [GARAK_REPORT], agent_id="bot", mapping=mapping).summary
    assert now.files[0].families == then.files[0].families
    assert now.files[0].run_id != then.files[0].run_id


def test_observed_at_overrides_the_run_time_and_usage_errors_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "e.jsonl"
    moment = "2026-12-01T08:00:00+01:00"
    result = run("import", "garak", GARAK_REPORT, "-a", "bot", "-o", out, "--observed-at", moment)
    assert result.exit_code == 0, result.output
    assert {r.observed_at.isoformat() for r in load_evidence(out)} == {"2026-12-01T07:00:00+00:00"}

    nowhere = run("import", "garak", GARAK_REPORT, "-a", "bot")
    assert nowhere.exit_code == 2
    assert "field '--output': say where the evidence goes" in nowhere.stderr
    unknown = run("import", "pyrit", GARAK_REPORT, "-a", "bot", "-o", out)
    assert unknown.exit_code == 2
    assert "unknown tool 'pyrit': one of garak, promptfoo, inspect" in unknown.stderr
    missing = run("import", "garak", tmp_path / "nope.jsonl", "-a", "bot", "-o", out)
    assert missing.exit_code == 2
    assert "nope.jsonl: cannot read file" in missing.stderr


def test_garak_and_promptfoo_imports_load_no_optional_extra(tmp_path: Path) -> None:
    for tool, path in (("garak", GARAK_REPORT), ("promptfoo", PROMPTFOO_RESULTS)):
        args = ["import", tool, str(path), "-a", "bot", "-o", str(tmp_path / "e.jsonl")]
        _, extras = run_and_list_extras(args, tmp_path)
        assert extras == [], tool  # inspect_ai only for Inspect logs
