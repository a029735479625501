"""Run metrics: every run-level metric of the seed, Wilson intervals and flakiness."""

from trustprobe.metrics.aggregate import aggregate_metrics
from trustprobe.metrics.intervals import wilson_interval
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

__all__ = [
    "CategoryMetrics",
    "CategoryRank",
    "CompositeIndices",
    "ConfidenceInterval",
    "Flakiness",
    "FlakinessCounts",
    "OverallMetrics",
    "PassRateRow",
    "RunCounts",
    "RunMetrics",
    "WorstCase",
    "aggregate_metrics",
    "wilson_interval",
]
