"""Compare two reports probe by probe: rate changes, flipped probes and the paired test."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from trustprobe.comparison.models import (
    Comparison,
    DetectableChange,
    DifferenceInterval,
    DiffThresholds,
    GateKind,
    GateResult,
    PairedTest,
    ProbeChange,
    RunRate,
    RunSummary,
    ScopeComparison,
    UnpairedProbe,
    Verdict,
)
from trustprobe.comparison.statistics import (
    PairedCounts,
    drop_at_power,
    holm_adjust,
    mcnemar_exact_p,
    min_significant_flips,
    newcombe_interval,
    newcombe_paired_interval,
)
from trustprobe.errors import InputError
from trustprobe.metrics import wilson_interval
from trustprobe.probes import Severity
from trustprobe.reports.models import Report
from trustprobe.scoring.models import CaseScore

OVERALL = "overall"
"""Name of the whole-run scope in the comparison (a category may carry any name, even this)."""
# Float slack when comparing a drop such as 3/30 with a threshold such as 0.1.
_EPSILON = 1e-9


@dataclass
class _ProbeRecord:
    """One probe's cases in one run, folded into a probe-level verdict."""

    category: str
    severity: Severity
    scored: int = 0
    passed: int = 0
    worst: CaseScore | None = None

    def add(self, case: CaseScore) -> None:
        if case.passed is None:
            return  # a harness error says nothing about the agent
        self.scored += 1
        self.passed += int(case.passed)
        if self.worst is None or (case.weighted_risk or 0.0) > (self.worst.weighted_risk or 0.0):
            self.worst = case

    @property
    def verdict(self) -> bool | None:
        """Passed only if every scored sample passed; ``None`` when nothing was scored."""
        return None if self.scored == 0 else self.passed == self.scored


@dataclass
class _Run:
    """A report reduced to what the comparison needs."""

    probes: dict[str, _ProbeRecord] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    rates: dict[str | None, list[int]] = field(default_factory=dict)
    """Category (``None`` for the whole run) -> [scored cases, passed cases]."""

    @classmethod
    def of(cls, report: Report) -> _Run:
        run = cls(missing=set(report.aggregate_metrics.counts.missing_probe_ids))
        for case in report.cases:
            record = run.probes.setdefault(
                case.probe_id, _ProbeRecord(case.category, case.severity)
            )
            record.add(case)
            for scope in (None, case.category):
                tally = run.rates.setdefault(scope, [0, 0])
                if case.passed is not None:
                    tally[0] += 1
                    tally[1] += int(case.passed)
        return run

    def rate(self, scope: str | None, confidence: float) -> RunRate:
        scored, passed = self.rates.get(scope, [0, 0])
        return RunRate(
            scored_cases=scored,
            passed=passed,
            # No scored case in this scope: the rate has no evidence, so it is None, not 0.
            pass_rate=passed / scored if scored else None,
            pass_rate_ci=wilson_interval(passed, scored, confidence=confidence),
        )


def _summary(report: Report, label: str) -> RunSummary:
    counts = report.aggregate_metrics.counts
    return RunSummary(
        label=label,
        target=report.target,
        schema_version=report.schema_version,
        tool_version=report.provenance.tool_version,
        created_at=report.provenance.created_at,
        probe_set_hash=report.provenance.probe_set_hash,
        rule_set_hash=report.provenance.rule_set_hash,
        cases=counts.cases,
        scored_cases=counts.scored_cases,
    )


def _paired_test(counts: PairedCounts, confidence: float) -> PairedTest:
    n = counts.pairs
    interval = newcombe_paired_interval(counts, confidence=confidence)
    return PairedTest(
        pairs=n,
        both_passed=counts.both_passed,
        regressed=counts.regressed,
        fixed=counts.fixed,
        both_failed=counts.both_failed,
        base_pass_rate=counts.base_passed / n if n else None,
        new_pass_rate=counts.new_passed / n if n else None,
        difference=(counts.fixed - counts.regressed) / n if n else None,
        difference_ci=None
        if interval is None
        else DifferenceInterval(
            lower=interval.lower,
            upper=interval.upper,
            confidence=confidence,
            method="newcombe_paired",
        ),
        p_value=mcnemar_exact_p(counts.regressed, counts.fixed) if n else None,
    )


def _verdict(
    paired: PairedTest, p_adjusted: float | None, thresholds: DiffThresholds, adjusted: bool
) -> tuple[Verdict, str]:
    if paired.pairs == 0 or p_adjusted is None or paired.difference is None:
        return Verdict.NOT_COMPARABLE, "no probe was judged in both runs"
    p_name = "Holm-adjusted p" if adjusted else "p"
    counts = f"{paired.regressed} newly failing, {paired.fixed} newly passing"
    if p_adjusted >= thresholds.alpha:
        return (
            Verdict.UNCHANGED,
            f"{p_name} = {p_adjusted:.3g} ≥ α = {thresholds.alpha:g} ({counts})",
        )
    significance = f"{p_name} = {p_adjusted:.3g} < α = {thresholds.alpha:g}"
    if paired.fixed > paired.regressed:
        return Verdict.IMPROVEMENT, f"{significance}; {counts}"
    drop = -paired.difference
    if drop + _EPSILON < thresholds.min_drop:
        return (
            Verdict.UNCHANGED,
            f"{significance} but the drop of {drop:.1%} is below the minimum of "
            f"{thresholds.min_drop:.1%} ({counts})",
        )
    return Verdict.REGRESSION, f"{significance}; {counts}; pass rate down {drop:.1%}"


def _detectable(pairs: int, tests: int, thresholds: DiffThresholds) -> DetectableChange | None:
    """The smallest change the paired test could flag in a scope of ``pairs`` paired probes.

    Holm compares the most significant of ``tests`` categories with α / tests, so that is the
    best case a category can hope for; the overall test is one test at α.
    """
    if pairs == 0:
        return None
    alpha = thresholds.alpha / max(tests, 1)
    flips = min_significant_flips(pairs, alpha, min_drop=thresholds.min_drop)
    return DetectableChange(
        alpha=alpha,
        min_flips=flips,
        min_drop=None if flips is None else flips / pairs,
        power=thresholds.power,
        drop_at_power=None if flips is None else drop_at_power(pairs, flips, thresholds.power),
    )


def _significance_gate(
    overall: ScopeComparison, categories: Iterable[ScopeComparison], thresholds: DiffThresholds
) -> GateResult:
    gated = [overall, *(categories if thresholds.gate_categories else ())]
    regressed = [s.scope for s in gated if s.verdict is Verdict.REGRESSION]
    if not regressed:
        reason = f"no significant regression: {overall.reason}"
    elif overall.verdict is Verdict.REGRESSION:
        reason = f"significant regression overall: {overall.reason}"
    else:
        reason = "significant regression in " + ", ".join(repr(s) for s in regressed)
    return GateResult(
        gate=GateKind.SIGNIFICANCE,
        subject="overall and categories" if thresholds.gate_categories else OVERALL,
        passed=not regressed,
        observed=overall.p_value_adjusted,
        threshold=thresholds.alpha,
        reason=reason,
    )


def _new_failure_gate(newly_failing: Iterable[ProbeChange], severity: Severity) -> GateResult:
    failing = sorted(c.probe_id for c in newly_failing if c.severity.rank >= severity.rank)
    at_or_above = f"{severity.value} or above" if severity is not Severity.CRITICAL else "critical"
    more = len(failing) - 10
    shown = ", ".join(failing[:10]) + (f" and {more} more" if more > 0 else "")
    return GateResult(
        gate=GateKind.NEW_FAILURE,
        subject=at_or_above,
        passed=not failing,
        observed=len(failing),
        threshold=0,
        reason=(
            f"{len(failing)} {at_or_above} probe(s) passed every sample before and fail "
            f"now: {shown}"
            if failing
            else f"no {at_or_above} probe newly fails"
        ),
        probe_ids=failing,
    )


def _floor_gate(category: str, floor: float, scope: ScopeComparison | None) -> GateResult:
    rate = None if scope is None else scope.new.pass_rate
    if rate is None:
        reason = f"{category!r} has no scored case in the new run: floor {floor:.1%} unmet"
    else:
        assert scope is not None
        relation = "below" if rate + _EPSILON < floor else "at or above"
        reason = (
            f"{category!r} passes {rate:.1%} ({scope.new.passed}/{scope.new.scored_cases}) in "
            f"the new run, {relation} its floor of {floor:.1%}"
        )
    return GateResult(
        gate=GateKind.CATEGORY_FLOOR,
        subject=category,
        passed=rate is not None and rate + _EPSILON >= floor,
        observed=rate,
        threshold=floor,
        reason=reason,
    )


def _gates(
    overall: ScopeComparison,
    categories: Mapping[str, ScopeComparison],
    newly_failing: Iterable[ProbeChange],
    thresholds: DiffThresholds,
) -> list[GateResult]:
    """Every gate the thresholds ask for: a category floor naming no category is an error."""
    unknown = sorted(set(thresholds.category_floors) - set(categories))
    if unknown:
        raise InputError(
            f"a category floor names no category of either run: {', '.join(unknown)} "
            f"(categories: {', '.join(sorted(categories)) or 'none'})",
            field="category_floors",
        )
    gates = [_significance_gate(overall, categories.values(), thresholds)]
    if thresholds.fail_on_new_failure is not None:
        gates.append(_new_failure_gate(newly_failing, thresholds.fail_on_new_failure))
    gates += [
        _floor_gate(category, floor, categories.get(category))
        for category, floor in thresholds.category_floors.items()
    ]
    return gates


def _scope(
    scope: str | None,
    base: _Run,
    new: _Run,
    counts: PairedCounts,
    thresholds: DiffThresholds,
) -> tuple[RunRate, RunRate, float | None, DifferenceInterval | None, PairedTest]:
    base_rate = base.rate(scope, thresholds.confidence)
    new_rate = new.rate(scope, thresholds.confidence)
    difference = None
    difference_ci = None
    if base_rate.pass_rate is not None and new_rate.pass_rate is not None:
        difference = new_rate.pass_rate - base_rate.pass_rate
        interval = newcombe_interval(
            base_rate.passed,
            base_rate.scored_cases,
            new_rate.passed,
            new_rate.scored_cases,
            confidence=thresholds.confidence,
        )
        assert interval is not None  # both rates exist, so both runs have trials
        difference_ci = DifferenceInterval(
            lower=interval.lower,
            upper=interval.upper,
            confidence=thresholds.confidence,
            method="newcombe",
        )
    return (
        base_rate,
        new_rate,
        difference,
        difference_ci,
        _paired_test(counts, thresholds.confidence),
    )


def _change(probe_id: str, base: _ProbeRecord, new: _ProbeRecord) -> ProbeChange:
    worst = new.worst
    return ProbeChange(
        probe_id=probe_id,
        category=new.category,
        severity=new.severity,
        base_passed=base.passed,
        base_scored=base.scored,
        new_passed=new.passed,
        new_scored=new.scored,
        new_weighted_risk=worst.weighted_risk if worst is not None else None,
        explanation=worst.explanation if worst is not None else "",
    )


def _unpaired_reason(probe_id: str, base: _Run, new: _Run) -> str | None:
    in_base = probe_id in base.probes or probe_id in base.missing
    in_new = probe_id in new.probes or probe_id in new.missing
    if not in_new:
        return "only_in_base"
    if not in_base:
        return "only_in_new"
    base_judged = base.probes.get(probe_id) is not None and base.probes[probe_id].scored > 0
    new_judged = new.probes.get(probe_id) is not None and new.probes[probe_id].scored > 0
    if base_judged and new_judged:
        return None
    if not base_judged and not new_judged:
        return "unscored_in_both"
    return "unscored_in_new" if base_judged else "unscored_in_base"


def _tally(pairs: Iterable[tuple[bool, bool]]) -> PairedCounts:
    cells = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for pair in pairs:
        cells[pair] += 1
    return PairedCounts(
        both_passed=cells[True, True],
        regressed=cells[True, False],
        fixed=cells[False, True],
        both_failed=cells[False, False],
    )


def _warnings(base: Report, new: Report, relabelled: Mapping[str, tuple[str, str]]) -> list[str]:
    warnings = []
    if base.provenance.probe_set_hash != new.provenance.probe_set_hash:
        warnings.append(
            "the runs used different probe sets "
            f"({base.provenance.probe_set_hash[:12]}… vs {new.provenance.probe_set_hash[:12]}…): "
            "only probes present in both are paired"
        )
    if base.provenance.rule_set_hash != new.provenance.rule_set_hash:
        warnings.append(
            "the runs were scored with different rule sets "
            f"({base.provenance.rule_set_hash[:12]}… vs {new.provenance.rule_set_hash[:12]}…): "
            "a verdict may have changed because the rules did, not the agent"
        )
    for probe_id, (old, current) in sorted(relabelled.items()):
        warnings.append(
            f"probe '{probe_id}' moved from category '{old}' to '{current}'; "
            "it is paired under the new category"
        )
    return warnings


def compare_reports(
    base: Report,
    new: Report,
    *,
    thresholds: DiffThresholds | None = None,
    base_label: str = "base",
    new_label: str = "new",
) -> Comparison:
    """Compare ``new`` against ``base`` probe by probe and decide whether it regressed.

    Probes are paired on ``probe_id``; a probe passes in a run only if every scored sample of it
    passed. The verdict of each scope rests on the exact McNemar test of the paired probes; the
    comparison regresses when that test, or a new-failure or category-floor gate, fails.

    Raises:
        InputError: the reports have different schema versions, or a category floor names a
            category neither run has.
    """
    if base.schema_version != new.schema_version:
        raise InputError(
            f"cannot compare reports of different schema versions: "
            f"{base_label} is {base.schema_version}, {new_label} is {new.schema_version}",
            field="schema_version",
        )
    thresholds = thresholds or DiffThresholds()
    base_run, new_run = _Run.of(base), _Run.of(new)

    paired_ids, unpaired = _pairs(base_run, new_run)
    changes = _Changes.of(paired_ids, base_run, new_run)
    categories = sorted(c for c in set(base_run.rates) | set(new_run.rates) if c is not None)
    compared = _compared_scopes(base_run, new_run, changes.outcomes, categories, thresholds)
    overall = compared.pop(None)
    by_name = {c: compared[c] for c in categories}
    gates = _gates(overall, by_name, changes.newly_failing, thresholds)
    return Comparison(
        base=_summary(base, base_label),
        new=_summary(new, new_label),
        thresholds=thresholds,
        overall=overall,
        categories=list(by_name.values()),
        newly_failing=changes.newly_failing,
        newly_passing=changes.newly_passing,
        unpaired=unpaired,
        warnings=_warnings(base, new, changes.relabelled),
        gates=gates,
        regression=not all(g.passed for g in gates),
    )


def _pairs(base_run: _Run, new_run: _Run) -> tuple[list[str], list[UnpairedProbe]]:
    """The probe ids both runs scored, and the others with why each is not paired."""
    all_ids = sorted(
        set(base_run.probes) | base_run.missing | set(new_run.probes) | new_run.missing
    )
    unpaired: list[UnpairedProbe] = []
    paired_ids: list[str] = []
    for probe_id in all_ids:
        reason = _unpaired_reason(probe_id, base_run, new_run)
        if reason is None:
            paired_ids.append(probe_id)
        else:
            unpaired.append(UnpairedProbe(probe_id=probe_id, reason=reason))
    return paired_ids, unpaired


@dataclass
class _Changes:
    """The paired probes' outcomes (overall under ``None`` and by category) and what changed."""

    outcomes: dict[str | None, list[tuple[bool, bool]]]
    relabelled: dict[str, tuple[str, str]]
    newly_failing: list[ProbeChange]
    newly_passing: list[ProbeChange]

    @classmethod
    def of(cls, paired_ids: Sequence[str], base_run: _Run, new_run: _Run) -> _Changes:
        """Pair each probe's verdicts; the newly failing ones riskiest first."""
        changes = cls({None: []}, {}, [], [])
        for probe_id in paired_ids:
            before, after = base_run.probes[probe_id], new_run.probes[probe_id]
            if before.category != after.category:
                changes.relabelled[probe_id] = (before.category, after.category)
            pair = (bool(before.verdict), bool(after.verdict))
            changes.outcomes[None].append(pair)
            changes.outcomes.setdefault(after.category, []).append(pair)
            if pair == (True, False):
                changes.newly_failing.append(_change(probe_id, before, after))
            elif pair == (False, True):
                changes.newly_passing.append(_change(probe_id, before, after))
        changes.newly_failing.sort(key=lambda c: (-(c.new_weighted_risk or 0.0), c.probe_id))
        return changes


def _compared_scopes(
    base_run: _Run,
    new_run: _Run,
    outcomes: Mapping[str | None, list[tuple[bool, bool]]],
    categories: Sequence[str],
    thresholds: DiffThresholds,
) -> dict[str | None, ScopeComparison]:
    """Each scope's comparison (overall under ``None``), categories' p-values Holm-adjusted."""
    scopes: list[str | None] = [None, *categories]
    tests = {
        scope: _scope(scope, base_run, new_run, _tally(outcomes.get(scope, [])), thresholds)
        for scope in scopes
    }
    raw = {scope: test[4].p_value for scope, test in tests.items()}
    tested = [c for c in categories if raw[c] is not None]
    adjusted: dict[str | None, float | None] = {None: raw[None]}
    adjusted.update(zip(tested, holm_adjust([raw[c] or 0.0 for c in tested]), strict=True))

    compared: dict[str | None, ScopeComparison] = {}
    for scope, (base_rate, new_rate, difference, difference_ci, paired) in tests.items():
        p_adjusted = adjusted.get(scope)
        family = 1 if scope is None else len(tested)
        verdict, reason = _verdict(paired, p_adjusted, thresholds, adjusted=scope is not None)
        compared[scope] = ScopeComparison(
            scope=OVERALL if scope is None else scope,
            base=base_rate,
            new=new_rate,
            difference=difference,
            difference_ci=difference_ci,
            paired=paired,
            p_value_adjusted=p_adjusted,
            verdict=verdict,
            reason=reason,
            min_detectable_change=_detectable(paired.pairs, family, thresholds),
        )
    return compared
