"""Load recorded responses from JSONL or Parquet files, validating every record."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import JsonlFile, Record, RecordFile, decode_jsonl_line, open_records
from trustprobe.responses.models import Response


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


CHUNK_RESPONSES = 8192
"""Responses per chunk of :func:`read_responses`: a few MB of text, enough to amortise a call."""


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
            places.extend(bytes(8 * (max(sample + 1, 2 * len(places)) - len(places))))
        first = places[sample]
        if first == 0:
            places[sample] = first = place
        return first


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
        for number, response, repaired in _responses_in(file):
            if repaired:
                current.warnings.append(repaired_warning(file.place(number)))
            place = (index << 40) | number
            first = seen.setdefault(response.probe_id, response.sample, place)
            if first != place:
                where, origin = file.place(number), files[first >> 40]
                current.warnings.append(
                    duplicate_warning(
                        where,
                        response.probe_id,
                        response.sample,
                        origin.place(first & ((1 << 40) - 1)),
                    )
                )
                continue
            current.responses.append(response)
            if len(current.responses) >= chunk:
                yield current
                current = ResponseChunk([], [])
    if current.responses or current.warnings:
        yield current


def _responses_in(file: RecordFile) -> Iterator[tuple[int, Response, bool]]:
    """(record number, response, whether its UTF-8 was repaired) of each record of ``file``.

    A JSONL line is validated straight from its bytes by pydantic's JSON parser, four times
    faster than decoding it to a dict first; a line that does not validate so (bad JSON, a bad
    field, invalid UTF-8, a blank line, a lone surrogate escape) takes the general path, which
    repairs what it may and names the file, line and field of any error, exactly as before.
    """
    if not isinstance(file, JsonlFile):
        for record in file.records():
            yield record.number, parse_response(file, record), record.repaired_utf8
        return
    validate = Response.model_validate_json
    for number, offset, raw in file.lines():
        try:
            yield number, validate(raw), False
        except ValidationError:
            decoded = decode_jsonl_line(raw, file.name, number)
            if decoded is not None:
                record = Record(number, offset, offset + len(raw), *decoded)
                yield number, parse_response(file, record), record.repaired_utf8


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
