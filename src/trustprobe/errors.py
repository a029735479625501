"""Errors that reach the user, and the exit codes the CLI maps them to."""

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
    INTERRUPTED = 130
    """Stopped by Ctrl-C after writing what had finished."""


class InputError(ValueError):
    """Invalid user input, located as precisely as we can: file, line, field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(self.location() + message)

    def location(self) -> str:
        """``file:line: field: `` prefix for the parts that are known."""
        parts = []
        if self.path is not None:
            parts.append(self.path if self.line is None else f"{self.path}:{self.line}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + (": " if parts else "")
