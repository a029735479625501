"""The observability sample: whole runs below the bound, a seeded stratified sample above it."""

from __future__ import annotations

import heapq
import pickle
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.observability.conftest import CaseFactory, build_case

from trustprobe.observability import (
    SAMPLE_SIZE,
    ObservabilitySample,
    embedding,
    observe_sample,
    sample_priority,
)
from trustprobe.observability.geometry import fit_sample_positions, sample_draws
from trustprobe.scoring import CaseScore


def _run(make_case: CaseFactory, count: int) -> list[CaseScore]:
    """``count`` cases over three categories; category 'agency' fails rarely (1 case in 40)."""
    cases = []
    for i in range(count):
        category = ("injection", "exfiltration", "agency")[i % 3]
        passed = i % 40 != 2 if category == "agency" else i % 2 == 0
        error = "timeout" if i % 17 == 0 else None
        cases.append(
            make_case(f"p-{i % 7}", category=category, sample=i // 7, passed=passed, error=error)
        )
    return cases


def test_a_run_within_the_bound_is_kept_whole_in_order(make_case: CaseFactory) -> None:
    cases = _run(make_case, 300)
    sample = ObservabilitySample(seed=3)
    sample.add(cases)
    assert not sample.sampled and SAMPLE_SIZE == 20_000
    assert sample.cases() == [c for c in cases if c.error is None]
    assert sample.harness_errors == 18  # i = 0, 17, ..., 289


def test_above_the_bound_the_sample_is_uniform_plus_every_stratum(make_case: CaseFactory) -> None:
    cases = _run(make_case, 3000)
    scored = [c for c in cases if c.error is None]
    sample = ObservabilitySample(seed=3, size=100, floor=10)
    sample.add(cases)
    chosen = sample.cases()
    assert sample.sampled and sample.scored == len(scored)
    # The uniform part: the 100 scored cases with the smallest draws.
    smallest = heapq.nsmallest(100, scored, key=lambda c: sample_priority(3, c.probe_id, c.sample))
    assert all(c in chosen for c in smallest)
    # Every (category, outcome) stratum holds at least min(its size, floor) cases: the rare
    # failures of 'agency' (about 25 of 1000) are on the map, not only a uniform handful.
    for category in ("injection", "exfiltration", "agency"):
        for passed in (True, False):
            stratum = [c for c in scored if c.category == category and c.passed is passed]
            kept = [c for c in chosen if c.category == category and c.passed is passed]
            assert len(kept) >= min(len(stratum), 10), (category, passed)
    assert len(chosen) <= 100 + 6 * 10
    # In run order, no case twice.
    order = [scored.index(c) for c in chosen]
    assert order == sorted(set(order))


def test_the_sample_does_not_depend_on_how_the_run_was_split(make_case: CaseFactory) -> None:
    cases = _run(make_case, 2000)
    whole = ObservabilitySample(seed=9, size=50, floor=5)
    whole.add(cases)
    chunked = ObservabilitySample(seed=9, size=50, floor=5)
    for start in range(0, len(cases), 333):
        chunked.add(cases[start : start + 333])
    merged = ObservabilitySample(seed=9, size=50, floor=5)
    for start in range(0, len(cases), 500):
        part = ObservabilitySample(seed=9, size=50, floor=5)
        part.add(cases[start : start + 500], first=start)
        merged.merge(part)
    assert whole.cases() == chunked.cases() == merged.cases()
    assert (whole.scored, whole.harness_errors) == (merged.scored, merged.harness_errors)


def test_the_fitting_positions_from_the_kept_draws_are_the_hashed_ones(
    make_case: CaseFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = _run(make_case, 3000)
    for fit_size in (100, 20_000):  # fewer than the sample holds, then all of it
        monkeypatch.setattr(embedding, "SVD_FIT_SAMPLE", fit_size)
        sample = ObservabilitySample(seed=5, size=100, floor=10)
        for start in range(0, len(cases), 700):
            sample.add(cases[start : start + 700])
        keys = [(c.probe_id, c.sample) for c in sample.cases()]
        assert sample.fit_positions() == fit_sample_positions(keys, seed=5)
    assert len(keys) > 100


def test_a_sampled_geometry_says_how_many_cases_it_stands_for(make_case: CaseFactory) -> None:
    cases = _run(make_case, 600)
    sample = ObservabilitySample(seed=1, size=60, floor=4)
    sample.add(cases)
    observability = observe_sample(sample, min_cases=5)
    assert observability is not None
    assert observability.sampled_from == sample.scored == 600 - 36
    assert observability.n_cases == len(sample.cases()) == len(observability.points)
    assert observability.excluded_harness_errors == 36
    whole = ObservabilitySample(seed=1)
    whole.add(cases)
    unsampled = observe_sample(whole, min_cases=5)
    assert unsampled is not None and unsampled.sampled_from is None
    assert unsampled.n_cases == 600 - 36


def test_numeric_steps_run_on_one_thread_though_scikit_learn_loads_late() -> None:
    """threadpoolctl limits only pools loaded when it is entered: in a fresh interpreter,
    where scikit-learn is not imported yet, every pool must still be held to one thread."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from threadpoolctl import threadpool_info\n"
        "from trustprobe.observability.geometry import _one_thread\n"
        "assert 'sklearn' not in sys.modules\n"
        "with _one_thread():\n"
        "    print(sorted({(i['user_api'], i['num_threads']) for i in threadpool_info()}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    pools = done.stdout.strip()
    assert "'openmp', 1" in pools and "'blas', 1" in pools and ", 2)" not in pools, pools


@given(
    seed=st.integers(min_value=0, max_value=2**63),
    probe_id=st.text(min_size=1, max_size=40),
    samples=st.lists(st.integers(min_value=0, max_value=2**40), min_size=1, max_size=5),
)
def test_draws_with_each_probes_hash_state_kept_are_the_reference_draws(
    seed: int, probe_id: str, samples: list[int]
) -> None:
    draws = sample_draws(seed, [(probe_id, sample) for sample in samples])
    assert draws == [sample_priority(seed, probe_id, sample) for sample in samples]


def test_a_sample_travels_between_processes(make_case: CaseFactory) -> None:
    # A cluster's workers send their samples back to the client, pickled.
    sample = ObservabilitySample(seed=3, size=50, floor=5)
    sample.add(_run(make_case, 500))
    copy = pickle.loads(pickle.dumps(sample))
    assert copy == sample and copy.cases() == sample.cases()


def _reference_sample(cases: list[CaseScore], seed: int, size: int, floor: int) -> list[CaseScore]:
    """The sample by its definition: the ``size`` smallest (draw, position) of the scored cases,
    and the ``floor`` smallest of each (category, outcome) stratum, in run order."""
    ranked = [
        (sample_priority(seed, case.probe_id, case.sample), position, case)
        for position, case in enumerate(cases)
        if case.error is None
    ]
    chosen = {position for _, position, _ in heapq.nsmallest(size, ranked)}
    for stratum in {(case.category, case.passed) for _, _, case in ranked}:
        members = [entry for entry in ranked if (entry[2].category, entry[2].passed) == stratum]
        chosen.update(position for _, position, _ in heapq.nsmallest(floor, members))
    return [cases[position] for position in sorted(chosen)]


@given(
    seed=st.integers(min_value=0, max_value=2**32),
    outcomes=st.lists(
        st.tuples(st.integers(0, 2), st.booleans(), st.booleans(), st.integers(0, 4)),
        max_size=300,
    ),
    size=st.integers(0, 40),
    floor=st.integers(0, 8),
    cuts=st.lists(st.integers(0, 300), max_size=6),
)
def test_the_sample_is_its_definition_however_the_cases_arrive(
    seed: int,
    outcomes: list[tuple[int, bool, bool, int]],
    size: int,
    floor: int,
    cuts: list[int],
) -> None:
    """Chunks of any size (empty ones too) give the definition's sample: the cases passed over
    unoffered, because they draw above a full heap's bound, are never ones it would keep."""
    categories = ("injection", "exfiltration", "agency")
    cases = [
        build_case(
            f"p-{probe}",
            category=categories[category],
            sample=i,
            passed=passed,
            error="timeout" if errored and i % 3 == 0 else None,
        )
        for i, (category, passed, errored, probe) in enumerate(outcomes)
    ]
    sample = ObservabilitySample(seed=seed, size=size, floor=floor)
    bounds = [0, *sorted(cut for cut in cuts if cut <= len(cases)), len(cases)]
    for start, stop in pairwise(bounds):
        sample.add(cases[start:stop])
    assert sample.cases() == _reference_sample(cases, seed, size, floor)
    assert sample.offered == len(cases)
    assert sample.scored + sample.harness_errors == len(cases)


@pytest.mark.parametrize("unset", ["passed", "risk_score"])
def test_a_scored_case_without_a_verdict_is_refused(make_case: CaseFactory, unset: str) -> None:
    # The sample finds it among the groups in C; a harness error without one is fine.
    cases = [make_case(f"p{i}", sample=i) for i in range(4)]
    cases.append(make_case("p9", error="timeout").model_copy(update={"passed": None}))
    ObservabilitySample(seed=1).add(cases)
    cases[2] = cases[2].model_copy(update={unset: None})
    with pytest.raises(ValueError, match=r"probe 'p2' sample 2 .* lacks a verdict"):
        ObservabilitySample(seed=1).add(cases)


def test_cases_drawing_above_the_bound_are_passed_over(make_case: CaseFactory) -> None:
    # Offered in two chunks: the second is filtered by the bound the first left. The cases kept
    # are those of one offer of all, the ones with the smallest draws.
    cases = [make_case(f"p{i % 5}", sample=i // 5) for i in range(200)]
    chunked = ObservabilitySample(seed=4, size=30, floor=0)
    chunked.add(cases[:100])
    chunked.add(cases[100:])
    draws = [sample_priority(4, c.probe_id, c.sample) for c in cases]
    smallest = sorted(heapq.nsmallest(30, range(200), key=draws.__getitem__))
    assert chunked.cases() == [cases[at] for at in smallest]
