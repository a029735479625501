"""promptfoo ``eval -o results.json``: streamed results, plugin families, bad files, the tool."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.importers.fixtures import (
    PROMPTFOO_CONFIG,
    PROMPTFOO_RESULTS,
    run,
    tool_env,
    tool_on_path,
)
from trustprobe.importers import builtin_family_mapping, import_results
from trustprobe.trust import Dimension


def _summary(path: Path):  # type: ignore[no-untyped-def]
    return import_results(
        "promptfoo", [path], agent_id="bot", mapping=builtin_family_mapping()
    ).summary


def test_fixture_tallies_by_plugin_and_lists_the_unmapped_one() -> None:
    result = import_results(
        "promptfoo", [PROMPTFOO_RESULTS], agent_id="bot", mapping=builtin_family_mapping()
    )
    (imported,) = result.summary.files
    assert (imported.tool_version, imported.run_id) == (
        "0.121.20",
        "eval-Hpg-2026-11-25T08:53:10",
    )
    # The echo provider answers with the prompt: "pii:direct" (mapped by its plugin 'pii')
    # fails once on "home address" and passes the harmless case; the rest as promptfoo graded.
    tallies = {f.family: (f.passed, f.failed, f.errors) for f in imported.families}
    assert tallies == {
        "hallucination": (0, 1, 0),
        "harmful": (1, 0, 0),
        "pii": (1, 1, 0),
        "prompt-extraction": (0, 1, 0),
    }
    assert result.summary.unmapped == {"custom-brand-voice": 1}
    # pii goes to safety and security: one record each, the same counts
    pii = sorted(
        (r.dimension, r.passed, r.total)
        for r in result.evidence
        if r.source is not None and r.source.family == "pii"
    )
    assert pii == [(Dimension.SAFETY, 1, 2), (Dimension.SECURITY, 1, 2)]
    # promptfoo's own stats agree on the verdicts
    stats = json.loads(PROMPTFOO_RESULTS.read_text())["results"]["stats"]
    assert (stats["successes"], stats["failures"]) == (3, 3)


def test_truncated_results_exit_2_naming_file_and_result(tmp_path: Path) -> None:
    data = PROMPTFOO_RESULTS.read_bytes()
    cut = tmp_path / "results.json"
    cut.write_bytes(data[: data.index(b'"testIdx": 3')])
    out = tmp_path / "evidence.jsonl"
    result = run("import", "promptfoo", cut, "-a", "bot", "-o", out)
    assert result.exit_code == 2
    assert f"{cut}: field 'results.results[3]': not valid JSON after 3 complete result(s)" in (
        result.stderr
    )
    assert not out.exists()


def test_a_result_without_a_verdict_exits_2_naming_it(tmp_path: Path) -> None:
    document = json.loads(PROMPTFOO_RESULTS.read_text())
    del document["results"]["results"][2]["success"]
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps(document), encoding="utf-8")
    result = run("import", "promptfoo", bad, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 2
    assert f"{bad}: field 'results.results[2].success': must be true or false" in result.stderr


def test_a_provider_error_is_unjudged_not_failed(tmp_path: Path) -> None:
    document = json.loads(PROMPTFOO_RESULTS.read_text())
    first = document["results"]["results"][0]
    first.update({"success": False, "failureReason": 2, "error": "provider timed out"})
    errored = tmp_path / "results.json"
    errored.write_text(json.dumps(document), encoding="utf-8")
    tallies = {
        f.family: (f.passed, f.failed, f.errors) for f in _summary(errored).files[0].families
    }
    assert tallies["pii"] == (1, 0, 1)


def test_another_json_file_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "report.json"
    other.write_text('{"schema_version": "1", "cases": []}', encoding="utf-8")
    result = run("import", "promptfoo", other, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 2
    assert "no 'results.results' list" in result.stderr


def test_json_lines_are_named_as_such(tmp_path: Path) -> None:
    # One result per line is what `promptfoo eval -o results.jsonl` writes; it was called
    # "trailing garbage (a truncated or damaged file?)".
    results = json.loads(PROMPTFOO_RESULTS.read_text())["results"]["results"]
    lines = tmp_path / "results.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    result = run("import", "promptfoo", lines, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 2
    assert f"{lines}: more than one JSON document (JSON Lines?)" in result.stderr
    assert "promptfoo eval -o results.json" in result.stderr


def test_invalid_utf8_is_named_in_words(tmp_path: Path) -> None:
    data = PROMPTFOO_RESULTS.read_bytes()
    at = data.index(b"home address")
    bad = tmp_path / "results.json"
    bad.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    result = run("import", "promptfoo", bad, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.exit_code == 2
    assert "invalid bytes in UTF8 string" in result.stderr
    assert "b'" not in result.stderr and "\\x" not in result.stderr  # no bytes repr


def _nested(depth: int, where: Path) -> Path:
    """The fixture with ``depth`` nested arrays in the first result's metadata."""
    document = json.loads(PROMPTFOO_RESULTS.read_text())
    document["results"]["results"][0]["metadata"] = "@"
    text = json.dumps(document).replace('"@"', "[" * depth + "]" * depth)
    where.write_text(text, encoding="utf-8")
    return where


def test_deep_nesting_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    # Read with prefixes for every level, 50,000 nested brackets (100 kB) took 6.2 GB and
    # 200,000 had the process killed: the prefix of each level is as long as its depth.
    deep = _nested(5_000, tmp_path / "deep.json")
    out = tmp_path / "evidence.jsonl"
    result = run("import", "promptfoo", deep, "-a", "bot", "-o", out)
    assert result.exit_code == 2, result.output
    assert f"{deep}: field 'results.results[0]': nested too deeply to read" in result.stderr
    assert not out.exists()
    # nesting a real file might hold still reads
    assert _summary(_nested(200, tmp_path / "fine.json")).files[0].families


def test_real_promptfoo_eval_imports_like_the_fixture(tmp_path: Path) -> None:
    """promptfoo's echo provider, as tests/data/promptfoo/README.md records."""
    promptfoo = tool_on_path("promptfoo")
    fresh = tmp_path / "results.json"
    subprocess.run(
        [
            promptfoo,
            "eval",
            "-c",
            str(PROMPTFOO_CONFIG),
            "-o",
            str(fresh),
            "--no-cache",
            "--no-table",
        ],
        check=False,  # promptfoo exits 100 when a test case fails, as three do here
        capture_output=True,
        env=tool_env(),
        cwd=tmp_path,
        timeout=600,
    )
    now, then = _summary(fresh), _summary(PROMPTFOO_RESULTS)
    assert now.files[0].families == then.files[0].families
    assert now.unmapped == then.unmapped
