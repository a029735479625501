"""Rich consoles for the CLI: results on stdout, diagnostics on stderr."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:  # the reports package loads jinja2; an error message must not wait for it
    from trustprobe.reports import Gate

LOG_WIDTH = 1000
"""Columns laid out when the output is not a terminal: a log has no width to fit, and rich's
80-column default cuts table cells (``over…``)."""


def _width(stream: TextIO) -> int | None:
    """``None`` (rich measures) on a terminal or when ``COLUMNS`` is set; else the log width."""
    if os.environ.get("COLUMNS") or stream.isatty():
        return None
    return LOG_WIDTH


# Text printed is read as markup only where a call asks (``markup=True``): paths, ids and
# messages hold "[/]" or "[bold]" as often as not, and read as markup they stop the command.
console = Console(highlight=False, markup=False, width=_width(sys.stdout))
err_console = Console(stderr=True, highlight=False, markup=False, width=_width(sys.stderr))
progress_console = Console(stderr=True, highlight=False, markup=False, width=_width(sys.stderr))
"""Where progress goes (stderr); silenced by ``--quiet`` while errors and gates still show."""
_LOG_LEVELS = {1: logging.INFO, 2: logging.DEBUG}


def set_verbosity(level: int) -> None:
    """``-1`` (``--quiet``): results and progress off; ``1``/``2`` (``-v``/``-vv``): logging.

    Errors, warnings and gate verdicts go to stderr whatever the level: they are why a run
    failed. Logging is configured here, by the CLI, never by library modules.
    """
    console.quiet = progress_console.quiet = level < 0
    if level > 0:
        logging.basicConfig(
            level=_LOG_LEVELS[min(level, 2)],
            stream=sys.stderr,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )


def print_gate(gate: Gate | None) -> None:
    """Each gate's figure, threshold and verdict on stderr, so a failing CI job says why."""
    if gate is None:
        return
    for check in gate.checks:
        verdict = (
            Text("passed", style="green") if check.passed else Text("FAILED", style="bold red")
        )
        line = Text("gate ").append_text(verdict).append(": ").append_text(plain(check.reason))
        err_console.print(line, soft_wrap=True)


def plain(text: str) -> Text:
    """Text from a file or an agent (a probe id, a warning) as inert terminal text.

    Never read as console markup (``[/]`` would stop the command), and each control or
    direction-changing character shown as a marker (``⟨U+001B⟩``), as the HTML report does:
    an escape sequence in an id cannot clear the screen or retitle the terminal.
    """
    from trustprobe.formats import show_invisible

    return Text(show_invisible(text))


def print_warning(warning: str) -> None:
    """A warning on stderr, its text inert (see :func:`plain`)."""
    err_console.print(Text("warning: ", style="yellow").append_text(plain(warning)), soft_wrap=True)


def default_note(value: object) -> str:
    """`` [default: VALUE]`` for the help of an option whose default lives in a model.

    Such options default to ``None`` (so a config file can set them), and ``--help`` would show
    no default. The bracket is escaped: help text is rich markup.
    """
    return f" \\[default: {value}]"
