"""The one table from error class to exit code, and the one place errors are printed."""

from __future__ import annotations

import traceback

from rich.text import Text

from trustprobe.cli.console import err_console, plain
from trustprobe.errors import (
    BindError,
    ClusterError,
    ExitCode,
    InputError,
    StoreError,
    TrustprobeError,
)

EXIT_CODES: tuple[tuple[type[TrustprobeError], ExitCode], ...] = (
    (InputError, ExitCode.BAD_INPUT),
    (StoreError, ExitCode.BAD_INPUT),
    (ClusterError, ExitCode.CLUSTER_FAILED),
    (BindError, ExitCode.BIND_FAILED),
    (TrustprobeError, ExitCode.BAD_INPUT),
)
"""Most specific first; the first class the error is an instance of decides its exit code."""


def exit_code_for(error: TrustprobeError) -> ExitCode:
    """The exit code :data:`EXIT_CODES` gives ``error``."""
    return next(code for kind, code in EXIT_CODES if isinstance(error, kind))


def report_error(error: TrustprobeError) -> ExitCode:
    """Print ``error: MESSAGE`` on stderr (plain in logs) and return its exit code."""
    _print_error("error: ", str(error))
    return exit_code_for(error)


def _print_error(label: str, message: str) -> None:
    """``label`` in bold red, then the message as inert text (it names files and ids)."""
    err_console.print(
        Text(label, style="bold red").append_text(plain(message)), highlight=False, soft_wrap=True
    )


def report_unexpected(error: Exception) -> ExitCode:
    """Print an error trustprobe did not foresee and return its own exit code, never a gate's.

    The system refusing a read or a write (a full disk, a closed pipe) is named in one line;
    any other error is a bug in trustprobe, printed with its traceback for a report.
    """
    if isinstance(error, OSError):
        _print_error("error: ", str(error))
        return ExitCode.SYSTEM_IO_FAILED
    err_console.print(
        "".join(traceback.format_exception(error)).rstrip(), highlight=False, soft_wrap=True
    )
    _print_error(
        "internal error: ",
        f"{type(error).__name__}: {error} "
        "(a bug in trustprobe: please report it with the traceback above)",
    )
    return ExitCode.INTERNAL_ERROR
