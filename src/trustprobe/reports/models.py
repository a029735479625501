"""The probe report: provenance, every case, run metrics and the failure geometry."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from trustprobe.metrics import RunMetrics
from trustprobe.observability import Observability
from trustprobe.reports.target import ReportTarget
from trustprobe.scoring.models import CaseScore

SCHEMA_VERSION = "1.0"


class Provenance(BaseModel):
    """Where a report came from, so anyone can reproduce it."""

    model_config = ConfigDict(extra="forbid")

    tool: str = "trustprobe"
    """Name of the tool that wrote the report."""
    tool_version: str
    """Version of trustprobe that wrote the report."""
    created_at: datetime
    """When the report was built (UTC)."""
    probe_set_hash: str
    """SHA-256 of the probes used, in id order."""
    probe_count: int
    """Number of probes in the probe set."""
    rule_set_hash: str
    """SHA-256 of the rule packs used."""
    rule_packs: list[str]
    """Names and versions of the rule packs used."""
    config: dict[str, Any]
    """Scoring and observability settings in force."""
    sources: dict[str, list[str]] = Field(default_factory=dict)
    """Input files by role (``probes``, ``responses``)."""


class GateCheckName(StrEnum):
    """The gates a run can be held to, named after the option that sets each."""

    FAIL_UNDER = "fail_under"
    """The pass rate must be at least the threshold (``--fail-under``); exit code 1."""
    MAX_HARNESS_ERROR_SHARE = "max_harness_error_share"
    """Harness errors may be at most this share of the cases, and some case must have reached
    the agent (``scan --max-harness-error-share``); exit code 3."""


class GateCheck(BaseModel):
    """One gate: the figure, the threshold it was held to, and the verdict."""

    model_config = ConfigDict(extra="forbid")

    name: GateCheckName
    """Which gate."""
    figure: str
    """The figure checked: ``pass_rate`` or ``harness_error_share``."""
    value: float | None
    """The figure's value in this run; null when it has none (no case to compute it on)."""
    threshold: float
    """The threshold: a floor for ``fail_under``, a ceiling for ``max_harness_error_share``."""
    passed: bool
    """Whether the run met it; a figure without a value never does."""
    reason: str
    """The verdict in words, with a hint when it failed."""


class Gate(BaseModel):
    """Every gate the run was held to and whether it met all of them."""

    model_config = ConfigDict(extra="forbid")

    passed: bool
    """Whether every check passed."""
    checks: list[GateCheck]
    """The checks, in the order they were asked for."""


class Report(BaseModel):
    """A scored probe run (docs/formats.md, section Report)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: str = SCHEMA_VERSION
    """Version of this report format."""
    target: ReportTarget | None = None
    """The agent scanned (kind, model, endpoint without secrets); ``None`` when the responses
    were recorded elsewhere and the report cannot know (and in reports of earlier versions)."""
    provenance: Provenance
    """Tool, inputs and settings that produced the report."""
    cases: list[CaseScore]
    """One scored case per response, in input order."""
    aggregate_metrics: RunMetrics
    """Run-level metrics (docs/metrics.md)."""
    observability: Observability | None
    """Failure geometry, or null below the case threshold."""
    warnings: list[str] = Field(default_factory=list)
    """Things a reader should know about the input (repaired bytes, duplicates ignored...)."""
    gate: Gate | None = None
    """The gates the run was held to (``--fail-under``...) and their verdicts; null when none."""
