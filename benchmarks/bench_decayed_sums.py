"""The decayed-sum stage of a rescoring alone, as the agents' item counts grow.

200 agents, each with ``n`` items (``TRUSTPROBE_BENCH_ITEMS``, default ``500,5000``) in six
dimensions observed uniformly over the last 180 days (so every dimension is past the grace
period), then 8 batches of 25 records per agent observed at ``now``, ``now`` moving on a
minute per batch: what the store's rescoring does for its decaying agents, without the
database. Printed: the median over the batches of the CPU per record of the sums, the new
items' entry included. Runs against whichever tree is imported (the item columns and
``decayed_sums`` of earlier trees, or the moved decay sums), so a baseline can be measured with
``PYTHONPATH=<baseline>/src``.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

AGENTS = 200
PER_AGENT = 25
BATCHES = 8
DIMENSIONS = ("accuracy", "safety", "security", "scopeHonesty", "reliability", "teamwork")


def _records(agent: int, count: int, now: datetime, *, spread_days: float, start: int) -> list[Any]:
    from trustprobe.trust import parse_evidence

    out = []
    for n in range(count):
        number = start + n
        age = timedelta(days=spread_days * ((number * 7919) % 1000) / 1000)
        out.append(
            parse_evidence(
                {
                    "id": f"a{agent}-{number}",
                    "agent_id": f"agent-{agent}",
                    "dimension": DIMENSIONS[number % len(DIMENSIONS)],
                    "kind": "eval",
                    "observed_at": (now - age).isoformat(),
                    "passed": (number * 31) % 51,
                    "total": 50,
                }
            )
        )
    return out


def _old_tree(items: int, now: datetime) -> Callable[[int], float]:
    from trustprobe.store import item_readings as m
    from trustprobe.trust import TrustConfig, epoch_microseconds

    config = TrustConfig()
    cached = {
        a: m.AgentItems.from_records(_records(a, items, now, spread_days=180, start=0), config)
        for a in range(AGENTS)
    }
    wanted = list(cached[0].counts())

    def batch(number: int) -> float:
        moment = now + timedelta(minutes=number)
        new = {
            a: _records(a, PER_AGENT, moment, spread_days=0, start=items + number * PER_AGENT)
            for a in range(AGENTS)
        }
        started = time.process_time()
        agents = {}
        for a, records in new.items():
            readings = m.readings_of(records, config)
            cached[a] = cached[a].extended(m.AgentItems.from_readings(records, readings))
            agents[a] = (cached[a], wanted)
        m.decayed_sums(agents, now_us=epoch_microseconds(moment), config=config)
        return time.process_time() - started

    return batch


def _new_tree(items: int, now: datetime) -> Callable[[int], float]:
    from trustprobe.store import item_readings as m
    from trustprobe.trust import TrustConfig, decay_limits, epoch_microseconds

    config = TrustConfig()
    limits = decay_limits(config)
    cached = {}
    for a in range(AGENTS):
        records = _records(a, items, now, spread_days=180, start=0)
        cached[a] = m.AgentDecay()
        cached[a].push(records, m.readings_of(records, config), limits)
    wanted = list(cached[0].counts())
    for entry in cached.values():  # the first rescoring moves the whole history once
        entry.sums(wanted, epoch_microseconds(now), limits)

    def batch(number: int) -> float:
        moment = now + timedelta(minutes=number)
        now_us = epoch_microseconds(moment)
        new = {
            a: _records(a, PER_AGENT, moment, spread_days=0, start=items + number * PER_AGENT)
            for a in range(AGENTS)
        }
        started = time.process_time()
        for a, records in new.items():
            readings = m.readings_of(records, config)
            sums = cached[a].sums(wanted, now_us, limits)
            for record, (reading, observed) in zip(records, readings, strict=True):
                sums[record.dimension].add(
                    reading.size, reading.size * reading.score, now_us - observed
                )
            [found.value() for found in sums.values()]
            cached[a].push(records, readings, limits)
        return time.process_time() - started

    return batch


def main() -> None:
    from trustprobe.store import item_readings

    sizes = [int(s) for s in os.environ.get("TRUSTPROBE_BENCH_ITEMS", "500,5000").split(",")]
    old = hasattr(item_readings, "decayed_sums")
    now = datetime(2026, 11, 27, 12, tzinfo=UTC)
    kind = "item columns" if old else "moved sums"
    print(f"decayed sums ({kind}); load average {os.getloadavg()[0]:.1f}")
    for items in sizes:
        batch = (_old_tree if old else _new_tree)(items, now)
        batch(0)  # warm-up
        spent = [batch(n) for n in range(1, BATCHES + 1)]
        per_record = statistics.median(spent) / (AGENTS * PER_AGENT) * 1e6
        print(f"{items} items per agent: {per_record:.2f} µs per record (median of {BATCHES})")
