"""Load recorded responses from JSONL or Parquet files, validating every record."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import count, islice
from pathlib import Path

from pydantic import Json, TypeAdapter, ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import JsonlFile, Record, RecordFile, decode_jsonl_line, open_records
from trustprobe.responses.models import Response, response_fields


@dataclass
class LoadedResponses:
    """Responses in file order, plus what a reader should be told about the input."""

    responses: list[Response] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def response_file(path: str | Path, *, name: str | None = None) -> RecordFile:
    """A reader of a response file: Parquet by its ``.parquet`` suffix, JSONL otherwise."""
    return open_records(path, Response, name=name)


def parse_response(file: RecordFile, record: Record) -> Response:
    """Validate a complete record of ``file`` as a :class:`Response`, locating any error."""
    if not record.complete:
        raise ValueError("only a complete record can be validated")
    try:
        return Response.model_validate(record.data)
    except ValidationError as exc:
        raise file.invalid(exc, record.number) from exc


def repaired_warning(where: str) -> str:
    """The warning for a record ``where`` whose invalid UTF-8 or lone surrogates were replaced."""
    return f"{where}: invalid UTF-8 or lone UTF-16 surrogate replaced with U+FFFD"


def duplicate_warning(where: str, probe_id: str, sample: int, first: str) -> str:
    """The warning for an ignored repeat ``where`` of the record kept at ``first``."""
    return (
        f"{where}: duplicate response for probe '{probe_id}' sample {sample} ignored"
        f" (first at {first})"
    )


CHUNK_RESPONSES = 16384
"""Responses per chunk of :func:`read_responses`: a few MB of text, enough to amortise a call.

Readers of a scored chunk (the metrics, the observability sample) work once per group of its
cases sharing a verdict, and verdicts recur more within a larger chunk: at 16,384 a
200,000-case run costs about 2.4% fewer instructions a case than at 8,192, for about 28 MB more
peak memory (docs/benchmarks.md)."""


class _FirstPlaces:
    """Where each (probe_id, sample) was first read, in about 8 bytes a case.

    Samples are small dense integers in practice, so each probe keeps an array indexed by
    sample (0 = not seen yet); an outlying sample number goes to a dictionary instead.
    """

    _DENSE_LIMIT = 1 << 20

    def __init__(self) -> None:
        self._dense: dict[str, array[int]] = {}
        self._sparse: dict[tuple[str, int], int] = {}

    def setdefault(self, probe_id: str, sample: int, place: int) -> int:
        """The place recorded first for the key, recording ``place`` (> 0) if there is none."""
        if sample >= self._DENSE_LIMIT:
            return self._sparse.setdefault((probe_id, sample), place)
        places = self._dense.get(probe_id)
        if places is None:
            places = self._dense[probe_id] = array("q")
        if sample >= len(places):
            size = min(max(sample + 1, 2 * len(places)), self._DENSE_LIMIT)
            places.frombytes(bytes(8 * (size - len(places))))
        first = places[sample]
        if first == 0:
            places[sample] = first = place
        return first

    def repeats(self, responses: Sequence[Response], places: Sequence[int]) -> dict[int, int]:
        """Record where each response was read (``places``), unless it was read before.

        Returns:
            The responses read before, by index, each with the place it was first read at.
        """
        found: dict[int, int] = {}
        dense = self._dense
        # Read by key from each response's fields: an attribute read of a pydantic model
        # costs several dictionary lookups (its class defines __getattr__).
        for at, fields, place in zip(count(), map(response_fields, responses), places):
            sample = fields["sample"]
            known = dense.get(fields["probe_id"])
            if known is not None and sample < len(known) and not known[sample]:
                known[sample] = place  # the usual case: a new sample of a known probe
                continue
            first = self.setdefault(fields["probe_id"], sample, place)
            if first != place:
                found[at] = first
        return found


def _places(index: int, numbers: Sequence[int]) -> Sequence[int]:
    """Where the records ``numbers`` of the ``index``-th file are: ``index << 40 | number``.

    A range of numbers (a batch of lines that validated whole) gives a range, made in one step
    and read in order.
    """
    if isinstance(numbers, range) and numbers.step == 1 and numbers.stop <= 1 << 40:
        return range((index << 40) + numbers.start, (index << 40) + numbers.stop)
    return [(index << 40) | number for number in numbers]


@dataclass
class ResponseChunk:
    """Consecutive responses of a run (duplicates left out) and the warnings met reading them."""

    responses: list[Response]
    warnings: list[str]


def read_responses(
    paths: Sequence[str | Path],
    *,
    chunk: int = CHUNK_RESPONSES,
    names: Mapping[str, str] | None = None,
) -> Iterator[ResponseChunk]:
    """Read response files in chunks of up to ``chunk`` responses, validating every record.

    A duplicate (probe_id, sample) keeps the first and warns. Files ending in ``.parquet`` are
    read as Parquet (a row per response, read in batches), any other as JSONL; a run may mix
    both (docs/formats.md). Memory stays flat: a chunk at a time, plus a few bytes per case to
    recognise duplicates. ``names`` gives a path the name messages use instead (``<stdin>``
    for standard input spooled to a file).

    Raises:
        InputError: a file cannot be read or a record does not validate (file, line, field).
    """
    names = names or {}
    files = [response_file(path, name=names.get(str(path))) for path in paths]
    seen = _FirstPlaces()
    current = ResponseChunk([], [])
    for index, file in enumerate(files):
        for numbers, responses, repaired in _batches_in(file):
            repeats = seen.repeats(responses, _places(index, numbers))
            if not repaired and not repeats:
                # Nothing to warn of: the batch joins the chunks in slices.
                while responses:
                    room = max(1, chunk - len(current.responses))
                    current.responses.extend(responses[:room])
                    responses = responses[room:]
                    if len(current.responses) >= chunk:
                        yield current
                        current = ResponseChunk([], [])
                continue
            for at, (number, response) in enumerate(zip(numbers, responses, strict=True)):
                if number in repaired:
                    current.warnings.append(repaired_warning(file.place(number)))
                first = repeats.get(at)
                if first is not None:
                    origin = files[first >> 40].place(first & ((1 << 40) - 1))
                    current.warnings.append(
                        duplicate_warning(
                            file.place(number), response.probe_id, response.sample, origin
                        )
                    )
                    continue
                current.responses.append(response)
                if len(current.responses) >= chunk:
                    yield current
                    current = ResponseChunk([], [])
    if current.responses or current.warnings:
        yield current


BATCH_BYTES = 1 << 20
"""About how many bytes of JSONL lines are validated in one batch."""
_RECORDS_PER_BATCH = 4096
"""Records of a Parquet file validated in one batch."""


def _batches_in(file: RecordFile) -> Iterator[tuple[Sequence[int], list[Response], set[int]]]:
    """A file's records a batch at a time: (numbers, responses, numbers of those repaired).

    The third part holds the records whose invalid UTF-8 was replaced. A batch of JSONL
    lines is validated straight from its bytes by pydantic's JSON parser, each line on its
    own but in one call (:func:`_line_batch`); a batch where a line does not validate so is
    read again line by line (:func:`_line_response`), which repairs what it may and names
    the file, line and field of any error.
    """
    if not isinstance(file, JsonlFile):
        records = file.records()
        while batch := list(islice(records, _RECORDS_PER_BATCH)):
            yield (
                [record.number for record in batch],
                [parse_response(file, record) for record in batch],
                {record.number for record in batch if record.repaired_utf8},
            )
        return
    validate = _line_batch()
    for first, offset, lines in file.batches(BATCH_BYTES):
        try:
            responses = validate(lines)
        except ValidationError:
            pass
        else:
            yield range(first, first + len(lines)), responses, set()
            continue
        numbers, responses, repaired = [], [], set()
        for number, raw in enumerate(lines, start=first):
            read = _line_response(file, number, offset, raw)
            offset += len(raw)
            if read is not None:
                numbers.append(number)
                responses.append(read[0])
                if read[1]:
                    repaired.add(number)
        yield numbers, responses, repaired


@cache
def _line_batch() -> Callable[[list[bytes]], list[Response]]:
    """Validate a list of JSONL lines, each parsed as its own JSON document, in one call.

    ``Json[Response]`` parses each line with the same parser and validates it against the
    same core schema as ``Response.model_validate_json(line)``, so a line gives the same
    response or fails alike (``tests/responses/test_line_batch.py``); one call for the batch
    saves pydantic's per-call Python (2.4 against 3.2 µs a line).
    """
    return TypeAdapter(list[Json[Response]]).validate_python


def _line_response(
    file: JsonlFile, number: int, offset: int, raw: bytes
) -> tuple[Response, bool] | None:
    """The response on one JSONL line and whether its UTF-8 was repaired; None if blank.

    Validated from the bytes first; a line that does not validate so (bad JSON, a bad field,
    invalid UTF-8, a blank line, a lone surrogate escape) takes the general path, which
    repairs what it may and names the file, line and field of any error.
    """
    try:
        return Response.model_validate_json(raw), False
    except ValidationError:
        decoded = decode_jsonl_line(raw, file.name, number)
        if decoded is None:
            return None
        record = Record(number, offset, offset + len(raw), *decoded)
        return parse_response(file, record), record.repaired_utf8


def load_responses(
    paths: Sequence[str | Path], *, names: Mapping[str, str] | None = None
) -> LoadedResponses:
    """Load response files whole (see :func:`read_responses`, which reads them in chunks)."""
    loaded = LoadedResponses()
    for part in read_responses(paths, names=names):
        loaded.responses.extend(part.responses)
        loaded.warnings.extend(part.warnings)
    return loaded


def check_known_probes(responses: Sequence[Response], probe_ids: set[str]) -> None:
    """Raise :class:`InputError` listing response probe ids that no loaded probe has."""
    unknown = {r.probe_id for r in responses} - probe_ids
    if unknown:
        raise unknown_probes_error(unknown)


def unknown_probes_error(unknown: set[str]) -> InputError:
    """The error for responses that name probes no loaded probe set has (ids sorted)."""
    ids = sorted(unknown)
    shown = ", ".join(ids[:20]) + (f" (+{len(ids) - 20} more)" if len(ids) > 20 else "")
    return InputError(f"responses name {len(ids)} unknown probe id(s): {shown}", field="probe_id")
