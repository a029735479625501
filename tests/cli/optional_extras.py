"""Run a CLI command in a fresh interpreter and report which optional extras it imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

OPTIONAL = ("dask", "distributed", "inspect_ai", "pyarrow")
"""Top-level packages of the optional extras (trustprobe[dask], [inspect], [parquet])."""
_MARK = "optional extras imported: "


def run_and_list_extras(args: list[str], cwd: Path) -> tuple[list[str], list[str]]:
    """Run ``trustprobe *args`` (it must exit 0); its stdout lines and the extras it imported."""
    script = (
        "import sys\n"
        "from trustprobe.cli.main import main\n"
        f"sys.argv = ['trustprobe', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
        f"print({_MARK!r} + ','.join(sorted({{m.split('.')[0] for m in sys.modules}}"
        f" & set({OPTIONAL!r}))))\n"
    )
    # A fresh interpreter: this session imports the extras for other tests.
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    *output, last = done.stdout.splitlines()
    assert last.startswith(_MARK), done.stdout
    loaded = last.removeprefix(_MARK)
    return output, loaded.split(",") if loaded else []
