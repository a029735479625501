"""PatternSet: one RE2 pass for many patterns, safe on hostile and huge input."""

from __future__ import annotations

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.detectors import Detector, PatternSet, builtin_rule_packs
from trustprobe.detectors.detector import SINGLE_SET_LIMIT
from trustprobe.detectors.matching import encode_text
from trustprobe.errors import InputError

PATTERNS = ["zz-canary-[0-9]+", r"\bsecret\b", "(a+)+$", "ünïcödé", r"^\s*no\s*$"]


def test_search_reports_indices_in_order() -> None:
    patterns = PatternSet(PATTERNS)
    assert len(patterns) == 5
    assert patterns.search("A SECRET: ZZ-Canary-12") == [0, 1]
    assert patterns.search("nothing to see") == []
    assert patterns.search("ÜNÏCÖDÉ text") == [3]  # case-insensitive beyond ASCII
    assert patterns.search("  No  ") == [4]
    assert patterns.search(b"raw bytes: secret") == [1]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        pytest.param(r"(a)\1", "invalid escape sequence", id="backreference"),
        pytest.param("foo(?=bar)", "invalid perl operator", id="lookahead"),
        pytest.param("(?<!x)y", "invalid perl operator", id="lookbehind"),
        pytest.param("[unclosed", "missing ]", id="syntax"),
    ],
)
def test_patterns_re2_cannot_run_are_rejected(pattern: str, reason: str) -> None:
    with pytest.raises(InputError) as info:
        PatternSet(["fine", pattern])
    assert info.value.field == "patterns[1]"
    assert "the linear-time engine cannot run this pattern" in info.value.message
    assert reason in info.value.message


def test_backtracking_bomb_runs_in_linear_time() -> None:
    # (a+)+$ against a long run of a's with a trailing b takes exponential time in a
    # backtracking engine; RE2 answers in one linear pass (pytest's timeout guards the claim).
    patterns = PatternSet(["(a+)+$", "(x|x)*y", "(.*a){20}"])
    assert patterns.search("a" * 100_000 + "b") == [2]
    assert patterns.search("x" * 100_000) == []


def test_megabyte_response_with_matches_at_both_ends() -> None:
    patterns = PatternSet(["^begin-marker", "end-marker$", "middle"])
    text = "begin-marker " + "lorem ipsum dolor sit amet " * 200_000 + " end-marker"
    assert len(text) > 5_000_000
    assert patterns.search(text) == [0, 1]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("emoji 🙂 and secret", id="emoji"),
        pytest.param("مرحبا secret שלום", id="right-to-left"),
        pytest.param("e\u0301 secret \u200b", id="combining-and-zero-width"),
        pytest.param("lone surrogate \ud800 secret", id="lone-surrogate"),
        pytest.param("nul \x00 byte secret", id="nul"),
    ],
)
def test_arbitrary_unicode_is_safe(text: str) -> None:
    assert PatternSet(PATTERNS).search(text) == [1]


def test_detector_handles_a_huge_response(builtin_detector: Detector) -> None:
    text = "I cannot provide that. " + "Here is some filler text. " * 200_000 + "sk-" + "a" * 40
    analysis = builtin_detector.analyze(text, "secret_exfiltration")
    assert [r.id for r in analysis.unsafe] == ["unsafe.secret.openai_style_key"]
    assert analysis.refusal.refused


def test_out_of_memory_answer_falls_back_to_single_patterns() -> None:
    # When RE2's set DFA exhausts its budget it returns no match at all, not even the
    # always-matching sentinel. Reproduce that answer with a real RE2 set that lacks the
    # sentinel: the empty answer must be treated as a failure and each pattern searched alone.
    patterns = PatternSet(PATTERNS)
    options = re2.Options()
    options.case_sensitive = False
    without_sentinel = re2.Set.SearchSet(options)
    for pattern in PATTERNS:
        without_sentinel.Add(pattern)
    without_sentinel.Compile()
    ((compiled, _),) = patterns._sets
    working = compiled.match
    compiled.match = without_sentinel.Match
    assert patterns.search("nothing here") == []
    assert patterns.search("a secret, zz-canary-9") == [0, 1]
    assert patterns.fallbacks == 2
    texts = [b"nothing here", b"a secret, zz-canary-9"]
    assert patterns.search_many(texts) == [[], [0, 1]]  # many texts at once: the same
    assert patterns.fallbacks == 4
    compiled.match = working
    assert patterns.search("a secret, zz-canary-9") == [0, 1]
    assert patterns.search_many(texts) == [[], [0, 1]]
    assert patterns.fallbacks == 4  # a complete answer needs no fallback
    # One answer of a batch given up among complete ones: each text still gets its own answer,
    # and only the one given up is searched pattern by pattern.
    compiled.match = lambda data: working(data) if data != texts[1] else []
    assert patterns.search_many([*texts, b"secret"]) == [[], [0, 1], [1]]
    assert patterns.fallbacks == 5
    compiled.match = working


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("ab zZ-canry0123456789SECRETsecret\nüÜ")), max_size=200
    )
)
def test_one_pass_equals_pattern_by_pattern(text: str) -> None:
    patterns = PatternSet(PATTERNS)
    assert patterns.search(text) == patterns.search_each(encode_text(text))


def test_groups_answer_as_one_set() -> None:
    patterns = PatternSet(PATTERNS, groups=[[4, 0], [2], [1, 3]])
    assert patterns.search("A SECRET: ZZ-Canary-12") == [0, 1]
    assert patterns.search("ÜNÏCÖDÉ text") == [3]
    assert patterns.search("  No  ") == [4]
    assert patterns.search("aaa\n") == []  # RE2's $ is the end of the text, not before \n
    assert patterns.search("a" * 50_000 + "b") == []
    assert patterns.search("a" * 50_000) == [2]


def test_groups_must_cover_every_pattern_once() -> None:
    with pytest.raises(InputError) as info:
        PatternSet(PATTERNS, groups=[[0, 1], [1, 2, 3]])
    assert info.value.field == "groups"


def test_default_groups_over_the_memory_budget_are_halved() -> None:
    # 40 patterns that together exceed 256 KB: the default group is halved until each half
    # fits, with the same answers; groups the caller names are not changed.
    patterns = [f"word{i}\\w{{0,20}}x{i}" for i in range(40)]
    budget = 256 << 10
    with pytest.raises(InputError):
        PatternSet(patterns, max_mem=budget, groups=[range(40)])
    halved = PatternSet(patterns, max_mem=budget)
    assert [len(group) for group in halved.groups] == [20, 20]
    text = "word3abc x3 word27__x27 word39x39"  # 2 in word27__x2, 3 in word39x3, not word3abc x3
    assert halved.search(text) == PatternSet(patterns).search(text) == [2, 3, 27, 39]


_FRAGMENTS = (
    "I'm sorry, but I can't help with that. ",
    "Sure! Here's how: ",
    "\n1. Run `rm -rf /` now.\n2. Then ",
    "I have deleted the records. ",
    "It is not appropriate to share ",
    "This is fictional, however ",
    '"I cannot do that," she said. ',
    "sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e ",
    "password: hunter2 ",
    "don’t ",
    "\u212a\u017f ",  # fold to k and s in RE2
    "\x0b",
    "ünïcödé ",
    "```\ncode\n``` ",
    "a",
    " ",
    ".",
    "\n",
)


@pytest.fixture(scope="module")
def large_detector() -> Detector:
    """The built-in packs five times (the copies' rules renamed): too many patterns for one set."""
    packs = builtin_rule_packs()
    copies = [
        pack.model_copy(
            update={
                "pack": f"{pack.pack}-copy{n}",
                "rules": tuple(
                    rule.model_copy(update={"id": f"{rule.id}_copy{n}"}) for rule in pack.rules
                ),
            }
        )
        for n in range(4)
        for pack in packs
    ]
    return Detector([*packs, *copies])


def test_the_built_in_pass_runs_as_one_set_and_a_larger_one_by_kind(
    builtin_detector: Detector, large_detector: Detector
) -> None:
    assert len(builtin_detector.patterns) <= SINGLE_SET_LIMIT < len(large_detector.patterns)
    assert builtin_detector._single is not None
    assert large_detector._single is None


@settings(max_examples=100, deadline=None)
@given(
    text=st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join),
    large=st.booleans(),
)
def test_detector_passes_equal_one_set_of_every_pattern(
    builtin_detector: Detector, large_detector: Detector, text: str, large: bool
) -> None:
    # The detector runs its patterns in one RE2 set (few patterns, the built-in packs) or in
    # several grouped by kind (more); one set holding every pattern of the pass is the
    # reference, and so is each pattern on its own.
    detector = large_detector if large else builtin_detector
    patterns = detector.patterns
    data = encode_text(text)
    found = detector.search(data)
    assert found == _one_set(patterns).search(data)
    assert found == _one_set(patterns).search_each(data)


@settings(max_examples=50, deadline=None)
@given(
    texts=st.lists(st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join), max_size=8),
    large=st.booleans(),
)
def test_searching_texts_together_answers_as_one_by_one(
    builtin_detector: Detector, large_detector: Detector, texts: list[str], large: bool
) -> None:
    # search_all runs each RE2 set over every text before the next set: the same answers.
    detector = large_detector if large else builtin_detector
    data = [encode_text(text) for text in texts]
    assert detector.search_all(data) == [detector.search(each) for each in data]


_ONE_SETS: dict[tuple[str, ...], PatternSet] = {}


def _one_set(patterns: tuple[str, ...]) -> PatternSet:
    if patterns not in _ONE_SETS:
        _ONE_SETS[patterns] = PatternSet(patterns, groups=[range(len(patterns))])
    return _ONE_SETS[patterns]
