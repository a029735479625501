"""``responses.jsonl`` as a crash-safe journal: one appended, flushed line per finished case."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from trustprobe.errors import InputError
from trustprobe.formats import atomic_write_text, validation_error_to_input_error
from trustprobe.responses import CHUNK_RESPONSES, Response, ResponseChunk


@dataclass
class JournalContents:
    """What an existing journal holds, and what had to be repaired to read it."""

    responses: list[Response] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def keys(self) -> set[tuple[str, int]]:
        """The (probe id, sample) cases already recorded."""
        return {response.key for response in self.responses}


def read_journal(path: Path, *, repair: bool = True) -> JournalContents:
    """Read a journal, tolerating a torn last line from a crash.

    A last line without its newline that does not parse was being written when the process
    died; with ``repair`` the file is truncated before it so the next append starts cleanly.
    A bad line anywhere else is real corruption and raises :class:`InputError`.
    """
    contents = JournalContents()
    for part in journal_chunks(path, repair=repair):
        contents.responses.extend(part.responses)
        contents.warnings.extend(part.warnings)
    return contents


def journal_chunks(
    path: Path, *, repair: bool = True, chunk: int = CHUNK_RESPONSES
) -> Iterator[ResponseChunk]:
    """:func:`read_journal` in chunks of up to ``chunk`` responses, the file read line by line.

    Memory holds one chunk, plus the line of each case read so far (to name the first of a
    duplicate).
    """
    if not path.exists():
        return
    seen: dict[tuple[str, int], int] = {}
    current = ResponseChunk([], [])
    with open(path, "rb") as handle:
        line_start = 0
        for number, line in enumerate(handle, start=1):
            last = not line.endswith(b"\n")
            raw = line if last else line[:-1]
            here, line_start = line_start, line_start + len(line)
            if not raw.strip():
                continue
            try:
                response = Response.model_validate_json(raw)
            except ValidationError as exc:
                if last:
                    current.warnings.append(
                        f"{path}:{number}: dropped a torn last line (a record cut off mid-write)"
                    )
                    if repair:
                        with open(path, "r+b") as torn:
                            torn.truncate(here)
                    break
                if exc.errors()[0]["type"] == "json_invalid":
                    raise InputError("not valid JSON", path=path, line=number) from exc
                raise validation_error_to_input_error(exc, path=path, line=number) from exc
            if last and repair:
                with open(path, "ab") as whole:
                    whole.write(b"\n")  # complete record, only its newline was lost
            if response.key in seen:
                current.warnings.append(
                    f"{path}:{number}: duplicate record for probe '{response.probe_id}' sample "
                    f"{response.sample} ignored (first on line {seen[response.key]})"
                )
                continue
            seen[response.key] = number
            current.responses.append(response)
            if len(current.responses) >= chunk:
                yield current
                current = ResponseChunk([], [])
    if current.responses or current.warnings:
        yield current


class ResponseJournal:
    """Appends records to ``responses.jsonl``; each is flushed to the OS as it is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: BinaryIO = open(path, "ab")  # noqa: SIM115 - closed by close()

    def append(self, response: Response) -> None:
        """Write one record and flush it, so a crash loses at most the line being written."""
        self._handle.write(response.model_dump_json(exclude_none=True).encode() + b"\n")
        self._handle.flush()

    def close(self) -> None:
        """Flush to disk and close."""
        if not self._handle.closed:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()

    def __enter__(self) -> ResponseJournal:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def rewrite_journal(path: Path, responses: list[Response]) -> None:
    """Replace the journal atomically with ``responses`` (used to drop errors before a retry)."""
    atomic_write_text(path, "".join(r.model_dump_json(exclude_none=True) + "\n" for r in responses))
