"""A whole scan: plan, run (or resume), journal, then score and write the reports."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from trustprobe import __version__
from trustprobe.detectors import Detector
from trustprobe.errors import InputError
from trustprobe.formats import (
    STDIN_NAME,
    STDIO,
    atomic_write_text,
    expand_paths,
    is_stream,
    spooled,
)
from trustprobe.metrics import RunMetrics
from trustprobe.probes import BUILTIN, Probe, load_probes, probe_set_hash
from trustprobe.reports import (
    Gate,
    Report,
    read_report,
    redact_url,
    render_markdown,
    run_gate,
    stream_chunks,
)
from trustprobe.responses import ResponseChunk
from trustprobe.runner.config import ScanConfig
from trustprobe.runner.diagnosis import harness_hint
from trustprobe.runner.dispatch import ProgressListener, RunOutcome, plan_cases, run_cases
from trustprobe.runner.journal import (
    ResponseJournal,
    journal_chunks,
    read_journal,
    rewrite_journal,
)
from trustprobe.runner.lock import lock_run_dir, refuse_if_locked
from trustprobe.runner.manifest import (
    CaseCounts,
    RunFiles,
    RunManifest,
    RunSession,
    RunStatus,
    read_manifest,
    write_manifest,
)
from trustprobe.runner.settings import RunnerSettings
from trustprobe.targets import Target, create_target


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ScanResult:
    """What a scan produced: the run, what this session did and the report (with its gate)."""

    run_dir: Path
    manifest: RunManifest
    outcome: RunOutcome
    """What this session did."""
    summary: Report
    """The report without its cases and observability points, which only its file holds."""
    report_paths: tuple[Path, ...]
    """``report.json`` and ``report.md``."""

    @cached_property
    def report(self) -> Report:
        """The whole report over every record in the run directory, read back from its file."""
        return read_report(self.report_paths[0])


def select_probes(config: ScanConfig, names: Mapping[str, str] | None = None) -> list[Probe]:
    """Load the configured probes and keep the configured categories.

    ``names`` gives a probe path the name messages use instead (``<stdin>`` for a copy).
    """
    probes = load_probes(list(config.probes), names)
    if config.categories:
        known = sorted({p.category for p in probes})
        unknown = [c for c in config.categories if c not in known]
        if unknown:
            raise InputError(
                f"unknown categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)} "
                f"(known: {', '.join(known)})",
                field="categories",
            )
        probes = [p for p in probes if p.category in config.categories]
    if not probes:
        raise InputError("no probes selected", field="probes")
    return probes


def _absolute_probe_paths(config: ScanConfig) -> ScanConfig:
    """Probe globs expanded and paths made absolute, so a resume reads the very same files.

    ``-`` and pipes stay as given: they are read once and kept in the run directory.
    """
    paths = tuple(
        p if p in (BUILTIN, STDIO) or is_stream(p) else str(Path(p).resolve())
        for p in expand_paths(config.probes)
    )
    return config.model_copy(update={"probes": paths})


def _kept_probes(config: ScanConfig, names: Mapping[str, str], run_dir: Path) -> ScanConfig:
    """Probes read from stdin or a pipe copied into the run directory, for a resume to read.

    ``config`` reads its probes from the copies ``names`` lists; the run keeps them as
    ``probes-stdin`` and ``probes-pipe-N`` (N: their place among the probe paths).
    """
    if not names:
        return config
    kept: list[str] = []
    for index, path in enumerate(config.probes):
        if path in names:
            name = "probes-stdin" if names[path] == STDIN_NAME else f"probes-pipe-{index}"
            shutil.copyfile(path, run_dir / name)
            path = str((run_dir / name).resolve())
        kept.append(path)
    return config.model_copy(update={"probes": tuple(kept)})


class _Recorded:
    """The journal's records tallied as they stream past: how many, and the harness errors."""

    def __init__(self) -> None:
        self.records = 0
        self.classes: dict[str, int] = {}

    def count(self, chunks: Iterable[ResponseChunk]) -> Iterator[ResponseChunk]:
        """``chunks``, each counted as it is read."""
        for part in chunks:
            self.records += len(part.responses)
            for record in part.responses:
                if record.error is not None:
                    self.classes[record.error] = self.classes.get(record.error, 0) + 1
            yield part

    def counts(self, probes: Sequence[Probe], samples: int) -> CaseCounts:
        errors = sum(self.classes.values())
        planned = len(probes) * samples
        return CaseCounts(
            planned=planned,
            recorded=self.records,
            responses=self.records - errors,
            errors=errors,
            error_classes=dict(sorted(self.classes.items())),
            not_run=planned - self.records,
        )


async def scan(
    config: ScanConfig,
    run_dir: Path,
    *,
    env: Mapping[str, str],
    detector: Detector,
    progress: ProgressListener | None = None,
    stop: asyncio.Event | None = None,
    now: Callable[[], datetime] = _utc_now,
) -> ScanResult:
    """Start a new run in ``run_dir`` (which must not hold one) and report on it."""
    refuse_if_locked(run_dir)
    _refuse_existing_run(run_dir)
    config = _absolute_probe_paths(config)
    with spooled(list(config.probes), streams=True) as (paths, names):
        config = config.model_copy(update={"probes": tuple(paths)})
        probes = select_probes(config, names)
        target = create_target(config.target, env=env)  # a missing secret fails before any I/O
        run_dir.mkdir(parents=True, exist_ok=True)
        with lock_run_dir(run_dir):
            _refuse_existing_run(run_dir)  # a scan that started in the meantime
            return await _start_session(
                _kept_probes(config, names, run_dir), probes, run_dir, target,
                detector=detector, progress=progress, stop=stop, now=now,
            )  # fmt: skip


def _refuse_existing_run(run_dir: Path) -> None:
    files = RunFiles(run_dir)
    if files.responses.exists() or files.manifest.exists():
        raise InputError(
            "already holds a run; continue it with --resume, or choose another --out",
            path=run_dir,
        )


async def _start_session(
    config: ScanConfig,
    probes: list[Probe],
    run_dir: Path,
    target: Target,
    *,
    detector: Detector,
    progress: ProgressListener | None,
    stop: asyncio.Event | None,
    now: Callable[[], datetime],
) -> ScanResult:
    """Write the new run's ``run.json`` and run every case (the lock is held)."""
    started = now()
    manifest = RunManifest(
        tool_version=__version__,
        config=config,
        probe_set_hash=probe_set_hash(probes),
        status=RunStatus.RUNNING,
        started_at=started,
        counts=_Recorded().counts(probes, config.samples),
        sessions=[RunSession(started_at=started)],
    )
    write_manifest(run_dir, manifest)
    with _failed_on_error(run_dir, manifest, now):
        return await _session(
            config,
            probes,
            run_dir,
            manifest,
            target,
            done=set(),
            warnings=[],
            detector=detector,
            progress=progress,
            stop=stop,
            now=now,
        )


async def resume_scan(
    run_dir: Path,
    *,
    env: Mapping[str, str],
    detector: Detector,
    runner: Mapping[str, Any] | None = None,
    retry_errors: bool = False,
    progress: ProgressListener | None = None,
    stop: asyncio.Event | None = None,
    now: Callable[[], datetime] = _utc_now,
) -> ScanResult:
    """Continue a run: send only the cases without a record, then report on all of them.

    ``runner`` overrides pacing settings (concurrency, rate, timeout...); the target, probes
    and samples are those of ``run.json``. With ``retry_errors``, harness-error records are
    removed first so those cases are tried again.
    """
    read_manifest(run_dir)  # "not a run directory" before any lock file is made there
    with lock_run_dir(run_dir):
        return await _resume_session(
            run_dir, env=env, detector=detector, runner=runner, retry_errors=retry_errors,
            progress=progress, stop=stop, now=now,
        )  # fmt: skip


async def _resume_session(
    run_dir: Path,
    *,
    env: Mapping[str, str],
    detector: Detector,
    runner: Mapping[str, Any] | None,
    retry_errors: bool,
    progress: ProgressListener | None,
    stop: asyncio.Event | None,
    now: Callable[[], datetime],
) -> ScanResult:
    """Resume under the lock: read the run as it is now, then send the missing cases."""
    manifest = read_manifest(run_dir)
    config = manifest.config
    if runner:
        merged = {**config.runner.model_dump(), **runner}
        config = config.model_copy(update={"runner": RunnerSettings.model_validate(merged)})
    probes = select_probes(config)
    if probe_set_hash(probes) != manifest.probe_set_hash:
        raise InputError(
            "the probe set changed since this run started (probe_set_hash differs); "
            "start a new run instead of resuming",
            path=RunFiles(run_dir).manifest,
            field="probe_set_hash",
        )
    journal_path = RunFiles(run_dir).responses
    contents = read_journal(journal_path)
    records = contents.responses
    retried = 0
    if retry_errors:
        kept = [r for r in records if r.error is None]
        retried = len(records) - len(kept)
        if retried:
            rewrite_journal(journal_path, kept)
        records = kept
    target = create_target(config.target, env=env)
    manifest = manifest.model_copy(
        update={
            "config": config,
            "status": RunStatus.RUNNING,
            "tool_version": __version__,
            "sessions": [
                *manifest.sessions,
                RunSession(started_at=now(), retried_errors=retried),
            ],
        }
    )
    write_manifest(run_dir, manifest)
    with _failed_on_error(run_dir, manifest, now):
        return await _session(
            config,
            probes,
            run_dir,
            manifest,
            target,
            done={r.key for r in records},
            warnings=contents.warnings,
            detector=detector,
            progress=progress,
            stop=stop,
            now=now,
        )


@contextmanager
def _failed_on_error(
    run_dir: Path, manifest: RunManifest, now: Callable[[], datetime]
) -> Iterator[None]:
    """An error in the session still leaves ``run.json`` final (``failed``)."""
    try:
        yield
    except Exception:
        write_manifest(
            run_dir, manifest.model_copy(update={"status": RunStatus.FAILED, "ended_at": now()})
        )
        raise


async def _session(
    config: ScanConfig,
    probes: list[Probe],
    run_dir: Path,
    manifest: RunManifest,
    target: Target,
    *,
    done: set[tuple[str, int]],
    warnings: list[str],
    detector: Detector,
    progress: ProgressListener | None,
    stop: asyncio.Event | None,
    now: Callable[[], datetime],
) -> ScanResult:
    files = RunFiles(run_dir)
    journal_path = files.responses
    cases = plan_cases(probes, config.samples, done=done)
    try:
        with ResponseJournal(journal_path) as journal:
            outcome = await run_cases(
                target, cases, config.runner, journal, progress=progress, stop=stop
            )
    finally:
        await target.aclose()
    ended = now()
    recorded = _Recorded()

    def notes(read: list[str]) -> list[str]:
        """The report's warnings, once the whole journal has been read (and counted)."""
        counts = recorded.counts(probes, config.samples)
        return [*warnings, *read, *_session_notes(counts, outcome, run_dir)]

    def gate(metrics: RunMetrics) -> Gate | None:
        return run_gate(
            metrics,
            fail_under=config.fail_under,
            max_harness_error_share=config.max_harness_error_share,
            harness_hint=harness_hint(recorded.counts(probes, config.samples).error_classes),
        )

    json_path = files.report_json
    md_path = files.report_md
    summary = stream_chunks(
        probes,
        recorded.count(journal_chunks(journal_path, repair=False)),
        json_path,
        detector=detector,
        config={"scan": _provenance_config(config)},
        created_at=ended,
        sources={"probes": list(config.probes), "responses": [str(journal_path)]},
        target=config.target.describe(),
        warnings=notes,
        gate=gate,
    )
    manifest = _ended(manifest, outcome, recorded.counts(probes, config.samples), ended)
    atomic_write_text(md_path, render_markdown(summary))
    write_manifest(run_dir, manifest)
    return ScanResult(run_dir, manifest, outcome, summary, (json_path, md_path))


def _session_notes(counts: CaseCounts, outcome: RunOutcome, run_dir: Path) -> list[str]:
    """What the report warns of about the run as a session leaves it."""
    notes = [
        f"probe '{probe_id}' sample {sample}: lone UTF-16 surrogate or bytes that are not "
        "UTF-8 in the agent's answer replaced with U+FFFD"
        for probe_id, sample in outcome.repaired
    ]
    if counts.not_run:
        notes.append(
            f"{counts.not_run} of {counts.planned} cases have no record yet "
            f"(run stopped early); continue with: trustprobe scan --resume {run_dir}"
        )
    if counts.errors:
        notes.append(
            f"{counts.errors} harness error(s) ({_classes(counts.error_classes)}) are "
            "excluded from pass/fail: they say nothing about the agent"
        )
    return notes


def _ended(
    manifest: RunManifest, outcome: RunOutcome, counts: CaseCounts, ended: datetime
) -> RunManifest:
    """``manifest`` with its last session ended: what it did, the run's status and counts."""
    session = manifest.sessions[-1].model_copy(
        update={
            "ended_at": ended,
            "cases_run": outcome.finished,
            "attempts": outcome.attempts,
            "interrupted": outcome.interrupted,
        }
    )
    status = RunStatus.INTERRUPTED if outcome.interrupted else RunStatus.COMPLETE
    if not outcome.interrupted and counts.not_run:
        status = RunStatus.INTERRUPTED  # defensive: a complete session leaves nothing unrun
    return manifest.model_copy(
        update={
            "status": status,
            "ended_at": ended,
            "counts": counts,
            "sessions": [*manifest.sessions[:-1], session],
        }
    )


def _provenance_config(config: ScanConfig) -> dict[str, Any]:
    """The scan's settings for the report, endpoint URLs stripped of credentials."""
    settings = config.model_dump(mode="json")
    target = settings["target"]
    for key in ("base_url", "url"):
        if isinstance(target.get(key), str):
            target[key] = redact_url(target[key])
    return settings


def _classes(classes: Mapping[str, int]) -> str:
    return ", ".join(f"{name}: {count}" for name, count in classes.items())
