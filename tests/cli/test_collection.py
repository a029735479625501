"""The scoring commands' garbage collection settings hold inside the run and are undone after."""

from __future__ import annotations

import gc

import pytest

from trustprobe.cli.collection import BULK_THRESHOLDS, bulk_collection


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
