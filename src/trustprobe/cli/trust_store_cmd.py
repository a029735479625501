"""``trustprobe trust record``, ``history`` and ``recompute``: the store-backed trust commands."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import typer
from rich.table import Table

from trustprobe.cli.console import console, err_console
from trustprobe.cli.db_cmd import DATABASE_URL_OPTION, cli_store, organisation_option
from trustprobe.cli.engine_options import (
    SCHEDULER_OPTION,
    WORKERS_OPTION,
    cluster_run,
    engine_option,
    wants_cluster,
)
from trustprobe.cli.trust_cmd import parse_moment
from trustprobe.errors import ExitCode, InputError
from trustprobe.formats import read_jsonl
from trustprobe.store import (
    EvidenceSource,
    IngestResult,
    Recomputation,
    RecordNote,
    TrustStore,
    ingest_evidence,
    recompute_trust,
    require_agent,
    score_history,
)
from trustprobe.store.recompute import AGENTS_PER_PARTITION
from trustprobe.trust import Evidence, check_observed_in_time, parse_evidence

MAX_NOTES = 20
"""Ignored records named one by one on stderr; beyond that, a count (all are in --json)."""
EVIDENCE_OPTION = typer.Option(..., "--evidence", "-e", help="Evidence JSONL file.")
ORG_OPTION = organisation_option("Organisation the agents belong to.")


def record(
    evidence: Path = EVIDENCE_OPTION,
    org: str = ORG_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Append evidence to the store and rescore its agents; exit 2 if any record was refused."""
    records: list[Evidence] = []
    lines: list[int] = []
    for row in read_jsonl(evidence):
        if row.repaired_utf8:
            raise InputError(
                "invalid UTF-8 or a lone UTF-16 surrogate", path=row.path, line=row.line
            )
        records.append(parse_evidence(row.data, path=row.path, line=row.line))
        lines.append(row.line)
    now = datetime.now(UTC)
    check_observed_in_time(records, now=now, path=evidence, lines=lines)
    with cli_store(database_url) as store:
        result = ingest_evidence(
            store,
            records,
            organisation=org,
            now=now,
            source=EvidenceSource.CLI,
            positions=lines,
        )
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    report_ingestion(result, quiet=as_json, place=lambda r: f"{evidence}:{r.index}")


def report_ingestion(
    result: IngestResult, *, quiet: bool, place: Callable[[RecordNote], str]
) -> None:
    """Print what an ingestion did (unless ``quiet``) and each rejection; exit 2 on any."""
    if not quiet:
        console.print(
            f"accepted {result.accepted}, duplicate {result.duplicate}, "
            f"rejected {len(result.rejected)}; {len(result.transitions)} agent(s) rescored, "
            f"{len(result.pending_reviews)} review(s) opened",
            soft_wrap=True,
        )
    shown = result.ignored[:MAX_NOTES]
    for note in shown:
        err_console.print(
            f"[yellow]note:[/] {place(note)}: {note.reason}",
            highlight=False,
            soft_wrap=True,
            markup=True,
        )
    if len(result.ignored) > len(shown):
        err_console.print(
            f"[yellow]note:[/] {len(result.ignored) - len(shown)} more record(s) changed no "
            "score; --json lists them all",
            soft_wrap=True,
            markup=True,
        )
    for rejection in result.rejected:
        err_console.print(
            f"[bold red]rejected:[/] {place(rejection)}: field 'id': {rejection.reason}",
            highlight=False,
            soft_wrap=True,
            markup=True,
        )
    if result.rejected:
        raise typer.Exit(ExitCode.BAD_INPUT)


def history(
    agent: str = typer.Option(..., "--agent", "-a", help="Agent id."),
    org: str = ORG_OPTION,
    limit: int = typer.Option(20, "--limit", min=1, max=500, help="Transitions to show."),
    before: int | None = typer.Option(
        None, "--before", min=1, max=2**62, help="Only transitions older than this."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the page as JSON."),
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Show an agent's score transitions, newest first."""
    with cli_store(database_url) as store:
        require_agent(store, organisation=org, agent_id=agent)  # names where it is instead
        page = score_history(store, organisation=org, agent_id=agent, limit=limit, before=before)
    if as_json:
        typer.echo(page.model_dump_json(indent=2))
        return
    table = Table("seq", "computed at", "composite", "tier", "status", "anomalous", "trigger")
    for item in page.transitions:
        table.add_row(
            str(item.seq),
            item.computed_at.isoformat(timespec="seconds"),
            "-" if item.composite is None else str(item.composite),
            item.tier,
            item.status.value,
            "yes" if item.was_anomalous else "",
            item.trigger,
        )
    console.print(table)
    if page.next_before is not None:
        console.print(f"older transitions: --before {page.next_before}", soft_wrap=True)


def recompute(
    org: str = ORG_OPTION,
    engine: str | None = engine_option("score partitions of agents"),
    scheduler: str | None = SCHEDULER_OPTION,
    workers: int | None = WORKERS_OPTION,
    agents_per_partition: int | None = typer.Option(
        None,
        "--agents-per-partition",
        min=1,
        help=f"With --engine dask: agents scored per task (default {AGENTS_PER_PARTITION}).",
    ),
    now: str | None = typer.Option(
        None,
        "--now",
        help="Score as of this RFC 3339 time with an offset, not the current time (for "
        "backfills and tests).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Rescore every agent of the organisation as of now, so time decay shows in the history."""
    on_cluster = wants_cluster(engine, scheduler, workers)
    if agents_per_partition is not None and not on_cluster:
        raise InputError(
            "--agents-per-partition needs --engine dask", field="--agents-per-partition"
        )
    moment = datetime.now(UTC) if now is None else parse_moment(now, "--now")
    with cli_store(database_url) as store:
        if on_cluster:
            result = _recompute_on_dask(
                store, org, moment, scheduler, workers, agents_per_partition or AGENTS_PER_PARTITION
            )
        else:
            result = recompute_trust(store, organisation=org, now=moment)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    where = f"in {result.partitions} partition(s) on the cluster" if on_cluster else "in process"
    console.print(
        f"{result.agents} agent(s) of {org!r} rescored {where} as of "
        f"{moment.isoformat(timespec='seconds')}; {len(result.pending_reviews)} review(s) opened",
        soft_wrap=True,
    )
    if on_cluster:
        console.print(
            f"{result.recomputed_on_client} agent(s) re-scored on the client (their evidence "
            "grew while the cluster scored them)",
            soft_wrap=True,
        )


def _recompute_on_dask(
    store: TrustStore,
    org: str,
    now: datetime,
    scheduler: str | None,
    workers: int | None,
    agents_per_partition: int,
) -> Recomputation:
    with cluster_run():
        from trustprobe.distributed.command import recompute_command

        return recompute_command(
            store,
            organisation=org,
            now=now,
            scheduler=scheduler,
            workers=workers,
            agents_per_partition=agents_per_partition,
        )
