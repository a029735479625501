"""What a fresh interpreter imports to start the CLI: each test runs a real process for it."""

import os
import subprocess
import sys

import pytest

HEAVY = ("sklearn", "scipy", "sqlalchemy", "fastapi", "uvicorn", "aiohttp", "jinja2")


def test_cli_entry_imports_no_heavy_library() -> None:
    """Commands load their modules on use, so ``--version`` or ``probes list`` start quickly."""
    code = (
        "import sys, trustprobe.cli.main as m\n"
        "m.app(['--version'], standalone_mode=False)\n"
        f"print(','.join(sorted(n for n in {HEAVY!r} if n in sys.modules)))\n"
    )
    version, loaded = _printed_by(code)
    assert version and loaded == ""


def _printed_by(code: str) -> list[str]:
    """The lines ``code`` prints in a fresh interpreter (this one has imported everything)."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return result.stdout.splitlines()


def _modules_loaded_by(args: list[str], *, whole_names: bool = False) -> set[str]:
    """Modules (top-level ones unless ``whole_names``) a fresh ``trustprobe *args`` imported."""
    names = "sys.modules" if whole_names else "{m.split('.')[0] for m in sys.modules}"
    code = (
        "import sys\n"
        "from trustprobe.cli.main import main\n"
        f"sys.argv = ['trustprobe', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(','.join(sorted({names})))\n"
    )
    return set(_printed_by(code)[-1].split(","))


@pytest.mark.parametrize("args", [["--help"], ["score", "--help"]], ids=" ".join)
def test_help_imports_only_the_command_line_layer(args: list[str]) -> None:
    """Help text needs no numerics, matcher or model library: it comes up at once."""
    loaded = _modules_loaded_by(args)
    # Not pydantic: Typer itself imports it to read a command's parameters.
    heavy = {*HEAVY, "numpy", "re2", "yaml", "threadpoolctl", "pyarrow", "dask"}
    assert "typer" in loaded and not loaded & heavy, sorted(loaded & heavy)


def test_root_help_imports_no_model_or_format_module() -> None:
    """``trustprobe --help`` lists commands from their summaries: no pydantic, no file formats."""
    loaded = _modules_loaded_by(["--help"], whole_names=True)
    unwanted = {"pydantic", "trustprobe.formats", "importlib.metadata"}
    assert not loaded & unwanted, sorted(loaded & unwanted)


def test_score_imports_no_observability_library_before_it_needs_one() -> None:
    """``score`` loads scikit-learn and SciPy only to map the failure geometry."""
    code = (
        "import sys\n"
        "import trustprobe.cli.score_cmd\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    loaded = set(_printed_by(code)[-1].split(","))
    assert not loaded & {"sklearn", "scipy", "jinja2"}, sorted(loaded & {"sklearn", "scipy"})


def test_root_help_lists_each_command_with_its_own_first_line() -> None:
    """The summaries ``--help`` shows without loading commands are the commands' own."""
    import click
    import typer

    from trustprobe.cli.main import COMMANDS, SUMMARIES, app

    group = typer.main.get_group(app)
    context = click.Context(group)
    loaded = {name: group.get_command(context, name) for name in COMMANDS}
    assert {
        name: (command.short_help or command.help or "").splitlines()[0]
        for name, command in loaded.items()
    } == SUMMARIES


def test_help_shows_the_real_low_confidence_threshold() -> None:
    from trustprobe.cli.judge_options import SHOWN_LOW_CONFIDENCE
    from trustprobe.scoring import LOW_CONFIDENCE

    assert SHOWN_LOW_CONFIDENCE == LOW_CONFIDENCE


@pytest.mark.parametrize("told", [None, "2"])
def test_the_console_entry_point_loads_blas_on_one_thread_unless_told(told: str | None) -> None:
    """OpenBLAS starts with one thread (a pool's other threads would only spin): the numeric
    steps run held to one thread anyway. A count the user set is kept."""
    code = (
        "import os, sys\n"
        "from trustprobe.cli.main import main\n"
        "sys.argv = ['trustprobe', '--version']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "import numpy, threadpoolctl\n"
        "pools = threadpoolctl.threadpool_info()\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'],"
        " sorted({p['num_threads'] for p in pools if p['internal_api'] == 'openblas'}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if told is not None:
        env["OPENBLAS_NUM_THREADS"] = told
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=env,
    )
    count, pools = result.stdout.splitlines()[-1].split(" ", 1)
    assert count == (told or "1")
    if told is None:
        assert pools == "[1]"
