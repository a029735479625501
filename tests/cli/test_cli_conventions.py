"""What a CLI user expects: full tables in logs, --help defaults, -q/-v, completion at the root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.cli.test_gates_cli import RESPONSES
from tests.cli.test_score_cli import PROBES, write_jsonl
from tests.runner.fault_server import Action, FaultServer, Seen, ok, status
from tests.runner.test_cli_scan import _probe_file


def test_tables_in_a_log_are_not_cut_at_80_columns(tmp_path: Path) -> None:
    # A real process whose stdout is a pipe, as in CI logs: the width is chosen at start-up.
    listed = subprocess.run(
        [sys.executable, "-m", "trustprobe", "probes", "list"],
        env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert "…" not in listed.stdout
    assert "ds-002  deception_sycophancy  medium    refuse    code,sycophancy,authority,secu" in (
        listed.stdout
    )
    # Laid out at its natural width, not padded to a huge one.
    assert max(len(line) for line in listed.stdout.splitlines()) < 200


def test_help_shows_the_defaults_that_live_in_the_models(cli: Cli) -> None:
    help_text = cli("scan", "--help", env={"COLUMNS": "200"}).stdout
    flat = " ".join(help_text.replace("│", " ").split())
    for expected in (
        "Cases in flight. [default: 8]",
        "Seconds per attempt. [default: 60.0]",
        "Retries on 429/5xx/connection. [default: 2]",
        "Times each probe is sent. [default: 1]",
        "[default: builtin]",
        "[default: 0.5]",
        "cmd: json or text. [default: json]",
    ):
        assert expected in flat, expected


def test_install_completion_only_on_the_root_command(cli: Cli) -> None:
    root = cli("--help", env={"COLUMNS": "200"}).stdout
    assert "--install-completion" in root
    for command in (["score"], ["scan"], ["diff"], ["db"], ["probes", "list"], ["trust", "score"]):
        shown = cli(*command, "--help", env={"COLUMNS": "200"}).stdout
        assert "--install-completion" not in shown, command


@pytest.fixture
def score_args(tmp_path: Path) -> list[str]:
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    responses = write_jsonl(tmp_path / "responses.jsonl", RESPONSES)
    return ["score", "-p", str(probes), "-r", str(responses), "-o", str(tmp_path / "r.json")]


def test_quiet_keeps_only_what_explains_a_failure(cli: Cli, score_args: list[str]) -> None:
    result = cli("-q", *score_args, "--fail-under", "0.9")
    assert result.returncode == 1
    assert result.stdout == ""  # no summary, no report paths
    assert "gate FAILED: pass rate 50.0% is below --fail-under 90.0%" in result.stderr
    loud = cli(*score_args)
    assert "trustprobe summary" in loud.stdout
    # After the command works too, as users type it.
    after = cli(*score_args, "-q", "--fail-under", "0.9")
    assert after.returncode == 1 and after.stdout == ""
    assert "gate FAILED" in after.stderr


def _flaky(seen: Seen, nth: int) -> Action:
    return status(503) if nth == 0 else ok("I won't.")


def test_verbose_logs_the_run_and_its_retries(cli: Cli, tmp_path: Path) -> None:
    probes = _probe_file(tmp_path, 2)
    with FaultServer(_flaky) as server:
        result = cli(
            "-vv", "scan", "--target", "openai", "--base-url", f"{server.url}/v1",
            "--model", "m", "--probes", probes, "--out", tmp_path / "run",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "INFO trustprobe.runner.dispatch: sending 2 cases" in result.stderr
    assert "DEBUG trustprobe.runner.dispatch: probe p-000 sample 0: http_503" in result.stderr
    quiet = cli("scan", "--resume", tmp_path / "run")
    assert "trustprobe.runner" not in quiet.stderr
    after = cli("scan", "--resume", tmp_path / "run", "-v")
    assert "INFO trustprobe.runner.dispatch: sending 0 cases" in after.stderr
