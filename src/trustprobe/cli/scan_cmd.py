"""``trustprobe scan``: probe a live agent, journal every case, and write the report."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from trustprobe.cli.console import (
    console,
    default_note,
    err_console,
    print_gate,
    print_warning,
    progress_console,
)
from trustprobe.cli.gates import run_exit_code
from trustprobe.cli.invocation import program
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
from trustprobe.comparison import write_junit
from trustprobe.detectors import Detector
from trustprobe.errors import InputError
from trustprobe.formats import atomic_write_text
from trustprobe.probes import BUILTIN
from trustprobe.reports import print_summary, render_markdown, write_report_html
from trustprobe.runner import (
    RunnerSettings,
    ScanConfig,
    ScanResult,
    build_scan_config,
    progress_for,
    read_manifest,
    resume_scan,
    stop_on_signals,
)
from trustprobe.runner import scan as run_scan
from trustprobe.targets import target_kinds

_RUNNER_FLAGS = ("concurrency", "rate", "timeout", "retries", "seed")


def _pairs(values: list[str], separator: str, option: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values:
        name, found, rest = value.partition(separator)
        if not found or not name.strip():
            raise InputError(f"expected NAME{separator}VALUE, got {value!r}", field=option)
        pairs[name.strip()] = rest.strip()
    return pairs


def _body(text: str | None) -> Any:
    if text is None:
        return None
    source = text
    if text.startswith("@"):
        try:
            source = Path(text[1:]).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise InputError(f"cannot read body template: {exc}", field="--body") from exc
    try:
        return json.loads(source)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
        raise InputError(f"body template is not JSON: {exc}", field="--body") from exc


def _runner_default(field: str) -> str:
    return default_note(RunnerSettings.model_fields[field].default)


def _scan_default(field: str) -> str:
    return default_note(ScanConfig.model_fields[field].default)


def _target_default(kind: str, field: str) -> str:
    return default_note(target_kinds()[kind].config_model.model_fields[field].default)


def _given(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value not in (None, [], (), {})}


def scan(
    target: Annotated[
        str | None,
        typer.Option("--target", "-t", help=f"Target kind: {', '.join(target_kinds())}."),
    ] = None,
    config_file: Annotated[
        Path | None,
        typer.Option("--config", help="TOML or YAML scan configuration (flags override it)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory to create.")
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the self-contained HTML report.")
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option("--junit", help="Also write JUnit XML: one test case per case, for any CI."),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume", help="Continue the run in this directory (runs only missing cases)."
        ),
    ] = None,
    retry_errors: Annotated[
        bool,
        typer.Option(
            "--retry-errors", help="With --resume: try cases that ended in a harness error again."
        ),
    ] = False,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", help="openai: API root, e.g. http://127.0.0.1:8000/v1."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="openai: model name.")] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            "--api-key-env", help="openai: NAME of the environment variable holding the key."
        ),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option("--temperature", help="openai: temperature.")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="openai: completion limit.")
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="http: endpoint URL.")] = None,
    body: Annotated[
        str | None,
        typer.Option(
            "--body", help="http: JSON body template (or @file); {task} {input} {messages}."
        ),
    ] = None,
    response_path: Annotated[
        str | None,
        typer.Option("--response-path", help="http: where the answer is (a.0.b or /a/0/b)."),
    ] = None,
    tool_calls_path: Annotated[
        str | None,
        typer.Option("--tool-calls-path", help="http: where a turn's tool calls are."),
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option("--header", help="openai/http: extra 'Name: value' header (not for secrets)."),
    ] = None,
    header_env: Annotated[
        list[str] | None,
        typer.Option(
            "--header-env", help="openai/http: 'Name=VAR' header read from the environment."
        ),
    ] = None,
    command: Annotated[
        str | None, typer.Option("--command", help="cmd: the command line to run.")
    ] = None,
    input_format: Annotated[
        str | None,
        typer.Option(
            "--input-format", help="cmd: json or text." + _target_default("cmd", "input_format")
        ),
    ] = None,
    output_format: Annotated[
        str | None,
        typer.Option(
            "--output-format", help="cmd: text or json." + _target_default("cmd", "output_format")
        ),
    ] = None,
    callable_: Annotated[
        str | None, typer.Option("--callable", help="python: module:function.")
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency", "-c", help="Cases in flight." + _runner_default("concurrency")
        ),
    ] = None,
    rate: Annotated[
        float | None,
        typer.Option(
            "--rate", help="Requests per second (all workers)." + default_note("unlimited")
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Seconds per attempt." + _runner_default("timeout")),
    ] = None,
    retries: Annotated[
        int | None,
        typer.Option(
            "--retries", help="Retries on 429/5xx/connection." + _runner_default("retries")
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="Seed of the backoff jitter." + _runner_default("seed")),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples", "-n", help="Times each probe is sent." + _scan_default("samples")
        ),
    ] = None,
    probes: Annotated[
        list[str] | None,
        typer.Option(
            "--probes",
            "-p",
            help="Probe files or quoted globs, or 'builtin'; several may follow one flag."
            + default_note(BUILTIN),
        ),
    ] = None,
    category: Annotated[
        list[str] | None,
        typer.Option("--category", help="Only these categories." + default_note("all")),
    ] = None,
    fail_under: Annotated[
        float | None,
        typer.Option(
            "--fail-under", min=0.0, max=1.0, help="Exit 1 when the pass rate is below this."
        ),
    ] = None,
    max_harness_error_share: Annotated[
        float | None,
        typer.Option(
            "--max-harness-error-share",
            min=0.0,
            max=1.0,
            help="Exit 3 when harness errors (timeouts, HTTP errors...) exceed this share of the"
            " cases; a run where no case reached the agent always does."
            + _scan_default("max_harness_error_share"),
        ),
    ] = None,
    judge: str | None = JUDGE_OPTION,
    judge_base_url: str | None = JUDGE_BASE_URL_OPTION,
    judge_model: str | None = JUDGE_MODEL_OPTION,
    judge_api_key_env: str | None = JUDGE_KEY_OPTION,
    judge_below: float | None = JUDGE_BELOW_OPTION,
    judge_cache: Path | None = JUDGE_CACHE_OPTION,
) -> None:
    """Scan a live agent with probes; write responses.jsonl, report.json and report.md."""
    judging = JudgeRequest(
        judge, judge_base_url, judge_model, judge_api_key_env, judge_below, judge_cache
    )
    judged = judging.wanted()  # refuses bad --judge flags before any probe is sent
    header, header_env = header or [], header_env or []
    probes, category = probes or [], category or []
    runner = _given(concurrency=concurrency, rate=rate, timeout=timeout, retries=retries, seed=seed)
    target_options = _given(
        base_url=base_url,
        model=model,
        api_key_env=api_key_env,
        temperature=temperature,
        max_tokens=max_tokens,
        url=url,
        body=_body(body),
        response_path=response_path,
        tool_calls_path=tool_calls_path,
        headers=_pairs(header, ":", "--header"),
        headers_env=_pairs(header_env, "=", "--header-env"),
        command=command,
        input_format=input_format,
        output_format=output_format,
        callable=callable_,
    )
    if target is not None:
        target_options["kind"] = target
    config = _scan_config(
        target_options,
        runner,
        resume=resume,
        out=out,
        config_file=config_file,
        probes=probes,
        categories=category,
        samples=samples,
        fail_under=fail_under,
        max_harness_error_share=max_harness_error_share,
        retry_errors=retry_errors,
    )
    target_kind = config.target.kind if config is not None else _resumed_kind(resume)
    if target_kind == "python" and os.getcwd() not in sys.path:
        # Like uvicorn: let `module:function` name a module in the current directory, for a
        # new run and a resumed one alike.
        sys.path.insert(0, os.getcwd())
    result = asyncio.run(_run(config, out, resume=resume, runner=runner, retry_errors=retry_errors))
    _write_outputs(result, judging if judged else None, html=html, junit=junit)
    if result.outcome.interrupted:
        err_console.print(
            f"interrupted; continue with: {program()} scan --resume {result.run_dir}",
            soft_wrap=True,
        )
    else:
        print_gate(result.summary.gate)
    raise typer.Exit(run_exit_code(result.summary.gate, interrupted=result.outcome.interrupted))


def _scan_config(
    target_options: dict[str, Any],
    runner: dict[str, Any],
    *,
    resume: Path | None,
    out: Path | None,
    config_file: Path | None,
    probes: list[str],
    categories: list[str],
    samples: int | None,
    fail_under: float | None,
    max_harness_error_share: float | None,
    retry_errors: bool,
) -> ScanConfig | None:
    """A new run's configuration from the flags, or ``None`` for a resumed run.

    A resumed run takes its target, probes and samples from its ``run.json``: only the runner's
    flags may be given beside ``--resume``.
    """
    if resume is not None:
        extra = _given(
            config=config_file,
            out=out,
            samples=samples,
            fail_under=fail_under,
            max_harness_error_share=max_harness_error_share,
        )
        extra.update(target_options)
        if probes or categories or extra:
            raise InputError(
                "with --resume the target, probes and samples come from the run's run.json; "
                f"only {', '.join('--' + f for f in _RUNNER_FLAGS)} may be given",
                field="--resume",
            )
        return None
    if retry_errors:
        raise InputError("--retry-errors only applies with --resume", field="--retry-errors")
    if out is None:
        raise InputError("give --out RUN_DIR (or --resume RUN_DIR)", field="--out")
    overrides = _given(
        target=target_options,
        runner=runner,
        probes=probes,
        categories=categories,
        samples=samples,
        fail_under=fail_under,
        max_harness_error_share=max_harness_error_share,
    )
    return build_scan_config(overrides, config_file=config_file)


def _write_outputs(
    result: ScanResult, judging: JudgeRequest | None, *, html: Path | None, junit: Path | None
) -> None:
    """Judge the uncertain cases if asked, print the summary and write the extra reports.

    ``judging`` is ``None`` where no judge was asked for.
    """
    # The report's cases are only in its file: read back for the judge and the case views.
    report = result.summary
    if judging is not None:
        json_path, md_path = result.report_paths
        report = judging.rewrite(report, json_path, result.run_dir / CACHE_DIR_NAME)
        atomic_write_text(md_path, render_markdown(report))
    for warning in report.warnings:
        print_warning(warning)
    print_summary(report, console)
    console.print(f"run directory: {result.run_dir}", soft_wrap=True)
    for path in result.report_paths:
        console.print(f"report: {path}", soft_wrap=True)
    if html is not None:
        write_report_html(report if report.cases else result.report, html)
        console.print(f"report: {html}", soft_wrap=True)
    if junit is not None:
        write_junit(report if report.cases else result.report, junit)
        console.print(f"junit: {junit}", soft_wrap=True)


def _resumed_kind(resume: Path | None) -> str | None:
    """The target kind recorded in the resumed run's ``run.json``."""
    return read_manifest(resume).config.target.kind if resume is not None else None


async def _run(
    config: ScanConfig | None,
    out: Path | None,
    *,
    resume: Path | None,
    runner: dict[str, Any],
    retry_errors: bool,
) -> ScanResult:
    detector = Detector.builtin()
    progress = progress_for(progress_console)
    env = dict(os.environ)
    async with stop_on_signals() as stop:
        if resume is not None:
            return await resume_scan(
                resume,
                env=env,
                detector=detector,
                runner=runner,
                retry_errors=retry_errors,
                progress=progress,
                stop=stop,
            )
        assert config is not None and out is not None
        return await run_scan(config, out, env=env, detector=detector, progress=progress, stop=stop)
