"""``run.json``: what a run was asked to do, when it ran, and how far it got."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import atomic_write_text, validation_error_to_input_error
from trustprobe.runner.config import ScanConfig

MANIFEST_SCHEMA_VERSION = "1"


@dataclass(frozen=True)
class RunFiles:
    """The files of a run directory."""

    run_dir: Path

    @property
    def manifest(self) -> Path:
        """``run.json``: configuration, times, counts."""
        return self.run_dir / "run.json"

    @property
    def responses(self) -> Path:
        """``responses.jsonl``: one record per finished case."""
        return self.run_dir / "responses.jsonl"

    @property
    def report_json(self) -> Path:
        """``report.json``: the scored report."""
        return self.run_dir / "report.json"

    @property
    def report_md(self) -> Path:
        """``report.md``: the report for people."""
        return self.run_dir / "report.md"


class RunStatus(StrEnum):
    """Where a run stands."""

    RUNNING = "running"
    """Started and not finished (or the process died: resume it)."""
    COMPLETE = "complete"
    """Every planned case has its record."""
    INTERRUPTED = "interrupted"
    """Stopped by Ctrl-C; resume it to run the rest."""
    FAILED = "failed"
    """Stopped by an error, which was reported; resume it once the cause is fixed."""


class CaseCounts(BaseModel):
    """Case counts over the whole run directory (all sessions)."""

    model_config = ConfigDict(extra="forbid")

    planned: int
    """Probe × sample cases the configuration asks for."""
    recorded: int
    """Cases with a record in ``responses.jsonl``."""
    responses: int
    """Records holding an answer."""
    errors: int
    """Records holding a harness error."""
    error_classes: dict[str, int] = Field(default_factory=dict)
    """Harness errors by class."""
    not_run: int
    """Planned cases without a record (an interrupted run)."""


class RunSession(BaseModel):
    """One invocation that worked on the run (the first, then each resume)."""

    model_config = ConfigDict(extra="forbid")

    started_at: datetime
    """When it started."""
    ended_at: datetime | None = None
    """When it stopped; ``None`` while running or if the process died."""
    cases_run: int = 0
    """Records it wrote."""
    attempts: int = 0
    """Requests it sent, retries included."""
    interrupted: bool = False
    """Whether Ctrl-C stopped it."""
    retried_errors: int = 0
    """Error records it removed to try those cases again (``--retry-errors``)."""


class RunManifest(BaseModel):
    """Contents of ``run.json``. Holds environment variable names, never secret values."""

    model_config = ConfigDict(extra="forbid")

    schema_version: str = MANIFEST_SCHEMA_VERSION
    """Format version of this file."""
    tool_version: str
    """trustprobe version that wrote it last."""
    config: ScanConfig
    """The scan configuration (probe paths made absolute)."""
    probe_set_hash: str
    """SHA-256 of the selected probes; a resume refuses a changed probe set."""
    status: RunStatus
    """Where the run stands."""
    started_at: datetime
    """When the first session started."""
    ended_at: datetime | None = None
    """When the last session stopped."""
    counts: CaseCounts
    """Case counts over all sessions."""
    sessions: list[RunSession] = Field(default_factory=list)
    """Every session, first to last."""


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Write ``run.json`` atomically."""
    atomic_write_text(RunFiles(run_dir).manifest, manifest.model_dump_json(indent=2) + "\n")


def read_manifest(run_dir: Path) -> RunManifest:
    """Read ``run.json`` of a run directory."""
    path = RunFiles(run_dir).manifest
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError("not a run directory (no run.json)", path=path) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path=path) from exc
    try:
        return RunManifest.model_validate_json(text)
    except ValidationError as exc:
        raise validation_error_to_input_error(exc, path=path, line=None) from exc
