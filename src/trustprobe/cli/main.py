"""The ``trustprobe`` command: one module per command group, loaded when it is invoked.

Command modules import heavy libraries (scikit-learn, SQLAlchemy, FastAPI...). Loading each
only when its command runs keeps ``trustprobe probes list`` or ``--version`` quick; the root's
``--help`` imports neither pydantic nor the file formats.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import click
import typer
from typer.core import TyperGroup

from trustprobe.errors import TrustprobeError


def _attribute(module: str, name: str) -> Callable[[], Any]:
    return lambda: getattr(importlib.import_module(f"trustprobe.cli.{module}"), name)


def _trust_group() -> typer.Typer:
    """The engine's ``trust`` commands plus the store-backed ones (record, history, recompute)."""
    from trustprobe.cli import trust_cmd, trust_store_cmd

    group = typer.Typer(help=trust_cmd.app.info.help, no_args_is_help=True)
    group.registered_commands.extend(trust_cmd.app.registered_commands)
    group.command("record")(trust_store_cmd.record)
    group.command("history")(trust_store_cmd.history)
    group.command("recompute")(trust_store_cmd.recompute)
    return group


COMMANDS: dict[str, Callable[[], Any]] = {
    "db": _attribute("db_cmd", "app"),
    "demo": _attribute("demo_cmd", "demo"),
    "demo-agent": _attribute("demo_agent_cmd", "demo_agent"),
    "diff": _attribute("diff_cmd", "diff"),
    "import": _attribute("import_cmd", "import_"),
    "keys": _attribute("keys_cmd", "app"),
    "probes": _attribute("probes_cmd", "app"),
    "report": _attribute("report_cmd", "report"),
    "reviews": _attribute("reviews_cmd", "app"),
    "scan": _attribute("scan_cmd", "scan"),
    "score": _attribute("score_cmd", "score"),
    "serve": _attribute("serve_cmd", "serve"),
    "trust": _trust_group,
}
"""Command name → loader of its Typer group or command function."""

SUMMARIES: dict[str, str] = {
    "db": "Create, upgrade and verify the trust store.",
    "demo": (
        "Scan the built-in demo agent, write the reports and record the run in the trust store."
    ),
    "demo-agent": "Serve an OpenAI-compatible demo agent (base URL http://HOST:PORT/v1).",
    "diff": "Compare NEW.json against BASE.json; exit 1 when a gate fails, 0 otherwise.",
    "import": (
        "Turn another tool's results into evidence; list unmapped families; compare verdicts."
    ),
    "keys": "Make, list and revoke API keys for the HTTP service.",
    "probes": "List and validate probes.",
    "report": "Render REPORT.json as one HTML file that opens from disk without any network.",
    "reviews": "Review anomalous score swings.",
    "scan": "Scan a live agent with probes; write responses.jsonl, report.json and report.md.",
    "score": "Score recorded responses against probes and write the report.",
    "serve": "Serve the v1 API (evidence in, scores, history and reviews out) until interrupted.",
    "trust": "Composite trust: 16 dimensions, decay, jury, security gate, tiers.",
}
"""Command name → the first line of its help, which ``trustprobe --help`` lists without loading
the command (a test holds each equal to the loaded command's own)."""


def _take_verbosity(args: list[str]) -> tuple[list[str], bool, int]:
    """``args`` without ``-q``/``--quiet``/``-v``/``-vv``/``--verbose`` (up to ``--``)."""
    kept: list[str] = []
    quiet, verbose = False, 0
    for index, token in enumerate(args):
        if token == "--":
            return [*kept, *args[index:]], quiet, verbose
        if token in ("-q", "--quiet"):
            quiet = True
        elif token == "--verbose":
            verbose += 1
        elif len(token) > 1 and token == "-" + "v" * (len(token) - 1):  # -v, -vv, ...
            verbose += len(token) - 1
        else:
            kept.append(token)
    return kept, quiet, verbose


_COMMAND_LINE_EXITS = (
    typer.Exit,
    typer.Abort,
    typer.exceptions.TyperException,  # usage errors and bad parameters
    click.exceptions.ClickException,
    click.exceptions.Exit,
    click.exceptions.Abort,
)
"""What the command line raises on purpose: exits, aborts and usage errors, passed through."""


class _LazyGroup(TyperGroup):
    """A root group that imports a command's module only when that command is used."""

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    _listing = False
    """True while the root help is written: commands are then listed from :data:`SUMMARIES`."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in COMMANDS:
            return command
        if self._listing:
            return click.Command(cmd_name, help=SUMMARIES[cmd_name])
        loaded = COMMANDS[cmd_name]()
        if isinstance(loaded, typer.Typer):
            # A group even when it has one subcommand (``keys create``).
            command = typer.main.get_group(loaded)
        else:
            single = typer.Typer(add_completion=False)  # completion is the root's option
            single.command(cmd_name)(loaded)
            command = typer.main.get_command(single)
        command.name = cmd_name
        return command

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """Find the command; let its multi-path flags take several values after one flag.

        ``-q`` and ``-v`` are the root's options but may also follow the command
        (``trustprobe scan -q ...``): they are taken out here, before the root's callback runs.
        """
        from trustprobe.cli.file_options import MULTI_PATH_FLAGS, spread_values

        name, command, rest = super().resolve_command(ctx, args)
        rest, quiet, verbose = _take_verbosity(rest)
        ctx.params["quiet"] = ctx.params.get("quiet") or quiet
        ctx.params["verbose"] = (ctx.params.get("verbose") or 0) + verbose
        flags = MULTI_PATH_FLAGS.get(name or "")
        return name, command, spread_values(rest, flags) if flags else rest

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a :class:`TrustprobeError` exits with its code from one table.

        Click's own exits and usage errors pass through; any other error exits with a code of
        its own (70, or 74 for the system refusing a read or a write), never 1, a gate's.
        """
        try:
            return super().invoke(ctx)
        except TrustprobeError as exc:
            from trustprobe.cli.errors import report_error

            raise typer.Exit(report_error(exc)) from exc
        except _COMMAND_LINE_EXITS:
            raise
        except Exception as exc:
            from trustprobe.cli.errors import report_unexpected

            raise typer.Exit(report_unexpected(exc)) from exc


app = typer.Typer(
    name="trustprobe",
    cls=_LazyGroup,
    help="Tells whether an AI agent can be trusted, with evidence a person can check.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from trustprobe import __version__

        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print the version."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="Only errors, warnings and gate verdicts (on stderr)."
    ),
    verbose: int = typer.Option(
        0, "--verbose", "-v", count=True, help="Log what happens on stderr; -vv for debug detail."
    ),
) -> None:
    """Tells whether an AI agent can be trusted, with evidence a person can check."""
    from trustprobe.cli.console import set_verbosity

    set_verbosity(-1 if quiet else verbose)


BLAS_THREADS = "OPENBLAS_NUM_THREADS"
"""The variable OpenBLAS (NumPy's and SciPy's BLAS) reads its thread count from when loaded."""


def main(args: list[str] | None = None) -> None:
    """Entry point of the console script (errors become exit codes in ``_LazyGroup.invoke``)."""
    from trustprobe.cli.collection import end_with_command

    end_with_command()  # the process ends with the command: what a run leaves is not walked
    # BLAS on one thread unless the user says otherwise, set before any command loads NumPy:
    # the numeric steps run held to one thread anyway (docs/observability.md), and OpenBLAS
    # starts a pool of threads per core as it loads that spin, waiting for work, for about
    # 0.05 CPU s each (NumPy's and SciPy's, 0.1-0.15 s a run; docs/benchmarks.md).
    os.environ.setdefault(BLAS_THREADS, "1")
    app(args)
