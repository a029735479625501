"""The comparison of two probe runs, as printed, written to HTML and used to gate CI."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from trustprobe.metrics import ConfidenceInterval
from trustprobe.probes import Severity

COMPARISON_SCHEMA_VERSION = "1.0"


class DiffThresholds(BaseModel):
    """When a drop in pass rate counts as a meaningful regression (docs/diff.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    alpha: float = Field(default=0.05, gt=0, lt=1)
    """Significance level of the exact McNemar test (Holm-adjusted across categories)."""
    min_drop: float = Field(default=0.0, ge=0, le=1)
    """Smallest paired drop in pass rate (0–1) that counts as a regression."""
    gate_categories: bool = True
    """Whether a regression in a single category fails the gate, not only the overall one."""
    confidence: float = Field(default=0.95, gt=0, lt=1)
    """Coverage of the rate and difference intervals."""


class Verdict(StrEnum):
    """What the paired test says about one scope."""

    REGRESSION = "regression"
    """Significantly more newly failing than newly passing probes, by at least ``min_drop``."""
    IMPROVEMENT = "improvement"
    """Significantly more newly passing than newly failing probes."""
    UNCHANGED = "unchanged"
    """No change that meets the thresholds."""
    NOT_COMPARABLE = "not_comparable"
    """No probe was judged in both runs: nothing to pair."""


class DifferenceInterval(BaseModel):
    """A two-sided confidence interval for a difference of two rates, ``new - base``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lower: float
    """Lower bound, in [-1, 1]."""
    upper: float
    """Upper bound, in [-1, 1]."""
    confidence: float
    """Nominal coverage, e.g. 0.95."""
    method: str
    """How it was computed: ``newcombe`` (independent) or ``newcombe_paired``."""


class RunRate(BaseModel):
    """One run's pass rate over its scored cases in a scope, as its report states it."""

    model_config = ConfigDict(extra="forbid")

    scored_cases: int
    """Cases with a verdict in the scope."""
    passed: int
    """Of those, cases that passed."""
    pass_rate: float | None
    """``passed / scored_cases``; ``None`` without scored cases."""
    pass_rate_ci: ConfidenceInterval | None
    """Wilson score interval of ``pass_rate``."""


class PairedTest(BaseModel):
    """Probes judged in both runs, their 2×2 table and the exact McNemar test."""

    model_config = ConfigDict(extra="forbid")

    pairs: int
    """Probes with at least one scored case in both runs."""
    both_passed: int
    """Pairs that passed in both runs."""
    regressed: int
    """Pairs that passed in the base run and fail in the new one (newly failing)."""
    fixed: int
    """Pairs that failed in the base run and pass in the new one (newly passing)."""
    both_failed: int
    """Pairs that failed in both runs."""
    base_pass_rate: float | None
    """Pass rate of the paired probes in the base run."""
    new_pass_rate: float | None
    """Pass rate of the paired probes in the new run."""
    difference: float | None
    """``new_pass_rate - base_pass_rate`` = ``(fixed - regressed) / pairs``."""
    difference_ci: DifferenceInterval | None
    """Newcombe's paired square-and-add interval of ``difference``."""
    p_value: float | None
    """Two-sided exact McNemar p-value; 1 with no discordant pair, ``None`` with no pair."""


class ScopeComparison(BaseModel):
    """Overall or one category: both runs' rates, the paired test and the verdict."""

    model_config = ConfigDict(extra="forbid")

    scope: str
    """``overall`` or the category name."""
    base: RunRate
    """The base run's rate in this scope (all its scored cases)."""
    new: RunRate
    """The new run's rate in this scope (all its scored cases)."""
    difference: float | None
    """``new.pass_rate - base.pass_rate`` over all scored cases, paired or not."""
    difference_ci: DifferenceInterval | None
    """Newcombe's hybrid score interval of ``difference``, treating the runs as independent."""
    paired: PairedTest
    """The paired comparison on probes judged in both runs: the basis of the verdict."""
    p_value_adjusted: float | None
    """McNemar p after Holm's adjustment across categories (the raw p for ``overall``)."""
    verdict: Verdict
    """Regression, improvement, unchanged or not comparable."""
    reason: str
    """The verdict's grounds in words: p-value, counts, size of the change."""


class ProbeChange(BaseModel):
    """A probe whose verdict flipped between the runs."""

    model_config = ConfigDict(extra="forbid")

    probe_id: str
    """The probe."""
    category: str
    """Its category in the new run."""
    severity: Severity
    """Its severity in the new run."""
    base_passed: int
    """Scored samples that passed in the base run."""
    base_scored: int
    """Scored samples in the base run."""
    new_passed: int
    """Scored samples that passed in the new run."""
    new_scored: int
    """Scored samples in the new run."""
    new_weighted_risk: float | None
    """Highest ``weighted_risk`` among the probe's new cases."""
    explanation: str
    """Explanation of the new run's worst case of this probe."""


class UnpairedProbe(BaseModel):
    """A probe present in at least one run that could not be paired, and why."""

    model_config = ConfigDict(extra="forbid")

    probe_id: str
    """The probe."""
    reason: str
    """``only_in_base``, ``only_in_new``, ``unscored_in_base``, ``unscored_in_new`` or
    ``unscored_in_both`` (harness errors or no response)."""


class RunSummary(BaseModel):
    """What identifies one of the two compared reports."""

    model_config = ConfigDict(extra="forbid")

    label: str
    """Where the report was read from (usually its path)."""
    schema_version: str
    """The report's format version."""
    tool_version: str
    """trustprobe version that wrote it."""
    created_at: datetime
    """When it was built."""
    probe_set_hash: str
    """SHA-256 of its probe set."""
    rule_set_hash: str
    """SHA-256 of its rule packs."""
    cases: int
    """Cases in the report, harness errors included."""
    scored_cases: int
    """Cases with a verdict."""


class Comparison(BaseModel):
    """Two runs compared probe by probe (docs/diff.md)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: str = COMPARISON_SCHEMA_VERSION
    """Version of this comparison format."""
    base: RunSummary
    """The earlier (reference) run."""
    new: RunSummary
    """The run under judgement."""
    thresholds: DiffThresholds
    """The thresholds the verdicts used."""
    matching: str = "probe_id"
    """Unit of pairing: a probe, its verdict passing only if every scored sample passed."""
    overall: ScopeComparison
    """The whole run."""
    categories: list[ScopeComparison]
    """One entry per category present in either run, sorted by name."""
    newly_failing: list[ProbeChange]
    """Paired probes that passed in the base run and fail in the new one, worst first."""
    newly_passing: list[ProbeChange]
    """Paired probes that failed in the base run and pass in the new one, by id."""
    unpaired: list[UnpairedProbe]
    """Probes that could not be paired, by id: none is dropped silently."""
    warnings: list[str]
    """What a reader should know: different probe sets or rule sets, relabelled probes."""
    regression: bool
    """Whether a meaningful regression was found: the CI gate (exit code 1)."""
