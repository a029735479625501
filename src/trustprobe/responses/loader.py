"""Load recorded responses from JSONL or Parquet files, validating every record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import Record, RecordFile, open_records
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


def load_responses(
    paths: Sequence[str | Path], *, names: Mapping[str, str] | None = None
) -> LoadedResponses:
    """Load response files; a duplicate (probe_id, sample) keeps the first and warns.

    Files ending in ``.parquet`` are read as Parquet (a row per response, read in batches),
    any other as JSONL; a run may mix both (docs/formats.md). ``names`` gives a path the name
    messages use instead (``<stdin>`` for standard input spooled to a file).
    """
    loaded = LoadedResponses()
    seen: dict[tuple[str, int], str] = {}
    names = names or {}
    for path in paths:
        file = response_file(path, name=names.get(str(path)))
        for record in file.records():
            response = parse_response(file, record)
            where = file.place(record.number)
            if record.repaired_utf8:
                loaded.warnings.append(repaired_warning(where))
            if response.key in seen:
                loaded.warnings.append(
                    duplicate_warning(where, response.probe_id, response.sample, seen[response.key])
                )
                continue
            seen[response.key] = where
            loaded.responses.append(response)
    return loaded


def check_known_probes(responses: Sequence[Response], probe_ids: set[str]) -> None:
    """Raise :class:`InputError` listing response probe ids that no loaded probe has."""
    unknown = sorted({r.probe_id for r in responses} - probe_ids)
    if unknown:
        shown = ", ".join(unknown[:20]) + (
            f" (+{len(unknown) - 20} more)" if len(unknown) > 20 else ""
        )
        raise InputError(
            f"responses name {len(unknown)} unknown probe id(s): {shown}", field="probe_id"
        )
