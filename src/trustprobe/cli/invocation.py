"""How the user's shell runs this trustprobe, so printed next steps work when pasted.

``make demo`` installs into ``.venv`` without activating it: a hint saying plain ``trustprobe``
would be "command not found". Hints name the command that reaches this installation.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

SCRIPT = "trustprobe"
"""The console script's name."""


def _script() -> Path:
    # The venv's bin directory as the interpreter was started from it: not resolved, since a
    # venv's python is a symlink to the system interpreter.
    return Path(sys.executable).parent / SCRIPT


def _on_path(script: Path) -> bool:
    found = shutil.which(SCRIPT)
    return found is not None and script.exists() and os.path.samefile(found, script)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it, else absolute."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith(os.pardir) else str(path)


def program() -> str:
    """The command that runs this trustprobe: ``trustprobe`` if PATH finds this one, else its path.

    Without a console script beside the interpreter (a source checkout run with ``python -m``),
    the interpreter and ``-m trustprobe``.
    """
    script = _script()
    if _on_path(script):
        return SCRIPT
    if script.exists():
        return shlex.quote(_shown(script))
    return f"{shlex.quote(sys.executable)} -m trustprobe"


def activation_hint() -> str | None:
    """How to get plain ``trustprobe`` on PATH, when this one runs from a venv not activated."""
    script = _script()
    activate = script.parent / "activate"
    if _on_path(script) or not script.exists() or not activate.exists():
        return None
    return f"source {shlex.quote(_shown(activate))}"
