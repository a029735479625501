"""``trustprobe score``: score recorded responses and write the report.

The scoring libraries are imported when the command runs, not when its options are read, so
``trustprobe score --help`` comes up at once. In process, the report is streamed: responses are
read, scored and written in chunks, so memory does not grow with the run.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from trustprobe.cli.console import (
    console,
    err_console,
    print_gate,
    print_warning,
    progress_console,
)
from trustprobe.cli.engine_options import (
    SCHEDULER_OPTION,
    WORKERS_OPTION,
    cluster_run,
    engine_option,
    wants_cluster,
)
from trustprobe.cli.file_options import check_stdout_outputs, is_stdout, read_inputs
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
from trustprobe.errors import InputError
from trustprobe.formats import STDIN_NAME, STDIO, is_stream

if TYPE_CHECKING:
    from trustprobe.detectors import RulePack
    from trustprobe.probes import Probe
    from trustprobe.reports import Report, StageClock


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
    junit: Path | None = typer.Option(
        None, "--junit", help="Also write JUnit XML: one test case per case, for any CI."
    ),
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
    profile_stages: Path | None = typer.Option(
        None,
        "--profile-stages",
        help="Write the CPU and wall seconds of each stage of the run to this JSON file.",
    ),
    judge: str | None = JUDGE_OPTION,
    judge_base_url: str | None = JUDGE_BASE_URL_OPTION,
    judge_model: str | None = JUDGE_MODEL_OPTION,
    judge_api_key_env: str | None = JUDGE_KEY_OPTION,
    judge_below: float | None = JUDGE_BELOW_OPTION,
    judge_cache: Path | None = JUDGE_CACHE_OPTION,
) -> None:
    """Score recorded responses against probes and write the report."""
    from trustprobe.cli.gates import run_exit_code
    from trustprobe.detectors import builtin_rule_packs, load_rule_pack
    from trustprobe.formats import atomic_write_text, expand_paths
    from trustprobe.probes import load_probes
    from trustprobe.reports import (
        StageClock,
        print_summary,
        render_markdown,
    )

    clock = StageClock()
    clock.started()  # the interpreter, the command line and the imports above
    on_cluster = wants_cluster(engine, scheduler, workers)
    judging = JudgeRequest(
        judge, judge_base_url, judge_model, judge_api_key_env, judge_below, judge_cache
    )
    judging.wanted()  # refuses half-given --judge options before any work
    to_stdout = check_stdout_outputs(output, markdown, html)
    if on_cluster and is_stdout(output):
        raise InputError("--engine dask writes --output to a file; give a path", field="--output")
    if on_cluster and any(p == STDIO or is_stream(p) for p in responses):
        raise InputError(
            "--engine dask reads --responses from files, not stdin or a pipe: pass a file",
            field="-r",
        )
    if [*probes, *responses].count(STDIO) > 1:
        raise InputError(
            "standard input ('-') can be read only once: give --probes or --responses as a file",
            path=STDIO,
        )
    with clock.stage("loading"):
        probe_paths, rule_paths = expand_paths(probes), expand_paths(rules)
        probe_list = load_probes(probe_paths)
        packs = [*builtin_rule_packs(), *(load_rule_pack(p) for p in rule_paths)]
    if on_cluster:
        report = _score_on_dask(
            probe_list, responses, packs, output, scheduler, workers, probe_paths, rule_paths,
            min_cases, seed, fail_under,
        )  # fmt: skip
    else:
        with _report_file(output) as written:
            report = _score_in_process(
                probe_list, responses, packs, written, probe_paths, rule_paths, min_cases,
                seed, fail_under, clock,
            )  # fmt: skip
            report = _judge(report, written, judging, output)
            _write_case_views(report, written, html, junit)
    if on_cluster:
        report = _judge(report, output, judging, output)
        _write_case_views(report, output, html, junit)
    if markdown is not None:
        _write(markdown, render_markdown(report))
    for warning in report.warnings:
        print_warning(warning)
    # With a report on stdout, stdout holds that report and nothing else.
    summary = err_console if to_stdout else console
    print_summary(report, summary)
    for path in (output, markdown, html, junit):
        if path is not None and not is_stdout(path):
            summary.print(f"report: {path}", soft_wrap=True)
    if profile_stages is not None:
        atomic_write_text(profile_stages, json.dumps(clock.as_json(), indent=2) + "\n")
    print_gate(report.gate)
    raise typer.Exit(run_exit_code(report.gate))


def _judge(report: Report, written: Path, judging: JudgeRequest, output: Path) -> Report:
    """The report with the judge's opinions on its uncertain cases, rewritten; as is unasked."""
    if not judging.wanted():
        return report
    folder = Path.cwd() if is_stdout(output) else output.parent
    return judging.rewrite(report, written, folder / CACHE_DIR_NAME)


def _write_case_views(report: Report, written: Path, html: Path | None, junit: Path | None) -> None:
    """The HTML page and the JUnit file, which show every case.

    A streamed report holds its cases only in the file it was written to: they are read back.
    """
    if html is None and junit is None:
        return
    from trustprobe.comparison import write_junit
    from trustprobe.reports import read_report, write_report_html

    full = report if report.cases else read_report(written)
    if html is not None:
        write_report_html(full, html)
    if junit is not None:
        write_junit(full, junit)


@contextmanager
def _report_file(output: Path) -> Iterator[Path]:
    """Where to stream the report: ``output``, or for ``-`` a temporary file copied to stdout."""
    if not is_stdout(output):
        yield output
        return
    with tempfile.TemporaryDirectory(prefix="trustprobe-report-") as folder:
        written = Path(folder) / "report.json"
        yield written
        with written.open("rb") as handle:
            shutil.copyfileobj(handle, sys.stdout.buffer, length=1 << 20)
        sys.stdout.flush()


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, or to stdout for ``-``."""
    from trustprobe.formats import atomic_write_text

    if is_stdout(path):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write_text(path, text)


def _score_in_process(
    probes: list[Probe],
    responses: list[str],
    packs: list[RulePack],
    output: Path,
    probe_paths: list[str],
    rule_paths: list[str],
    min_cases: int,
    seed: int,
    fail_under: float | None,
    clock: StageClock,
) -> Report:
    from trustprobe.cli.allocation import keep_freed_memory
    from trustprobe.cli.collection import bulk_collection, ends_with_command
    from trustprobe.detectors import Detector
    from trustprobe.reports import stream_report

    if ends_with_command():  # a process that runs on gives its memory back as before
        keep_freed_memory()
    with read_inputs(responses) as (paths, names), bulk_collection():
        with clock.stage("loading"):
            detector = Detector.from_packs(packs)
        shown = [names.get(p, p) for p in paths]
        return stream_report(
            probes,
            paths,
            output,
            detector=detector,
            sources={
                "probes": probe_paths,
                "responses": [STDIO if name == STDIN_NAME else name for name in shown],
                "rules": rule_paths,
            },
            min_cases=min_cases,
            seed=seed,
            clock=clock,
            names=names,
            fail_under=fail_under,
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
        from trustprobe.cli.collection import bulk_collection
        from trustprobe.distributed.command import score_command

        with bulk_collection():
            return score_command(
                probes, responses, packs, output=output, scheduler=scheduler, workers=workers,
                probe_sources=probe_args, rule_sources=rules, min_cases=min_cases,
                seed=seed, console=progress_console, fail_under=fail_under,
            )  # fmt: skip
