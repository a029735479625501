"""Which runs of other tools an agent's stored evidence came from (``GET .../sources``)."""

from __future__ import annotations

from sqlalchemy import func, select

from trustprobe.store.database import read_transaction
from trustprobe.store.errors import NotFoundError
from trustprobe.store.models import StoredRun
from trustprobe.store.schema import AgentRow, EvidenceRow, OrganisationRow
from trustprobe.store.store import TrustStore


def stored_runs(store: TrustStore, *, organisation: str, agent_id: str) -> list[StoredRun]:
    """Every run with records about the agent, by tool, run id and file digest, oldest first.

    Records sent without a ``source`` are not listed; unknown agents raise NotFoundError.
    """
    with read_transaction(store.engine) as connection:
        agent_pk = connection.execute(
            select(AgentRow.id)
            .join(OrganisationRow, OrganisationRow.id == AgentRow.organisation_id)
            .where(OrganisationRow.name == organisation, AgentRow.agent_id == agent_id)
        ).scalar_one_or_none()
        if agent_pk is None:
            raise NotFoundError(f"no agent {agent_id!r} in this organisation")
        rows = connection.execute(
            select(
                EvidenceRow.source_tool,
                EvidenceRow.source_run_id,
                EvidenceRow.source_file_sha256,
                func.count(),
                func.min(EvidenceRow.received_at),
                func.min(EvidenceRow.seq),
            )
            .where(EvidenceRow.agent_pk == agent_pk, EvidenceRow.source_tool.is_not(None))
            .group_by(
                EvidenceRow.source_tool, EvidenceRow.source_run_id, EvidenceRow.source_file_sha256
            )
            .order_by(func.min(EvidenceRow.seq))
        ).all()
    return [
        StoredRun(
            tool=tool,
            run_id=run_id,
            file_sha256=digest,
            evidence_count=count,
            first_received_at=received,
        )
        for tool, run_id, digest, count, received, _ in rows
    ]
