"""The ``cli`` fixture runs the command as a fresh process would, then puts this one back."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from tests.cli.in_process import Cli
from tests.cli.test_score_cli import PROBES, write_jsonl

from trustprobe.cli import console


def _state() -> tuple[object, ...]:
    root = logging.getLogger()
    shown = (console.console, console.err_console, console.progress_console)
    return (
        root.handlers[:], root.level, os.getcwd(), sys.path[:], dict(os.environ),
        [(c.width, c.quiet) for c in shown],
    )  # fmt: skip


def test_a_run_leaves_this_process_as_it_found_it(cli: Cli) -> None:
    before = _state()
    done = cli("-vv", "-q", "probes", "list", env={"COLUMNS": "50", "TRUSTPROBE_HOME": "x"})
    assert done.returncode == 0, done.stderr
    assert _state() == before


def test_a_run_reads_its_stdin_in_its_working_directory(cli: Cli, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "probes.jsonl", PROBES)
    done = cli("score", "-p", "probes.jsonl", "-r", "-", "-o", "-", stdin="{\n")
    assert done.returncode == 2
    assert "<stdin>:1: not valid JSON" in done.stderr
    assert done.stdout == ""
