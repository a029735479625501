"""Rich consoles for the CLI: results on stdout, diagnostics on stderr."""

from rich.console import Console
from rich.markup import escape

from trustprobe.reports import Gate

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def print_gate(gate: Gate | None) -> None:
    """Each gate's figure, threshold and verdict on stderr, so a failing CI job says why."""
    if gate is None:
        return
    for check in gate.checks:
        verdict = "[green]passed[/]" if check.passed else "[bold red]FAILED[/]"
        err_console.print(f"gate {verdict}: {escape(check.reason)}", soft_wrap=True)
