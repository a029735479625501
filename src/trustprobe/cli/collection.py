"""Garbage collection tuned for commands that score many cases, and for the HTTP service.

A scoring run allocates millions of small objects (responses, cases) that live exactly one
chunk and hold no reference cycles. CPython's default thresholds collect the youngest
generation every 700 allocations, and each chunk's survivors push the oldest generation into
full collections that walk every object the interpreter holds, the imported libraries'
included: about a quarter of a run's CPU went there. The command freezes what exists once its
libraries are imported (they live as long as the process) and collects less often; reference
counting still frees everything at once, so memory does not grow.

The youngest generation is collected every million allocations, not every hundred thousand: a
chunk of 8,192 cases allocates a few hundred thousand objects that stay alive until the chunk
is written, so a smaller threshold walks each chunk's live objects several times over for
nothing (a 200,000-case run: 0.7 CPU s of young collections, against 0.08 s; the collections
find a few thousand cyclic objects in all; docs/benchmarks.md).

The HTTP service (``trustprobe serve``, each of its workers) collects the same way, with the
youngest generation every 100,000 allocations: a 5,000-record ingestion keeps tens of thousands
of objects (records, their readings, the scores' models) alive until it answers, and with the
default thresholds its collections walked them, and the whole heap at each full collection,
about 10 µs of the ~50 µs of CPU per record (docs/benchmarks.md, "Evidence ingestion"). Net
of what reference counting frees, requests leave few objects behind, so 100,000 is rarely
reached.

A command's own process (the console entry point, :func:`end_with_command`) ends with the
command, so what a scoring run leaves alive is frozen with the libraries when the run ends
rather than walked by collections that could free nothing the exit does not free.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

BULK_THRESHOLDS = (1_000_000, 50, 100)
"""Allocations before a young collection, and collections before each older one."""
SERVICE_THRESHOLDS = (100_000, 50, 100)
"""The same for the HTTP service's processes."""


def collect_rarely(thresholds: tuple[int, int, int]) -> None:
    """Leave what exists now to the end of the process and collect at ``thresholds``."""
    gc.freeze()
    gc.set_threshold(*thresholds)


class _Process:
    """What this process is: one that ends with its command, or one that runs on after it."""

    ends_with_command = False


def end_with_command() -> None:
    """Say that this process ends when its command does (the console entry point says so).

    A :func:`bulk_collection` block then leaves what the run made to the end of the process
    too: its exit freezes the survivors (the scorer's verdicts, the sample, the report) and
    keeps the thresholds, where restoring them made the next allocation start a young
    collection over every object the run left (0.24-0.35 CPU s after a 200,000-case
    ``trustprobe score``), and the interpreter's last collection at exit walk them and the
    libraries again (0.3-0.4 s; docs/benchmarks.md). A process that runs on after the
    command (tests running it in their own process) never says so.
    """
    _Process.ends_with_command = True


def ends_with_command() -> bool:
    """Whether this process ends when its command does (:func:`end_with_command`)."""
    return _Process.ends_with_command


@contextmanager
def bulk_collection(thresholds: tuple[int, int, int] = BULK_THRESHOLDS) -> Iterator[None]:
    """Collect garbage rarely inside the block; the previous thresholds are restored after.

    Unless the process ends with its command (:func:`end_with_command`): then what the block
    leaves is frozen with the rest, and the thresholds stay.
    """
    before = gc.get_threshold()
    collect_rarely(thresholds)
    try:
        yield
    finally:
        if _Process.ends_with_command:
            gc.freeze()
        else:
            gc.set_threshold(*before)
            gc.unfreeze()
