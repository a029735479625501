import subprocess
import sys

HEAVY = ("sklearn", "scipy", "sqlalchemy", "fastapi", "uvicorn", "aiohttp", "jinja2")


def test_cli_entry_imports_no_heavy_library() -> None:
    """Commands load their modules on use, so ``--version`` or ``probes list`` start quickly."""
    code = (
        "import sys, trustprobe.cli.main as m\n"
        "m.app(['--version'], standalone_mode=False)\n"
        f"print(','.join(sorted(n for n in {HEAVY!r} if n in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    version, loaded = result.stdout.splitlines()
    assert version and loaded == ""
