"""Run every ``benchmarks/bench_*.py`` module's ``main()`` in turn (``make bench``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def run(selected: list[str]) -> None:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    for name in names:
        if selected and not any(s in name for s in selected):
            continue
        print(f"== {name}", flush=True)
        importlib.import_module(f"benchmarks.{name}").main()


if __name__ == "__main__":
    run(sys.argv[1:])
