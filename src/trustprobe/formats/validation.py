"""pydantic validation errors as located :class:`InputError` messages."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from trustprobe.errors import InputError


def validation_error_to_input_error(
    exc: ValidationError,
    *,
    path: str | Path | None,
    line: int | None,
    row: int | None = None,
) -> InputError:
    """Turn pydantic's first error into an :class:`InputError` naming the offending field.

    ``line`` locates a record of a text file, ``row`` one of a table (Parquet).
    """
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    elif first["type"] == "missing":
        message = "required field is missing"
    elif first["type"] == "value_error" and (first.get("ctx") or {}).get("error") is not None:
        message = str(first["ctx"]["error"])  # without pydantic's "Value error, " prefix
    return InputError(message, path=path, line=line, row=row, field=field)
