"""The spool of block text decides from what the cluster's workers see, and leaves nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from trustprobe.distributed import BlockText, SpoolError
from trustprobe.distributed.spool import Spool


@pytest.fixture(scope="module")
def no_workers() -> Iterator[Client]:
    """A real scheduler with no worker connected: nobody to confirm the directory is shared."""
    with (
        LocalCluster(n_workers=0, processes=False, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        yield client


def test_auto_sends_the_text_when_no_worker_confirms_it_sees_the_directory(
    no_workers: Client, tmp_path: Path
) -> None:
    with Spool(no_workers, tmp_path / "report.json", BlockText.AUTO) as spool:
        assert spool.directory is None
    assert list(tmp_path.iterdir()) == []


def test_files_fails_clearly_when_no_worker_confirms_it_sees_the_directory(
    no_workers: Client, tmp_path: Path
) -> None:
    with pytest.raises(SpoolError, match=r"no worker is connected.*send it with the results"):
        Spool(no_workers, tmp_path / "report.json", BlockText.FILES)
    assert list(tmp_path.iterdir()) == []


def test_every_local_worker_sees_the_directory_and_it_is_removed_with_its_files(
    client: Client, tmp_path: Path
) -> None:
    with Spool(client, tmp_path / "report.json", BlockText.AUTO) as spool:
        assert spool.directory is not None and spool.directory.parent == tmp_path
        left = spool.directory / "block-0000003.left-by-a-killed-worker.json"
        left.write_bytes(b"{}")
        with pytest.raises(SpoolError, match=r"holds 2 bytes where the worker wrote 5"):
            spool.take(str(left), 5, "shard-000.jsonl, block 3")
    assert list(tmp_path.iterdir()) == []
