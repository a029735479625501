"""``trustprobe keys``: make API keys for the HTTP service."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from trustprobe.cli.console import err_console
from trustprobe.cli.db_cmd import DATABASE_URL_OPTION, cli_store
from trustprobe.store import DEFAULT_ORGANISATION, create_api_key, parse_scopes

app = typer.Typer(help="Make API keys for the HTTP service.", no_args_is_help=True)


@app.command("create")
def create(
    org: str = typer.Option(DEFAULT_ORGANISATION, "--org", help="Organisation the key acts for."),
    scopes: str = typer.Option(
        ..., "--scopes", help="Comma-separated scopes: read, write, review."
    ),
    label: str | None = typer.Option(None, "--label", help="A note on what the key is for."),
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Make a key and print it alone on stdout; it is shown this once and stored only hashed."""
    wanted = parse_scopes(scopes)
    with cli_store(database_url) as store:
        created = create_api_key(
            store, organisation=org, scopes=wanted, label=label, now=datetime.now(UTC)
        )
    info = created.info
    err_console.print(
        f"key {info.id} (prefix {info.prefix}) for organisation {info.organisation!r} with "
        f"scopes {','.join(info.scopes)}; store it now, it cannot be shown again",
        highlight=False,
        soft_wrap=True,
    )
    typer.echo(created.key)
