"""Run metrics: every run-level metric of the seed, their intervals and flakiness.

``aggregate_metrics(cases)`` is ``finalize_metrics(metrics_partial(cases))``; partials of
partitions merge exactly with ``merge_metrics``, so both engines share one code path.
"""

from trustprobe.metrics.aggregate import aggregate_metrics, finalize_metrics
from trustprobe.metrics.distribution import Distribution
from trustprobe.metrics.intervals import mean_interval, wilson_interval
from trustprobe.metrics.models import (
    CategoryMetrics,
    CategoryRank,
    CompositeIndices,
    ConfidenceInterval,
    Flakiness,
    FlakinessCounts,
    OverallMetrics,
    PassRateRow,
    RunCounts,
    RunMetrics,
    WorstCase,
)
from trustprobe.metrics.partial import GroupPartial, MetricsPartial, merge_metrics, metrics_partial

__all__ = [
    "CategoryMetrics",
    "CategoryRank",
    "CompositeIndices",
    "ConfidenceInterval",
    "Distribution",
    "Flakiness",
    "FlakinessCounts",
    "GroupPartial",
    "MetricsPartial",
    "OverallMetrics",
    "PassRateRow",
    "RunCounts",
    "RunMetrics",
    "WorstCase",
    "aggregate_metrics",
    "finalize_metrics",
    "mean_interval",
    "merge_metrics",
    "metrics_partial",
    "wilson_interval",
]
