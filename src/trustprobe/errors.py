"""The one family of errors trustprobe raises, and the exit codes the CLI maps them to.

Every error the project raises derives from :class:`TrustprobeError`. The CLI turns each branch
into an exit code and a message in one table (``trustprobe.cli.errors``); the service maps them
to HTTP statuses in one handler.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    """Process exit codes shared by every command."""

    OK = 0
    GATE_FAILED = 1
    """A quality gate (``--fail-under``, a regression in ``diff``) did not hold."""
    BAD_INPUT = 2
    """An input file or argument is invalid; the message names file, line and field."""
    TARGET_UNREACHABLE = 3
    """The agent under test could not be reached at all."""
    CLUSTER_FAILED = 4
    """The Dask cluster running the work could not be reached or lost work it could not redo;
    nothing was written."""
    BIND_FAILED = 5
    """``serve`` could not listen on the address asked for (port in use, no permission)."""
    INTERNAL_ERROR = 70
    """trustprobe itself failed: an error it did not expect, printed with its traceback (a bug
    to report). Never a gate's verdict: a CI step can tell the two apart (sysexits' EX_SOFTWARE)."""
    SYSTEM_IO_FAILED = 74
    """The system refused a read or a write trustprobe did not foresee (a full disk, a closed
    pipe, a lost mount): its message is printed (sysexits' EX_IOERR)."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C after writing what had finished."""


class TrustprobeError(Exception):
    """Root of every error trustprobe raises on purpose."""


class InputError(TrustprobeError, ValueError):
    """Invalid user input, located as precisely as we can: file, line (or row), field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
        row: int | None = None,
        index: int | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.row = row
        """1-based row number, for tabular inputs (Parquet) that have rows, not lines."""
        self.field = field
        self.index = index
        """0-based position of the record in a batch that has no lines (an API request body)."""
        super().__init__(self.location() + message)

    def location(self) -> str:
        """``file:line: field: `` (or ``file: row N: field: ``) prefix for the parts known."""
        parts: list[str] = []
        if self.path is not None:
            parts.append(place(self.path, line=self.line, row=self.row))
        elif self.line is not None:
            parts.append(f"line {self.line}")
        elif self.row is not None:
            parts.append(f"row {self.row}")
        elif self.index is not None:
            parts.append(f"record {self.index}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + (": " if parts else "")


def place(path: str | Path, *, line: int | None = None, row: int | None = None) -> str:
    """Where a record is, as messages and warnings name it: ``file:17`` or ``file: row 17``."""
    if line is not None:
        return f"{path}:{line}"
    return str(path) if row is None else f"{path}: row {row}"


class StoreError(TrustprobeError, RuntimeError):
    """The store cannot do what was asked; the message says what to do about it."""


class ClusterError(TrustprobeError, RuntimeError):
    """The Dask cluster lost work it could not redo; no report was written."""


class BindError(TrustprobeError, RuntimeError):
    """The service could not listen on the address asked for; nothing was started."""
