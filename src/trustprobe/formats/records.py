"""Opening a record file by its name: Parquet for ``.parquet``, JSONL for anything else."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from pydantic import BaseModel

from trustprobe.formats.jsonl import JsonlFile
from trustprobe.formats.parquet import ParquetFile
from trustprobe.formats.record_file import RecordFile

PARQUET_SUFFIX: Final = ".parquet"


def open_records(
    path: str | Path, model: type[BaseModel], *, name: str | None = None
) -> RecordFile:
    """A reader of ``path``'s records of ``model`` (nothing is read yet).

    Args:
        path: The file; a ``.parquet`` suffix (any case) makes it Parquet, anything else JSONL.
        model: The records' model: a Parquet file's columns are its fields.
        name: The file as messages should name it (default: ``path``).
    """
    if Path(path).suffix.lower() == PARQUET_SUFFIX:
        return ParquetFile(path, name, model=model)
    return JsonlFile(path, name)
