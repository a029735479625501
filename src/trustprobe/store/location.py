"""Where the store lives: an explicit URL, the environment, or the embedded SQLite default."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from sqlalchemy import make_url

DATABASE_URL_ENV = "TRUSTPROBE_DATABASE_URL"
"""Environment variable holding a database URL, e.g. ``postgresql+psycopg://host/db``."""
HOME_ENV = "TRUSTPROBE_HOME"
"""Environment variable naming the data directory of the embedded SQLite store."""
DATABASE_FILE = "trustprobe.db"


def default_database_path(environ: Mapping[str, str] | None = None) -> Path:
    """Return the embedded store's file: ``$TRUSTPROBE_HOME``, else the XDG data directory."""
    env = os.environ if environ is None else environ
    if env.get(HOME_ENV):
        return Path(env[HOME_ENV]).expanduser() / DATABASE_FILE
    data_home = env.get("XDG_DATA_HOME") or str(Path("~/.local/share").expanduser())
    return Path(data_home).expanduser() / "trustprobe" / DATABASE_FILE


def resolve_database_url(
    database_url: str | None = None, *, environ: Mapping[str, str] | None = None
) -> str:
    """Pick the database: the explicit URL, then ``$TRUSTPROBE_DATABASE_URL``, then SQLite."""
    if database_url:
        return database_url
    env = os.environ if environ is None else environ
    if env.get(DATABASE_URL_ENV):
        return env[DATABASE_URL_ENV]
    return f"sqlite:///{default_database_path(env)}"


def shown_database_url(database_url: str | None = None) -> str:
    """The database :func:`resolve_database_url` picks, with any password masked, for messages."""
    return make_url(resolve_database_url(database_url)).render_as_string(hide_password=True)


def describe_store(database_url: str | None = None) -> str:
    """Where the store is, for people: ``SQLite file PATH``, or the URL with its password masked."""
    url = make_url(resolve_database_url(database_url))
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return f"SQLite file {url.database}"
    return url.render_as_string(hide_password=True)
