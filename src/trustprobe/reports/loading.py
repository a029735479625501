"""Read ``report.json`` files back, with errors that name the file, line and field."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from trustprobe.errors import InputError, TrustprobeError
from trustprobe.formats import validation_error_to_input_error
from trustprobe.reports.models import SCHEMA_VERSION, Report

NON_FINITE = "must be a finite number (JSON has no NaN or Infinity)"
"""What a report, or a report sent to the service, is told about ``NaN`` and ``Infinity``."""


class ReportFieldError(TrustprobeError, ValueError):
    """A report's field breaks a rule its model cannot state; ``field`` names it, dotted."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class _NonFinite(Exception):
    """Raised by the JSON reader at the first ``NaN``, ``Infinity`` or overflowing number."""


def _refuse_constant(literal: str) -> NoReturn:
    raise _NonFinite(literal)


def _finite_float(text: str) -> float:
    # 1e400 reads as infinity without a word; this costs about a tenth of the parse
    value = float(text)
    if math.isinf(value):
        raise _NonFinite(text)
    return value


def non_finite_field(data: Any) -> str | None:
    """The dotted path of the first NaN or infinite number in parsed JSON, or ``None``.

    Python's JSON reader accepts ``NaN`` and ``Infinity``, which no JSON writer produces and no
    report holds; left in, they fail later, far from the file (the report's digest, the HTML
    page) or compare as no number does.
    """
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return where
        if isinstance(value, dict):
            items: list[tuple[Any, Any]] = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        stack.extend((f"{where}.{key}" if where else str(key), v) for key, v in reversed(items))
    return None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from exc
    try:
        # The reader stops at a NaN, an Infinity or a number too large for a float, and only
        # then is the document walked to name the field.
        data = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)
    except _NonFinite:
        raise InputError(NON_FINITE, path=path, field=non_finite_field(json.loads(raw))) from None
    except UnicodeDecodeError as exc:
        raise InputError("file is not valid UTF-8", path=path) from exc
    except RecursionError as exc:
        raise InputError("not valid JSON (nested too deeply to read)", path=path) from exc
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg} at column {exc.colno})", path=path, line=exc.lineno
        ) from exc
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, got {type(data).__name__}", path=path)
    return data


def _schema_version(data: dict[str, Any], path: Path) -> str:
    version = data.get("schema_version")
    if not isinstance(version, str):
        raise InputError(
            "required field is missing or not a string", path=path, field="schema_version"
        )
    return version


def _validate(data: dict[str, Any], path: Path) -> Report:
    version = _schema_version(data, path)
    if version != SCHEMA_VERSION:
        raise InputError(
            f"report schema version {version} is not supported (this trustprobe reads "
            f"{SCHEMA_VERSION})",
            path=path,
            field="schema_version",
        )
    try:
        return Report.model_validate(data)
    except ValidationError as exc:
        raise validation_error_to_input_error(exc, path=path, line=None) from exc


def read_report(path: str | Path) -> Report:
    """Read and validate one ``report.json``.

    Raises:
        InputError: unreadable file, invalid JSON, an unsupported schema version or a field
            that does not validate (named as a dotted path such as ``cases.3.passed``).
    """
    source = Path(path)
    return _validate(_read_json(source), source)


def read_report_pair(base: str | Path, new: str | Path) -> tuple[Report, Report]:
    """Read two reports to compare; different schema versions are an error, checked first."""
    base_path, new_path = Path(base), Path(new)
    base_data, new_data = _read_json(base_path), _read_json(new_path)
    base_version = _schema_version(base_data, base_path)
    new_version = _schema_version(new_data, new_path)
    if base_version != new_version:
        raise InputError(
            f"cannot compare reports of different schema versions: {base_path} is "
            f"{base_version}, {new_path} is {new_version}",
            path=new_path,
            field="schema_version",
        )
    return _validate(base_data, base_path), _validate(new_data, new_path)
