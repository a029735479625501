"""Rich consoles for the CLI: results on stdout, diagnostics on stderr."""

from rich.console import Console

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)
