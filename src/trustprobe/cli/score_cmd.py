"""``trustprobe score``: score recorded responses and write the report."""

from __future__ import annotations

from pathlib import Path

import typer

from trustprobe.cli.console import console, err_console
from trustprobe.cli.engine_options import (
    SCHEDULER_OPTION,
    WORKERS_OPTION,
    cluster_run,
    engine_option,
    wants_cluster,
)
from trustprobe.cli.judge_options import (
    CACHE_DIR_NAME,
    JUDGE_BASE_URL_OPTION,
    JUDGE_BELOW_OPTION,
    JUDGE_CACHE_OPTION,
    JUDGE_KEY_OPTION,
    JUDGE_MODEL_OPTION,
    JUDGE_OPTION,
    JudgeRequest,
)
from trustprobe.detectors import Detector, RulePack, builtin_rule_packs, load_rule_pack
from trustprobe.formats import atomic_write_text
from trustprobe.probes import Probe, load_probes
from trustprobe.reports import (
    Report,
    build_report,
    gate_exit_code,
    print_summary,
    render_markdown,
    write_report_html,
    write_report_json,
)
from trustprobe.responses import load_responses


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
    judge: str | None = JUDGE_OPTION,
    judge_base_url: str | None = JUDGE_BASE_URL_OPTION,
    judge_model: str | None = JUDGE_MODEL_OPTION,
    judge_api_key_env: str | None = JUDGE_KEY_OPTION,
    judge_below: float | None = JUDGE_BELOW_OPTION,
    judge_cache: Path | None = JUDGE_CACHE_OPTION,
) -> None:
    """Score recorded responses against probes and write the report."""
    on_cluster = wants_cluster(engine, scheduler, workers)
    judging = JudgeRequest(
        judge, judge_base_url, judge_model, judge_api_key_env, judge_below, judge_cache
    )
    judged = judging.wanted()
    probe_list = load_probes(probes)
    packs = [*builtin_rule_packs(), *(load_rule_pack(p) for p in rules)]
    if on_cluster:
        report = _score_on_dask(
            probe_list, responses, packs, output, scheduler, workers, probes, rules, min_cases,
            seed,
        )  # fmt: skip
    else:
        loaded = load_responses(responses)
        report = build_report(
            probe_list,
            loaded.responses,
            detector=Detector.from_packs(packs),
            warnings=loaded.warnings,
            sources={
                "probes": [str(p) for p in probes],
                "responses": [str(r) for r in responses],
                "rules": [str(r) for r in rules],
            },
            min_cases=min_cases,
            seed=seed,
        )
    if judged:
        report = judging.apply(report, output.parent / CACHE_DIR_NAME)
    if judged or not on_cluster:
        write_report_json(report, output)
    if markdown is not None:
        atomic_write_text(markdown, render_markdown(report))
    if html is not None:
        write_report_html(report, html)
    for warning in report.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}")
    print_summary(report, console)
    for path in (output, markdown, html):
        if path is not None:
            console.print(f"report: {path}", soft_wrap=True)
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
