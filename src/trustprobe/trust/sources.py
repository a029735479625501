"""Which runs of which tools are behind a score: the explanation's ``sources`` list."""

from __future__ import annotations

from collections.abc import Iterable

from trustprobe.trust.dimensions import DIMENSIONS, Dimension
from trustprobe.trust.evidence import EvidenceOrigin
from trustprobe.trust.score import ScoreSource


def score_sources(used: Iterable[tuple[EvidenceOrigin, Dimension]]) -> list[ScoreSource]:
    """Group the origins of the items a score used by run (tool, version, run id, file).

    Both scoring paths (one agent, and the batch) call this with the items they kept, so the
    explanation is the same whichever computed it.
    """
    return counted_score_sources((origin, dimension, 1) for origin, dimension in used)


def counted_score_sources(
    used: Iterable[tuple[EvidenceOrigin, Dimension, int]],
) -> list[ScoreSource]:
    """:func:`score_sources` from (origin, dimension, number of items) triples.

    The store's running totals keep a count per origin rather than one entry per item.
    """
    runs: dict[tuple[str, str, str, str, str], tuple[set[str], set[Dimension], list[int]]] = {}
    for origin, dimension, items in used:
        key = (
            origin.tool,
            origin.tool_version or "",
            origin.run_id or "",
            origin.file or "",
            origin.file_sha256 or "",
        )
        families, dimensions, count = runs.setdefault(key, (set(), set(), [0]))
        if origin.family is not None:
            families.add(origin.family)
        dimensions.add(dimension)
        count[0] += items
    return [
        ScoreSource(
            tool=tool,
            tool_version=version or None,
            run_id=run_id or None,
            file=file or None,
            file_sha256=digest or None,
            families=sorted(families),
            dimensions=[d for d in DIMENSIONS if d in dimensions],
            evidence_count=count[0],
        )
        for (tool, version, run_id, file, digest), (families, dimensions, count) in sorted(
            runs.items()
        )
    ]
