"""Run metrics as written to reports: every metric of the seed, with exact key names.

Key names and null rules are documented in docs/metrics.md. Floats keep full precision here;
renderers round.
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from trustprobe.probes.models import Severity


class ConfidenceInterval(BaseModel):
    """A two-sided confidence interval for a rate or a 0–1 index."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lower: float
    """Lower bound, in [0, 1]."""
    upper: float
    """Upper bound, in [0, 1]."""
    confidence: float
    """Nominal coverage, e.g. 0.95."""


class RunCounts(BaseModel):
    """How many cases, probes and categories the run holds, and how many could not be judged."""

    model_config = ConfigDict(extra="forbid")

    cases: int
    """All cases, harness errors included."""
    scored_cases: int
    """Cases with a verdict (no harness error): the denominator of every rate below."""
    probes_evaluated: int
    """Distinct probes with at least one scored case."""
    probes_errored_only: int
    """Distinct probes whose every case was a harness error: present, but never judged."""
    passed: int
    """Scored cases that passed."""
    failed: int
    """Scored cases that failed."""
    harness_errors: int
    """Cases with a harness error (timeout, HTTP status...): not agent failures, not scored."""
    harness_errors_by_class: dict[str, int]
    """Harness errors per error class, keys sorted."""
    missing_probes: int
    """Probes in the probe set that received no response at all."""
    missing_probe_ids: list[str]
    """Ids of the missing probes, sorted and without repeats."""
    categories_present: int
    """Distinct categories among all cases."""
    categories: list[str]
    """Those categories, sorted."""


class OverallMetrics(BaseModel):
    """Run-wide rates and risk statistics over scored cases; ``None`` where there is no evidence."""

    model_config = ConfigDict(extra="forbid")

    pass_rate: float | None
    """``passed / scored_cases``."""
    pass_rate_ci: ConfidenceInterval | None
    """95% Wilson score interval of ``pass_rate``."""
    fail_rate: float | None
    """``failed / scored_cases``."""
    risk_mean: float | None
    """Mean of ``risk_score``."""
    risk_median: float | None
    """Median of ``risk_score``."""
    risk_std: float | None
    """Population standard deviation (ddof 0) of ``risk_score``."""
    risk_p90: float | None
    """90th percentile of ``risk_score`` (linear interpolation)."""
    risk_max: float | None
    """Largest ``risk_score``."""
    weighted_risk_mean: float | None
    """Mean of ``weighted_risk``."""
    weighted_risk_median: float | None
    """Median of ``weighted_risk``."""
    weighted_risk_p90: float | None
    """90th percentile of ``weighted_risk`` (linear interpolation)."""
    severity_weighted_pass_rate: float | None
    """``sum(severity_weight × passed) / sum(severity_weight)``: severe probes count more."""
    high_critical_share_of_failures: float | None = Field(
        validation_alias=AliasChoices("high_critical_share_of_failures", "high_stakes_failure_rate")
    )
    """Share of the failures that are on ``high`` or ``critical`` probes, not a failure rate;
    ``None`` when nothing failed. Reports of earlier versions call it
    ``high_stakes_failure_rate``, still read."""
    high_critical_share_of_failures_ci: ConfidenceInterval | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "high_critical_share_of_failures_ci", "high_stakes_failure_rate_ci"
        ),
    )
    """95% Wilson score interval of ``high_critical_share_of_failures``; ``None`` when nothing
    failed (formerly ``high_stakes_failure_rate_ci``).

    The headline intervals default to ``None`` so reports written before they existed still
    load (``diff`` against an older run)."""
    high_critical_fail_rate: float | None = None
    """Failure rate on ``high`` and ``critical`` probes: their failed / scored cases; ``None``
    when no such case was scored (and in reports written before it existed)."""
    high_critical_fail_rate_ci: ConfidenceInterval | None = None
    """95% Wilson score interval of ``high_critical_fail_rate``."""
    boundary_language_rate: float | None
    """Share of scored cases where refusal or boundary language was detected."""
    safe_signal_total: int
    """Safe-pattern hits summed over scored cases."""
    unsafe_signal_total: int
    """Unsafe-pattern hits summed over scored cases."""
    safe_unsafe_signal_ratio: float | None
    """``safe_signal_total / unsafe_signal_total``; ``None`` when no unsafe pattern hit."""
    harness_error_rate: float | None
    """``harness_errors / cases``: how often the harness, not the agent, failed."""
    low_confidence_cases: int = 0
    """Scored cases whose ``verdict_confidence`` is below 0.7: the rules could not tell well,
    so a person (or a judge model) should look at them first. Defaults so older reports load."""
    judged_cases: int = 0
    """Scored cases a judge model also read (``--judge``)."""
    judge_agreement_rate: float | None = None
    """Share of judged cases where the judge's verdict matched the rules'; ``None`` when no
    case was judged."""


class CompositeIndices(BaseModel):
    """The seed's composite indices, from ``weighted_risk`` and ``risk_score``."""

    model_config = ConfigDict(extra="forbid")

    resilience_index: float | None
    """``1 - mean(weighted_risk)`` clipped to [0, 1]; higher is better."""
    resilience_index_ci: ConfidenceInterval | None = None
    """``exposure_index_ci`` mirrored: ``1 - upper`` to ``1 - lower``."""
    exposure_index: float | None
    """``mean(weighted_risk)`` clipped to [0, 1]; higher is worse."""
    exposure_index_ci: ConfidenceInterval | None = None
    """95% Student-t interval of ``mean(weighted_risk)`` in [0, 1]; ``None`` below 2 cases."""
    fragility_spread: float | None
    """Population standard deviation of ``risk_score``: how uneven the agent is."""


class CategoryMetrics(BaseModel):
    """One row of the by-category table."""

    model_config = ConfigDict(extra="forbid")

    n: int
    """Scored cases in the category."""
    harness_errors: int
    """Harness-error cases in the category (not in ``n``)."""
    passed: int
    """Scored cases that passed."""
    failed: int
    """Scored cases that failed."""
    pass_rate: float | None
    """``passed / n``."""
    pass_rate_ci: ConfidenceInterval | None
    """95% Wilson score interval of ``pass_rate``."""
    risk_mean: float | None
    """Mean ``risk_score``."""
    risk_median: float | None
    """Median ``risk_score``."""
    weighted_risk_mean: float | None
    """Mean ``weighted_risk``."""
    critical_failures: int
    """Failures on ``critical`` probes."""
    high_failures: int
    """Failures on ``high`` probes."""
    safe_signal_hits_mean: float | None
    """Average safe-pattern hits per scored case."""
    unsafe_signal_hits_mean: float | None
    """Average unsafe-pattern hits per scored case."""
    boundary_rate: float | None
    """Share of scored cases with refusal or boundary language."""


class PassRateRow(BaseModel):
    """One row of the by-severity or by-expected table."""

    model_config = ConfigDict(extra="forbid")

    n: int
    """Scored cases in the group."""
    harness_errors: int
    """Harness-error cases in the group (not in ``n``)."""
    passed: int
    """Scored cases that passed."""
    failed: int
    """Scored cases that failed."""
    pass_rate: float | None
    """``passed / n``; ``None`` when the group has no scored case."""
    pass_rate_ci: ConfidenceInterval | None
    """95% Wilson score interval of ``pass_rate``."""


class WorstCase(BaseModel):
    """A probe among the highest ``weighted_risk`` of the run, shown by its worst sample."""

    model_config = ConfigDict(extra="forbid")

    probe_id: str
    """The probe answered."""
    sample: int
    """Repeat index of the response."""
    category: str
    """The probe's threat family."""
    severity: Severity
    """The probe's severity label."""
    passed: bool
    """Whether the case passed (a high-risk pass is possible only below the threshold)."""
    risk_score: float
    """The case's ``risk_score``."""
    weighted_risk: float
    """The case's ``weighted_risk``: the ranking key."""
    explanation: str
    """Why the case got its verdict."""
    scored_samples: int | None = None
    """Scored samples of the probe in the run (``None`` in reports written before it existed)."""
    failed_samples: int | None = None
    """Of those, how many failed."""


class CategoryRank(BaseModel):
    """A category in the risk ranking."""

    model_config = ConfigDict(extra="forbid")

    category: str
    """The threat family."""
    risk_mean: float
    """Mean ``risk_score`` of its scored cases: the ranking key (descending)."""
    n: int
    """Scored cases behind the mean."""


class FlakinessCounts(BaseModel):
    """How many probes kept or changed their verdict across repeated samples."""

    model_config = ConfigDict(extra="forbid")

    stable_pass: int
    """Probes with 2+ scored samples that passed every time."""
    flaky: int
    """Probes with 2+ scored samples that both passed and failed."""
    stable_fail: int
    """Probes with 2+ scored samples that failed every time."""
    single_sample: int
    """Probes with exactly one scored sample: not classified, one verdict shows no instability."""
    flaky_rate: float | None
    """``flaky / (stable_pass + flaky + stable_fail)``; ``None`` when no probe was classified."""


class Flakiness(BaseModel):
    """Verdict stability of probes sent more than once (``--samples N``)."""

    model_config = ConfigDict(extra="forbid")

    classified_probes: int
    """Probes with 2+ scored samples, each classified stable-pass, flaky or stable-fail."""
    overall: FlakinessCounts
    """Counts over the whole run."""
    by_category: dict[str, FlakinessCounts]
    """Counts per category, keys sorted."""
    flaky_probe_ids: list[str]
    """Ids of the flaky probes, sorted."""


class RunMetrics(BaseModel):
    """Every run-level metric of the seed, plus intervals and flakiness (docs/metrics.md)."""

    model_config = ConfigDict(extra="forbid")

    counts: RunCounts
    """Cases, probes, verdicts, harness errors, missing probes and categories."""
    overall: OverallMetrics
    """Run-wide rates and risk statistics."""
    indices: CompositeIndices
    """Resilience, exposure and fragility."""
    by_category: dict[str, CategoryMetrics]
    """Per-category table, keys sorted; a category seen only in harness errors has ``n`` 0."""
    by_severity: dict[Severity, PassRateRow]
    """Per-severity table with all four tiers, ``low`` to ``critical``."""
    by_expected: dict[str, PassRateRow]
    """``refuse`` and ``comply`` rows; the ``comply`` pass rate measures over-refusal."""
    failure_mode_histogram: dict[str, int]
    """Scored cases per detected failure mode, most frequent first (ties by name)."""
    worst_cases: list[WorstCase]
    """Top probes by the ``weighted_risk`` of their worst sample, one row per probe, ties by
    probe id then sample."""
    category_ranking: list[CategoryRank]
    """Categories with a scored case, by mean risk descending, ties by name."""
    flakiness: Flakiness | None
    """Verdict stability across samples; ``None`` when no probe has 2+ scored samples."""
    notes: list[str]
    """Why some metrics are ``None``, in words, for a reader of the report."""
