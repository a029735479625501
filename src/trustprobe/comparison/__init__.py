"""Run comparison for CI: what changed between two reports, and whether it is a regression."""

from trustprobe.comparison.diff import compare_reports
from trustprobe.comparison.html import render_comparison_html, write_comparison_html
from trustprobe.comparison.junit import render_junit, write_junit
from trustprobe.comparison.models import (
    COMPARISON_SCHEMA_VERSION,
    Comparison,
    DifferenceInterval,
    DiffThresholds,
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
    holm_adjust,
    mcnemar_exact_p,
    newcombe_interval,
    newcombe_paired_interval,
)

__all__ = [
    "COMPARISON_SCHEMA_VERSION",
    "Comparison",
    "DiffThresholds",
    "DifferenceInterval",
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
    "holm_adjust",
    "mcnemar_exact_p",
    "newcombe_interval",
    "newcombe_paired_interval",
    "render_comparison_html",
    "render_junit",
    "write_comparison_html",
    "write_junit",
]
