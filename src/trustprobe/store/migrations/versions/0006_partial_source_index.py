"""The evidence index by source run holds only records that carry a source.

Revision ID: 0006_partial_source_index
Revises: 0005_rate_buckets
Create Date: 2026-11-28

Records sent without a ``source`` (``source_tool`` null: most records the service receives)
can never match a lookup by tool and run, yet each of them cost an entry in the index on
(organisation, source tool, source run): about 2 µs of the SQLite insert of every such record
(docs/benchmarks.md, "Ingestion CPU per record on SQLite"). The index is rebuilt partial,
``WHERE source_tool IS NOT NULL``; a lookup that names a tool implies that condition, so it can
still use it. Nothing stored changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_partial_source_index"
down_revision = "0005_rate_buckets"
branch_labels = None
depends_on = None

INDEX = "ix_evidence_organisation_id_source_tool_source_run_id"
COLUMNS = ["organisation_id", "source_tool", "source_run_id"]


def upgrade() -> None:
    """Replace the index by one over the records with a source."""
    op.drop_index(INDEX, table_name="evidence")
    with_source = sa.text("source_tool IS NOT NULL")
    op.create_index(
        INDEX, "evidence", COLUMNS, sqlite_where=with_source, postgresql_where=with_source
    )


def downgrade() -> None:
    """Back to the index over every record."""
    op.drop_index(INDEX, table_name="evidence")
    op.create_index(INDEX, "evidence", COLUMNS)
