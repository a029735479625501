"""``trustprobe db``: apply migrations and verify the hash chains of the store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

from trustprobe.cli.console import console, err_console
from trustprobe.errors import ExitCode
from trustprobe.store import (
    DATABASE_URL_ENV,
    DEFAULT_ORGANISATION,
    ORGANISATION_ENV,
    TrustStore,
    create_store_engine,
    open_store,
    resolve_database_url,
    shown_database_url,
    upgrade_database,
    verify_store,
)
from trustprobe.trust import resolve_weights

app = typer.Typer(help="Create, upgrade and verify the trust store.", no_args_is_help=True)

DATABASE_URL_OPTION = typer.Option(
    None,
    "--database-url",
    envvar=DATABASE_URL_ENV,
    help="Store URL (sqlite:///PATH or postgresql+psycopg://...); default: the embedded "
    "SQLite file under $TRUSTPROBE_HOME or ~/.local/share/trustprobe.",
    show_envvar=True,
)


def organisation_option(help: str, *, default: str | None = DEFAULT_ORGANISATION) -> Any:
    """``--org``, read from ``$TRUSTPROBE_ORG`` when not given; one spelling for every command."""
    return typer.Option(default, "--org", envvar=ORGANISATION_ENV, show_envvar=True, help=help)


@contextmanager
def cli_store(database_url: str | None) -> Iterator[TrustStore]:
    """Open the store for a command (its errors exit through the CLI's one error table).

    Scores use the weights in force (``$TRUSTPROBE_WEIGHTS_OVERRIDE``), like ``trust score``.
    """
    weights = resolve_weights()
    if weights.warning:
        err_console.print(
            f"[yellow]warning:[/] {weights.warning}", highlight=False, soft_wrap=True, markup=True
        )
    store = open_store(database_url, weights=weights)
    try:
        yield store
    finally:
        store.close()


@app.command("upgrade")
def upgrade(database_url: str | None = DATABASE_URL_OPTION) -> None:
    """Apply pending migrations in one transaction (creates the SQLite file if needed)."""
    engine = create_store_engine(resolve_database_url(database_url))
    try:
        before, after = upgrade_database(engine)
    finally:
        engine.dispose()
    where = shown_database_url(database_url)
    if before == after:
        console.print(f"{where}: already at {after}", soft_wrap=True)
    else:
        console.print(
            f"{where}: upgraded from {before or 'an empty database'} to {after}", soft_wrap=True
        )


@app.command("verify")
def verify(
    database_url: str | None = DATABASE_URL_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the full report as JSON."),
) -> None:
    """Recompute every hash chain and review seal; exit 1 at the first break of any chain."""
    with cli_store(database_url) as store:
        report = verify_store(store)
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        console.print(
            f"checked {report.evidence_rows} evidence rows, {report.transitions} transitions, "
            f"{report.reviews} reviews in {len(report.heads)} chains",
            soft_wrap=True,
        )
        for head in report.heads:
            console.print(f"  {head.chain}: {head.length} rows, head {head.head}", soft_wrap=True)
        for found in report.breaks:
            err_console.print(
                f"[bold red]broken:[/] {found.chain} at {found.seq}: {found.problem}",
                highlight=False,
                soft_wrap=True,
                markup=True,
            )
        if report.ok:
            console.print("all chains verify")
    if not report.ok:
        raise typer.Exit(ExitCode.GATE_FAILED)
