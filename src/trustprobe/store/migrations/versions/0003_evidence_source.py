"""Evidence source columns: which tool, run and file an imported record came from.

Revision ID: 0003_evidence_source
Revises: 0002_review_holder_seal
Create Date: 2026-11-25

The record's ``source`` object stays in the hashed content; these columns copy the parts the
store looks runs up by (``db verify`` checks they agree with the content). Existing rows were
all sent without a source, so the columns start empty and need no backfill.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_evidence_source"
down_revision = "0002_review_holder_seal"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the three nullable columns and an index to find a run's records."""
    with op.batch_alter_table("evidence") as batch:
        batch.add_column(sa.Column("source_tool", sa.String(40), nullable=True))
        batch.add_column(sa.Column("source_run_id", sa.String(200), nullable=True))
        batch.add_column(sa.Column("source_file_sha256", sa.String(64), nullable=True))
    op.create_index(
        "ix_evidence_organisation_id_source_tool_source_run_id",
        "evidence",
        ["organisation_id", "source_tool", "source_run_id"],
    )


def downgrade() -> None:
    """Drop the index and the columns."""
    op.drop_index("ix_evidence_organisation_id_source_tool_source_run_id", table_name="evidence")
    with op.batch_alter_table("evidence") as batch:
        batch.drop_column("source_file_sha256")
        batch.drop_column("source_run_id")
        batch.drop_column("source_tool")
