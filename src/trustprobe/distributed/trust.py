"""Recompute every agent's trust score with the partitions of agents scored on a Dask cluster.

The recomputation itself is the store's (:mod:`trustprobe.store.recompute`, re-exported by this
package): this module only supplies the map that runs each partition as a task on the cluster.
Each task reads its agents' evidence from the database at the store's URL, so workers must reach
it.
"""

from __future__ import annotations

from collections.abc import Sequence

from distributed import Client
from distributed.scheduler import KilledWorker
from sqlalchemy.exc import SQLAlchemyError

from trustprobe.distributed.sharded import DistributedRunError
from trustprobe.store import StoreError
from trustprobe.store.recompute import Agent, PartitionMap, PartitionScore, PartitionTask


def on_cluster(client: Client) -> PartitionMap:
    """A ``map_partitions`` for :func:`recompute_trust` that runs one task per partition.

    Raises (from the map):
        DistributedRunError: a partition was lost with every worker that tried it, or a worker
            could not read the store's database.
    """

    def run(
        task: PartitionTask, partitions: Sequence[Sequence[Agent]]
    ) -> list[list[PartitionScore]]:
        futures = [client.submit(task, list(part), pure=False) for part in partitions]
        try:
            return list(client.gather(futures))
        except KilledWorker as exc:
            raise DistributedRunError(
                f"a partition of agents was lost with every worker that tried it ({exc}); "
                "nothing was appended"
            ) from exc
        except (SQLAlchemyError, StoreError) as exc:
            raise DistributedRunError(
                "a worker could not read the store's database (workers must reach it at the "
                f"same URL as this process): {exc}; nothing was appended"
            ) from exc

    return run
