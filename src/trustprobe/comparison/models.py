"""The comparison of two probe runs, as printed, written to HTML and used to gate CI."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from trustprobe.metrics import ConfidenceInterval
from trustprobe.probes import Severity
from trustprobe.reports.target import ReportTarget

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
    power: float = Field(default=0.8, gt=0, lt=1)
    """Power at which the smallest detectable true drop is reported."""
    fail_on_new_failure: Severity | None = None
    """Fail when a probe at or above this severity newly fails; ``None``: no such gate."""
    category_floors: dict[str, float] = Field(default_factory=dict)
    """Category -> lowest acceptable pass rate (0–1) of the new run over its scored cases."""

    @field_validator("category_floors")
    @classmethod
    def _floors_are_rates(cls, floors: dict[str, float]) -> dict[str, float]:
        for category, floor in floors.items():
            if not 0.0 <= floor <= 1.0:
                raise ValueError(f"the floor of {category!r} must be within 0–1, got {floor}")
        return dict(sorted(floors.items()))


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


class DetectableChange(BaseModel):
    """The smallest change the paired test could have called a regression in one scope."""

    model_config = ConfigDict(extra="forbid")

    alpha: float
    """Level the scope is tested at in the best case: α overall, α / categories tested (Holm)."""
    min_flips: int | None
    """Fewest newly failing probes, with none newly passing, that the test flags (``min_drop``
    included); ``None`` when even every paired probe failing would not be enough."""
    min_drop: float | None
    """``min_flips / pairs``: the smallest paired drop in pass rate that can be flagged."""
    power: float
    """Probability of detection that ``drop_at_power`` is quoted at."""
    drop_at_power: float | None
    """Smallest true share of paired probes newly failing (none fixed) that the test flags with
    probability ``power``; ``None`` when ``min_flips`` is."""


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
    min_detectable_change: DetectableChange | None = None
    """How small a drop the paired test could see with this many pairs; ``None`` without pairs."""


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
    target: ReportTarget | None = None
    """The agent the run scanned, as its report names it; ``None`` for recorded responses."""
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


class GateKind(StrEnum):
    """A rule that can fail ``trustprobe diff``."""

    SIGNIFICANCE = "significance"
    """The paired test finds a meaningful regression (overall, or in a category)."""
    NEW_FAILURE = "new_failure"
    """A probe at or above a severity passed every sample before and fails now."""
    CATEGORY_FLOOR = "category_floor"
    """A category's pass rate in the new run is below its floor."""


class GateResult(BaseModel):
    """One gate of the comparison and whether the new run passed it."""

    model_config = ConfigDict(extra="forbid")

    gate: GateKind
    """Which rule."""
    subject: str
    """What it was applied to: ``overall``, a category, or a severity (``high`` and above)."""
    passed: bool
    """Whether the new run passed it."""
    observed: float | None
    """The figure checked: a pass rate, or a count of probes; ``None`` without evidence."""
    threshold: float | None
    """The limit it was checked against; ``None`` where the rule has no figure (significance)."""
    reason: str
    """The outcome in words."""
    probe_ids: list[str] = Field(default_factory=list)
    """The probes that failed the gate, where it is about probes."""


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
    gates: list[GateResult] = Field(default_factory=list)
    """Every gate checked: significance first, then new failures, then category floors."""
    regression: bool
    """Whether any gate failed: the CI verdict (exit code 1)."""
