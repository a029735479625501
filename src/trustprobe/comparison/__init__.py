"""Run comparison for CI: what changed between two reports, and whether it is a regression."""

from trustprobe.comparison.diff import compare_reports
from trustprobe.comparison.html import render_comparison_html, write_comparison_html
from trustprobe.comparison.junit import render_junit, write_junit
from trustprobe.comparison.markdown import render_comparison_markdown, write_comparison_markdown
from trustprobe.comparison.models import (
    COMPARISON_SCHEMA_VERSION,
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
    Interval,
    PairedCounts,
    drop_at_power,
    holm_adjust,
    mcnemar_exact_p,
    min_significant_flips,
    newcombe_interval,
    newcombe_paired_interval,
)

__all__ = [
    "COMPARISON_SCHEMA_VERSION",
    "Comparison",
    "DetectableChange",
    "DiffThresholds",
    "DifferenceInterval",
    "GateKind",
    "GateResult",
    "Interval",
    "PairedCounts",
    "PairedTest",
    "ProbeChange",
    "RunRate",
    "RunSummary",
    "ScopeComparison",
    "UnpairedProbe",
    "Verdict",
    "compare_reports",
    "drop_at_power",
    "holm_adjust",
    "mcnemar_exact_p",
    "min_significant_flips",
    "newcombe_interval",
    "newcombe_paired_interval",
    "render_comparison_html",
    "render_comparison_markdown",
    "render_junit",
    "write_comparison_html",
    "write_comparison_markdown",
    "write_junit",
]
