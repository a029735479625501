"""Recompute every agent's trust score as of a time, in this process or in parallel partitions.

Scores are pure functions of an agent's evidence, ``now``, config and weights. In process the
agents are scored inside the write transaction that appends their transitions. Given a way to
map a function over partitions of agents (a thread pool's ``map``, or a Dask cluster:
trustprobe.distributed), each partition is scored by :func:`score_agents`, which reads its
agents' evidence from the database itself, and the transitions are then appended in one write
transaction under the organisation's lock: the same hash chain, anomaly flags, pending reviews
and superseded reviews either way. An agent whose evidence grew after its partition read it is
scored again under the lock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Final

from sqlalchemy import Connection, select

from trustprobe.store.database import create_store_engine, read_transaction, write_transaction
from trustprobe.store.errors import NotFoundError
from trustprobe.store.evidence import agent_evidence, last_evidence_seqs, lock_organisation
from trustprobe.store.history import Rescore, append_transitions
from trustprobe.store.models import Recomputation
from trustprobe.store.schema import AgentRow, OrganisationRow
from trustprobe.store.store import TrustStore
from trustprobe.trust import TrustConfig, TrustScore, WeightSet, compute_trust_score

AGENTS_PER_PARTITION: Final = 250
"""Agents per partition: enough to amortise a database connection, few enough to spread."""
TRIGGER: Final = "recompute"
"""Trigger recorded on each transition of a recomputation."""


@dataclass(frozen=True)
class Agent:
    """An agent of the organisation: its store key and its id."""

    pk: int
    agent_id: str


@dataclass(frozen=True)
class PartitionScore:
    """A partition's score of one agent, and the evidence row it was computed up to."""

    pk: int
    last_evidence_seq: int
    score: TrustScore


PartitionTask = Callable[[Sequence[Agent]], list[PartitionScore]]
"""Scores one partition of agents (picklable: it may run in another process or host)."""
PartitionMap = Callable[
    [PartitionTask, Sequence[Sequence[Agent]]], Iterable[Sequence[PartitionScore]]
]
"""Runs a task over every partition and returns the results in partition order, like ``map``."""


def organisation_agents(store: TrustStore, organisation: str) -> list[Agent]:
    """Every agent of ``organisation``, by agent id; an unknown organisation is NotFoundError."""
    with read_transaction(store.engine) as connection:
        organisation_id = _organisation_id(connection, organisation)
        rows = connection.execute(
            select(AgentRow.id, AgentRow.agent_id)
            .where(AgentRow.organisation_id == organisation_id)
            .order_by(AgentRow.agent_id)
        )
        return [Agent(pk, agent_id) for pk, agent_id in rows]


def _organisation_id(connection: Connection, organisation: str) -> int:
    found = connection.execute(
        select(OrganisationRow.id).where(OrganisationRow.name == organisation)
    ).scalar_one_or_none()
    if found is None:
        raise NotFoundError(f"no organisation {organisation!r} in this store")
    return found


def score_agents(
    database_url: str,
    agents: Sequence[Agent],
    *,
    now: datetime,
    config: TrustConfig | None,
    weights: WeightSet | None,
) -> list[PartitionScore]:
    """Read ``agents``' evidence from the database and score each (a partition's task)."""
    engine = create_store_engine(database_url)
    try:
        with read_transaction(engine) as connection:
            evidence = agent_evidence(connection, [a.pk for a in agents])
    finally:
        engine.dispose()
    return [
        PartitionScore(
            pk=agent.pk,
            last_evidence_seq=evidence[agent.pk][0],
            score=compute_trust_score(
                agent.agent_id, evidence[agent.pk][1], now=now, config=config, weights=weights
            ),
        )
        for agent in agents
    ]


def append_scores(
    store: TrustStore,
    *,
    organisation: str,
    agents: Sequence[Agent],
    computed: Mapping[int, PartitionScore],
    now: datetime,
    trigger: str = TRIGGER,
) -> tuple[list[tuple[int, int | None]], int]:
    """Append a transition per agent, using ``computed`` scores whose evidence is still current.

    Returns the store's (seq, review id) per agent and how many agents were scored here
    because they had no computed score or their evidence grew since it was read.
    """
    if not agents:
        return [], 0
    with write_transaction(store.engine) as connection:
        organisation_id = lock_organisation(connection, organisation, now=now)
        pks = [a.pk for a in agents]
        last = last_evidence_seqs(connection, pks)
        stale = [
            pk
            for pk in pks
            if pk not in computed or computed[pk].last_evidence_seq != last.get(pk, 0)
        ]
        fresh = agent_evidence(connection, stale, cache=store.evidence_cache)
        rescores = [
            Rescore(
                agent.pk,
                agent.agent_id,
                store.score(agent.agent_id, fresh[agent.pk][1], now=now)
                if agent.pk in fresh
                else computed[agent.pk].score,
                trigger,
            )
            for agent in agents
        ]
        appended = append_transitions(
            connection, store, organisation_id=organisation_id, rescores=rescores, now=now
        )
    return appended, len(stale)


def recompute_trust(
    store: TrustStore,
    *,
    organisation: str,
    now: datetime,
    map_partitions: PartitionMap | None = None,
    agents_per_partition: int = AGENTS_PER_PARTITION,
    trigger: str = TRIGGER,
) -> Recomputation:
    """Recompute and append a transition for every agent of ``organisation`` as of ``now``.

    Without ``map_partitions`` everything runs in this process, in one write transaction.
    With it, partitions of ``agents_per_partition`` agents are scored by whatever runs the map
    (each reading its agents' evidence from the store's database, so it must reach the same
    URL), then appended under the organisation's lock. Either way the appended history is the
    same to the last hash: same scores, same anomaly flags (a swing above
    ``store.anomaly_threshold`` is held for review), same superseded reviews. Agents created
    after the recomputation started are left to their own ingestion's rescoring.

    Raises:
        NotFoundError: the organisation does not exist in the store.
        ValueError: ``agents_per_partition`` < 1.
    """
    if agents_per_partition < 1:
        raise ValueError(f"agents_per_partition must be >= 1, got {agents_per_partition}")
    agents = organisation_agents(store, organisation)
    partitions: list[Sequence[Agent]] = []
    computed: dict[int, PartitionScore] = {}
    if map_partitions is not None and agents:
        partitions = list(_partitions(agents, agents_per_partition))
        task = partial(
            score_agents,
            store.engine.url.render_as_string(hide_password=False),
            now=now,
            config=store.config,
            weights=store.weights,
        )
        for result in map_partitions(task, partitions):
            computed.update({item.pk: item for item in result})
    appended, scored_here = append_scores(
        store, organisation=organisation, agents=agents, computed=computed, now=now, trigger=trigger
    )
    return Recomputation(
        organisation=organisation,
        computed_at=now,
        agents=len(agents),
        partitions=len(partitions),
        transitions=[seq for seq, _ in appended],
        pending_reviews=[review for _, review in appended if review is not None],
        recomputed_on_client=scored_here if map_partitions is not None else 0,
    )


def _partitions(agents: Sequence[Agent], size: int) -> Iterator[Sequence[Agent]]:
    for start in range(0, len(agents), size):
        yield agents[start : start + size]
