"""``trustprobe serve``: run the HTTP service, in one process or several workers."""

from __future__ import annotations

import os

import typer
import uvicorn
from fastapi import FastAPI
from uvicorn.supervisors import Multiprocess

from trustprobe.cli.collection import SERVICE_THRESHOLDS, bulk_collection, collect_rarely
from trustprobe.cli.console import err_console
from trustprobe.cli.db_cmd import DATABASE_URL_OPTION, cli_store
from trustprobe.service import (
    DEFAULT_MAX_BODY_BYTES,
    ServiceSettings,
    create_app,
    listening_socket,
)
from trustprobe.store import open_store, shown_database_url
from trustprobe.trust import resolve_weights

WORKER_SETTINGS_ENV = "TRUSTPROBE_SERVE_SETTINGS"
"""Environment variable carrying the settings (JSON) from ``serve`` to its worker processes."""


def worker_app() -> FastAPI:
    """The app of one worker process of ``serve --workers N`` (an app factory for uvicorn).

    Workers are spawned, not forked: they get the settings, with the store URL resolved by the
    parent, through :data:`WORKER_SETTINGS_ENV`, and the rest of the parent's environment
    (``$TRUSTPROBE_WEIGHTS_OVERRIDE``) as it is, so every worker scores like the parent would.
    The worker collects garbage rarely for the rest of its life (cli/collection.py).
    """
    settings = ServiceSettings.model_validate_json(os.environ[WORKER_SETTINGS_ENV])
    # The parent already said any warning about the weights.
    store = open_store(settings.database_url, weights=resolve_weights())
    app = create_app(settings, store=store, close_store=True)
    collect_rarely(SERVICE_THRESHOLDS)
    return app


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="TCP port."),
    database_url: str | None = DATABASE_URL_OPTION,
    workers: int = typer.Option(
        1,
        "--workers",
        min=1,
        max=64,
        help="Worker processes sharing the port; with more than one, rate limits are kept "
        "in the store.",
    ),
    max_body_bytes: int = typer.Option(
        DEFAULT_MAX_BODY_BYTES, "--max-body-bytes", min=0, help="Largest request body (413 above)."
    ),
    rate_limit: float = typer.Option(
        50.0, "--rate-limit", min=0.001, help="Sustained requests per second per API key."
    ),
    rate_burst: int = typer.Option(100, "--rate-burst", min=1, help="Burst size per API key."),
    anonymous_rate_limit: float = typer.Option(
        5.0,
        "--anonymous-rate-limit",
        min=0.001,
        help="Sustained requests per second per address without a valid key.",
    ),
    anonymous_rate_burst: int = typer.Option(
        20, "--anonymous-rate-burst", min=1, help="Burst size per address without a valid key."
    ),
    shared_limits: bool = typer.Option(
        False,
        "--shared-limits",
        help="Keep rate limits in the store even with one worker (several serve processes or "
        "hosts on one store); always on with --workers above 1.",
    ),
    auth_cache_seconds: float = typer.Option(
        5.0, "--auth-cache-seconds", min=0.0, help="Reuse key lookups this long (0: never)."
    ),
) -> None:
    """Serve the v1 API (evidence in, scores, history and reviews out) until interrupted.

    Exit 5 when the address cannot be listened on (port taken, no permission), said first.
    """
    with cli_store(database_url) as store, listening_socket(host, port) as sock:
        settings = ServiceSettings(
            # Resolved once here, so every worker opens the same store.
            database_url=store.engine.url.render_as_string(hide_password=False),
            max_body_bytes=max_body_bytes,
            rate_limit_per_second=rate_limit,
            rate_limit_burst=rate_burst,
            anonymous_rate_limit_per_second=anonymous_rate_limit,
            anonymous_rate_limit_burst=anonymous_rate_burst,
            shared_rate_limits=shared_limits or workers > 1,
            auth_cache_seconds=auth_cache_seconds,
        )
        bound = sock.getsockname()[1]  # the kernel's pick when --port is 0
        shown = f" with {workers} workers" if workers > 1 else ""
        err_console.print(
            f"serving {shown_database_url(database_url)} on http://{host}:{bound}{shown}",
            highlight=False,
            soft_wrap=True,
        )
        if workers == 1:
            app = create_app(settings, store=store)
            server = uvicorn.Server(uvicorn.Config(app, log_level="info"))
            with bulk_collection(SERVICE_THRESHOLDS):  # see cli/collection.py
                server.run(sockets=[sock])
            return
        store.close()  # the parent only checked the schema; each worker opens its own
        os.environ[WORKER_SETTINGS_ENV] = settings.model_dump_json()
        config = uvicorn.Config(
            f"{__name__}:worker_app", factory=True, workers=workers, log_level="info"
        )
        Multiprocess(config, sockets=[sock]).run()
