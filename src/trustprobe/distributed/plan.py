"""From shard indexes to a run plan: duplicates across shards, warnings, blocks to score.

The in-process loader reads the files in order and keeps the first record of each
(probe_id, sample), warning about every later one; this module reaches the same decisions and
the same warning text from the shards' indexes, looking up line numbers only for the rare
(probe_id, sample) that occurs in more than one shard.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from trustprobe.distributed.shards import Block, Duplicate, Shard, ShardIndex
from trustprobe.metrics.partial import SampleRuns
from trustprobe.responses.loader import duplicate_warning, repaired_warning

Key = tuple[str, int]
Locate = Callable[[Mapping[Shard, frozenset[Key]]], Mapping[Shard, Mapping[Key, list[int]]]]
"""Given keys to find per shard, every line each key is on (run as tasks on the cluster)."""


@dataclass(frozen=True)
class BlockWork:
    """A block to score: which lines to skip, how many cases it must yield, its first index."""

    block: Block
    drop_lines: frozenset[int]
    expected_cases: int
    first_index: int
    """Position of the block's first case in the whole run."""


def _overlap(left: SampleRuns, right: SampleRuns) -> list[tuple[int, int]]:
    shared: list[tuple[int, int]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        start = max(left[i][0], right[j][0])
        stop = min(left[i][1], right[j][1])
        if start < stop:
            shared.append((start, stop))
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return shared


def _union(left: SampleRuns, right: SampleRuns) -> SampleRuns:
    merged: list[tuple[int, int]] = []
    for start, stop in sorted([*left, *right]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(stop, merged[-1][1]))
        else:
            merged.append((start, stop))
    return tuple(merged)


def _holds(runs: SampleRuns, sample: int) -> bool:
    position = bisect.bisect_right(runs, sample, key=lambda run: run[0]) - 1
    return position >= 0 and runs[position][0] <= sample < runs[position][1]


def cross_shard_keys(indexes: Sequence[ShardIndex]) -> dict[int, dict[Key, int]]:
    """Per shard, the keys an earlier shard already holds, each with the first shard holding it."""
    seen: dict[str, SampleRuns] = {}
    by_shard = [dict(index.samples) for index in indexes]
    repeats: dict[int, dict[Key, int]] = {}
    for position, index in enumerate(indexes):
        for probe_id, runs in index.samples:
            before = seen.get(probe_id)
            if before is not None:
                for start, stop in _overlap(before, runs):
                    for sample in range(start, stop):
                        first = next(
                            i
                            for i in range(position)
                            if _holds(by_shard[i].get(probe_id, ()), sample)
                        )
                        repeats.setdefault(position, {})[(probe_id, sample)] = first
            seen[probe_id] = runs if before is None else _union(before, runs)
    return repeats


def resolve_duplicates(
    indexes: Sequence[ShardIndex], locate: Locate
) -> dict[int, tuple[Duplicate, ...]]:
    """Every ignored record per shard position, in line order, as the in-process loader decides."""
    duplicates = {position: index.duplicates for position, index in enumerate(indexes)}
    repeats = cross_shard_keys(indexes)
    if not repeats:
        return duplicates
    wanted: dict[Shard, set[Key]] = {}
    for position, keys in repeats.items():
        wanted.setdefault(indexes[position].shard, set()).update(keys)
        for key, first in keys.items():
            wanted.setdefault(indexes[first].shard, set()).add(key)
    lines = locate({shard: frozenset(keys) for shard, keys in wanted.items()})
    for position, keys in repeats.items():
        shard = indexes[position].shard
        # In-shard repeats of these keys now point at another shard's record: rebuild them.
        kept = [d for d in duplicates[position] if (d.probe_id, d.sample) not in keys]
        for (probe_id, sample), first in keys.items():
            first_shard = indexes[first].shard
            kept_at = first_shard.file().place(min(lines[first_shard][(probe_id, sample)]))
            kept.extend(
                Duplicate(line, probe_id, sample, kept_at)
                for line in lines[shard][(probe_id, sample)]
            )
        duplicates[position] = tuple(sorted(kept, key=lambda d: d.line))
    return duplicates


def warnings_of(
    indexes: Sequence[ShardIndex], duplicates: Mapping[int, Iterable[Duplicate]]
) -> list[str]:
    """The loader's warnings in its order: by file, then line, a repair before a duplicate."""
    warnings: list[str] = []
    for position, index in enumerate(indexes):
        place = index.shard.file().place
        events = [(line, 0, repaired_warning(place(line))) for line in index.repaired_lines]
        events += [
            (d.line, 1, duplicate_warning(place(d.line), d.probe_id, d.sample, d.first))
            for d in duplicates[position]
        ]
        warnings.extend(message for _, _, message in sorted(events))
    return warnings


def block_work(
    indexes: Sequence[ShardIndex], duplicates: Mapping[int, Iterable[Duplicate]]
) -> list[BlockWork]:
    """Every block of the run in order, with its dropped lines and expected case count."""
    work: list[BlockWork] = []
    first_index = 0
    for position, index in enumerate(indexes):
        dropped = sorted(d.line for d in duplicates[position])
        for block in index.blocks:
            low = bisect.bisect_left(dropped, block.first_line)
            high = bisect.bisect_right(dropped, block.last_line)
            lines = frozenset(dropped[low:high])
            expected = block.records - len(lines)
            work.append(BlockWork(block, lines, expected, first_index))
            first_index += expected
    return work
