"""``trustprobe score``: score recorded responses and write the report.

The scoring libraries are imported when the command runs, not when its options are read, so
``trustprobe score --help`` comes up at once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from trustprobe.cli.console import console, err_console
from trustprobe.cli.engine_options import (
    SCHEDULER_OPTION,
    WORKERS_OPTION,
    cluster_run,
    engine_option,
    wants_cluster,
)

if TYPE_CHECKING:
    from trustprobe.detectors import RulePack
    from trustprobe.probes import Probe
    from trustprobe.reports import Report


def score(
    probes: list[str] = typer.Option(
        ..., "--probes", "-p", help="Probe files, or 'builtin' for the catalog."
    ),
    responses: list[Path] = typer.Option(
        ..., "--responses", "-r", help="Response files: JSONL, or Parquet by a .parquet suffix."
    ),
    output: Path = typer.Option(..., "--output", "-o", help="Where to write the JSON report."),
    markdown: Path | None = typer.Option(None, "--markdown", help="Also write a Markdown summary."),
    html: Path | None = typer.Option(None, "--html", help="Also write the HTML report."),
    rules: list[Path] = typer.Option(
        [], "--rules", help="Extra rule packs (YAML), used with the built-in ones."
    ),
    fail_under: float | None = typer.Option(
        None, "--fail-under", min=0.0, max=1.0, help="Exit 1 when the pass rate is below this."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed for the observability clustering."),
    min_cases: int = typer.Option(
        5, "--min-cases", min=1, help="Cases needed before observability is computed."
    ),
    engine: str | None = engine_option("score shards"),
    scheduler: str | None = SCHEDULER_OPTION,
    workers: int | None = WORKERS_OPTION,
    profile_stages: Path | None = typer.Option(
        None,
        "--profile-stages",
        help="Write the CPU and wall seconds of each stage of the run to this JSON file.",
    ),
) -> None:
    """Score recorded responses against probes and write the report."""
    from trustprobe.detectors import Detector, builtin_rule_packs, load_rule_pack
    from trustprobe.formats import atomic_write_text
    from trustprobe.probes import load_probes
    from trustprobe.reports import (
        StageClock,
        gate_exit_code,
        print_summary,
        read_report,
        render_markdown,
        stream_report,
        write_report_html,
    )

    clock = StageClock()
    clock.started()  # the interpreter, the command line and the imports above
    on_cluster = wants_cluster(engine, scheduler, workers)
    with clock.stage("loading"):
        probe_list = load_probes(probes)
        packs = [*builtin_rule_packs(), *(load_rule_pack(p) for p in rules)]
    if on_cluster:
        report = _score_on_dask(
            probe_list, responses, packs, output, scheduler, workers, probes, rules, min_cases,
            seed,
        )  # fmt: skip
    else:
        with clock.stage("loading"):
            detector = Detector.from_packs(packs)
        report = stream_report(
            probe_list,
            responses,
            output,
            detector=detector,
            sources={
                "probes": [str(p) for p in probes],
                "responses": [str(r) for r in responses],
                "rules": [str(r) for r in rules],
            },
            min_cases=min_cases,
            seed=seed,
            clock=clock,
        )
    if markdown is not None:
        atomic_write_text(markdown, render_markdown(report))
    if html is not None:
        # The page shows cases, which a streamed report leaves in the file: read it back.
        write_report_html(report if report.cases else read_report(output), html)
    for warning in report.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}")
    print_summary(report, console)
    for path in (output, markdown, html):
        if path is not None:
            console.print(f"report: {path}", soft_wrap=True)
    if profile_stages is not None:
        atomic_write_text(profile_stages, json.dumps(clock.as_json(), indent=2) + "\n")
    raise typer.Exit(gate_exit_code(report, fail_under))


def _score_on_dask(
    probes: list[Probe],
    responses: list[Path],
    packs: list[RulePack],
    output: Path,
    scheduler: str | None,
    workers: int | None,
    probe_args: list[str],
    rules: list[Path],
    min_cases: int,
    seed: int,
) -> Report:
    with cluster_run():
        from trustprobe.distributed.command import score_command

        return score_command(
            probes, responses, packs, output=output, scheduler=scheduler, workers=workers,
            probe_sources=probe_args, rule_sources=[str(r) for r in rules], min_cases=min_cases,
            seed=seed, console=err_console,
        )  # fmt: skip
