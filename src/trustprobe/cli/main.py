"""The ``trustprobe`` command: one module per command group, loaded when it is invoked.

Command modules import heavy libraries (scikit-learn, SQLAlchemy, FastAPI...). Loading each
only when its command runs keeps ``trustprobe probes list`` or ``--version`` quick.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

from trustprobe import __version__
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


class _LazyGroup(TyperGroup):
    """A root group that imports a command's module only when that command is used."""

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in COMMANDS:
            return command
        loaded = COMMANDS[cmd_name]()
        if isinstance(loaded, typer.Typer):
            # A group even when it has one subcommand (``keys create``).
            command = typer.main.get_group(loaded)
        else:
            single = typer.Typer()
            single.command(cmd_name)(loaded)
            command = typer.main.get_command(single)
        command.name = cmd_name
        return command

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a :class:`TrustprobeError` exits with its code from one table."""
        try:
            return super().invoke(ctx)
        except TrustprobeError as exc:
            from trustprobe.cli.errors import report_error

            raise typer.Exit(report_error(exc)) from exc


app = typer.Typer(
    name="trustprobe",
    cls=_LazyGroup,
    help="Tells whether an AI agent can be trusted, with evidence a person can check.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


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


def main(args: list[str] | None = None) -> None:
    """Entry point of the console script (errors become exit codes in ``_LazyGroup.invoke``)."""
    app(args)
