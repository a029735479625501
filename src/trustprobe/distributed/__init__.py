"""Scale-out on Dask: score sharded responses and recompute trust across a cluster.

Needs the optional extra (``pip install 'trustprobe[dask]'``); nothing else in trustprobe
imports this package. Results equal the in-process ones exactly (docs/distributed.md).
"""

from trustprobe.distributed.cluster import dask_client
from trustprobe.distributed.sharded import (
    DistributedRunError,
    ShardedRun,
    score_shards,
)
from trustprobe.distributed.shards import BLOCK_RECORDS, Shard, expand_shards
from trustprobe.distributed.spool import BlockText, SpoolError
from trustprobe.distributed.trust import on_cluster
from trustprobe.store import Recomputation
from trustprobe.store.recompute import (
    AGENTS_PER_PARTITION,
    Agent,
    PartitionScore,
    append_scores,
    organisation_agents,
    recompute_trust,
    score_agents,
)

__all__ = [
    "AGENTS_PER_PARTITION",
    "Agent",
    "BLOCK_RECORDS",
    "BlockText",
    "DistributedRunError",
    "PartitionScore",
    "Recomputation",
    "Shard",
    "ShardedRun",
    "SpoolError",
    "append_scores",
    "dask_client",
    "expand_shards",
    "on_cluster",
    "organisation_agents",
    "recompute_trust",
    "score_agents",
    "score_shards",
]
