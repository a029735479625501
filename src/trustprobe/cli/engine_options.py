"""``--engine``, ``--scheduler`` and ``--workers``: the options of commands that can run on Dask.

Dask is an optional extra: these options are checked, and the Dask path imported, only when
``--engine`` is given, so the in-process path never pays for importing it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

from trustprobe.errors import InputError

ENGINES = ("dask",)
"""Values ``--engine`` accepts."""
SCHEDULER_OPTION = typer.Option(
    None, "--scheduler", help="With --engine dask: scheduler address, tcp://HOST:PORT."
)
WORKERS_OPTION = typer.Option(
    None, "--workers", min=1, help="With --engine dask: local worker processes to start."
)


def engine_option(work: str) -> Any:
    """The ``--engine`` option of a command whose ``work`` (e.g. "score shards") can run on Dask."""
    # "\\[" keeps rich's help markup from reading "[dask]" as a style tag and dropping it.
    return typer.Option(
        None, "--engine", help=f"'dask' to {work} on a Dask cluster (trustprobe\\[dask] extra)."
    )


def wants_cluster(engine: str | None, scheduler: str | None, workers: int | None) -> bool:
    """Whether the options ask for a cluster; refuses bad combinations before anything starts.

    Raises:
        InputError: an unknown engine, both ``--scheduler`` and ``--workers``, or either of them
            without ``--engine``.
    """
    if engine is None:
        if scheduler is not None or workers is not None:
            given = "--scheduler" if scheduler is not None else "--workers"
            raise InputError(f"{given} needs --engine dask", field=given)
        return False
    if engine not in ENGINES:
        raise InputError(
            f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}", field="--engine"
        )
    if scheduler is not None and workers is not None:
        raise InputError("give --scheduler or --workers, not both", field="--workers")
    return True


@contextmanager
def cluster_run() -> Iterator[None]:
    """Run a command's Dask path: a missing extra is bad input.

    Import the Dask modules inside the block; they are then known to be installed.
    """
    try:
        import trustprobe.distributed  # noqa: F401
    except ImportError as exc:
        raise InputError(
            f"--engine dask needs the optional extra: pip install 'trustprobe[dask]' ({exc})",
            field="--engine",
        ) from exc
    yield
