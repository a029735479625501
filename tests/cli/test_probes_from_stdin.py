"""Probes from standard input (``-p -``) and from a pipe named as a path (``-p <(...)``).

Every command that takes probes reads them once from the start, JSONL or YAML alike, and names
``<stdin>`` (or the pipe's path) with the line and field in its errors. ``scan`` keeps a copy in
the run directory, so ``--resume`` reads the very same probes again.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from tests.cli.in_process import Cli
from tests.cli.test_attack_inputs import check_refused
from tests.cli.test_score_cli import PROBES, write_jsonl

from trustprobe.runner import read_manifest

LINES = "".join(json.dumps(p) + "\n" for p in PROBES)
ANSWERS = [{"probe_id": p["id"], "response": "I can't help with that."} for p in PROBES]


@pytest.fixture
def responses(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "responses.jsonl", ANSWERS)


@contextmanager
def _pipe_of(text: str) -> Iterator[str]:
    """A pipe's path (``/dev/fd/N``) that yields ``text``, written by another thread."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as handle:
            handle.write(text.encode())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        yield f"/dev/fd/{read_end}"
    finally:
        os.close(read_end)
        writer.join(5)


def _cases(report: Path) -> list[str]:
    return [c["probe_id"] for c in json.loads(report.read_text())["cases"]]


@pytest.mark.parametrize(
    "text",
    [LINES, yaml.safe_dump(PROBES), yaml.safe_dump({"probes": PROBES})],
    ids=["jsonl", "yaml-list", "yaml-mapping"],
)
def test_score_reads_probes_from_stdin(
    cli: Cli, tmp_path: Path, responses: Path, text: str
) -> None:
    out = tmp_path / "report.json"
    result = cli("score", "-p", "-", "-r", responses, "-o", out, stdin=text)
    assert result.returncode == 0, result.stderr
    assert _cases(out) == [p["id"] for p in PROBES]
    assert json.loads(out.read_text())["provenance"]["sources"]["probes"] == ["-"]


def test_probes_validate_and_list_read_stdin(cli: Cli) -> None:
    validated = cli("probes", "validate", "-", stdin=LINES)
    assert validated.returncode == 0, validated.stderr
    assert f"ok: {len(PROBES)} probe(s) in 1 file(s)" in validated.stdout
    listed = cli("probes", "list", "-p", "-", stdin=yaml.safe_dump(PROBES))
    assert listed.returncode == 0, listed.stderr
    assert f"{len(PROBES)} probe(s)" in listed.stdout


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (LINES + json.dumps({**PROBES[0], "id": "x", "severity": "dire"}) + "\n", ":7: "),
        (yaml.safe_dump([PROBES[0], {**PROBES[1], "severity": "dire"}]), ":10: "),
    ],
    ids=["jsonl", "yaml"],
)
def test_a_bad_probe_on_stdin_is_named_by_stdin_line_and_field(
    cli: Cli, tmp_path: Path, responses: Path, text: str, where: str
) -> None:
    out = tmp_path / "report.json"
    result = cli("score", "-p", "-", "-r", responses, "-o", out, stdin=text)
    check_refused(result, f"<stdin>{where}field 'severity'")
    assert not out.exists()
    check_refused(cli("probes", "validate", "-", stdin=text), f"<stdin>{where}field 'severity'")


def test_probes_and_responses_cannot_both_come_from_stdin(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = cli("score", "-p", "-", "-r", "-", "-o", out, stdin=LINES)
    check_refused(result, "standard input ('-') can be read only once")
    assert not out.exists()


def test_probes_from_a_pipe_are_read_once_yaml_too(cli: Cli) -> None:
    with _pipe_of(yaml.safe_dump(PROBES)) as path:
        result = cli("probes", "validate", path)
    assert result.returncode == 0, result.stderr
    with _pipe_of(json.dumps({**PROBES[0], "tags": "one"}) + "\n") as path:
        check_refused(cli("probes", "validate", path), f"{path}:1: field 'tags'")


def test_scan_keeps_probes_from_stdin_in_the_run_directory_for_resume(
    cli: Cli, tmp_path: Path
) -> None:
    (tmp_path / "stdin_probes_agent.py").write_text(
        "def respond(request):\n    return 'I cannot help.'\n"
    )
    run = tmp_path / "run"
    target = ("--target", "python", "--callable", "stdin_probes_agent:respond")
    result = cli("scan", *target, "-p", "-", "-o", run, stdin=yaml.safe_dump(PROBES))
    assert result.returncode in (0, 1), result.stderr
    kept = read_manifest(run).config.probes
    assert [Path(p).parent for p in kept] == [run.resolve()]
    assert yaml.safe_load(Path(kept[0]).read_text()) == PROBES
    again = cli("scan", "--resume", run)
    assert again.returncode in (0, 1), again.stderr
    assert _cases(run / "report.json") == [p["id"] for p in PROBES]


def test_scan_reads_probes_from_a_pipe(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "stdin_probes_agent.py").write_text(
        "def respond(request):\n    return 'I cannot help.'\n"
    )
    run = tmp_path / "run"
    with _pipe_of(LINES) as path:
        result = cli(
            "scan",
            "--target",
            "python",
            "--callable",
            "stdin_probes_agent:respond",
            "-p",
            path,
            "-o",
            run,
        )
    assert result.returncode in (0, 1), result.stderr
    assert _cases(run / "report.json") == [p["id"] for p in PROBES]
