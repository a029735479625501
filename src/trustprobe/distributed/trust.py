"""Recompute every agent's trust score from the store, in parallel partitions of agents.

Scores are pure functions of an agent's evidence, ``now``, config and weights, so workers
compute them in parallel: each task reads its agents' evidence straight from the database (a
read-only transaction) and runs :func:`~trustprobe.trust.compute_trust_score`, the function the
store itself uses. The client then appends every transition in one write transaction under
the organisation's lock, through the store's own ``append_transitions``: the same hash chain,
anomaly flags, pending reviews and superseded reviews as a recomputation on one machine. An
agent whose evidence grew after its worker read it is recomputed there, under the lock.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Final

from distributed import Client
from pydantic import TypeAdapter
from sqlalchemy import Connection, Engine, func, select

from trustprobe.store import TrustStore, create_store_engine
from trustprobe.store.engine import chunks, member_of, read_transaction, write_transaction
from trustprobe.store.evidence import lock_organisation
from trustprobe.store.history import Rescore, append_transitions
from trustprobe.store.schema import AgentRow, EvidenceRow, OrganisationRow
from trustprobe.trust import Evidence, TrustConfig, TrustScore, WeightSet, compute_trust_score

AGENTS_PER_PARTITION: Final = 250
"""Agents per task: large enough to amortise a database connection, small enough to spread."""
TRIGGER: Final = "recompute"
"""Trigger recorded on each transition of a recomputation."""


@dataclass(frozen=True)
class Agent:
    """An agent of the organisation: its store key and its id."""

    pk: int
    agent_id: str


@dataclass(frozen=True)
class AgentScore:
    """A worker's score of one agent, and the evidence it was computed from."""

    pk: int
    last_evidence_seq: int
    score: TrustScore


@dataclass(frozen=True)
class Recomputation:
    """What a recomputation appended."""

    agents: int
    partitions: int
    transitions: tuple[int, ...]
    """Sequence numbers of the new transitions, in agent id order."""
    pending_reviews: tuple[int, ...]
    """Reviews opened for swings above the anomaly threshold."""
    recomputed_on_client: int
    """Agents whose evidence grew while the workers ran, so the client scored them again."""


@cache
def _evidence_adapter() -> TypeAdapter[Evidence]:
    return TypeAdapter(Evidence)


def _organisation_agents(connection: Connection, organisation: str) -> list[Agent]:
    rows = connection.execute(
        select(AgentRow.id, AgentRow.agent_id)
        .join(OrganisationRow, OrganisationRow.id == AgentRow.organisation_id)
        .where(OrganisationRow.name == organisation)
        .order_by(AgentRow.agent_id)
    )
    return [Agent(pk, agent_id) for pk, agent_id in rows]


def _evidence(
    connection: Connection, agent_pks: Sequence[int]
) -> dict[int, tuple[int, list[Evidence]]]:
    """Each agent's evidence in sequence order (as the store rescored it), with the last seq."""
    adapter = _evidence_adapter()
    found: dict[int, tuple[int, list[Evidence]]] = {}
    records: dict[int, list[Evidence]] = defaultdict(list)
    last: dict[int, int] = {}
    for chunk in chunks(sorted(agent_pks)):
        rows = connection.execute(
            select(EvidenceRow.agent_pk, EvidenceRow.seq, EvidenceRow.content)
            .where(member_of(connection, EvidenceRow.agent_pk, chunk))
            .order_by(EvidenceRow.seq)
        )
        for agent_pk, seq, content in rows:
            # Stored content was validated on the way in; validate_json skips a json.loads.
            records[agent_pk].append(adapter.validate_json(content))
            last[agent_pk] = seq
    for agent_pk in agent_pks:
        found[agent_pk] = (last.get(agent_pk, 0), records.get(agent_pk, []))
    return found


def _last_seqs(connection: Connection, agent_pks: Sequence[int]) -> dict[int, int]:
    last: dict[int, int] = {}
    for chunk in chunks(sorted(agent_pks)):
        rows = connection.execute(
            select(EvidenceRow.agent_pk, func.max(EvidenceRow.seq))
            .where(member_of(connection, EvidenceRow.agent_pk, chunk))
            .group_by(EvidenceRow.agent_pk)
        )
        last.update({pk: seq for pk, seq in rows})
    return last


def score_agents(
    database_url: str,
    agents: Sequence[Agent],
    *,
    now: datetime,
    config: TrustConfig | None,
    weights: WeightSet | None,
) -> list[AgentScore]:
    """Read ``agents``' evidence from the database and score each (runs on a worker)."""
    engine = create_store_engine(database_url)
    try:
        with read_transaction(engine) as connection:
            evidence = _evidence(connection, [a.pk for a in agents])
    finally:
        engine.dispose()
    return [
        AgentScore(
            pk=agent.pk,
            last_evidence_seq=evidence[agent.pk][0],
            score=compute_trust_score(
                agent.agent_id, evidence[agent.pk][1], now=now, config=config, weights=weights
            ),
        )
        for agent in agents
    ]


def _partitions(agents: Sequence[Agent], size: int) -> Iterator[Sequence[Agent]]:
    for start in range(0, len(agents), size):
        yield agents[start : start + size]


def _database_url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def organisation_agents(store: TrustStore, organisation: str) -> list[Agent]:
    """Every agent of ``organisation``, by agent id."""
    with read_transaction(store.engine) as connection:
        return _organisation_agents(connection, organisation)


def append_scores(
    store: TrustStore,
    *,
    organisation: str,
    agents: Sequence[Agent],
    computed: Mapping[int, AgentScore],
    now: datetime,
    trigger: str = TRIGGER,
) -> tuple[list[tuple[int, int | None]], int]:
    """Append a transition per agent, using ``computed`` scores whose evidence is still current.

    Returns the store's (seq, review id) per agent and how many agents were scored here
    because they had no computed score or their evidence grew since it was read.
    """
    with write_transaction(store.engine) as connection:
        organisation_id = lock_organisation(connection, organisation, now=now)
        pks = [a.pk for a in agents]
        last = _last_seqs(connection, pks)
        stale = [
            pk
            for pk in pks
            if pk not in computed or computed[pk].last_evidence_seq != last.get(pk, 0)
        ]
        fresh = _evidence(connection, stale) if stale else {}
        rescores = []
        for agent in agents:
            if agent.pk in fresh:
                rescores.append(Rescore(agent.pk, agent.agent_id, fresh[agent.pk][1], trigger))
            else:
                ready = computed[agent.pk].score
                rescores.append(Rescore(agent.pk, agent.agent_id, (), trigger, ready))
        appended = append_transitions(
            connection, store, organisation_id=organisation_id, rescores=rescores, now=now
        )
    return appended, len(stale)


def recompute_trust(
    store: TrustStore,
    *,
    organisation: str,
    now: datetime,
    client: Client | None = None,
    agents_per_partition: int = AGENTS_PER_PARTITION,
    trigger: str = TRIGGER,
) -> Recomputation:
    """Recompute and append a transition for every agent of ``organisation`` as of ``now``.

    With ``client`` the scores are computed on the cluster, ``agents_per_partition`` agents per
    task, each task reading its agents' evidence from the database itself; without, in this
    process. Either way the appended history is the same to the last hash: same scores, same
    anomaly flags (a swing above ``store.anomaly_threshold`` is held for review), same
    superseded reviews. Agents created after the recomputation started are left to their own
    ingestion's rescoring.
    """
    if agents_per_partition < 1:
        raise ValueError(f"agents_per_partition must be >= 1, got {agents_per_partition}")
    agents = organisation_agents(store, organisation)
    partitions = list(_partitions(agents, agents_per_partition)) if client is not None else []
    computed: dict[int, AgentScore] = {}
    if client is not None and agents:
        url = _database_url(store.engine)
        futures = [
            client.submit(
                score_agents,
                url,
                list(part),
                now=now,
                config=store.config,
                weights=store.weights,
                pure=False,
            )
            for part in partitions
        ]
        for result in client.gather(futures):
            computed.update({item.pk: item for item in result})
    appended, on_client = append_scores(
        store, organisation=organisation, agents=agents, computed=computed, now=now, trigger=trigger
    )
    return Recomputation(
        agents=len(agents),
        partitions=len(partitions),
        transitions=tuple(seq for seq, _ in appended),
        pending_reviews=tuple(review for _, review in appended if review is not None),
        recomputed_on_client=on_client if client is not None else 0,
    )
