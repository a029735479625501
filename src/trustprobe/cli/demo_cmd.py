"""``trustprobe demo --out DIR``: the ``make demo`` flow."""

from __future__ import annotations

import asyncio
import os
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from trustprobe.cli.console import console, progress_console
from trustprobe.cli.invocation import activation_hint, program
from trustprobe.demo import Persona, run_demo
from trustprobe.detectors import Detector
from trustprobe.errors import ExitCode
from trustprobe.reports import Report, print_summary, write_report_html
from trustprobe.store import (
    DATABASE_URL_ENV,
    describe_store,
    open_store,
    record_report,
    shown_database_url,
)


def demo(
    out: Annotated[Path, typer.Option("--out", help="Run directory to write.")],
    persona: Annotated[
        Persona, typer.Option("--persona", help="Which demo agent to scan.")
    ] = Persona.GUARDED,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            envvar=DATABASE_URL_ENV,
            help="Trust store to record the scan in (default: the embedded SQLite store).",
        ),
    ] = None,
) -> None:
    """Scan the built-in demo agent, write the reports and record the run in the trust store."""
    console.print(f"Starting the demo agent ({persona.value}) on a free loopback port…")
    result = asyncio.run(
        run_demo(
            out, detector=Detector.builtin(), persona=persona, progress_console=progress_console
        )
    )
    console.print("Demo agent stopped.")
    print_summary(result.report, console)
    console.print(f"run directory: {result.run_dir}", soft_wrap=True)
    html_path = result.run_dir / "report.html"
    write_report_html(result.report, html_path)
    for path in (*result.report_paths, html_path):
        console.print(f"report: {path}", soft_wrap=True)
    _record_in_store(result.report, f"demo-{persona.value}", database_url)
    if result.outcome.interrupted:
        raise typer.Exit(ExitCode.INTERRUPTED)


def _record_in_store(report: Report, agent_id: str, database_url: str | None) -> None:
    """Record the scan as evidence in the trust store and print the agent's trust score."""
    store = open_store(database_url, upgrade=True)
    try:
        recorded = record_report(store, report, agent_id=agent_id, now=datetime.now(UTC))
    finally:
        store.close()
    console.print(f"trust store: {describe_store(database_url)}", soft_wrap=True)
    if recorded is None:
        console.print(f"trust score of {agent_id}: no evidence yet")
    else:
        score = recorded.score
        console.print(
            f"trust score of {agent_id}: {score.composite} / 1000, tier {score.tier} "
            f"({score.coverage.covered_count} of {score.coverage.total} dimensions covered)",
            soft_wrap=True,
        )
        for reason in score.reasons:
            console.print(f"  - {reason}", soft_wrap=True)
    pending = recorded is not None and recorded.pending_review is not None
    _print_next_steps(agent_id, database_url, review=pending)


def _print_next_steps(agent_id: str, database_url: str | None, *, review: bool) -> None:
    """Commands to paste next, spelled so this shell finds this trustprobe and this store."""
    command = program()
    # A store chosen by --database-url is not where a later command looks unless told; one
    # chosen by the environment variable or the default is. The password stays masked.
    store = ""
    if database_url and database_url != os.environ.get(DATABASE_URL_ENV):
        store = f" --database-url {shlex.quote(shown_database_url(database_url))}"
    console.print("next steps:")
    if review:
        console.print(
            f"  {command} reviews list{store}   # a swing of over 200 points awaits review",
            soft_wrap=True,
        )
    console.print(f"  {command} trust history --agent {agent_id}{store}", soft_wrap=True)
    hint = activation_hint()
    if hint is not None:
        console.print(f"(or run `{hint}` once, then call it as plain `trustprobe`)", soft_wrap=True)
