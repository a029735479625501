"""JSON Lines reading with errors that name the file, line and field."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from trustprobe.errors import InputError
from trustprobe.formats.record_file import Record, RecordFile
from trustprobe.formats.text import may_hold_surrogate_escape, repair_strings

UTF8_BOM = b"\xef\xbb\xbf"
"""The byte order mark some editors (Notepad, Excel) write at the start of a UTF-8 file."""


def without_bom(first: bytes) -> bytes:
    """A file's first bytes without a leading UTF-8 byte order mark (only ever the first line's).

    Byte offsets stay those of the file: a reader counts the mark's three bytes itself.
    """
    return first[len(UTF8_BOM) :] if first.startswith(UTF8_BOM) else first


@dataclass(frozen=True)
class JsonLine:
    """One decoded JSON object and where it came from."""

    path: str
    line: int
    data: dict[str, Any]
    repaired_utf8: bool
    """True when invalid UTF-8 bytes (or lone surrogate escapes) were replaced with U+FFFD."""


class JsonlFile(RecordFile):
    """A JSONL file as records: one per non-blank line, numbered by line, placed by byte."""

    unit = "line"
    _bom = 0
    """Bytes of the byte order mark left out of the first line, once it has been read."""

    def records(
        self,
        start: int = 0,
        stop: int | None = None,
        first: int = 1,
        *,
        columns: frozenset[str] | None = None,
    ) -> Iterator[Record]:
        """Each non-blank line whose first byte lies in ``[start, stop)`` (see the base class)."""
        for number, offset, raw in self.lines(start, stop, first):
            decoded = decode_jsonl_line(raw, self.name, number)
            if decoded is not None:
                end = offset + len(raw) + (0 if offset else self._bom)
                yield Record(number, offset, end, *decoded)

    def lines(
        self, start: int = 0, stop: int | None = None, first: int = 1
    ) -> Iterator[tuple[int, int, bytes]]:
        """(line number, byte offset, bytes) of each line, blank ones included, undecoded.

        For readers that validate a line's bytes straight into a model and decode it with
        :func:`decode_jsonl_line` only when that fails (to name the error or repair UTF-8).
        A byte order mark at the start of the file is left out of the first line's bytes
        (offsets still count it).
        """
        with self._open() as handle:
            offset, number = start, first
            if start:
                handle.seek(start)
            else:  # no seek: a pipe (``-e /dev/stdin``, ``<(...)``) reads from its start
                head = handle.readline()
                if not head or (stop is not None and stop <= 0):
                    return
                raw = without_bom(head)
                self._bom = len(head) - len(raw)
                yield number, offset, raw
                offset, number = len(head), number + 1
            for raw in handle:
                if stop is not None and offset >= stop:
                    return
                yield number, offset, raw
                offset += len(raw)
                number += 1

    def batches(self, size: int = 1 << 20) -> Iterator[tuple[int, int, list[bytes]]]:
        """(first line's number, its byte offset, lines) of about ``size`` bytes at a time.

        Every line, blank ones included, undecoded, as :meth:`lines` gives them one by one.
        The file is read ``size`` bytes a call (at least the default buffer's), not a block
        (4 KiB) a call: 26,000 reads fewer for 107 MB of responses.
        """
        with self._open(buffering=max(size, io.DEFAULT_BUFFER_SIZE)) as handle:
            number, offset = 1, 0
            if (lines := handle.readlines(size)) and lines[0].startswith(UTF8_BOM):
                # The first line goes alone, without the mark: a batch's lines follow its
                # offset byte for byte, and the second line starts after the mark's bytes too.
                self._bom = len(UTF8_BOM)
                head = lines.pop(0)
                yield number, offset, [without_bom(head)]
                number, offset = 2, len(head)
                lines = lines or handle.readlines(size)
            while lines:
                yield number, offset, lines
                number += len(lines)
                offset += sum(map(len, lines))
                lines = handle.readlines(size)

    def records_at(self, places: Sequence[tuple[int, int]]) -> Iterator[Record]:
        """The lines at ``(line number, byte offset)`` places, in the order given."""
        with self._open() as handle:
            for number, offset in places:
                handle.seek(offset)
                raw = handle.readline()
                if not offset:
                    head, raw = raw, without_bom(raw)
                    self._bom = len(head) - len(raw)
                decoded = decode_jsonl_line(raw, self.name, number)
                if decoded is None:
                    raise self.error("line changed since it was indexed", number)
                end = offset + len(raw) + (0 if offset else self._bom)
                yield Record(number, offset, end, *decoded)

    def block_starts(self, block_records: int) -> Container[int]:
        """Every ``block_records``-th record: lines have no grouping of their own."""
        return range(0, sys.maxsize, block_records)

    def _open(self, buffering: int = -1) -> BinaryIO:
        try:
            return open(self.path, "rb", buffering=buffering)
        except OSError as exc:
            raise self.error(f"cannot read file: {exc.strerror}") from exc


def read_jsonl(
    path: str | Path, name: str | None = None, *, unique_keys: bool = False
) -> Iterator[JsonLine]:
    r"""Yield each non-blank line of a JSONL file as an object.

    Invalid UTF-8 and lone UTF-16 surrogate escapes (``"\ud800"``) are replaced rather than
    fatal (agents emit garbage; we keep the rest of the line and flag it). A line that is not
    a JSON object raises :class:`InputError`. ``name`` is the file as messages name it
    (``<stdin>`` for standard input copied to ``path``); by default ``path``. With
    ``unique_keys``, a key given twice in one object is an error (authored files: probes).
    """
    file = JsonlFile(path, name)
    if not unique_keys:
        for record in file.records():
            yield JsonLine(file.name, record.number, record.data, record.repaired_utf8)
        return
    for number, _, raw in file.lines():
        decoded = decode_jsonl_line(raw, file.name, number, unique_keys=True)
        if decoded is not None:
            yield JsonLine(file.name, number, *decoded)


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object from its pairs; a key given twice raises :class:`_RepeatedKey`."""
    found = dict(pairs)
    if len(found) < len(pairs):
        keys = [key for key, _ in pairs]
        raise _RepeatedKey(next(key for key in keys if keys.count(key) > 1))
    return found


def decode_jsonl_line(
    raw: bytes, name: str, number: int, *, unique_keys: bool = False
) -> tuple[dict[str, Any], bool] | None:
    """One JSONL line as an object and whether bytes were repaired; ``None`` for a blank line.

    With ``unique_keys``, a key given twice in one object is refused (a JSON reader keeps the
    last value: the first would be lost without a word).

    Raises:
        InputError: the line is not valid JSON, or not a JSON object, or repeats a key.
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
        data = json.loads(text, object_pairs_hook=_unique_object if unique_keys else None)
    except _RepeatedKey as exc:
        raise InputError(
            "given twice in one object (the first value would be lost)",
            path=name,
            line=number,
            field=exc.key,
        ) from exc
    except RecursionError as exc:
        raise InputError("nested too deeply to read", path=name, line=number) from exc
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg} at column {exc.colno})", path=name, line=number
        ) from exc
    if not isinstance(data, dict):
        raise InputError(
            f"expected a JSON object, got {type(data).__name__}", path=name, line=number
        )
    if may_hold_surrogate_escape(raw):
        data, surrogates = repair_strings(data)
        repaired = repaired or surrogates
    return data, repaired
