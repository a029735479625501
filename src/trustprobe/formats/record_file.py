"""Record files: numbered records, read alike from JSONL lines and Parquet rows.

A reader yields :class:`Record` objects in file order, reads a range of them again, or reads
single records back at the places it gave; the response loader and the Dask shards use only
this interface, so they treat both formats alike. A record's ``number`` is what messages and
warnings name (``file:17`` for a line, ``file: row 17`` for a row); its ``start`` is where
to find it again (a byte offset, or a 0-based row index).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import ValidationError

from trustprobe.errors import InputError, place
from trustprobe.formats.validation import validation_error_to_input_error


@dataclass(frozen=True)
class Record:
    """One record of a file and where it is."""

    number: int
    """1-based line (JSONL) or row (Parquet) number, as messages name it."""
    start: int
    """Where it begins: the byte offset of its line, or its 0-based row index."""
    stop: int
    """Where the next one may begin: the byte after its line, or its row index + 1."""
    data: dict[str, Any]
    """Its fields; a field that is absent (or a null Parquet cell) is not a key."""
    repaired_utf8: bool
    """True when invalid UTF-8 (or a lone UTF-16 surrogate) in it was replaced with U+FFFD."""
    complete: bool = True
    """False when only some fields were read (``columns``): ``data`` holds only those."""


class RecordFile(ABC):
    """A file of records; opened on each read, so it can be created anywhere cheaply."""

    unit: ClassVar[Literal["line", "row"]]
    """What a record's number counts."""

    def __init__(self, path: str | Path, name: str | None = None) -> None:
        self.path = str(path)
        """Where to read the file."""
        self.name = self.path if name is None else name
        """The file as messages name it (the path the user gave)."""

    @abstractmethod
    def records(
        self,
        start: int = 0,
        stop: int | None = None,
        first: int = 1,
        *,
        columns: frozenset[str] | None = None,
    ) -> Iterator[Record]:
        """The records beginning in ``[start, stop)``, in file order.

        Args:
            start: Where to begin: a record's ``start``, or the ``stop`` of the one before.
            stop: Where to end (default: the end of the file).
            first: Number of the record at ``start`` (line numbers cannot be derived from a
                byte offset; row numbers can, and ignore this).
            columns: Fields needed, when not all are; a format that can read fewer (Parquet)
                then yields incomplete records, one that cannot ignores it.

        Raises:
            InputError: the file cannot be read, or a record cannot be decoded.
        """

    @abstractmethod
    def records_at(self, places: Sequence[tuple[int, int]]) -> Iterator[Record]:
        """Complete records at ``(number, start)`` places, in the order given."""

    @abstractmethod
    def block_starts(self, block_records: int) -> Container[int]:
        """Ordinals (0-based record counts) where a block of at most ``block_records`` begins.

        Ordinal 0 is always a start; a block holds the records up to the next start.
        """

    def complete(self, record: Record) -> Record:
        """``record`` with every field."""
        return record if record.complete else next(self.records_at([(record.number, record.start)]))

    def place(self, number: int) -> str:
        """``file:17`` for a line, ``file: row 17`` for a row."""
        return place(self.name, **self._at(number))

    def error(
        self, message: str, number: int | None = None, field: str | None = None
    ) -> InputError:
        """An :class:`InputError` located in this file (at record ``number`` when given)."""
        return InputError(message, path=self.name, field=field, **self._at(number))

    def invalid(self, exc: ValidationError, number: int) -> InputError:
        """The validation error of record ``number``, located as :meth:`error` locates it."""
        return validation_error_to_input_error(exc, path=self.name, **self._at(number))

    def _at(self, number: int | None) -> dict[str, int | None]:
        if self.unit == "line":
            return {"line": number, "row": None}
        return {"line": None, "row": number}
