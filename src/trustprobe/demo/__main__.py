"""``python -m trustprobe.demo --out DIR``: the ``make demo`` flow."""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path

from trustprobe.cli.console import console, err_console
from trustprobe.demo.flow import run_demo
from trustprobe.demo.personas import Persona
from trustprobe.detectors import Detector
from trustprobe.errors import ExitCode, InputError
from trustprobe.reports import Report, print_summary, write_report_html
from trustprobe.store import open_store, record_report, shown_database_url


def main(argv: list[str] | None = None) -> int:
    """Run the demo and print the summary and where the reports are."""
    parser = argparse.ArgumentParser(prog="python -m trustprobe.demo", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="Run directory to write.")
    parser.add_argument(
        "--persona", choices=[p.value for p in Persona], default=Persona.GUARDED.value
    )
    parser.add_argument(
        "--database-url",
        help="Trust store to record the scan in (default: $TRUSTPROBE_DATABASE_URL, else the "
        "embedded SQLite store).",
    )
    args = parser.parse_args(argv)
    persona = Persona(args.persona)
    console.print(f"Starting the demo agent ({persona.value}) on a free loopback port…")
    try:
        result = asyncio.run(
            run_demo(
                args.out, detector=Detector.builtin(), persona=persona, progress_console=err_console
            )
        )
    except InputError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        return int(ExitCode.BAD_INPUT)
    console.print("Demo agent stopped.")
    print_summary(result.report, console)
    console.print(f"run directory: {result.run_dir}", soft_wrap=True)
    html_path = result.run_dir / "report.html"
    write_report_html(result.report, html_path)
    for path in (*result.report_paths, html_path):
        console.print(f"report: {path}", soft_wrap=True)
    _record_in_store(result.report, f"demo-{persona.value}", args.database_url)
    if result.exit_code is ExitCode.INTERRUPTED:
        return int(ExitCode.INTERRUPTED)
    return int(ExitCode.OK)


def _record_in_store(report: Report, agent_id: str, database_url: str | None) -> None:
    """Record the scan as evidence in the trust store and print the agent's trust score."""
    store = open_store(database_url, upgrade=True)
    try:
        recorded = record_report(
            store, report.model_dump(mode="json"), agent_id=agent_id, now=datetime.now(UTC)
        )
    finally:
        store.close()
    where = shown_database_url(database_url)
    console.print(f"trust store: {where}", soft_wrap=True)
    if recorded is None:
        console.print(f"trust score of {agent_id}: no evidence yet")
        return
    score = recorded.score
    console.print(
        f"trust score of {agent_id}: {score.composite} / 1000, tier {score.tier} "
        f"({score.coverage.covered_count} of {score.coverage.total} dimensions covered)",
        soft_wrap=True,
    )
    for reason in score.reasons:
        console.print(f"  - {reason}", soft_wrap=True)
    if recorded.pending_review is not None:
        console.print("a swing of over 200 points awaits review: trustprobe reviews list")
    console.print(f"history: trustprobe trust history --agent {agent_id}", soft_wrap=True)


if __name__ == "__main__":
    sys.exit(main())
