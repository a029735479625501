"""The ``trustprobe`` command: one module per command group, registered here."""

from __future__ import annotations

import sys

import typer

from trustprobe import __version__
from trustprobe.cli import probes_cmd, score_cmd
from trustprobe.cli.console import err_console
from trustprobe.errors import ExitCode, InputError

app = typer.Typer(
    name="trustprobe",
    help="Tells whether an AI agent can be trusted, with evidence a person can check.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(probes_cmd.app, name="probes")
app.command("score")(score_cmd.score)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit."),
) -> None:
    if version:
        typer.echo(__version__)
        raise typer.Exit()


def main() -> None:
    """Entry point of the console script; maps input errors to exit code 2."""
    try:
        app()
    except InputError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
        sys.exit(ExitCode.BAD_INPUT)
