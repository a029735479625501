"""Response shards as partitions: one streaming index pass per shard, then fixed-size blocks.

A shard is one response file, JSONL or Parquet (by its ``.parquet`` suffix), read through
the same :class:`~trustprobe.formats.RecordFile` interface as the in-process loader reads it.
:func:`index_shard` reads it once, validating every record exactly as
:func:`trustprobe.responses.load_responses` does, and returns a small :class:`ShardIndex`:
blocks of at most ``block_records`` records (byte ranges of whole lines, or row ranges that
follow the row groups), which samples of which probes it holds (as runs), its in-file
duplicates, and its candidates for the observability fitting sample. Blocks are what the
scoring pass works on, so a worker's memory is bounded by the block size, whatever the size
of a shard or of the run. A record's "line" below is its line number in a JSONL shard and its
row number in a Parquet one.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from trustprobe.errors import InputError
from trustprobe.formats import Record, RecordFile, expand_paths
from trustprobe.metrics.partial import SampleRuns
from trustprobe.observability import sample_priority
from trustprobe.responses import Response, parse_response, response_file

BLOCK_RECORDS: Final = 10_000
"""Records per block: the unit of work of the scoring pass, and what bounds worker memory."""
KEY_FIELDS: Final = frozenset({"probe_id", "sample", "response", "error"})
"""What the index needs of a record (a Parquet index reads these columns alone)."""


@dataclass(frozen=True)
class Shard:
    """One input file: its position in the run, the name the user gave it, where to read it."""

    index: int
    name: str
    """The path as given (after glob expansion): used in messages and report sources."""
    path: str
    """Absolute path, so workers started in another directory read the same file."""

    def file(self) -> RecordFile:
        """The shard's reader (JSONL or Parquet, by the file's suffix); nothing is read yet."""
        return response_file(self.path, name=self.name)


@dataclass(frozen=True)
class Block:
    """A range of a shard holding ``records`` records: whole lines, or rows."""

    shard: Shard
    number: int
    """Position of the block in its shard."""
    start: int
    """Byte offset of its first line, or index of its first row."""
    stop: int
    first_line: int
    """1-based number of the first line (or row) in the range."""
    last_line: int
    records: int

    def describe(self) -> str:
        """``shard, block N (lines A-B)``, as error messages name it."""
        unit = self.shard.file().unit
        return (
            f"{self.shard.name}, block {self.number} ({unit}s {self.first_line}-{self.last_line})"
        )


@dataclass(frozen=True)
class LineError:
    """A located input error, carried as data so the client can raise the earliest one."""

    message: str
    path: str | None
    line: int | None
    field: str | None
    row: int | None = None

    @classmethod
    def of(cls, error: InputError) -> LineError:
        """Capture ``error``'s parts."""
        return cls(error.message, error.path, error.line, error.field, error.row)

    def to_error(self) -> InputError:
        """The same :class:`InputError` again."""
        return InputError(
            self.message, path=self.path, line=self.line, field=self.field, row=self.row
        )


@dataclass(frozen=True)
class Duplicate:
    """A record repeating the (probe_id, sample) of an earlier one: ignored, with a warning."""

    line: int
    probe_id: str
    sample: int
    first: str
    """Where the record that is kept is: ``path:line`` or ``path: row N``."""


@dataclass(frozen=True, eq=False)
class Candidates:
    """Scored records' draws for the observability fitting sample, and where to re-read them."""

    priority: NDArray[np.uint64]
    line: NDArray[np.int64]
    offset: NDArray[np.int64]
    """Where each record starts: the byte offset of its line, or its row index."""

    @classmethod
    def none(cls) -> Candidates:
        """No candidate."""
        return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.priority)


@dataclass(frozen=True)
class ShardIndex:
    """What the index pass learnt about one shard."""

    shard: Shard
    error: LineError | None
    """The first invalid line, if any (then the other fields are empty)."""
    records: int = 0
    scored: int = 0
    """Records kept (not duplicates, not dropped) that carry a response: the cases scored."""
    blocks: tuple[Block, ...] = ()
    probe_ids: frozenset[str] = frozenset()
    unknown_probe_ids: frozenset[str] = frozenset()
    repaired_lines: tuple[int, ...] = ()
    """Lines whose invalid UTF-8 was replaced with U+FFFD."""
    duplicates: tuple[Duplicate, ...] = ()
    """Records repeating a (probe_id, sample) seen earlier in this shard."""
    samples: tuple[tuple[str, SampleRuns], ...] = ()
    """Per probe (sorted), the samples this shard holds."""
    candidates: Candidates = field(default_factory=Candidates.none)
    """The scored records with the smallest draws (ties by line), at most the sample size."""


def expand_shards(patterns: Sequence[str | Path]) -> list[Shard]:
    """Shards of the given paths; a glob pattern expands to its sorted matches.

    The expansion is :func:`~trustprobe.formats.expand_paths`, the one the in-process path uses.

    Raises:
        InputError: a pattern matches no file.
    """
    names = expand_paths(patterns)
    return [Shard(i, name, str(Path(name).resolve())) for i, name in enumerate(names)]


def index_shard(
    shard: Shard,
    *,
    probe_ids: frozenset[str],
    seed: int,
    sample_size: int,
    block_records: int = BLOCK_RECORDS,
    drop_lines: frozenset[int] = frozenset(),
    validate: bool = False,
) -> ShardIndex:
    """Read ``shard`` once and index it (see the module docstring).

    ``drop_lines`` are records the client found to duplicate another shard's: they are left
    out of ``scored`` and of the sampling candidates.

    Every line is decoded as JSON (of a Parquet shard, only the :data:`KEY_FIELDS` columns are
    read), and a record whose ``probe_id``, ``sample``, ``response`` and ``error`` have their
    plain types gives its key without a full validation: the scoring pass validates every
    record anyway, in file order. With ``validate`` (or for any other record) the record is
    validated here, as the in-process loader does; the engine asks for that when it must know
    which invalid record comes first.
    """
    try:
        return _index(shard, probe_ids, seed, sample_size, block_records, drop_lines, validate)
    except InputError as error:
        return ShardIndex(shard=shard, error=LineError.of(error))


def _key(file: RecordFile, record: Record, validate: bool) -> tuple[str, int, bool]:
    """(probe_id, sample, has a response) of a record."""
    data = record.data
    probe_id, sample = data.get("probe_id"), data.get("sample", 0)
    response, error = data.get("response"), data.get("error")
    if (
        not validate
        and type(probe_id) is str
        and probe_id
        and type(sample) is int
        and sample >= 0
        and (response is None or type(response) is str)
        and (error is None or type(error) is str)
        and (response is not None or error is not None)
    ):
        # Exactly the values validation would give for these fields.
        return probe_id, sample, error is None and response is not None
    parsed = parse_response(file, file.complete(record))
    return parsed.probe_id, parsed.sample, parsed.error is None and parsed.response is not None


@dataclass(frozen=True)
class _Keys:
    """What one pass over a shard's records gathers: their keys in file order, blocks, draws."""

    names: list[str]
    """Probe ids in order of first appearance: ``probe_code`` holds positions in it."""
    probe_code: array[int]
    sample_no: array[int]
    line_no: array[int]
    has_response: bytearray
    """1 where the record is scored (a response and no error), else 0."""
    repaired_lines: list[int]
    unknown: set[str]
    """Probe ids not in the probe set."""
    draw: array[int]
    """Sampling draws of the scored records that are not dropped, and where those are."""
    draw_line: array[int]
    draw_offset: array[int]
    blocks: list[Block]


def _index(
    shard: Shard,
    probe_ids: frozenset[str],
    seed: int,
    sample_size: int,
    block_records: int,
    drop_lines: frozenset[int],
    validate: bool,
) -> ShardIndex:
    file = shard.file()
    keys = _read_keys(shard, file, probe_ids, seed, block_records, drop_lines, validate)
    probes, samples, lines = _int64(keys.probe_code), _int64(keys.sample_no), _int64(keys.line_no)
    order = np.lexsort((lines, samples, probes))
    probes, samples, lines = probes[order], samples[order], lines[order]
    repeat = np.zeros(len(order), dtype=np.bool_)
    repeat[1:] = (probes[1:] == probes[:-1]) & (samples[1:] == samples[:-1])
    duplicates = _duplicates(file, keys.names, probes, samples, lines, repeat)
    dropped = set(drop_lines) | {d.line for d in duplicates}
    scored_count = _scored_count(keys.has_response, keys.line_no, dropped)
    candidates = _candidates(sample_size, dropped, keys.draw, keys.draw_line, keys.draw_offset)
    distinct = ~repeat
    return ShardIndex(
        shard=shard,
        error=None,
        records=len(order),
        scored=scored_count,
        blocks=tuple(keys.blocks),
        probe_ids=frozenset(keys.names),
        unknown_probe_ids=frozenset(keys.unknown),
        repaired_lines=tuple(keys.repaired_lines),
        duplicates=duplicates,
        samples=_runs_by_probe(keys.names, probes[distinct], samples[distinct]),
        candidates=candidates,
    )


def _read_keys(
    shard: Shard,
    file: RecordFile,
    probe_ids: frozenset[str],
    seed: int,
    block_records: int,
    drop_lines: frozenset[int],
    validate: bool,
) -> _Keys:
    """Read the shard's records once, in file order, cutting blocks as they go by."""
    codes: dict[str, int] = {}
    probe_code, sample_no, line_no = array("q"), array("q"), array("q")
    has_response = bytearray()
    repaired_lines: list[int] = []
    unknown: set[str] = set()
    # Draws are hashed only for lines that may enter the sample; others are never read again.
    draw, draw_line, draw_offset = array("Q"), array("q"), array("q")
    blocks: list[Block] = []
    block_start, block_first, in_block, last_line, end = 0, 1, 0, 0, 0
    starts = file.block_starts(block_records)
    records = file.records(columns=None if validate else KEY_FIELDS)
    for ordinal, record in enumerate(records):
        number = record.number
        if ordinal and ordinal in starts:
            blocks.append(
                Block(shard, len(blocks), block_start, end, block_first, last_line, in_block)
            )
            block_start, block_first, in_block = end, last_line + 1, 0
        probe_id, sample, scored = _key(file, record, validate)
        if record.repaired_utf8:
            repaired_lines.append(number)
        if probe_id not in probe_ids:
            unknown.add(probe_id)
        probe_code.append(codes.setdefault(probe_id, len(codes)))
        sample_no.append(sample)
        line_no.append(number)
        has_response.append(scored)
        if scored and number not in drop_lines:
            draw.append(sample_priority(seed, probe_id, sample))
            draw_line.append(number)
            draw_offset.append(record.start)
        in_block += 1
        end, last_line = record.stop, number
    if in_block or not blocks:
        blocks.append(Block(shard, len(blocks), block_start, end, block_first, last_line, in_block))
    return _Keys(
        names=list(codes),
        probe_code=probe_code,
        sample_no=sample_no,
        line_no=line_no,
        has_response=has_response,
        repaired_lines=repaired_lines,
        unknown=unknown,
        draw=draw,
        draw_line=draw_line,
        draw_offset=draw_offset,
        blocks=blocks,
    )


def _int64(values: array[int]) -> NDArray[np.int64]:
    """``values`` as a NumPy array, without a copy."""
    return np.frombuffer(values, dtype=np.int64) if values else np.zeros(0, np.int64)


def _duplicates(
    file: RecordFile,
    names: Sequence[str],
    probes: NDArray[np.int64],
    samples: NDArray[np.int64],
    lines: NDArray[np.int64],
    repeat: NDArray[np.bool_],
) -> tuple[Duplicate, ...]:
    """The records repeating an earlier (probe_id, sample), by line.

    The keys are sorted by (probe, sample, line); ``repeat`` marks those equal to the one before.
    """
    first_of = np.maximum.accumulate(np.where(repeat, 0, np.arange(len(repeat))))
    return tuple(
        sorted(
            (
                Duplicate(
                    line=int(lines[i]),
                    probe_id=names[probes[i]],
                    sample=int(samples[i]),
                    first=file.place(int(lines[first_of[i]])),
                )
                for i in np.flatnonzero(repeat).tolist()
            ),
            key=lambda d: d.line,
        )
    )


def _scored_count(has_response: bytearray, line_no: array[int], dropped: set[int]) -> int:
    """How many records are scored (a response, no error) and kept (not dropped)."""
    if not has_response:
        return 0
    with_response = np.frombuffer(bytes(has_response), dtype=np.bool_)
    kept = np.ones(len(with_response), dtype=np.bool_)
    if dropped:
        kept = ~np.isin(_int64(line_no), list(dropped))
    return int(np.count_nonzero(with_response & kept))


def _candidates(
    size: int,
    dropped: set[int],
    draw: array[int],
    draw_line: array[int],
    draw_offset: array[int],
) -> Candidates:
    """The ``size`` smallest draws (ties by line) among scored records that are kept."""
    if not draw:
        return Candidates.none()
    priorities = np.frombuffer(draw, dtype=np.uint64)
    lines = np.frombuffer(draw_line, dtype=np.int64)
    offsets = np.frombuffer(draw_offset, dtype=np.int64)
    if dropped:
        keep = ~np.isin(lines, list(dropped))
        priorities, lines, offsets = priorities[keep], lines[keep], offsets[keep]
    order = np.lexsort((lines, priorities))[:size]
    return Candidates(priorities[order].copy(), lines[order].copy(), offsets[order].copy())


def _runs_by_probe(
    names: Sequence[str], probes: np.ndarray[Any, Any], samples: np.ndarray[Any, Any]
) -> tuple[tuple[str, SampleRuns], ...]:
    """Runs of consecutive samples per probe, from distinct keys sorted by (probe, sample)."""
    if len(probes) == 0:
        return ()
    breaks = np.ones(len(probes), dtype=np.bool_)
    breaks[1:] = (probes[1:] != probes[:-1]) | (samples[1:] != samples[:-1] + 1)
    starts = np.flatnonzero(breaks)
    stops = np.append(starts[1:], len(probes))
    runs: dict[str, list[tuple[int, int]]] = {}
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        runs.setdefault(names[probes[start]], []).append(
            (int(samples[start]), int(samples[stop - 1]) + 1)
        )
    return tuple(sorted((name, tuple(r)) for name, r in runs.items()))


def locate_keys(shard: Shard, keys: frozenset[tuple[str, int]]) -> dict[tuple[str, int], list[int]]:
    """Every line of ``shard`` holding one of ``keys`` (for cross-shard duplicates, a rare path).

    The shard was indexed without an error, so its records' keys need no full validation.
    """
    probes = {probe_id for probe_id, _ in keys}
    file = shard.file()
    found: dict[tuple[str, int], list[int]] = {}
    for record in file.records(columns=KEY_FIELDS):
        if record.data.get("probe_id") not in probes:
            continue
        probe_id, sample, _ = _key(file, record, validate=False)
        if (probe_id, sample) in keys:
            found.setdefault((probe_id, sample), []).append(record.number)
    return found


def read_block(
    block: Block, drop_lines: frozenset[int]
) -> tuple[list[Response], list[tuple[int, int]]]:
    """The block's responses in file order, without the dropped (duplicate) lines.

    With each, its (line number, start) place, to read it again (:func:`read_lines_at`).
    """
    file = block.shard.file()
    responses: list[Response] = []
    places: list[tuple[int, int]] = []
    for record in file.records(block.start, block.stop, block.first_line):
        # A dropped repeat is still validated: the in-process loader refuses an invalid one.
        response = parse_response(file, record)
        if record.number not in drop_lines:
            responses.append(response)
            places.append((record.number, record.start))
    return responses, places


def read_lines_at(shard: Shard, places: Sequence[tuple[int, int]]) -> list[Response]:
    """The responses at the given (line number, start) places, in the order given."""
    file = shard.file()
    return [parse_response(file, record) for record in file.records_at(places)]
