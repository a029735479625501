"""``trustprobe keys``: make, list and revoke API keys for the HTTP service."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import typer
from rich.table import Table

from trustprobe.cli.console import console, err_console
from trustprobe.cli.db_cmd import DATABASE_URL_OPTION, cli_store, organisation_option
from trustprobe.store import (
    create_api_key,
    list_api_keys,
    parse_scopes,
    revoke_api_key,
)

app = typer.Typer(help="Make, list and revoke API keys for the HTTP service.", no_args_is_help=True)


@app.command("create")
def create(
    org: str = organisation_option("Organisation the key acts for."),
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


@app.command("list")
def list_(
    org: str | None = organisation_option(
        "Only this organisation's keys (default: all).", default=None
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """List keys, oldest first: id, prefix, organisation, scopes, label, created, revoked."""
    with cli_store(database_url) as store:
        keys = list_api_keys(store, organisation=org)
    if as_json:
        typer.echo(json.dumps([k.model_dump(mode="json") for k in keys], indent=2))
        return
    if not keys:
        console.print("no keys" + ("" if org is None else f" in organisation {org!r}"))
        return
    table = Table("id", "prefix", "organisation", "scopes", "label", "created", "revoked")
    for key in keys:
        table.add_row(
            str(key.id),
            key.prefix,
            key.organisation,
            ",".join(key.scopes),
            key.label or "",
            key.created_at.isoformat(timespec="seconds"),
            "" if key.revoked_at is None else key.revoked_at.isoformat(timespec="seconds"),
        )
    console.print(table)


@app.command("revoke")
def revoke(
    key_id: int = typer.Argument(..., min=1, max=2**31 - 1, help="Key id (see `keys list`)."),
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Revoke a key: the service refuses it within its auth cache time (default 5 s)."""
    with cli_store(database_url) as store:
        info, revoked = revoke_api_key(store, key_id, now=datetime.now(UTC))
    assert info.revoked_at is not None
    when = info.revoked_at.isoformat(timespec="seconds")
    what = f"key {info.id} (prefix {info.prefix}) of organisation {info.organisation!r}"
    if revoked:
        console.print(f"revoked {what} at {when}", soft_wrap=True)
    else:
        console.print(f"{what} was already revoked at {when}", soft_wrap=True)
