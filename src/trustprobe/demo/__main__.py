"""``python -m trustprobe.demo --out DIR``: the ``make demo`` flow."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from trustprobe.cli.console import console, err_console
from trustprobe.demo.flow import run_demo
from trustprobe.demo.personas import Persona
from trustprobe.detectors import Detector
from trustprobe.errors import ExitCode, InputError
from trustprobe.reports import print_summary, write_report_html


def main(argv: list[str] | None = None) -> int:
    """Run the demo and print the summary and where the reports are."""
    parser = argparse.ArgumentParser(prog="python -m trustprobe.demo", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="Run directory to write.")
    parser.add_argument(
        "--persona", choices=[p.value for p in Persona], default=Persona.GUARDED.value
    )
    args = parser.parse_args(argv)
    persona = Persona(args.persona)
    console.print(f"Starting the demo agent ({persona.value}) on a free loopback port…")
    try:
        result = asyncio.run(
            run_demo(
                args.out, detector=Detector.builtin(), persona=persona, progress_console=err_console
            )
        )
    except InputError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        return int(ExitCode.BAD_INPUT)
    console.print("Demo agent stopped.")
    print_summary(result.report, console)
    console.print(f"run directory: {result.run_dir}", soft_wrap=True)
    html_path = result.run_dir / "report.html"
    write_report_html(result.report, html_path)
    for path in (*result.report_paths, html_path):
        console.print(f"report: {path}", soft_wrap=True)
    if result.exit_code is ExitCode.INTERRUPTED:
        return int(ExitCode.INTERRUPTED)
    return int(ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
