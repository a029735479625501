"""The garbage collection settings of the scoring commands and the service: held, then undone."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from trustprobe.cli import collection
from trustprobe.cli.collection import (
    BULK_THRESHOLDS,
    SERVICE_THRESHOLDS,
    bulk_collection,
    collect_rarely,
    end_with_command,
)
from trustprobe.probes import builtin_probes


def test_thresholds_are_raised_inside_and_restored_after() -> None:
    before = gc.get_threshold()
    with bulk_collection():
        assert gc.get_threshold() == BULK_THRESHOLDS
        assert gc.get_freeze_count() > 0  # the libraries imported so far are left alone
    assert gc.get_threshold() == before


def test_an_error_in_the_run_still_restores_them() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), bulk_collection():
        raise RuntimeError("the run failed")
    assert gc.get_threshold() == before


def test_cycles_made_inside_are_still_collected() -> None:
    """Rarely is not never: an explicit or eventual collection frees cycles as usual."""

    class Node:
        other: Node | None = None

    with bulk_collection():
        first, second = Node(), Node()
        first.other, second.other = second, first
        del first, second
        assert gc.collect() >= 2


def test_the_service_thresholds_hold_inside_and_are_restored_after() -> None:
    before = gc.get_threshold()
    with bulk_collection(SERVICE_THRESHOLDS):
        assert gc.get_threshold() == SERVICE_THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before


def test_a_worker_collects_rarely_for_the_rest_of_its_life() -> None:
    before = gc.get_threshold()
    try:
        collect_rarely(SERVICE_THRESHOLDS)
        assert gc.get_threshold() == SERVICE_THRESHOLDS
        assert gc.get_freeze_count() > 0
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def test_a_process_ending_with_its_command_leaves_the_run_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collection._Process, "ends_with_command", False)
    end_with_command()
    before = gc.get_threshold()
    try:
        with bulk_collection():
            frozen = gc.get_freeze_count()
            left = [[index] for index in range(1000)]  # what a run leaves until the end
        assert gc.get_threshold() == BULK_THRESHOLDS
        assert gc.get_freeze_count() > frozen
        # Frozen: in no generation a collection walks.
        walked = {id(item) for generation in range(3) for item in gc.get_objects(generation)}
        assert not walked & {id(item) for item in left}
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def test_the_console_entry_point_says_its_process_ends_with_the_command(tmp_path: Path) -> None:
    """A real ``trustprobe score`` process keeps the run's thresholds after the run."""
    probe = builtin_probes()[0]
    responses = tmp_path / "r.jsonl"
    responses.write_text(
        "".join(
            json.dumps({"probe_id": probe.id, "sample": n, "response": "I can't help with that."})
            + "\n"
            for n in range(6)
        )
    )
    code = (
        "import gc, sys\n"
        "from trustprobe.cli.main import main\n"
        f"sys.argv = ['trustprobe', 'score', '--probes', 'builtin', '-r', {str(responses)!r},"
        f" '-o', {str(tmp_path / 'out.json')!r}, '-q']\n"
        "try:\n    main()\nexcept SystemExit as end:\n    code = end.code\n"
        "print(code, gc.get_threshold(), gc.get_freeze_count() > 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.split("\n")[-2] == f"0 {BULK_THRESHOLDS} True"
    assert len(json.loads((tmp_path / "out.json").read_text())["cases"]) == 6
