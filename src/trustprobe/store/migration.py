"""Apply the packaged alembic migrations programmatically, in one recorded transaction."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from trustprobe.store.database import write_transaction
from trustprobe.store.errors import SchemaOutOfDateError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@cache  # the packaged scripts do not change while the process runs; readiness asks often
def head_revision() -> str:
    """Return the newest migration shipped with this version of trustprobe."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None, "the packaged migrations have no head"
    return head


def current_revision(engine: Engine) -> str | None:
    """Return the revision recorded in the database, or ``None`` for a database never upgraded."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade_database(engine: Engine) -> tuple[str | None, str]:
    """Apply every pending migration in one transaction; returns (revision before, after)."""
    config = _config()
    with write_transaction(engine) as connection:
        before = MigrationContext.configure(connection).get_current_revision()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        after = MigrationContext.configure(connection).get_current_revision()
    assert after is not None
    return before, after


def require_current_schema(engine: Engine) -> None:
    """Raise :class:`SchemaOutOfDateError` unless the database is at the shipped head."""
    current = current_revision(engine)
    head = head_revision()
    if current != head:
        found = "an empty database" if current is None else f"revision {current}"
        raise SchemaOutOfDateError(
            f"the store is {found} but this trustprobe needs {head}: "
            "run `trustprobe db upgrade` (with the same --database-url) first"
        )
