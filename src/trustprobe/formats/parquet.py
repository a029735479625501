"""Parquet record files: one row per record, one column per field of the record's model.

pyarrow is an optional extra (``pip install 'trustprobe[parquet]'``), imported only when a
Parquet file is read. Columns carry the model's field names; each holds one kind of scalar
(strings, integers, numbers or booleans, plain or dictionary-encoded) and a null cell is an
absent field, so the field's default applies. A field that holds structured data (a list of
objects, such as a response's ``tool_calls``) is a column of JSON text or of Parquet's own
nested list and struct types. Unknown columns, missing required columns and
columns of another type are refused when the file is opened, before any row is read.

Rows are decoded :data:`READ_ROWS` at a time, one row group after another, so memory does not
depend on the size of a file or of its row groups.
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Container, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Final, Union, get_args, get_origin

from pydantic import BaseModel

from trustprobe.formats.record_file import Record, RecordFile

PARQUET_INSTALL: Final = "pip install 'trustprobe[parquet]'"
READ_ROWS: Final = 4096
"""Rows decoded at a time."""
READ_BUFFER: Final = 1 << 20
"""Bytes read ahead per column: pages are read as decoding needs them, not whole chunks."""

_KINDS: Final[dict[object, str]] = {str: "string", int: "integer", float: "number", bool: "bool"}
_EXPECTED: Final = {
    "string": "a string type",
    "integer": "an integer type",
    "number": "an integer or floating-point type",
    "bool": "bool",
    "json": "a string (JSON text), list or struct type",
}


@dataclass(frozen=True)
class Column:
    """A column a file of the model's records may have."""

    name: str
    kind: str
    """``string``, ``integer``, ``number`` (integer or floating point), ``bool`` or ``json``."""
    required: bool


def model_columns(model: type[BaseModel]) -> tuple[Column, ...]:
    """The columns of ``model``'s records: one per field, of the field's scalar type.

    A field of a list type is a ``json`` column.

    Raises:
        TypeError: a field is neither a scalar (or an optional one) nor a list.
    """
    columns: list[Column] = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        options = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else ()
        types = {t for t in options or (annotation,) if t is not NoneType}
        kind = _KINDS.get(next(iter(types))) if len(types) == 1 else None
        if kind is None and types and all(get_origin(t) is list for t in types):
            kind = "json"
        if kind is None:
            raise TypeError(f"{model.__name__}.{name}: no Parquet column holds {info.annotation}")
        columns.append(Column(name, kind, info.is_required()))
    return tuple(columns)


def row_group_block_starts(sizes: Sequence[int], block_records: int) -> list[int]:
    """First rows of blocks of at most ``block_records`` rows over row groups of ``sizes``.

    A row group larger than a block is cut into blocks from its first row on; smaller row
    groups that follow one another share a block while they fit in it. So a block lies within
    one row group, or is a run of whole row groups (after the tail of a cut one).
    """
    starts: list[int] = []
    row = filled = 0
    for size in sizes:
        if filled and filled + size > block_records:
            filled = 0
        offset = 0
        while offset < size:
            if filled == 0:
                starts.append(row + offset)
            taken = min(block_records - filled, size - offset)
            offset += taken
            filled = (filled + taken) % block_records
        row += size
    return starts or [0]


class ParquetFile(RecordFile):
    """A Parquet file of ``model`` records: one per row, numbered and placed by row."""

    unit = "row"

    def __init__(
        self, path: str | Path, name: str | None = None, *, model: type[BaseModel]
    ) -> None:
        super().__init__(path, name)
        self.columns = model_columns(model)
        self._json = frozenset(c.name for c in self.columns if c.kind == "json")

    def records(
        self,
        start: int = 0,
        stop: int | None = None,
        first: int = 1,
        *,
        columns: frozenset[str] | None = None,
    ) -> Iterator[Record]:
        """The rows ``[start, stop)`` (see the base class); ``columns`` limits what is read."""
        with self._opened() as handle:
            names = [n for n in handle.schema_arrow.names if columns is None or n in columns]
            complete = len(names) == len(handle.schema_arrow.names)
            end = handle.metadata.num_rows if stop is None else stop
            for group, row, size in _row_groups(handle):
                if row >= end:
                    return
                if row + size <= start:
                    continue
                for at, batch in self._batches(handle, group, row, names):
                    low, high = max(start, at), min(end, at + batch.num_rows)
                    if low < high:
                        part = batch.slice(low - at, high - low)
                        yield from _rows(part, range(low, high), complete, self._json)
                    if at + batch.num_rows >= end:
                        return

    def records_at(self, places: Sequence[tuple[int, int]]) -> Iterator[Record]:
        """The rows at ``(row number, row index)`` places, in the order given.

        Only the row groups holding one of them are decoded.
        """
        wanted = sorted({index for _, index in places})
        found: dict[int, Record] = {}
        with self._opened() as handle:
            names = handle.schema_arrow.names
            for group, row, size in _row_groups(handle):
                if bisect.bisect_left(wanted, row) == bisect.bisect_left(wanted, row + size):
                    continue
                for at, batch in self._batches(handle, group, row, names):
                    low = bisect.bisect_left(wanted, at)
                    inside = wanted[low : bisect.bisect_left(wanted, at + batch.num_rows)]
                    if inside:
                        taken = batch.take([index - at for index in inside])
                        found.update((r.start, r) for r in _rows(taken, inside, True, self._json))
        for number, index in places:
            if index not in found or number != index + 1:
                raise self.error("row changed since it was indexed", number)
            yield found[index]

    def block_starts(self, block_records: int) -> Container[int]:
        """Blocks follow row groups (see :func:`row_group_block_starts`)."""
        with self._opened() as handle:
            sizes = [size for _, _, size in _row_groups(handle)]
        return frozenset(row_group_block_starts(sizes, block_records))

    @contextmanager
    def _opened(self) -> Iterator[Any]:
        """The open ``pyarrow.parquet.ParquetFile``, its schema checked."""
        pa, pq = _pyarrow(self)
        try:
            handle = pq.ParquetFile(self.path, pre_buffer=False, buffer_size=READ_BUFFER)
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise self.error(f"cannot read file: {reason}") from exc
        except pa.ArrowException as exc:
            raise self.error(f"not a Parquet file ({exc})") from exc
        with handle:
            self._check(handle.schema_arrow)
            yield handle

    def _check(self, schema: Any) -> None:
        """Refuse unknown, repeated and missing columns, and columns of the wrong type."""
        names: list[str] = schema.names
        known = {column.name for column in self.columns}
        for name in names:
            if name not in known:
                raise self.error("unknown column", field=name)
            if names.count(name) > 1:
                raise self.error("column appears more than once", field=name)
        for column in self.columns:
            if column.name not in names:
                if column.required:
                    raise self.error("required column is missing", field=column.name)
                continue
            arrow_type = schema.field(column.name).type
            if not _holds(column.kind, arrow_type):
                raise self.error(
                    f"column has type {arrow_type}, expected {_EXPECTED[column.kind]}",
                    field=column.name,
                )

    def _batches(
        self, handle: Any, group: int, row: int, names: Sequence[str]
    ) -> Iterator[tuple[int, Any]]:
        """(index of its first row, batch) of each batch of row group ``group``."""
        import pyarrow as pa

        batches = handle.iter_batches(
            batch_size=READ_ROWS, row_groups=[group], columns=list(names), use_threads=False
        )
        at = row
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                return
            except (pa.ArrowException, OSError) as exc:
                raise self.error(f"cannot decode row group {group}: {exc}", at + 1) from exc
            yield at, batch
            at += batch.num_rows


def _pyarrow(file: RecordFile) -> tuple[Any, Any]:
    """``pyarrow`` and ``pyarrow.parquet``, or an error saying how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        raise file.error(f"reading Parquet needs pyarrow: {PARQUET_INSTALL}") from exc
    return pyarrow, pyarrow.parquet


def _row_groups(handle: Any) -> Iterator[tuple[int, int, int]]:
    """(row group, index of its first row, rows) of each row group of the file."""
    metadata = handle.metadata
    row = 0
    for group in range(metadata.num_row_groups):
        size = metadata.row_group(group).num_rows
        yield group, row, size
        row += size


def _holds(kind: str, arrow_type: Any) -> bool:
    """Whether a column of ``arrow_type`` holds values of ``kind`` (all-null columns do)."""
    import pyarrow as pa

    types = pa.types
    if types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    if types.is_null(arrow_type):
        return True
    if kind == "string":
        return bool(
            types.is_string(arrow_type)
            or types.is_large_string(arrow_type)
            or types.is_string_view(arrow_type)
        )
    if kind == "number":
        return bool(types.is_integer(arrow_type) or types.is_floating(arrow_type))
    if kind == "json":
        return _holds("string", arrow_type) or bool(
            types.is_list(arrow_type)
            or types.is_large_list(arrow_type)
            or types.is_struct(arrow_type)
        )
    return bool(types.is_integer(arrow_type) if kind == "integer" else types.is_boolean(arrow_type))


def _rows(
    batch: Any, indexes: Sequence[int], complete: bool, json_columns: Container[str]
) -> Iterator[Record]:
    """The batch's rows as records; ``indexes`` are their row indexes in the file."""
    values: dict[str, list[Any]] = {}
    repaired: set[int] = set()
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        values[name], bad = _python_values(column, name in json_columns)
        repaired.update(bad)
    for position, index in enumerate(indexes):
        data = {
            name: value
            for name, cells in values.items()
            if (value := cells[position]) is not None  # a null cell is an absent field
        }
        yield Record(index + 1, index, index + 1, data, position in repaired, complete)


def _without_nulls(value: Any) -> Any:
    """A nested cell with its null struct fields left out, as a null cell is an absent field."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


def _json_cell(cell: str | None) -> Any:
    """A JSON text cell's value; text that is not JSON stays text, for validation to refuse."""
    if cell is None:
        return None
    try:
        return json.loads(cell)
    except ValueError:
        return cell


def _python_values(column: Any, json_column: bool = False) -> tuple[list[Any], list[int]]:
    """A column's cells as Python values, and the positions where invalid UTF-8 was replaced.

    Parquet writers need not validate UTF-8; as for a JSONL line, bad bytes are replaced
    with U+FFFD (and the row is reported) rather than failing the run.
    """
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    if json_column and not _holds("string", column.type):
        return [_without_nulls(cell) for cell in column.to_pylist()], []
    if not _holds("string", column.type) or pa.types.is_null(column.type):
        return column.to_pylist(), []
    if json_column:
        return [_json_cell(cell) for cell in column.to_pylist()], []
    try:
        column.validate(full=True)
    except pa.ArrowInvalid:
        pass
    else:
        return column.to_pylist(), []
    cells: list[Any] = []
    bad: list[int] = []
    for position, raw in enumerate(column.cast(pa.large_binary()).to_pylist()):
        try:
            cells.append(None if raw is None else raw.decode("utf-8"))
        except UnicodeDecodeError:
            cells.append(raw.decode("utf-8", errors="replace"))
            bad.append(position)
    return cells, bad
