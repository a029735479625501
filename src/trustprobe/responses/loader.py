"""Load recorded responses from JSONL, validating every line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import read_jsonl, validation_error_to_input_error
from trustprobe.responses.models import Response


@dataclass
class LoadedResponses:
    """Responses in file order, plus what a reader should be told about the input."""

    responses: list[Response] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load_responses(paths: Sequence[str | Path]) -> LoadedResponses:
    """Load response files; a duplicate (probe_id, sample) keeps the first and warns."""
    loaded = LoadedResponses()
    seen: dict[tuple[str, int], str] = {}
    for path in paths:
        for line in read_jsonl(path):
            try:
                response = Response.model_validate(line.data)
            except ValidationError as exc:
                raise validation_error_to_input_error(exc, path=line.path, line=line.line) from exc
            where = f"{line.path}:{line.line}"
            if line.repaired_utf8:
                loaded.warnings.append(f"{where}: invalid UTF-8 replaced with U+FFFD")
            if response.key in seen:
                loaded.warnings.append(
                    f"{where}: duplicate response for probe '{response.probe_id}' sample "
                    f"{response.sample} ignored (first at {seen[response.key]})"
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
