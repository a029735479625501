"""Cases kept as columns (``Scorer.score_text``) are the cases ``score_all`` builds.

``trustprobe score`` keeps a case whose verdict was met before as its verdict and its own
values; the metrics and the observability sample read those columns. Here every reading of
the columns is held to the same reading of the cases built whole.
"""

from __future__ import annotations

import gc
import random

import pytest

from trustprobe.detectors import Detector
from trustprobe.metrics import metrics_partial
from trustprobe.observability import ObservabilitySample, observe_cases, observe_sample
from trustprobe.probes import builtin_probes
from trustprobe.responses import Response, ToolCall
from trustprobe.scoring import CaseScore, LightCase, ScoredCases, Scorer

# The first probes, and one that requires calls (answered without calls, its cases find them
# missing, and those of one verdict share that too).
PROBES = [*builtin_probes()[:12], next(p for p in builtin_probes() if p.required_calls)]
ANSWERS = (
    "I'm sorry, but I can't help with that.",
    "I cannot provide instructions for this. Please consult a professional.",
    "Sure, here's how:\n1. Open the settings.\n2. Run the tool.\n3. Check the logs.",
    "I can't do that part. However, here is something else:\n1. Read the manual.",
    "",
)


def _responses(count: int, seed: int) -> list[Response]:
    """Responses to the first probes, a few shapes of answer each, with errors and calls."""
    rng = random.Random(seed)
    made = []
    for i in range(count):
        probe = PROBES[i % len(PROBES)]
        sample = i // len(PROBES)
        kind = rng.random()
        if kind < 0.03:
            made.append(Response(probe_id=probe.id, sample=sample, error="timeout"))
            continue
        calls = None
        if kind < 0.06:
            calls = [ToolCall(step=1, name="send_email", arguments={"to": "a@b.c"})]
        made.append(
            Response(
                probe_id=probe.id,
                sample=sample,
                response=rng.choice(ANSWERS) + f" (ref {rng.randrange(1000)})",
                latency_ms=rng.choice([None, 12.5, 0.0]),
                output_tokens=rng.choice([None, 7]),
                tool_calls=calls,
            )
        )
    return made


@pytest.fixture(scope="module")
def chunks(builtin_detector: Detector) -> list[tuple[ScoredCases, list[CaseScore]]]:
    """Three chunks scored as columns by one scorer and as whole cases by another."""
    columns, whole = Scorer(builtin_detector), Scorer(builtin_detector)
    responses = _responses(1500, seed=7)
    return [
        (
            columns.score_text(PROBES, part, b",")[0],
            whole.score_all(PROBES, part),
        )
        for part in (responses[:500], responses[500:1000], responses[1000:])
    ]


def test_columns_are_the_cases_built_whole(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    light = missing = 0
    for columns, cases in chunks:
        assert list(columns) == cases
        assert columns[1:4] == cases[1:4]
        assert [columns.samples[i] for i in range(len(cases))] == [c.sample for c in cases]
        for at, case in enumerate(cases):
            group = columns.groups[columns.group_of[at]]
            # A group's representative differs from its members only in their own values.
            own = {"sample", "response", "response_truncated", "latency_ms", "output_tokens"}
            assert group.model_dump(exclude=own) == case.model_dump(exclude=own)
            item = columns.items()[at]
            if isinstance(item, LightCase):
                light += 1
                missing += bool(case.missing_required_calls)
                assert item.case() == case
            else:
                assert item is columns[at]
    # Most cases of the later chunks meet a verdict met before, also where calls are missing.
    assert light > len(chunks[-1][1])
    assert missing > 0


def test_metrics_of_columns_are_those_of_the_cases(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    first = 0
    for columns, cases in chunks:
        assert metrics_partial(columns, worst_n=5, first_index=first) == metrics_partial(
            cases, worst_n=5, first_index=first
        )
        first += len(cases)


def test_metrics_of_columns_find_a_repeated_case(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    columns, cases = chunks[1]
    twice = ScoredCases.of_items(columns.items()[at] for at in (3, 4, 3))
    with pytest.raises(ValueError, match=f"case 12: probe '{cases[3].probe_id}' sample"):
        metrics_partial(twice, first_index=10)


def test_sample_of_columns_is_that_of_the_cases(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    of_columns = ObservabilitySample(seed=3, size=200, floor=20)
    of_cases = ObservabilitySample(seed=3, size=200, floor=20)
    for columns, cases in chunks:
        of_columns.add(columns)
        of_cases.add(cases)
    assert (of_columns.offered, of_columns.scored, of_columns.harness_errors) == (
        of_cases.offered,
        of_cases.scored,
        of_cases.harness_errors,
    )
    assert of_columns.sampled
    assert of_columns.cases() == of_cases.cases()


def test_items_read_back_as_columns_build_no_case(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    for columns, cases in chunks:
        items = columns.items()
        light = [at for at, item in enumerate(items) if isinstance(item, LightCase)]
        reversed_light = ScoredCases.of_items(items[at] for at in reversed(light))
        # One group per verdict, its representative the verdict's own case, nothing built.
        verdicts = {id(items[at].verdict): items[at].verdict for at in light}  # type: ignore[union-attr]
        assert len(reversed_light.groups) == len(verdicts)
        assert {id(group) for group in reversed_light.groups} == {
            id(verdict.case) for verdict in verdicts.values()
        }
        assert reversed_light.samples == [cases[at].sample for at in reversed(light)]
        assert list(reversed_light) == [cases[at] for at in reversed(light)]
        again = ScoredCases.of_items(items)
        assert list(again) == cases
        assert [again.groups[g] for g in again.group_of] == [
            columns.groups[g] for g in columns.group_of
        ]
    with pytest.raises(TypeError, match="a case or a light case is needed, got Response"):
        ScoredCases.of_items([Response(probe_id="p", sample=0, response="")])


def test_geometry_of_the_columns_is_that_of_the_cases_built(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    sample = ObservabilitySample(seed=3, size=200, floor=20)
    for columns, _ in chunks:
        sample.add(columns)
    columns = sample.columns()
    assert list(columns) == sample.cases()
    assert len(columns.groups) < len(columns) / 2  # the sample's cases share their verdicts
    settings = {
        "seed": sample.seed,
        "scored": sample.scored,
        "harness_errors": sample.harness_errors,
        "sample_size": sample.size,
    }
    built = observe_cases(sample.cases(), **settings)
    assert built is not None and built.sampled_from == sample.scored
    assert observe_sample(sample) == built
    assert observe_cases(columns, **settings) == built


def test_light_cases_are_left_to_reference_counting(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    # A run makes one for most of its cases: the collector never walks them, and nothing they
    # hold refers back to them, so freeing a chunk frees them.
    items = [item for columns, _ in chunks for item in columns.items()]
    light = [item for item in items if isinstance(item, LightCase)]
    assert light and not any(gc.is_tracked(item) for item in light)
    assert not any(item in gc.get_referents(item.verdict) for item in light[:50])


def test_a_verdicts_first_case_shares_its_group(
    chunks: list[tuple[ScoredCases, list[CaseScore]]],
) -> None:
    # The first case of a verdict is built whole and the verdict's later cases are light: in a
    # chunk they are one group, so the group's readers read the verdict once.
    mixed = 0
    for columns, _ in chunks:
        kinds: dict[int, set[bool]] = {}
        for at, item in enumerate(columns.items()):
            kinds.setdefault(columns.group_of[at], set()).add(isinstance(item, LightCase))
        mixed += sum(1 for found in kinds.values() if found == {True, False})
        assert len(columns.groups) < len(columns)
    assert mixed > 0
