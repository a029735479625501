"""The one table from error class to exit code, and the one place errors are printed."""

from __future__ import annotations

from rich.markup import escape

from trustprobe.cli.console import err_console
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
    err_console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True)
    return exit_code_for(error)
