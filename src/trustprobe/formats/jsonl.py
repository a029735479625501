"""JSON Lines reading with errors that name the file, line and field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trustprobe.errors import InputError


@dataclass(frozen=True)
class JsonLine:
    """One decoded JSON object and where it came from."""

    path: str
    line: int
    data: dict[str, Any]
    repaired_utf8: bool
    """True when invalid UTF-8 bytes on this line were replaced with U+FFFD."""


def read_jsonl(path: str | Path) -> Iterator[JsonLine]:
    """Yield each non-blank line of a JSONL file as an object.

    Invalid UTF-8 is replaced rather than fatal (agents emit garbage; we keep the rest of the
    line and flag it). A line that is not a JSON object raises :class:`InputError`.
    """
    name = str(path)
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below; iterating lazily
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=name) from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            decoded = decode_jsonl_line(raw, name, number)
            if decoded is not None:
                yield JsonLine(name, number, *decoded)


def decode_jsonl_line(raw: bytes, name: str, number: int) -> tuple[dict[str, Any], bool] | None:
    """One JSONL line as an object and whether bytes were repaired; ``None`` for a blank line.

    Raises:
        InputError: the line is not valid JSON, or not a JSON object.
    """
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
        repaired = False
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        repaired = True
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg} at column {exc.colno})", path=name, line=number
        ) from exc
    if not isinstance(data, dict):
        raise InputError(
            f"expected a JSON object, got {type(data).__name__}", path=name, line=number
        )
    return data, repaired


def validation_error_to_input_error(
    exc: ValidationError, *, path: str | Path | None, line: int | None
) -> InputError:
    """Turn pydantic's first error into an :class:`InputError` naming the offending field."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    elif first["type"] == "missing":
        message = "required field is missing"
    return InputError(message, path=path, line=line, field=field)
