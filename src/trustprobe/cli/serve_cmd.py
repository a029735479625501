"""``trustprobe serve``: run the HTTP service."""

from __future__ import annotations

import typer
import uvicorn

from trustprobe.cli.console import err_console
from trustprobe.cli.db_cmd import DATABASE_URL_OPTION, cli_store
from trustprobe.service import (
    DEFAULT_MAX_BODY_BYTES,
    ServiceSettings,
    create_app,
    listening_socket,
)
from trustprobe.store import shown_database_url


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="TCP port."),
    database_url: str | None = DATABASE_URL_OPTION,
    max_body_bytes: int = typer.Option(
        DEFAULT_MAX_BODY_BYTES, "--max-body-bytes", min=0, help="Largest request body (413 above)."
    ),
    rate_limit: float = typer.Option(
        50.0, "--rate-limit", min=0.001, help="Sustained requests per second per API key."
    ),
    rate_burst: int = typer.Option(100, "--rate-burst", min=1, help="Burst size per API key."),
    auth_cache_seconds: float = typer.Option(
        5.0, "--auth-cache-seconds", min=0.0, help="Reuse key lookups this long (0: never)."
    ),
) -> None:
    """Serve the v1 API (evidence in, scores, history and reviews out) until interrupted.

    Exit 5 when the address cannot be listened on (port taken, no permission), said first.
    """
    settings = ServiceSettings(
        database_url=database_url,
        max_body_bytes=max_body_bytes,
        rate_limit_per_second=rate_limit,
        rate_limit_burst=rate_burst,
        auth_cache_seconds=auth_cache_seconds,
    )
    with cli_store(database_url) as store, listening_socket(host, port) as sock:
        bound = sock.getsockname()[1]  # the kernel's pick when --port is 0
        err_console.print(
            f"serving {shown_database_url(database_url)} on http://{host}:{bound}",
            highlight=False,
            soft_wrap=True,
        )
        app = create_app(settings, store=store)
        uvicorn.Server(uvicorn.Config(app, log_level="info")).run(sockets=[sock])
