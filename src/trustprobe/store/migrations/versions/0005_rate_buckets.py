"""Request token buckets kept in the store, so every service worker shares one limit.

Revision ID: 0005_rate_buckets
Revises: 0004_score_totals
Create Date: 2026-11-25

One row per API key or client address, updated atomically by each request (see
``store/rate_buckets.py``). Buckets are not evidence: no hash chain, no history, dropped when
full again. The table starts empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_rate_buckets"
down_revision = "0004_score_totals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``rate_buckets`` and the index that finds full buckets to drop."""
    op.create_table(
        "rate_buckets",
        sa.Column("bucket", sa.String(120), nullable=False),
        sa.Column("tokens", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("full_at", sa.Double(), nullable=False),
        sa.Column("allowed", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("bucket", name="pk_rate_buckets"),
    )
    op.create_index("ix_rate_buckets_full_at", "rate_buckets", ["full_at"])


def downgrade() -> None:
    """Drop the table; limits fall back to whatever each process keeps."""
    op.drop_index("ix_rate_buckets_full_at", table_name="rate_buckets")
    op.drop_table("rate_buckets")
