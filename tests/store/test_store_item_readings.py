"""Decayed sums from item columns equal the one-agent path's, bit for bit, at any age."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.store.item_readings import AgentItems, decayed_sums
from trustprobe.trust import (
    Dimension,
    Evidence,
    TrustConfig,
    decayed_score,
    epoch_microseconds,
    item_reading,
    parse_evidence,
)
from trustprobe.trust.dimension_scores import combine_readings

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
DAY_US = 86_400_000_000
GRACE_US = 7 * DAY_US
DIMENSIONS = (Dimension.ACCURACY, Dimension.SAFETY)

# Ages around the places where the formula changes: the end of the grace period (to the
# microsecond) and the time an item's score reaches 0 (points lost = score), and far beyond.
ages = st.one_of(
    st.integers(0, 30 * DAY_US),
    st.integers(GRACE_US - 3, GRACE_US + 3),
    st.integers(0, epoch_microseconds(NOW)),  # back to 1970, the earliest observed_at
)
items = st.lists(
    st.tuples(
        st.sampled_from(DIMENSIONS),
        st.one_of(
            st.sampled_from([0.0, 0.001, 0.01, 0.5, 100.0]),
            st.floats(0, 100, allow_nan=False),
        ),
        st.none() | st.integers(1, 10_000),
        ages,
    ),
    min_size=1,
    max_size=30,
)
configs = st.builds(
    TrustConfig,
    decay_points_per_week=st.sampled_from([0.1, 1.0, 7.3]),
    decay_grace_days=st.sampled_from([0.0, 7.0, 1.5]),
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(drawn=items, other=items, split=st.integers(0, 30), config=configs)
def test_decayed_sums_equal_the_one_agent_path(
    drawn: list[tuple[Dimension, float, int | None, int]],
    other: list[tuple[Dimension, float, int | None, int]],
    split: int,
    config: TrustConfig,
) -> None:
    records = as_records(drawn)
    now_us = epoch_microseconds(NOW)
    # Cached items are extended batch by batch, and a batch's agents are summed in one pass.
    columns = AgentItems.from_records(records[:split], config).extended(
        AgentItems.from_records(records[split:], config)
    )
    sums = decayed_sums(
        {"first": (AgentItems.from_records(as_records(other), config), DIMENSIONS),
         "second": (columns, DIMENSIONS)},
        now_us=now_us, config=config,
    )["second"]  # fmt: skip
    for dimension in DIMENSIONS:
        mine = [r for r in records if r.dimension == dimension]
        reading = combine_readings(
            ((item_reading(r, config), now_us - epoch_microseconds(r.observed_at)) for r in mine),
            config,
        )
        terms = []
        for r in mine:
            one = item_reading(r, config)
            age = now_us - epoch_microseconds(r.observed_at)
            terms.append(one.size * decayed_score(one.score, age, config))
        assert sums[dimension] == math.fsum(terms)  # 0.0 for a dimension without items
        assert columns.counts().get(dimension, 0) == len(mine)
        if reading is not None:  # the reading's score is Σ size·decayed / Σ size
            total = math.fsum(item_reading(r, config).size for r in mine)
            assert min(100.0, max(0.0, sums[dimension] / total)) == reading.score


def as_records(drawn: list[tuple[Dimension, float, int | None, int]]) -> list[Evidence]:
    """Eval records of one agent from drawn (dimension, score, total, age)."""
    records = []
    for number, (dimension, score, total, age_us) in enumerate(drawn):
        record: dict[str, object] = {
            "id": f"e{number}",
            "agent_id": "a",
            "dimension": dimension.value,
            "kind": "eval",
            "observed_at": (NOW - timedelta(microseconds=age_us)).isoformat(),
        }
        if total is None:
            record["score"] = score
        else:
            record |= {"passed": round(total * score / 100.0), "total": total}
        records.append(parse_evidence(record))
    return records


def test_decayed_sums_refuse_an_item_after_now() -> None:
    record = parse_evidence(
        {"id": "e", "agent_id": "a", "dimension": "safety", "kind": "eval", "score": 50,
         "observed_at": (NOW + timedelta(minutes=1)).isoformat()}
    )  # fmt: skip
    columns = AgentItems.from_records([record], TrustConfig())
    with pytest.raises(ValueError, match="after now"):
        decayed_sums(
            {"a": (columns, [Dimension.SAFETY])}, now_us=epoch_microseconds(NOW),
            config=TrustConfig(),
        )  # fmt: skip


def test_decayed_sums_of_many_agents_equal_those_of_each_alone() -> None:
    # More agents than a dimension code's int8 holds: the grouping must not overflow.
    config = TrustConfig()
    agents = {}
    for agent in range(300):
        drawn = [
            (DIMENSIONS[(agent + n) % 2], (agent * 7 + n * 13) % 101 / 1.0, None, n * DAY_US)
            for n in range(agent % 5)
        ]
        agents[agent] = (AgentItems.from_records(as_records(drawn), config), DIMENSIONS)
    now_us = epoch_microseconds(NOW)
    together = decayed_sums(agents, now_us=now_us, config=config)
    for agent, one in agents.items():
        assert together[agent] == decayed_sums({agent: one}, now_us=now_us, config=config)[agent]
    assert together[4][Dimension.ACCURACY] == math.fsum(
        decayed_score(score, n * DAY_US, config)
        for n, score in ((0, 28.0), (2, 54.0))  # agent 4: items 0 and 2 are accuracy
    )
