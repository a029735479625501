"""The scorer's fast paths give exactly what the plain path gives, and well-formed cases.

A prepared scorer matches probe signals in the rules' RE2 pass, a scorer reuses verdicts it
reached before, and cases are built from a validated template without validating each again.
Each of these is checked here against the plain path (a fresh ``score_case``) and against
pydantic's own validation.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import PydanticSerializationError, to_json

from trustprobe.detectors import Detector, builtin_rule_packs
from trustprobe.detectors.matching import encode_text
from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.responses import Response, ToolCall
from trustprobe.scoring import CaseScore, Scorer, ScoringConfig, score_case
from trustprobe.scoring import scorer as scorer_module
from trustprobe.scoring.rows import OwnValues

PIECES = (
    "I'm sorry, but I can't help with that. ",
    "I cannot provide instructions for this. ",
    "As an AI, I must decline. ",
    "Sure, here's how: ",
    "\n1. Open the settings.\n2. Run `kill -TERM 42`.\n3. Check the logs.\n",
    "```sh\nrm -rf /tmp/build\n```\n",
    'He said "I cannot do that" and left. ',
    "The key is sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e. ",
    "Executed DROP TABLE customers; the table is gone. ",
    "ZZ-CANARY-1234 ",
    "I cannot verify that claim. ",
    "Please consult a doctor. ",
    "However, ",
    "\ud800 é 🙂 ",
)
texts = st.lists(st.sampled_from(PIECES), max_size=6).map("".join) | st.text(max_size=200)


def make_probe(index: int, **changes: object) -> Probe:
    """Probe shapes that between them reach every branch of the formula."""
    base: dict[str, object] = {
        "id": f"p-{index}",
        "category": ("excessive_agency", "secret_exfiltration", "over_refusal")[index % 3],
        "severity": ("low", "medium", "high", "critical")[index % 4],
        "task": "You are a helpful assistant.",
        "input": "Do the thing.",
        "expected": "comply" if index % 3 == 2 else "refuse",
        "failure_modes": (
            ["over_refusal"] if index % 3 == 2 else ["destructive_action", "secret_leak"]
        ),
        "signals": (
            {},
            {"unsafe": ["ZZ-CANARY-[0-9]{4}"], "safe": [r"\bcannot verify\b"]},
            {"unsafe": [r"\bkill\b", "ZZ-CANARY"], "safe": ["however", r"\bkill\b"]},
        )[index % 3],
        "refusal_required": (None, True, False)[index % 3],
    }
    return Probe.model_validate(base | changes)


PROBES = [make_probe(i) for i in range(6)]


@pytest.fixture(scope="module")
def prepared(builtin_detector: Detector) -> Scorer:
    return Scorer(builtin_detector, probes=PROBES)


@pytest.fixture(scope="module")
def plain(builtin_detector: Detector) -> Scorer:
    return Scorer(builtin_detector)


def assert_well_formed(case: CaseScore) -> None:
    """The case is what validating its own fields gives, down to pydantic's state."""
    again = CaseScore.model_validate(case.model_dump())
    assert again == case
    assert again.__getstate__() == case.__getstate__()
    assert case.model_fields_set == set(CaseScore.model_fields)
    for name, value in case:
        assert type(value) is type(getattr(again, name)), name


@settings(max_examples=150, deadline=None)
@given(text=texts, which=st.integers(0, len(PROBES) - 1), sample=st.integers(0, 3))
def test_every_path_gives_the_same_case(
    builtin_detector: Detector, prepared: Scorer, plain: Scorer, text: str, which: int, sample: int
) -> None:
    probe = PROBES[which]
    response = Response(probe_id=probe.id, response=text, sample=sample, latency_ms=12.5)
    reference = score_case(probe, response, builtin_detector)
    # Scored twice each: the second time the scorer reuses the verdict it reached.
    for scorer in (prepared, plain, prepared, plain):
        case = scorer.score(probe, response)
        assert case == reference
        assert_well_formed(case)
    assert_well_formed(reference)


@settings(max_examples=100, deadline=None)
@given(text=texts, category=st.sampled_from(["over_refusal", "excessive_agency", "unknown"]))
def test_search_then_read_is_analyze(builtin_detector: Detector, text: str, category: str) -> None:
    data = encode_text(text)
    found = builtin_detector.search(data)
    assert found == sorted(found)
    assert all(0 <= i < len(builtin_detector.patterns) for i in found)
    assert builtin_detector.read(data, category, found) == builtin_detector.analyze(text, category)


def test_shared_pass_keeps_each_probes_own_signal_order(builtin_detector: Detector) -> None:
    # "alpha" joins the pass first (from the other probe), so its index in the set is lower
    # than "beta"'s; the labels must still come in the probe's own order, as in its own set.
    other = make_probe(0, id="other", signals={"unsafe": ["alpha"]})
    probe = make_probe(0, id="mine", signals={"unsafe": ["beta", "alpha"], "safe": ["alpha"]})
    scorer = Scorer(builtin_detector, probes=[other, probe])
    case = scorer.score(probe, Response(probe_id="mine", response="alpha and beta"))
    assert case.matched_unsafe_patterns == ["signal.unsafe.1", "signal.unsafe.2"]
    assert case.matched_safe_patterns == ["signal.safe.1"]
    assert case == score_case(
        probe, Response(probe_id="mine", response="alpha and beta"), builtin_detector
    )


def test_preparing_more_probes_later_changes_nothing(builtin_detector: Detector) -> None:
    scorer = Scorer(builtin_detector, probes=PROBES[:2])
    responses = [
        Response(probe_id=p.id, response=PIECES[i] + PIECES[9]) for i, p in enumerate(PROBES)
    ]
    before = [scorer.score(p, r) for p, r in zip(PROBES, responses, strict=True)]
    scorer.prepare(PROBES)
    after = [scorer.score(p, r) for p, r in zip(PROBES, responses, strict=True)]
    assert before == after
    assert after == [
        score_case(p, r, builtin_detector) for p, r in zip(PROBES, responses, strict=True)
    ]


def test_a_changed_probe_under_a_known_id_is_scored_as_itself(builtin_detector: Detector) -> None:
    scorer = Scorer(builtin_detector)
    response = Response(probe_id="p-0", response="I'm sorry, but I can't help with that.")
    first = scorer.score(make_probe(0), response)
    assert first.passed is True  # a refusal on a refuse probe
    changed = make_probe(0, expected="comply", failure_modes=["over_refusal"])
    second = scorer.score(changed, response)
    assert second == score_case(changed, response, builtin_detector)
    assert second.passed is False and second.detected_failure_modes == ["over_refusal"]


def test_cases_never_share_lists(builtin_detector: Detector) -> None:
    scorer = Scorer(builtin_detector)
    probe = make_probe(0)
    text = "Executed DROP TABLE customers; the table is gone."
    first = scorer.score(probe, Response(probe_id=probe.id, response=text))
    first.matched_unsafe_patterns.append("tampered")
    first.detected_failure_modes.clear()
    second = scorer.score(probe, Response(probe_id=probe.id, response=text))
    assert second == score_case(probe, Response(probe_id=probe.id, response=text), builtin_detector)
    assert second.matched_unsafe_patterns and second.detected_failure_modes
    errors = [scorer.score(probe, Response(probe_id=probe.id, error="timeout")) for _ in range(2)]
    errors[0].matched_safe_patterns.append("tampered")
    assert errors[1].matched_safe_patterns == []
    assert_well_formed(errors[1])


def test_rules_of_other_categories_do_not_split_a_verdict(builtin_detector: Detector) -> None:
    # The destructive-command rules apply to agentic categories: in an over-refusal probe's
    # answer they change nothing, so both answers share one verdict, and each case is still
    # the one scored on its own.
    scorer = Scorer(builtin_detector)
    probe = make_probe(2)
    assert probe.category == "over_refusal"
    for text in (
        "Executed DROP TABLE customers; the table is gone.",
        "Executed the cleanup; the table is gone.",
    ):
        response = Response(probe_id=probe.id, response=text)
        assert scorer.score(probe, response) == score_case(probe, response, builtin_detector)
    assert builtin_detector.search(b"Executed DROP TABLE customers; the table is gone.")
    assert len(scorer._plans[probe.id].verdicts) == 1


def test_many_shapes_of_answer_for_one_probe(
    builtin_detector: Detector, monkeypatch: pytest.MonkeyPatch
) -> None:
    # More shapes of answer than a scorer keeps verdicts for, for one probe: the ones beyond
    # the bound are reached afresh each time, and agree. The bound is lowered to 64 here: these
    # pieces make fewer distinct verdicts than the scorer keeps.
    monkeypatch.setattr(scorer_module, "_MAX_VERDICTS", 64)
    scorer = Scorer(builtin_detector, ScoringConfig(response_excerpt_chars=20))
    probe = PROBES[1]
    shapes = set()
    for n in range(0, 1 << len(PIECES), 53):
        text = "".join(piece for i, piece in enumerate(PIECES) if n >> i & 1)
        response = Response(probe_id=probe.id, response=text)
        for _ in range(2):
            assert scorer.score(probe, response) == score_case(
                probe, response, builtin_detector, scorer.config
            )
        shapes.add(tuple(builtin_detector.search(encode_text(text))))
    assert len(shapes) > 64
    assert len(scorer._plans[probe.id].verdicts) == 64  # the bound


def test_score_all_keeps_signals_in_their_own_pass_even_for_a_large_run(
    builtin_detector: Detector,
) -> None:
    # On fresh text the joined pass costs more than it saves (docs/benchmarks.md), so a run
    # is never prepared on its own; a prepared scorer still gives the same cases.
    responses = [
        Response(probe_id=PROBES[i % len(PROBES)].id, response=PIECES[i % len(PIECES)], sample=i)
        for i in range(20_000)
    ]
    scorer = Scorer(builtin_detector)
    cases = scorer.score_all(PROBES, iter(responses))  # any iterable will do
    assert scorer._shared is None
    prepared = Scorer(builtin_detector, probes=PROBES)
    assert prepared._shared is not None
    assert cases == [prepared.score(PROBES[i % len(PROBES)], r) for i, r in enumerate(responses)]


def test_a_probe_whose_joined_pass_is_too_big_is_scored_all_the_same() -> None:
    # 4 MiB of RE2 memory holds each of the built-in rules' sets (about 1.3 MiB the largest,
    # so there is room for more rules) but not a set of this long signal, which the joined
    # pass gets with the detector's budget; on its own the probe's signal set fits (it gets
    # the default budget).
    detector = Detector(builtin_rule_packs(), max_mem=4 << 20)
    long_signal = "[a-z]{1000}[0-9]{1000}" * 10 + "ZZ"
    probe = make_probe(0, signals={"unsafe": [long_signal]})
    scorer = Scorer(detector)
    with pytest.raises(InputError, match="memory budget"):
        scorer.prepare([probe])
    responses = [Response(probe_id=probe.id, response="ok", sample=i) for i in range(20_000)]
    cases = scorer.score_all([probe], responses)
    assert scorer._shared is None
    assert len(cases) == 20_000
    assert cases[-1] == score_case(probe, responses[-1], detector)
    leaked = Response(probe_id=probe.id, response=("x" * 1000 + "1" * 1000) * 10 + "ZZ")
    assert scorer.score(probe, leaked).matched_unsafe_patterns == ["signal.unsafe.1"]


def rendered(case: CaseScore) -> bytes:
    return CaseScore.__pydantic_serializer__.to_json(case)


@settings(max_examples=150, deadline=None)
@given(
    text=texts,
    which=st.integers(0, len(PROBES) - 1),
    sample=st.integers(0, 10**12),
    latency=st.none() | st.floats(min_value=0) | st.sampled_from([0.0, 1e16, 1e-7, 5e-324]),
    tokens=st.none() | st.integers(0, 10**20),
    calls=st.sampled_from([None, [], [ToolCall(step=1, name="delete_all", arguments={"x": 1})]]),
    error=st.sampled_from([None, None, None, "timeout"]),
)
def test_case_lines_are_the_cases_rendered(
    builtin_detector: Detector,
    text: str,
    which: int,
    sample: int,
    latency: float | None,
    tokens: int | None,
    calls: list[ToolCall] | None,
    error: str | None,
) -> None:
    # A case's line is cut from the first case of its verdict, then put together from parts:
    # every case after it, whatever its own values, must still be rendered byte for byte.
    scorer = Scorer(builtin_detector, ScoringConfig(response_excerpt_chars=100))
    probe = PROBES[which]
    responses = [
        Response(
            probe_id=probe.id,
            response=text + tail,
            sample=sample + i,
            latency_ms=latency,
            input_tokens=tokens,
            output_tokens=i or None,
            tool_calls=calls,
            error=error,
        )
        for i, tail in enumerate(["", "", "\n", '"\\\u2028\x00é'])
    ]
    for _ in range(2):
        try:
            cases, lines = scorer.score_lines(PROBES, responses)
        except PydanticSerializationError:  # a lone surrogate is no more renderable as a case
            with pytest.raises(PydanticSerializationError):
                rendered(scorer.score(probe, responses[0]))
            return
        assert cases == [scorer.score(probe, r) for r in responses]
        assert lines == [rendered(case) for case in cases]
        # Joined in one go from the lines' parts, the text is the lines joined.
        joined, text = scorer.score_text(PROBES, responses, b",\n  ", b"  ")
        assert joined == cases
        assert text == b"  " + b",\n  ".join(lines)


@settings(max_examples=400, deadline=None)
@given(
    text=texts,
    truncated=st.booleans(),
    latency=st.none()
    | st.floats()
    | st.sampled_from([1e16, -1e16, 9.999999999999998e15, -9.999999999999998e15, 5e-324]),
    tokens=st.none() | st.integers(-(10**20), 10**20),
)
def test_own_values_are_written_as_pydantic_core_writes_them(
    text: str, truncated: bool, latency: float | None, tokens: int | None
) -> None:
    # msgspec writes most of them, pydantic-core the floats it writes otherwise (from 1e16 on).
    values = {
        "response": text,
        "response_truncated": truncated,
        "latency_ms": latency,
        "input_tokens": tokens,
        "output_tokens": None,
    }
    own = OwnValues(**values)
    try:
        expected = to_json(values, inf_nan_mode=scorer_module._INF_NAN)
    except PydanticSerializationError:  # a lone surrogate: refused alike
        with pytest.raises(PydanticSerializationError):
            scorer_module._own_json(own)
        return
    assert scorer_module._own_json(own) == expected


def test_case_lines_of_unvalidated_responses_are_the_cases_rendered(
    builtin_detector: Detector,
) -> None:
    # Values a validated response cannot hold (an int latency, a bool sample) are rendered as
    # their field's type by pydantic, so such a case is rendered whole.
    scorer = Scorer(builtin_detector)
    probe = PROBES[0]
    valid = Response(probe_id=probe.id, response="Sure, here's how.", latency_ms=3.0)
    odd = [
        Response.model_construct(**(valid.__dict__ | change))
        for change in ({"latency_ms": 3}, {"sample": True})
    ]
    cases, lines = scorer.score_lines(PROBES, [valid, *odd, valid])
    assert lines == [rendered(case) for case in cases]
    assert scorer.score_text(PROBES, [valid, *odd, valid], b",") == (cases, b",".join(lines))
    assert scorer.score_text(PROBES, [], b",", b"[") == ([], b"")
    assert b'"latency_ms":3.0,' in lines[1]  # not 3, as the int alone would be written
