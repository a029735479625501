"""``trustprobe import``: garak, promptfoo and Inspect results as evidence, with provenance."""

from __future__ import annotations

from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from trustprobe.cli.console import console
from trustprobe.cli.db_cmd import DATABASE_URL_OPTION, cli_store
from trustprobe.cli.file_options import check_outputs_apart
from trustprobe.cli.trust_cmd import parse_agent, parse_moment
from trustprobe.cli.trust_store_cmd import ORG_OPTION, report_ingestion
from trustprobe.errors import InputError
from trustprobe.formats import atomic_write_text
from trustprobe.importers import (
    RESCORE_FILES,
    TOOLS,
    Agreement,
    ImportSummary,
    Tool,
    import_results,
    load_family_mapping,
    rescoring,
)
from trustprobe.store import EvidenceSource, ingest_evidence
from trustprobe.trust import Evidence, evidence_canonical_json

_SHOWN_DISAGREEMENTS = 10


def import_(
    tool: Annotated[
        str, typer.Argument(help="The tool that wrote the files: garak, promptfoo, inspect.")
    ],
    files: Annotated[
        list[Path],
        typer.Argument(
            help="garak *.report.jsonl, promptfoo 'eval -o' JSON, or Inspect logs (.eval/.json)."
        ),
    ],
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent the results are about.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the evidence JSONL here.")
    ] = None,
    store: Annotated[
        bool,
        typer.Option("--store", help="Append the evidence to the store and rescore the agent."),
    ] = False,
    mapping: Annotated[
        Path | None,
        typer.Option("--mapping", help="Family → dimension file merged over the built-in one."),
    ] = None,
    observed_at: Annotated[
        str | None,
        typer.Option("--observed-at", help="RFC 3339 time of the runs (default: what each says)."),
    ] = None,
    rescore: Annotated[
        Path | None,
        typer.Option(
            "--rescore",
            help="Also write the transcripts here as trustprobe probes and responses, score them "
            "and compare verdicts.",
        ),
    ] = None,
    org: str = ORG_OPTION,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Turn another tool's results into evidence; list unmapped families; compare verdicts."""
    if tool not in TOOLS:
        raise InputError(f"unknown tool {tool!r}: one of {', '.join(TOOLS)}", field="TOOL")
    if output is None and not store:
        raise InputError(
            "say where the evidence goes: --output FILE, --store, or both", field="--output"
        )
    rescored = [] if rescore is None else [("--rescore", rescore / n) for n in RESCORE_FILES]
    inputs = [*files, *([] if mapping is None else [mapping])]
    check_outputs_apart(inputs, [("--output", output), *rescored])
    agent = parse_agent(agent)
    chosen: Tool = tool
    moment = None if observed_at is None else parse_moment(observed_at, "--observed-at")
    family_mapping = load_family_mapping(mapping)
    with rescoring(chosen, rescore) if rescore is not None else nullcontext() as rescorer:
        result = import_results(
            chosen,
            files,
            agent_id=agent,
            mapping=family_mapping,
            observed_at=moment,
            rescorer=rescorer,
        )
    if output is not None:
        atomic_write_text(
            output, "".join(evidence_canonical_json(r) + "\n" for r in result.evidence)
        )
    if as_json:
        typer.echo(result.summary.model_dump_json(indent=2))
    else:
        _render(result.summary, output, rescore)
    if store:
        _store(result.evidence, org, database_url, quiet=as_json)


def _store(records: list[Evidence], org: str, database_url: str | None, *, quiet: bool) -> None:
    with cli_store(database_url) as opened:
        ingested = ingest_evidence(
            opened, records, organisation=org, now=datetime.now(UTC), source=EvidenceSource.IMPORT
        )
    report_ingestion(ingested, quiet=quiet, place=lambda r: f"evidence {r.evidence_id}")


def _render(summary: ImportSummary, output: Path | None, rescore: Path | None) -> None:
    console.print(
        f"{summary.tool}: {len(summary.files)} file(s) for agent {summary.agent_id!r}; "
        f"mapping {summary.mapping}",
        soft_wrap=True,
        highlight=False,
    )
    for imported in summary.files:
        table = Table(
            title=(
                f"{escape(imported.file)} — {summary.tool} {imported.tool_version or '?'}, "
                f"run {imported.run_id or '?'}, sha256 {imported.file_sha256[:12]}, "
                f"{imported.observed_at.isoformat(timespec='seconds')}"
            ),
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            collapse_padding=True,
            title_justify="left",
        )
        for header in ("family", "dimensions", "passed", "failed", "errors", "pass rate"):
            left = header in ("family", "dimensions")
            table.add_column(header, justify="left" if left else "right", no_wrap=left)
        for family in imported.families:
            judged = family.passed + family.failed
            rate = "—" if not judged else f"{family.passed / judged:.0%}"
            dimensions = ", ".join(d.value for d in family.dimensions)
            table.add_row(
                family.family,
                dimensions,
                str(family.passed),
                str(family.failed),
                str(family.errors),
                rate,
            )
        console.print(table)
        if imported.agreement:
            _render_agreement(imported.agreement)
    if summary.unmapped:
        listed = ", ".join(f"{name} ({count})" for name, count in summary.unmapped.items())
        console.print(
            "[yellow]unmapped families (not in the evidence; map them with --mapping):[/] "
            + escape(listed),
            soft_wrap=True,
            markup=True,
        )
    if summary.ignored:
        listed = ", ".join(f"{name} ({count})" for name, count in summary.ignored.items())
        console.print(f"ignored by the mapping: {escape(listed)}", soft_wrap=True, markup=True)
    if summary.disagreements_total:
        console.print(f"{summary.disagreements_total} disagreement(s); the first:", soft_wrap=True)
        for found in summary.disagreements[:_SHOWN_DISAGREEMENTS]:
            theirs = "pass" if found.they_passed else "fail"
            ours = "pass" if found.we_passed else "fail"
            console.print(
                f"  {escape(found.family)} {escape(found.case_id)}: {summary.tool} {theirs}, "
                f"trustprobe {ours} — {escape(found.explanation)}",
                soft_wrap=True,
                highlight=False,
                markup=True,
            )
    console.print(f"{summary.evidence} evidence record(s)", soft_wrap=True)
    if output is not None:
        console.print(f"evidence: {output}", soft_wrap=True)
    if rescore is not None:
        console.print(
            f"transcripts: {rescore} (probes.jsonl, responses.jsonl, disagreements.jsonl)",
            soft_wrap=True,
        )


def _render_agreement(rows: list[Agreement]) -> None:
    table = Table(
        title="agreement: their detector against trustprobe's verdicts",
        caption="P/F: their detector passed the case, trustprobe failed it (F/P the reverse)",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        title_justify="left",
        caption_justify="left",
    )
    table.add_column("family", no_wrap=True)
    for header in ("judged", "agree", "P/P", "F/F", "F/P", "P/F"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("unjudged", justify="right", no_wrap=True)
    for row in rows:
        rate = "—" if row.rate is None else f"{row.rate:.0%}"
        counts = (row.both_pass, row.both_fail, row.only_they_fail, row.only_we_fail)
        table.add_row(
            row.family, str(row.judged), rate, *(str(c) for c in counts), str(row.unjudged)
        )
    console.print(table)
