"""Evidence rows name their organisation and agent without foreign-key constraints.

Revision ID: 0007_evidence_unconstrained
Revises: 0006_partial_source_index
Create Date: 2026-11-28

On PostgreSQL each of the two constraints runs a trigger per inserted row that looks the
referenced row up and locks it (``FOR KEY SHARE``): about half the server's CPU of a batch's
COPY into ``evidence`` (docs/benchmarks.md, "Evidence ingestion"). Nothing needs them: the
ingestion writes an evidence row only under its organisation's lock and after creating its
agent in the same transaction, no code deletes agents or organisations, and ``db verify``
checks every evidence row's agent and organisation rows exist and agree (a row removed by hand
is named, as with the constraints switched off). The constraint on ``probe_run_id``, almost
always null, costs nothing measurable and stays. SQLite rebuilds the table (batch mode) to drop
them; its rows are copied unchanged.
"""

from __future__ import annotations

from alembic import op

revision = "0007_evidence_unconstrained"
down_revision = "0006_partial_source_index"
branch_labels = None
depends_on = None

DROPPED = (
    ("fk_evidence_organisation_id_organisations", "organisations", "organisation_id"),
    ("fk_evidence_agent_pk_agents", "agents", "agent_pk"),
)


def upgrade() -> None:
    """Drop the two constraints."""
    with op.batch_alter_table("evidence") as batch:
        for name, _, _ in DROPPED:
            batch.drop_constraint(name, type_="foreignkey")


def downgrade() -> None:
    """Put the constraints back (PostgreSQL checks every stored row against them)."""
    with op.batch_alter_table("evidence") as batch:
        for name, table, column in DROPPED:
            batch.create_foreign_key(name, table, [column], ["id"])
