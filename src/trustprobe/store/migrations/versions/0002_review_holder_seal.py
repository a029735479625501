"""Reviews record which seal they carry: version 2 also seals the organisation and agent.

Revision ID: 0002_review_holder_seal
Revises: 0001_initial
Create Date: 2026-11-25

A version-1 seal covers a review's decision but not the columns that say who may decide it
(``organisation_id``, ``agent_pk``). Existing reviews keep their version-1 seal (resealing them
here would vouch for rows nobody checked); ``db verify`` checks their holder against their
transition instead. Reviews opened or decided from now on carry version 2.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_review_holder_seal"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``reviews.seal_version``; every existing review is version 1."""
    with op.batch_alter_table("reviews") as batch:
        batch.add_column(
            sa.Column("seal_version", sa.Integer(), nullable=False, server_default="1")
        )


def downgrade() -> None:
    """Drop ``reviews.seal_version`` (version-2 seals then no longer verify)."""
    with op.batch_alter_table("reviews") as batch:
        batch.drop_column("seal_version")
