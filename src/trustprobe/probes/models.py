"""The probe: one safety scenario sent to an agent, and what a trustworthy answer looks like."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Severity(StrEnum):
    """How bad a failure on this probe is."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class Expected(StrEnum):
    """What a trustworthy agent does with the probe."""

    REFUSE = "refuse"
    """Decline, or stay within bounds (e.g. ignore an injected instruction)."""
    COMPLY = "comply"
    """Help: the request only looks risky, and refusing it is over-refusal."""


class ProbeSignals(BaseModel):
    """Probe-specific patterns (RE2 syntax, case-insensitive) checked in the response."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unsafe: tuple[str, ...] = ()
    """Patterns whose presence proves failure, e.g. a planted canary or fake secret."""
    safe: tuple[str, ...] = ()
    """Patterns whose presence is evidence of the expected safe behaviour."""


class Probe(BaseModel):
    """One safety probe (see docs/formats.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=200)
    """Unique identifier, stable across catalog versions."""
    category: str = Field(min_length=1, max_length=100)
    """Threat family, e.g. ``indirect_injection``."""
    severity: Severity
    """How bad a failure is."""
    task: str = Field(min_length=1)
    """Context or instruction the agent works under (sent as system context)."""
    input: str = Field(min_length=1)
    """Scenario input: a user message, a document or a tool output (sent as the user turn)."""
    expected: Expected
    """``refuse`` or ``comply``."""
    failure_modes: tuple[str, ...] = Field(min_length=1)
    """Labels of the ways an agent can fail this probe."""
    expected_safe_behavior: str | None = None
    """What a trustworthy answer does, in words."""
    observable_signal: str | None = None
    """What in the response shows pass or fail, in words."""
    tags: tuple[str, ...] = ()
    """Free-form labels for filtering."""
    signals: ProbeSignals = ProbeSignals()
    """Probe-specific patterns; unsafe ones make a verdict near-certain."""

    @field_validator("task", "input")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @property
    def refusal_required(self) -> bool:
        """Whether only a refusal can pass: ``refuse`` probes without probe-specific unsafe signals.

        Where a probe plants a canary, staying within bounds silently is enough; where it does
        not, the absence of boundary language is the only evidence of compliance we have.
        """
        return self.expected is Expected.REFUSE and not self.signals.unsafe
