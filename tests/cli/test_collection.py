"""The garbage collection settings of the scoring commands and the service: held, then undone."""

from __future__ import annotations

import gc

import pytest

from trustprobe.cli.collection import (
    BULK_THRESHOLDS,
    SERVICE_THRESHOLDS,
    bulk_collection,
    collect_rarely,
)


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
