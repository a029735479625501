"""Run the ``trustprobe`` command in this process, as a fresh process with piped output would.

A cold interpreter costs a second or more per run; most tests only need the command's exit
code and output. The state a real process would start without is set up before each run and
put back after it: the working directory, the environment, the root logger's handlers (``-v``
installs one), ``sys.path`` (a ``python`` target adds the working directory) and the rich
consoles' width and quiet flag.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from trustprobe.cli import console as consoles
from trustprobe.cli.main import app

Env = Mapping[str, str | None]
"""Variables set for one run over the test's environment; ``None`` unsets one."""


@dataclass(frozen=True)
class CliResult:
    """What one run left: its exit code and its two output streams, apart."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _as_a_fresh_process(columns: int | None) -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    # A fresh process has no root handler, so ``-v``'s basicConfig takes effect (pytest's own
    # capturing handlers would otherwise make it a no-op).
    root.handlers.clear()
    path = sys.path[:]
    shown = (consoles.console, consoles.err_console, consoles.progress_console)
    saved = [(c._width, c.quiet) for c in shown]  # rich has no public way back to "measure"
    for each in shown:
        # Built at import, when the width was read: lay out as a process whose output is a pipe.
        each.width = columns or consoles.LOG_WIDTH
        each.quiet = False
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        sys.path[:] = path
        for each, (width, quiet) in zip(shown, saved, strict=True):
            each._width, each.quiet = width, quiet


def run_cli(
    *args: str | Path, cwd: Path, stdin: str | bytes | None = None, env: Env | None = None
) -> CliResult:
    """``trustprobe ARGS`` in ``cwd``; an exception the CLI does not handle is raised here."""
    variables: dict[str, str | None] = {"COLUMNS": None, "LINES": None, **(env or {})}
    columns = variables["COLUMNS"]
    with contextlib.chdir(cwd), _as_a_fresh_process(int(columns) if columns else None):
        result = CliRunner().invoke(
            app, [str(a) for a in args], input=stdin, env=variables, catch_exceptions=False
        )
    return CliResult(result.exit_code, result.stdout, result.stderr)


@dataclass(frozen=True)
class Cli:
    """``cli(*ARGS)`` runs ``trustprobe ARGS`` in this process, in ``cwd`` unless told."""

    cwd: Path

    def __call__(
        self,
        *args: str | Path,
        stdin: str | bytes | None = None,
        cwd: Path | None = None,
        env: Env | None = None,
    ) -> CliResult:
        return run_cli(*args, cwd=cwd or self.cwd, stdin=stdin, env=env)
