"""The probe report: provenance, every case, run metrics and the failure geometry."""

from __future__ import annotations

from datetime import datetime
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
