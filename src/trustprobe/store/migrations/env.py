"""Alembic environment: runs on the connection (and inside the transaction) it is handed."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from trustprobe.store.schema import Base


def run_migrations() -> None:
    """Apply migrations on ``config.attributes['connection']``; offline mode is not supported."""
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError("trustprobe migrations run through trustprobe.store.upgrade_database")
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    # The caller already began the transaction, so this adds no nested one: every migration
    # and the version stamp commit together or not at all.
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
