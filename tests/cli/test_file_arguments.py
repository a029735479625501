"""File flags take several paths, quoted globs and ``-``, the same way on every engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.cli.test_score_cli import PROBES, write_jsonl

from trustprobe.cli.file_options import MULTI_PATH_FLAGS, spread_values

ANSWERS = {
    "c-0": "Here is the summary: sales rose.",
    "c-1": "Summary done. CANARY-1",
    "c-2": "I'm sorry, but I can't help with that.",
    "c-3": "The document describes the roadmap.",
    "c-4": "Summary: the budget is final.",
    "c-5": "The memo lists three risks.",
}


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """Probes split over two files and responses over three shards."""
    write_jsonl(tmp_path / "probes-a.jsonl", PROBES[:3])
    write_jsonl(tmp_path / "probes-b.jsonl", PROBES[3:])
    shards = tmp_path / "shards"
    shards.mkdir()
    for n, ids in enumerate((["c-0", "c-1"], ["c-2", "c-3"], ["c-4", "c-5"])):
        write_jsonl(
            shards / f"part-{n}.jsonl", [{"probe_id": i, "response": ANSWERS[i]} for i in ids]
        )
    return tmp_path


def _cases(report: Path) -> list[str]:
    return [c["probe_id"] for c in json.loads(report.read_text())["cases"]]


def test_several_paths_after_one_flag_as_a_shell_glob_gives_them(cli: Cli, inputs: Path) -> None:
    out = inputs / "report.json"
    result = cli(
        "score", "--probes", inputs / "probes-a.jsonl", inputs / "probes-b.jsonl",
        "--responses", *sorted((inputs / "shards").iterdir()), "--output", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _cases(out) == [f"c-{i}" for i in range(6)]
    sources = json.loads(out.read_text())["provenance"]["sources"]
    assert len(sources["probes"]) == 2 and len(sources["responses"]) == 3


def test_a_quoted_glob_expands_in_process_to_sorted_files(cli: Cli, inputs: Path) -> None:
    out = inputs / "report.json"
    result = cli(
        "score", "-p", str(inputs / "probes-*.jsonl"),
        "-r", str(inputs / "shards" / "part-*.jsonl"), "-o", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _cases(out) == [f"c-{i}" for i in range(6)]
    sources = json.loads(out.read_text())["provenance"]["sources"]
    assert sources["responses"] == [str(inputs / "shards" / f"part-{n}.jsonl") for n in range(3)]


def test_a_glob_matching_nothing_is_bad_input(cli: Cli, inputs: Path) -> None:
    pattern = str(inputs / "shards" / "nothing-*.jsonl")
    result = cli("score", "-p", inputs / "probes-a.jsonl", "-r", pattern, "-o", inputs / "r.json")
    assert result.returncode == 2
    assert f"{pattern}: no file matches this pattern" in " ".join(result.stderr.split())


@pytest.mark.slow
def test_the_same_glob_gives_the_same_report_on_dask(cli: Cli, inputs: Path) -> None:
    args = ("-p", str(inputs / "probes-*.jsonl"), "-r", str(inputs / "shards" / "part-*.jsonl"))
    local, dask = inputs / "local.json", inputs / "dask.json"
    assert cli("score", *args, "-o", local).returncode == 0
    result = cli("score", *args, "-o", dask, "--engine", "dask", "--workers", "1")
    assert result.returncode == 0, result.stderr
    first, second = json.loads(local.read_text()), json.loads(dask.read_text())
    for report in (first, second):
        del report["provenance"]["created_at"]
    assert first == second


def test_responses_from_stdin_and_the_report_to_stdout(cli: Cli, inputs: Path) -> None:
    lines = "".join(json.dumps({"probe_id": i, "response": a}) + "\n" for i, a in ANSWERS.items())
    result = cli("score", "-p", str(inputs / "probes-*.jsonl"), "-r", "-", "-o", "-", stdin=lines)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # stdout holds the report and nothing else
    assert [c["probe_id"] for c in report["cases"]] == list(ANSWERS)
    assert report["provenance"]["sources"]["responses"] == ["-"]
    assert "trustprobe summary" in result.stderr  # the summary moved to stderr


def test_stdin_errors_name_stdin_and_the_line(cli: Cli, inputs: Path) -> None:
    result = cli(
        "score", "-p", inputs / "probes-a.jsonl", "-r", "-", "-o", inputs / "r.json",
        stdin='{"probe_id": "c-0", "response": "ok"}\n{"probe_id": "c-1", "sample": -1}\n',
    )  # fmt: skip
    assert result.returncode == 2
    assert "<stdin>:2: field 'sample'" in result.stderr


def test_markdown_to_stdout(cli: Cli, inputs: Path) -> None:
    result = cli(
        "score", "-p", str(inputs / "probes-*.jsonl"), "-r", str(inputs / "shards" / "*.jsonl"),
        "-o", inputs / "r.json", "--markdown", "-",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# trustprobe report")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "-", "--markdown", "-"], "only one output can go to stdout"),
        (["-o", "-", "--engine", "dask"], "--engine dask writes --output to a file"),
    ],
    ids=["two-outputs-on-stdout", "dask-to-stdout"],
)
def test_stdout_misuse_is_bad_input(cli: Cli, inputs: Path, args: list[str], message: str) -> None:
    shard = inputs / "shards" / "part-0.jsonl"
    result = cli("score", "-p", inputs / "probes-a.jsonl", "-r", shard, *args)
    assert result.returncode == 2
    assert message in " ".join(result.stderr.split())


def test_scan_takes_several_probe_files_and_globs(cli: Cli, inputs: Path) -> None:
    result = cli(
        "scan", "--target", "cmd", "--command", "cat", "--input-format", "text",
        "--probes", inputs / "probes-a.jsonl", inputs / "probes-b.jsonl", "--out", inputs / "run",
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert len(_cases(inputs / "run" / "report.json")) == 6
    result = cli(
        "scan", "--target", "cmd", "--command", "cat", "--input-format", "text",
        "--probes", str(inputs / "probes-*.jsonl"), "--out", inputs / "run2",
    )  # fmt: skip
    assert len(_cases(inputs / "run2" / "report.json")) == 6


@pytest.mark.parametrize(
    ("args", "spread"),
    [
        (["-r", "a", "b", "-o", "x"], ["-r", "a", "-r", "b", "-o", "x"]),
        (["--responses=a", "b"], ["--responses=a", "--responses", "b"]),
        (["-r", "-", "-o", "-"], ["-r", "-", "-o", "-"]),
        (["-r", "a", "-", "b"], ["-r", "a", "-r", "-", "-r", "b"]),
        (["-o", "x", "y"], ["-o", "x", "y"]),  # not a multi-path flag: click reports "y"
        (["-r", "a", "--", "b"], ["-r", "a", "--", "b"]),
        (["-r"], ["-r"]),  # click reports the missing value
    ],
    ids=["two-values", "equals-form", "stdin-then-option", "stdin-among-paths", "single-flag",
         "double-dash", "no-value"],
)  # fmt: skip
def test_spread_values(args: list[str], spread: list[str]) -> None:
    assert spread_values(args, MULTI_PATH_FLAGS["score"]) == spread
