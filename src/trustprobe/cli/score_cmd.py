"""``trustprobe score``: score recorded responses and write the report."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from trustprobe.cli.console import console, err_console, print_gate, progress_console
from trustprobe.cli.engine_options import (
    SCHEDULER_OPTION,
    WORKERS_OPTION,
    cluster_run,
    engine_option,
    wants_cluster,
)
from trustprobe.cli.file_options import (
    STDIN_NAME,
    check_stdout_outputs,
    is_stdout,
    read_inputs,
)
from trustprobe.detectors import Detector, RulePack, builtin_rule_packs, load_rule_pack
from trustprobe.errors import InputError
from trustprobe.formats import STDIO, atomic_write_text, expand_paths
from trustprobe.probes import Probe, load_probes
from trustprobe.reports import (
    Report,
    build_report,
    gate_exit_code,
    print_summary,
    render_markdown,
    report_json,
    run_gate,
    write_report_html,
)
from trustprobe.responses import load_responses


def score(
    probes: list[str] = typer.Option(
        ...,
        "--probes",
        "-p",
        help="Probe files or quoted globs, or 'builtin' for the catalog; several may follow "
        "one flag.",
    ),
    responses: list[str] = typer.Option(
        ...,
        "--responses",
        "-r",
        help="Response files or quoted globs (JSONL, or Parquet by a .parquet suffix); several "
        "may follow one flag; '-' reads JSONL from stdin.",
    ),
    output: Path = typer.Option(
        ..., "--output", "-o", help="Where to write the JSON report ('-': stdout)."
    ),
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Also write a Markdown summary ('-': stdout)."
    ),
    html: Path | None = typer.Option(None, "--html", help="Also write the HTML report."),
    rules: list[str] = typer.Option(
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
) -> None:
    """Score recorded responses against probes and write the report."""
    on_cluster = wants_cluster(engine, scheduler, workers)
    to_stdout = check_stdout_outputs(output, markdown, html)
    if on_cluster and is_stdout(output):
        raise InputError("--engine dask writes --output to a file; give a path", field="--output")
    if on_cluster and STDIO in responses:
        raise InputError("--engine dask reads --responses from files, not stdin", field="-r")
    probe_paths, rule_paths = expand_paths(probes), expand_paths(rules)
    probe_list = load_probes(probe_paths)
    packs = [*builtin_rule_packs(), *(load_rule_pack(p) for p in rule_paths)]
    if on_cluster:
        report = _score_on_dask(
            probe_list, responses, packs, output, scheduler, workers, probe_paths, rule_paths,
            min_cases, seed, fail_under,
        )  # fmt: skip
    else:
        report = _score_in_process(
            probe_list, responses, packs, probe_paths, rule_paths, min_cases, seed, fail_under
        )
        _write(output, report_json(report))
    if markdown is not None:
        _write(markdown, render_markdown(report))
    if html is not None:
        write_report_html(report, html)
    for warning in report.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}")
    # With a report on stdout, stdout holds that report and nothing else.
    summary = err_console if to_stdout else console
    print_summary(report, summary)
    for path in (output, markdown, html):
        if path is not None and not is_stdout(path):
            summary.print(f"report: {path}", soft_wrap=True)
    print_gate(report.gate)
    raise typer.Exit(gate_exit_code(report.gate))


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, or to stdout for ``-``."""
    if is_stdout(path):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write_text(path, text)


def _score_in_process(
    probes: list[Probe],
    responses: list[str],
    packs: list[RulePack],
    probe_paths: list[str],
    rule_paths: list[str],
    min_cases: int,
    seed: int,
    fail_under: float | None,
) -> Report:
    with read_inputs(responses) as (paths, names):
        loaded = load_responses(paths, names=names)
        shown = [names.get(p, p) for p in paths]
    report = build_report(
        probes,
        loaded.responses,
        detector=Detector.from_packs(packs),
        warnings=loaded.warnings,
        sources={
            "probes": probe_paths,
            "responses": [STDIO if name == STDIN_NAME else name for name in shown],
            "rules": rule_paths,
        },
        min_cases=min_cases,
        seed=seed,
    )
    return report.model_copy(
        update={"gate": run_gate(report.aggregate_metrics, fail_under=fail_under)}
    )


def _score_on_dask(
    probes: list[Probe],
    responses: list[str],
    packs: list[RulePack],
    output: Path,
    scheduler: str | None,
    workers: int | None,
    probe_args: list[str],
    rules: list[str],
    min_cases: int,
    seed: int,
    fail_under: float | None,
) -> Report:
    with cluster_run():
        from trustprobe.distributed.command import score_command

        return score_command(
            probes, responses, packs, output=output, scheduler=scheduler, workers=workers,
            probe_sources=probe_args, rule_sources=rules, min_cases=min_cases,
            seed=seed, console=progress_console, fail_under=fail_under,
        )  # fmt: skip
