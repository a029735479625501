"""From a probe report to evidence: a documented, configurable category → dimension mapping."""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import canonical_json, sha256_hex, validation_error_to_input_error
from trustprobe.reports import Report
from trustprobe.scoring import CaseScore
from trustprobe.trust.dimensions import Dimension
from trustprobe.trust.evidence import (
    EvalEvidence,
    Evidence,
    OperationalEvidence,
    observation_time,
)

DEFAULT_CATEGORY_DIMENSIONS: Mapping[str, Dimension | None] = MappingProxyType(
    {
        "prompt_injection": Dimension.SECURITY,
        "indirect_injection": Dimension.SECURITY,
        "secret_exfiltration": Dimension.SECURITY,
        "harmful_content": Dimension.SAFETY,
        "privacy_pii": Dimension.SAFETY,
        "deception_sycophancy": Dimension.SAFETY,
        "excessive_agency": Dimension.RUNTIME_COMPLIANCE,
        "scope_honesty": Dimension.SCOPE_HONESTY,
        "over_refusal": Dimension.SCOPE_HONESTY,
    }
)
"""Where each catalog category's pass rate goes (reasons in docs/trust.md)."""


class CategoryMapping(BaseModel):
    """How a probe report becomes evidence (docs/trust.md, "From a report to evidence")."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    categories: dict[str, Dimension | None] = Field(
        default_factory=lambda: dict(DEFAULT_CATEGORY_DIMENSIONS)
    )
    """Probe category → dimension its pass rate informs; ``null`` deliberately ignores one.

    Given here it replaces the defaults; :func:`load_category_mapping` merges a file over them.
    """
    reliability: bool = True
    """Emit reliability from pass/fail agreement across repeated samples of a probe."""
    harness_stability: bool = True
    """Emit harnessStability from the share of cases without a harness error."""
    eval_rigor: bool = True
    """Emit evalRigor from the coverage and evenness of the mapped categories."""
    latency_baseline_ms: float | None = Field(default=None, gt=0)
    """Baseline latency of these tasks; when set, emit latency from the median case latency."""
    task_value_tokens: float | None = Field(default=None, gt=0)
    """Tokens a case is worth; when set, emit costEfficiency from mean tokens per case."""
    tool_calls: bool = True
    """Emit evidence from the calls agents made in tool-calling cases (docs/trust.md)."""


def load_category_mapping(path: str | Path) -> CategoryMapping:
    """Read a mapping file (JSON or YAML); its ``categories`` are merged over the defaults."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8-sig")
        data: Any = (
            yaml.safe_load(text) if source.suffix.lower() in {".yaml", ".yml"} else json.loads(text)
        )
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=source) from exc
    except (yaml.YAMLError, json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError(f"not valid JSON or YAML: {exc}", path=source) from exc
    if not isinstance(data, dict):
        raise InputError("expected a mapping", path=source)
    merged = dict(data)
    if isinstance(data.get("categories"), dict):
        merged["categories"] = {**DEFAULT_CATEGORY_DIMENSIONS, **data["categories"]}
    try:
        return CategoryMapping.model_validate(merged)
    except ValidationError as exc:
        raise validation_error_to_input_error(exc, path=source, line=None) from exc


def report_created_at(report: Report) -> datetime | None:
    """The report's ``provenance.created_at`` in UTC, or ``None`` when it has no time zone.

    Raises:
        InputError: a time evidence cannot be dated by (before 1970, or outside the years 1 to
            9999 once in UTC).
    """
    created = report.provenance.created_at
    if created.tzinfo is None or created.utcoffset() is None:
        return None
    try:
        return observation_time(created)
    except ValueError as exc:
        raise InputError(str(exc), field="provenance.created_at") from None


def report_digest(report: Report) -> str:
    """SHA-256 of the report's canonical JSON: what the store dedupes runs by and ids grow from.

    Taken over the report as validated (``model_dump``), so the same report gives the same
    digest however its file was spaced or its keys ordered.
    """
    return sha256_hex(canonical_json(report.model_dump(mode="json")))


def _eval_rigor(cases: Sequence[CaseScore], mapping: CategoryMapping) -> tuple[float, float] | None:
    """Coverage and normalised entropy of the mapped categories present, or ``None``."""
    known = sorted(c for c, d in mapping.categories.items() if d is not None)
    counts = Counter(c.category for c in cases if mapping.categories.get(c.category) is not None)
    if not known or not counts:
        return None
    coverage = len(counts) / len(known)
    if len(known) == 1:
        return coverage, 1.0  # one possible category: evenness is trivially complete
    n = sum(counts.values())
    entropy = -sum((k / n) * math.log(k / n) for k in counts.values())
    return coverage, min(1.0, entropy / math.log(len(known)))


def evidence_from_report(
    report: Report,
    *,
    agent_id: str,
    observed_at: datetime,
    mapping: CategoryMapping | None = None,
    path: str | Path | None = None,
) -> list[Evidence]:
    """Turn a probe report's ``cases`` into evidence records about ``agent_id``.

    Ids are ``report-<digest>-<dimension>-<eval|metric>`` where the digest covers the report
    content and the agent, so sending the same report twice yields the same ids. A case whose
    category the mapping does not name raises :class:`InputError` (map it to ``null`` to ignore it).
    """
    mapping = mapping or CategoryMapping()
    if observed_at.tzinfo is None or observed_at.utcoffset() is None:
        raise InputError("observed_at must be timezone-aware", field="observed_at")
    cases = report.cases
    _check_categories(cases, mapping, path)
    root = f"report-{sha256_hex(report_digest(report) + chr(10) + agent_id)[:24]}"
    common: dict[str, Any] = {"agent_id": agent_id, "observed_at": observed_at}
    evidence = _eval_evidence(cases, mapping, root, common)
    evidence.extend(_operational_evidence(cases, mapping, root, common))
    if mapping.tool_calls:
        evidence.extend(_tool_call_evidence(cases, root, common))
    if mapping.eval_rigor:
        rigor = _eval_rigor(cases, mapping)
        if rigor is not None:
            coverage, diversity = rigor
            evidence.append(
                _operational(
                    root,
                    common,
                    Dimension.EVAL_RIGOR,
                    "coverage",
                    value=coverage,
                    diversity=diversity,
                )
            )
    return evidence


def _operational(
    root: str, common: dict[str, Any], dimension: Dimension, metric: str, **fields: Any
) -> OperationalEvidence:
    """The operational record ``metric`` of ``dimension``, its id made from the report's root."""
    return OperationalEvidence(
        id=f"{root}-{dimension.value}-{metric}",
        dimension=dimension,
        metric=metric,
        **fields,
        **common,
    )


def _check_categories(
    cases: Sequence[CaseScore], mapping: CategoryMapping, path: str | Path | None
) -> None:
    """Refuse a case whose category the mapping does not name, locating the first one."""
    for index, case in enumerate(cases):
        if case.category not in mapping.categories:
            raise InputError(
                f"category '{case.category}' has no dimension in the mapping "
                "(map it to a dimension, or to null to ignore it)",
                path=path,
                field=f"cases[{index}].category",
            )


def _eval_evidence(
    cases: Sequence[CaseScore], mapping: CategoryMapping, root: str, common: dict[str, Any]
) -> list[Evidence]:
    """One pass/total record per dimension that judged cases map to, in dimension order."""
    judged: dict[Dimension, list[bool]] = defaultdict(list)
    for case in cases:
        dimension = mapping.categories[case.category]
        if dimension is not None and case.passed is not None:
            judged[dimension].append(case.passed)
    return [
        EvalEvidence(
            id=f"{root}-{dimension.value}-eval",
            dimension=dimension,
            passed=sum(outcomes),
            total=len(outcomes),
            **common,
        )
        for dimension in Dimension
        if (outcomes := judged.get(dimension))
    ]


def _operational_evidence(
    cases: Sequence[CaseScore], mapping: CategoryMapping, root: str, common: dict[str, Any]
) -> list[Evidence]:
    """The run's operational records the mapping asks for: consistency, errors, latency, tokens."""
    evidence: list[Evidence] = []

    def operational(dimension: Dimension, metric: str, **fields: Any) -> None:
        evidence.append(_operational(root, common, dimension, metric, **fields))

    if mapping.reliability:
        samples: dict[str, set[bool]] = defaultdict(set)
        sample_counts: Counter[str] = Counter()
        for case in cases:
            if case.passed is not None:
                samples[case.probe_id].add(case.passed)
                sample_counts[case.probe_id] += 1
        repeated = [probe for probe, n in sample_counts.items() if n >= 2]
        if repeated:
            consistent = sum(1 for probe in repeated if len(samples[probe]) == 1)
            operational(
                Dimension.RELIABILITY,
                metric="consistent_groups",
                value=consistent,
                groups=len(repeated),
            )
    if mapping.harness_stability and cases:
        errors = sum(1 for case in cases if case.error is not None)
        operational(
            Dimension.HARNESS_STABILITY, metric="harness_errors", value=errors, runs=len(cases)
        )
    if mapping.latency_baseline_ms is not None:
        latencies = [c.latency_ms for c in cases if c.latency_ms is not None and c.error is None]
        if latencies:
            operational(
                Dimension.LATENCY,
                metric="latency_ms",
                value=statistics.median(latencies),
                baseline_ms=mapping.latency_baseline_ms,
            )
    if mapping.task_value_tokens is not None:
        spent = [
            c.input_tokens + c.output_tokens
            for c in cases
            if c.input_tokens is not None and c.output_tokens is not None
        ]
        if spent:
            operational(
                Dimension.COST_EFFICIENCY,
                metric="tokens",
                value=sum(spent) / len(spent),
                task_value=mapping.task_value_tokens,
            )
    return evidence


def _claimed_over_failed_tool(case: CaseScore) -> bool:
    """Failed on its words (not its calls) after one of its tools failed."""
    failed_tool = any(call.result_error for call in case.tool_calls or ())
    words = any(not p.startswith("call.") for p in case.matched_unsafe_patterns)
    return failed_tool and case.passed is False and words


def _tool_call_evidence(
    cases: Sequence[CaseScore], root: str, common: dict[str, Any]
) -> list[Evidence]:
    """What the calls of tool-calling cases show (docs/trust.md, "Tool calls").

    Unsafe calls count against security and safety; calls outside the offered tools (or off a
    tool's schema) are runtimeCompliance violations among all calls; a case that failed on its
    words after one of its tools failed counts against scopeHonesty.
    """
    acting = [c for c in cases if c.tool_calls is not None and c.passed is not None]
    if not acting:
        return []  # no tool-calling case was judged: no evidence either way
    evidence: list[Evidence] = []
    safe = sum(1 for c in acting if not c.matched_unsafe_calls)
    for dimension in (Dimension.SECURITY, Dimension.SAFETY):
        evidence.append(
            EvalEvidence(
                id=f"{root}-{dimension.value}-actions",
                dimension=dimension,
                passed=safe,
                total=len(acting),
                **common,
            )
        )
    calls = sum(len(c.tool_calls or ()) for c in acting)
    if calls:
        violations = sum(len(c.flagged_calls) for c in acting)
        evidence.append(
            _operational(
                root,
                common,
                Dimension.RUNTIME_COMPLIANCE,
                "violations",
                value=violations,
                actions=calls,
            )
        )
    after_failure = [c for c in acting if any(call.result_error for call in c.tool_calls or ())]
    if after_failure:
        evidence.append(
            EvalEvidence(
                id=f"{root}-{Dimension.SCOPE_HONESTY.value}-tool-errors",
                dimension=Dimension.SCOPE_HONESTY,
                passed=sum(1 for c in after_failure if not _claimed_over_failed_tool(c)),
                total=len(after_failure),
                **common,
            )
        )
    return evidence
