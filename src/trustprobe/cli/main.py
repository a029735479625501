"""The ``trustprobe`` command: one module per command group, registered here."""

from __future__ import annotations

import sys

import typer

from trustprobe import __version__
from trustprobe.cli import (
    db_cmd,
    demo_agent_cmd,
    diff_cmd,
    keys_cmd,
    probes_cmd,
    report_cmd,
    reviews_cmd,
    scan_cmd,
    score_cmd,
    serve_cmd,
    trust_cmd,
    trust_store_cmd,
)
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
app.command("scan")(scan_cmd.scan)
app.command("demo-agent")(demo_agent_cmd.demo_agent)
app.command("report")(report_cmd.report)
app.command("diff")(diff_cmd.diff)
app.add_typer(trust_cmd.app, name="trust")
trust_cmd.app.command("record")(trust_store_cmd.record)
trust_cmd.app.command("history")(trust_store_cmd.history)
app.add_typer(db_cmd.app, name="db")
app.add_typer(keys_cmd.app, name="keys")
app.add_typer(reviews_cmd.app, name="reviews")
app.command("serve")(serve_cmd.serve)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print the version."
    ),
) -> None:
    """Tells whether an AI agent can be trusted, with evidence a person can check."""


def main() -> None:
    """Entry point of the console script; maps input errors to exit code 2."""
    try:
        app()
    except InputError as exc:
        # Plain and unwrapped, so the file:line: field: prefix stays greppable in CI logs.
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(ExitCode.BAD_INPUT)
