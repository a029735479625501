"""Initial schema: organisations, API keys, agents, probe runs, evidence, score history, reviews.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None

# Spelled out rather than imported from schema.py: a migration is a frozen record of one step.
SEQ = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _ts(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "organisations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_organisations"),
        sa.UniqueConstraint("name", name="uq_organisations_name"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("key_sha256", sa.String(64), nullable=False),
        sa.Column("scopes", sa.String(100), nullable=False),
        sa.Column("label", sa.String(200), nullable=True),
        _ts("created_at"),
        _ts("revoked_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_api_keys"),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_api_keys_organisation_id_organisations",
        ),
        sa.UniqueConstraint("prefix", name="uq_api_keys_prefix"),
    )
    op.create_index("ix_api_keys_organisation_id", "api_keys", ["organisation_id"])
    op.create_table(
        "agents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.String(200), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_agents"),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_agents_organisation_id_organisations",
        ),
        sa.UniqueConstraint(
            "organisation_id", "agent_id", name="uq_agents_organisation_id_agent_id"
        ),
    )
    op.create_table(
        "probe_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("agent_pk", sa.Integer(), nullable=False),
        sa.Column("report_sha256", sa.String(64), nullable=False),
        sa.Column("schema_version", sa.String(40), nullable=True),
        _ts("observed_at"),
        sa.Column("evidence_count", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        _ts("received_at"),
        sa.PrimaryKeyConstraint("id", name="pk_probe_runs"),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_probe_runs_organisation_id_organisations",
        ),
        sa.ForeignKeyConstraint(["agent_pk"], ["agents.id"], name="fk_probe_runs_agent_pk_agents"),
        sa.UniqueConstraint(
            "organisation_id",
            "agent_pk",
            "report_sha256",
            name="uq_probe_runs_organisation_id_agent_pk_report_sha256",
        ),
    )
    op.create_index("ix_probe_runs_agent_pk", "probe_runs", ["agent_pk"])
    op.create_table(
        "evidence",
        sa.Column("seq", SEQ, autoincrement=True, nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("agent_pk", sa.Integer(), nullable=False),
        sa.Column("evidence_id", sa.String(200), nullable=False),
        sa.Column("dimension", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        _ts("observed_at"),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("content_sha256", sa.String(64), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("probe_run_id", sa.Integer(), nullable=True),
        _ts("received_at"),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_evidence"),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_evidence_organisation_id_organisations",
        ),
        sa.ForeignKeyConstraint(["agent_pk"], ["agents.id"], name="fk_evidence_agent_pk_agents"),
        sa.ForeignKeyConstraint(
            ["probe_run_id"], ["probe_runs.id"], name="fk_evidence_probe_run_id_probe_runs"
        ),
        sa.UniqueConstraint(
            "organisation_id", "evidence_id", name="uq_evidence_organisation_id_evidence_id"
        ),
    )
    op.create_index("ix_evidence_agent_pk_seq", "evidence", ["agent_pk", "seq"])
    op.create_index("ix_evidence_organisation_id_seq", "evidence", ["organisation_id", "seq"])
    op.create_table(
        "score_history",
        sa.Column("seq", SEQ, autoincrement=True, nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("agent_pk", sa.Integer(), nullable=False),
        sa.Column("composite", sa.Integer(), nullable=True),
        sa.Column("tier", sa.String(20), nullable=False),
        sa.Column("score", sa.Text(), nullable=False),
        _ts("computed_at"),
        sa.Column("trigger", sa.String(200), nullable=False),
        sa.Column("was_anomalous", sa.Boolean(), nullable=False),
        sa.Column("baseline_seq", SEQ, nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_score_history"),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_score_history_organisation_id_organisations",
        ),
        sa.ForeignKeyConstraint(
            ["agent_pk"], ["agents.id"], name="fk_score_history_agent_pk_agents"
        ),
    )
    op.create_index("ix_score_history_agent_pk_seq", "score_history", ["agent_pk", "seq"])
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("agent_pk", sa.Integer(), nullable=False),
        sa.Column("transition_seq", SEQ, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        _ts("opened_at"),
        _ts("decided_at", nullable=True),
        sa.Column("decided_by", sa.String(200), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("seal", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_reviews"),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_reviews_organisation_id_organisations",
        ),
        sa.ForeignKeyConstraint(["agent_pk"], ["agents.id"], name="fk_reviews_agent_pk_agents"),
        sa.ForeignKeyConstraint(
            ["transition_seq"],
            ["score_history.seq"],
            name="fk_reviews_transition_seq_score_history",
        ),
        sa.UniqueConstraint("transition_seq", name="uq_reviews_transition_seq"),
    )
    op.create_index("ix_reviews_organisation_id_status", "reviews", ["organisation_id", "status"])


def downgrade() -> None:
    """Drop every table, dependants first."""
    for table in ("reviews", "score_history", "evidence", "probe_runs", "agents", "api_keys"):
        op.drop_table(table)
    op.drop_table("organisations")
