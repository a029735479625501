"""Probe reports as evidence: record the run, convert it, ingest it, all in one transaction."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, insert, select

from trustprobe.reports import Report
from trustprobe.store.database import write_transaction
from trustprobe.store.errors import NotFoundError
from trustprobe.store.evidence import (
    ensure_agents,
    ingest_in_transaction,
    lock_organisation,
    prepare_batch,
)
from trustprobe.store.evidence_cache import CacheUpdates
from trustprobe.store.history import canonical_score
from trustprobe.store.models import AgentScore, EvidenceSource, ReportIngestResult
from trustprobe.store.schema import AgentRow, ProbeRunRow
from trustprobe.store.store import DEFAULT_ORGANISATION, TrustStore
from trustprobe.trust import evidence_from_report, report_created_at, report_digest


def _existing_run(
    connection: Connection, organisation_id: int, agent_id: str, digest: str
) -> tuple[int, datetime] | None:
    row = connection.execute(
        select(ProbeRunRow.id, ProbeRunRow.observed_at)
        .join(AgentRow, AgentRow.id == ProbeRunRow.agent_pk)
        .where(
            ProbeRunRow.organisation_id == organisation_id,
            AgentRow.agent_id == agent_id,
            ProbeRunRow.report_sha256 == digest,
        )
    ).first()
    return None if row is None else (row.id, row.observed_at)


def submit_report(
    store: TrustStore,
    report: Report,
    *,
    agent_id: str,
    organisation: str,
    now: datetime,
    observed_at: datetime | None = None,
    source: EvidenceSource = EvidenceSource.REPORT,
) -> ReportIngestResult:
    """Record a probe run for ``agent_id`` and ingest the evidence its report yields.

    ``observed_at`` defaults to the time of the first receipt of this report, else its
    ``provenance.created_at``, else ``now``, so re-sending a report is a no-op. A report the
    trust engine cannot convert raises :class:`trustprobe.errors.InputError`; nothing is stored.
    """
    digest = report_digest(report)
    cached = CacheUpdates()
    with write_transaction(store.engine) as connection:
        organisation_id = lock_organisation(connection, organisation, now=now)
        existing = _existing_run(connection, organisation_id, agent_id, digest)
        observed = (
            observed_at or (existing[1] if existing else None) or report_created_at(report) or now
        )
        evidence = evidence_from_report(report, agent_id=agent_id, observed_at=observed)
        if existing is not None:
            run_id = existing[0]
        else:
            agent_pk = ensure_agents(connection, organisation_id, [agent_id], now=now)[agent_id]
            run_id = connection.execute(
                insert(ProbeRunRow).returning(ProbeRunRow.id),
                {
                    "organisation_id": organisation_id,
                    "agent_pk": agent_pk,
                    "report_sha256": digest,
                    "schema_version": report.schema_version[:40],
                    "observed_at": observed,
                    "evidence_count": len(evidence),
                    "source": source.value,
                    "received_at": now,
                },
            ).scalar_one()
        result = ingest_in_transaction(
            connection,
            store,
            prepare_batch(store, evidence, now=now),
            organisation=organisation,
            now=now,
            source=source,
            probe_run_id=run_id,
            cache_updates=cached,
        )
    cached.apply(store.evidence_cache, store.item_cache)  # only now: the rows are committed
    return ReportIngestResult(
        **result.model_dump(),
        probe_run_id=run_id,
        report_sha256=digest,
        duplicate_report=existing is not None,
    )


def record_report(
    store: TrustStore,
    report: Report,
    *,
    agent_id: str,
    now: datetime,
    organisation: str = DEFAULT_ORGANISATION,
) -> AgentScore | None:
    """Ingest a probe report as evidence and return the agent's resulting canonical score.

    ``None`` when the report yielded no evidence and the agent has no score yet. The score
    returned is the canonical one: an anomalous swing shows as ``pending_review`` instead.
    """
    submit_report(store, report, agent_id=agent_id, organisation=organisation, now=now)
    try:
        return canonical_score(store, organisation=organisation, agent_id=agent_id)
    except NotFoundError:
        return None
