"""Running score totals per (agent, dimension), backfilled from the stored evidence.

Revision ID: 0004_score_totals
Revises: 0003_evidence_source
Create Date: 2026-11-25

Ingestion rescores an agent from these totals instead of its whole history (docs/store.md,
"Running totals"). The backfill reads every evidence row once, agent by agent, and sums it with
the default trust settings; a store run with other item-scoring settings rebuilds an agent's
totals from its history the first time the agent is rescored.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from pydantic import TypeAdapter

from trustprobe.formats import STORED_CONTEXT
from trustprobe.store.totals import AgentTotals, add_records, config_key, save_totals
from trustprobe.trust import Evidence, TrustConfig

revision = "0004_score_totals"
down_revision = "0003_evidence_source"
branch_labels = None
depends_on = None

_AGENTS_PER_READ = 200


def upgrade() -> None:
    """Create ``score_totals`` and fill it from the evidence table."""
    op.create_table(
        "score_totals",
        sa.Column("agent_pk", sa.Integer(), nullable=False),
        sa.Column("dimension", sa.String(40), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("config_key", sa.String(64), nullable=False),
        sa.Column(
            "evidence_seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("item_count", sa.BigInteger(), nullable=False),
        sa.Column("size_sum", sa.Text(), nullable=False),
        sa.Column("raw_sum", sa.Text(), nullable=False),
        sa.Column("low_confidence", sa.Boolean(), nullable=False),
        sa.Column("newest_observed_us", sa.BigInteger(), nullable=False),
        sa.Column("oldest_scored_us", sa.BigInteger(), nullable=True),
        sa.Column("origins", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_pk"], ["agents.id"], name="fk_score_totals_agent_pk_agents"
        ),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_score_totals_organisation_id_organisations",
        ),
        sa.PrimaryKeyConstraint("agent_pk", "dimension", name="pk_score_totals"),
    )
    op.create_index(
        "ix_score_totals_organisation_id", "score_totals", ["organisation_id"], unique=False
    )
    _backfill(op.get_bind())


def _backfill(connection: sa.Connection) -> None:
    """Sum every agent's evidence, a few hundred agents per read."""
    config = TrustConfig()
    key = config_key(config)
    adapter: TypeAdapter[Evidence] = TypeAdapter(Evidence)
    agents = connection.execute(sa.text("SELECT id, organisation_id FROM agents ORDER BY id")).all()
    for start in range(0, len(agents), _AGENTS_PER_READ):
        chunk = agents[start : start + _AGENTS_PER_READ]
        rows = connection.execute(
            sa.text(
                "SELECT agent_pk, seq, content FROM evidence"
                " WHERE agent_pk >= :low AND agent_pk <= :high ORDER BY agent_pk, seq"
            ),
            {"low": chunk[0][0], "high": chunk[-1][0]},
        )
        by_agent: dict[int, list[tuple[int, str]]] = {}
        for agent_pk, seq, content in rows:
            by_agent.setdefault(agent_pk, []).append((seq, content))
        for agent_pk, organisation_id in chunk:
            history = by_agent.get(agent_pk)
            if not history:
                continue
            totals: AgentTotals = {}
            records = [
                adapter.validate_json(content, context={STORED_CONTEXT: True})
                for _, content in history
            ]
            add_records(totals, records, config, evidence_seq=history[-1][0])
            save_totals(connection, organisation_id, {agent_pk: totals}, key=key)


def downgrade() -> None:
    """Drop the totals (the evidence they summed stays)."""
    op.drop_index("ix_score_totals_organisation_id", table_name="score_totals")
    op.drop_table("score_totals")
