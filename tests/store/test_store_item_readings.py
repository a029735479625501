"""The decay sums moved forward in time give the exact formula's value at every ``now``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.trust.test_decayed_sum import (
    DAY_US,
    NOW_US,
    configs,
    exact_decayed_sum,
    items_of,
    records_at,
)
from trustprobe.store.item_readings import AgentDecay, DimensionDecay
from trustprobe.trust import DecayedSum, Dimension, TrustConfig, decay_limits


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), config=configs)
def test_moved_sums_equal_the_exact_formula_at_every_now(
    data: st.DataObject, config: TrustConfig
) -> None:
    # Items arrive in batches between rescorings at random times: mostly later ones, some
    # earlier (the clock of another process), some at the very places an item moves.
    limits = decay_limits(config)
    queue = DimensionDecay(limits)
    pushed: list[tuple[float, float, int]] = []
    for _ in range(data.draw(st.integers(1, 6))):
        items = items_of(data.draw(records_at(NOW_US, config)))
        queue.push(*(list(column) for column in zip(*items, strict=True)))
        pushed.extend(items)
        moments = [NOW_US + data.draw(st.integers(-DAY_US, 400 * DAY_US))]
        size, weighted, observed = data.draw(st.sampled_from(pushed))
        if limits.decays:  # the next now at an item's grace end or zero time, to the µs
            moments.append(observed + limits.grace_floor_us + data.draw(st.integers(0, 1)))
            moments.append(
                observed + limits.zero_age(size, weighted) - data.draw(st.integers(0, 1))
            )
        for now_us in moments:
            current = [item for item in pushed if item[2] <= now_us]
            if len(current) < len(pushed):
                continue  # the store never sums with an item after now
            assert queue.sums(now_us, limits).value() == exact_decayed_sum(current, now_us, config)


def test_batch_items_added_to_moved_sums_count_as_of_now() -> None:
    # The store adds a batch's items to the sums of the items before it, item by item.
    config = TrustConfig(decay_points_per_week=1.0)
    limits = decay_limits(config)
    old = [(10.0, 500.0, NOW_US - 30 * DAY_US), (1.0, 0.5, NOW_US - 400 * DAY_US)]
    new = [(3.0, 150.0, NOW_US - 9 * DAY_US), (2.0, 200.0, NOW_US)]
    agent = AgentDecay()
    agent.dimensions[Dimension.SAFETY] = DimensionDecay(limits)
    agent.dimensions[Dimension.SAFETY].push(*(list(column) for column in zip(*old, strict=True)))
    summed: DecayedSum = agent.sums([Dimension.SAFETY, Dimension.ACCURACY], NOW_US, limits)[
        Dimension.SAFETY
    ]
    for size, weighted, observed in new:
        summed.add(size, weighted, NOW_US - observed)
    assert summed.value() == exact_decayed_sum(old + new, NOW_US, config)
    empty = agent.sums([Dimension.ACCURACY], NOW_US, limits)[Dimension.ACCURACY]
    assert empty.value() == 0.0
    assert agent.counts() == {Dimension.SAFETY: 2}


def test_other_decay_settings_rebuild_the_queues() -> None:
    item = (1.0, 50.0, NOW_US - 20 * DAY_US)
    queue = DimensionDecay(decay_limits(TrustConfig()))
    queue.push([item[0]], [item[1]], [item[2]])
    for config in (TrustConfig(), TrustConfig(decay_points_per_week=5.0), TrustConfig()):
        value = queue.sums(NOW_US, decay_limits(config)).value()
        assert value == exact_decayed_sum([item], NOW_US, config)
