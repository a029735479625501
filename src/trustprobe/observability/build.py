"""``build_observability``: the failure geometry of a run, from its cases or a sample of them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from trustprobe.observability.geometry import (
    case_keys,
    check_settings,
    finalize_geometry,
    fit_and_place,
    fit_sample_positions,
    fit_sample_size,
    scored_case_texts,
)
from trustprobe.observability.models import Observability
from trustprobe.observability.sampling import ObservabilitySample
from trustprobe.scoring.models import CaseScore
from trustprobe.scoring.rows import ScoredCases


def build_observability(
    cases: Iterable[CaseScore],
    *,
    min_cases: int = 5,
    seed: int = 0,
    n_clusters: int | None = None,
    max_features: int = 5000,
) -> Observability | None:
    """Embed scored cases, cluster them and measure what the clusters align with.

    Harness-error cases are left out. Returns ``None`` when fewer than ``min_cases`` scored
    cases remain (and always for zero): too few points for a geometry worth reading. Above
    20,000 scored cases the geometry is computed from a sample (:mod:`.sampling`).

    Args:
        cases: Scored cases of one run.
        min_cases: Scored cases needed before anything is computed.
        seed: Seed of sampling, SVD and KMeans; same input and seed give the same output.
        n_clusters: Number of clusters; ``None`` chooses it by silhouette (docs/observability.md).
        max_features: Largest TF-IDF vocabulary, most frequent terms first.

    Raises:
        ValueError: ``min_cases`` < 1, ``n_clusters`` < 1 or ``max_features`` < 4.
    """
    check_settings(min_cases=min_cases, n_clusters=n_clusters, max_features=max_features)
    sample = ObservabilitySample(seed)
    sample.add(cases)
    return observe_sample(
        sample, min_cases=min_cases, n_clusters=n_clusters, max_features=max_features
    )


def observe_sample(
    sample: ObservabilitySample,
    *,
    min_cases: int = 5,
    n_clusters: int | None = None,
    max_features: int = 5000,
) -> Observability | None:
    """The geometry of the cases a run offered to ``sample`` (see :func:`build_observability`).

    Raises:
        ValueError: ``min_cases`` < 1, ``n_clusters`` < 1 or ``max_features`` < 4.
    """
    enough = sample.scored >= min_cases
    return observe_cases(
        sample.columns() if enough else [],
        seed=sample.seed,
        positions=sample.fit_positions() if enough else None,
        scored=sample.scored,
        harness_errors=sample.harness_errors,
        sample_size=sample.size,
        min_cases=min_cases,
        n_clusters=n_clusters,
        max_features=max_features,
    )


def observe_cases(
    cases: Sequence[CaseScore],
    *,
    seed: int,
    scored: int,
    harness_errors: int,
    sample_size: int | None = None,
    min_cases: int = 5,
    n_clusters: int | None = None,
    max_features: int = 5000,
    positions: Sequence[int] | None = None,
) -> Observability | None:
    """The geometry of a run whose sampled scored ``cases`` (in run order) are given.

    ``scored`` and ``harness_errors`` count the whole run's cases; above ``sample_size``
    (default: :func:`fit_sample_size`) scored cases the report says the geometry stands for
    ``scored`` of them. ``positions``, when the caller holds them already, are
    :func:`fit_sample_positions` of ``cases`` (computed here otherwise).

    Raises:
        ValueError: ``min_cases`` < 1, ``n_clusters`` < 1 or ``max_features`` < 4.
    """
    check_settings(min_cases=min_cases, n_clusters=n_clusters, max_features=max_features)
    if scored < min_cases:
        return None
    rows = ScoredCases.of(cases)  # read as columns: the sample's cases are not built again
    if positions is None:
        positions = fit_sample_positions(case_keys(rows), seed=seed)
    # A case's text depends on the case alone: made once for fitting and placing both.
    texts = scored_case_texts(rows)
    model, partial, points = fit_and_place(
        rows, texts, positions, seed=seed, n_clusters=n_clusters, max_features=max_features
    )
    partial = replace(partial, excluded_harness_errors=harness_errors)
    bound = fit_sample_size() if sample_size is None else sample_size
    return finalize_geometry(
        model, partial, points, sampled_from=scored if scored > bound else None
    )
