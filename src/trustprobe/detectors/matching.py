"""Linear-time pattern matching on RE2: one pass over a response for a whole set of patterns.

A pass may run as several RE2 sets (groups of patterns): RE2 builds a set's DFA lazily, state by
state, and a state is a combination of the states of every pattern in the set, so on fresh text
one large set spends most of its time building states that no later text reuses. Sets of
patterns that are rarely active together stay small (figures in docs/benchmarks.md, "Matching
passes"). Whatever the grouping, the answer is the same.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import cast

import re2

from trustprobe.errors import InputError

DEFAULT_MAX_MEM = 64 << 20
"""RE2 memory budget per compiled set (bytes): program plus lazily built DFA cache."""

GROUP_SIZE = 512
"""Most patterns in one RE2 pass when the caller gives no groups (see :class:`PatternSet`).

On fresh text one set of the 330 refusal cues of rules x10 costs half what sets of 128 do
(docs/benchmarks.md, "Matching passes"); a default group over the memory budget is halved."""

WIDE_REPEAT = 100
"""Bound of a repetition from which a pattern runs in a set of its own (:func:`default_groups`)."""
_REPEAT_BOUND = re2.compile(r"\{\d*,(\d+)\}")

_SENTINEL = r"\z"
"""Matches at the end of every text, so a set match that lacks it means the DFA gave up."""


def _consume(calls: Iterable[object]) -> None:
    """Run ``calls`` (a lazy ``map``) to the end from C, keeping none of their results."""
    deque(calls, maxlen=0)


def _options(max_mem: int) -> re2.Options:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    options.max_mem = max_mem
    return options


def _error_text(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else exc
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    return str(detail)


@lru_cache(maxsize=8192)
def engine_rejection(pattern: str) -> str | None:
    """Why RE2 cannot run ``pattern`` (case-insensitively), or ``None`` when it can.

    Kept per pattern (a few bytes each): a rule's or a signal's pattern is checked when its
    pack or probe is read and again by every set it joins (the detector's sets by kind and its
    whole set, a probe's signals), and compiling one costs up to a millisecond.
    """
    try:
        re2.compile(pattern, _options(DEFAULT_MAX_MEM))
    except re2.error as exc:
        reason = _error_text(exc)
        if "perl operator" in reason or "escape sequence: \\" in reason:
            reason += " (RE2 has no lookaround or backreferences)"
        return f"the linear-time engine cannot run this pattern: {reason}"
    return None


@lru_cache(maxsize=16)
def _alone(pattern: str) -> re2._Regexp:
    """``pattern`` compiled on its own (case-insensitive), for :func:`pattern_finds`.

    A few kept: a rule's examples are checked one after the other, each against its pattern.
    """
    return re2.compile(pattern, _options(DEFAULT_MAX_MEM))


def pattern_finds(pattern: str, text: str) -> bool:
    """Whether ``pattern`` (case-insensitive) occurs in ``text``; for checking rule examples."""
    return _alone(pattern).search(encode_text(text)) is not None


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of ``text``; a lone surrogate (not real text) becomes ``?``.

    Agent text has its surrogates replaced by U+FFFD where it enters (loaders, targets); only
    text handed straight to the library can still hold one, and it must not stop the match.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")


class _Re2Set:
    """A compiled RE2 set (case-insensitive), with a per-pattern fallback when its DFA gives up.

    RE2 runs in time linear in the text for every pattern. The set runs on RE2's DFA; if the
    DFA ever exhausts its memory budget RE2 reports no match at all, which an always-matching
    sentinel reveals; then each pattern is searched on its own (RE2 falls back to its NFA), so
    a match is never silently missed.
    """

    def __init__(self, patterns: Sequence[str], max_mem: int) -> None:
        self.patterns = tuple(patterns)
        self._options = _options(max_mem)
        self.set = re2.Set.SearchSet(self._options)
        for pattern in self.patterns:
            self.set.Add(pattern)
        self._sentinel = self.set.Add(_SENTINEL)
        try:
            self.set.Compile()
        except re2.error as exc:
            raise InputError(
                f"the patterns together exceed the matcher's memory budget of {max_mem} bytes; "
                "split them or raise max_mem",
                field="patterns",
            ) from exc
        # The compiled set's own Match, without the wrapper's frame (it costs about as much as
        # matching a short answer); the wrapper's answers the same where it is all there is.
        self.match: Callable[[bytes], list[int] | None] = getattr(self.set, "_set", self.set).Match
        self._singles: tuple[re2._Regexp, ...] | None = None
        self.fallbacks = 0

    def search(self, data: bytes) -> list[int]:
        found = self.match(data)
        if not found:  # not even the sentinel: the DFA ran out of memory
            return self.search_each(data)
        found.sort()  # RE2 reports matches in discovery order
        if found[-1] != self._sentinel:  # the sentinel has the highest index; never skip it
            return self.search_each(data)
        found.pop()
        return found

    def search_many(self, texts: Sequence[bytes]) -> list[list[int]]:
        """:meth:`search` of each of ``texts``, with no bytecode run per text.

        RE2 is called, and its answers sorted and their sentinels taken off, by ``map`` from C.
        """
        answers = list(map(self.match, texts))
        if all(answers):  # an empty answer: the DFA ran out of memory (see search)
            results = cast("list[list[int]]", answers)
            _consume(map(list.sort, results))
            # The sentinel has the highest index: last once sorted, and never skipped.
            if list(map(list.pop, results)).count(self._sentinel) == len(results):
                return results
        return [self.search(data) for data in texts]  # searched again, one by one

    def search_each(self, data: bytes) -> list[int]:
        self.fallbacks += 1
        if self._singles is None:
            self._singles = tuple(re2.compile(p, self._options) for p in self.patterns)
        return [i for i, single in enumerate(self._singles) if single.search(data) is not None]


def default_groups(patterns: Sequence[str], size: int = GROUP_SIZE) -> list[list[int]]:
    """Passes for ``patterns`` when the caller names none.

    Chunks of ``size`` in order, less the patterns with a wide window (a bounded
    repetition of :data:`WIDE_REPEAT` or more, not anchored at the start): each of those gets
    a set of its own, because it keeps that many positions of the text open at once and so
    multiplies the DFA states of any set it is in (figures in docs/benchmarks.md).
    """
    wide = [i for i, pattern in enumerate(patterns) if _wide_window(pattern)]
    alone = set(wide)
    rest = [i for i in range(len(patterns)) if i not in alone]
    chunks = [rest[i : i + size] for i in range(0, len(rest), size)]
    return chunks + [[i] for i in wide]


def _wide_window(pattern: str) -> bool:
    if pattern.startswith("\\A"):
        return False  # the DFA stops where the anchored pattern can no longer match
    bounds = [int(upper) for upper in _REPEAT_BOUND.findall(pattern)]
    return bool(bounds) and max(bounds) >= WIDE_REPEAT


def _compiled(
    patterns: Sequence[str], group: tuple[int, ...], max_mem: int, split: bool
) -> list[tuple[_Re2Set, tuple[int, ...]]]:
    """``group`` of ``patterns`` as one RE2 set, or, with ``split``, as halves if over budget."""
    try:
        return [(_Re2Set([patterns[i] for i in group], max_mem), group)]
    except InputError:
        if not split or len(group) == 1:
            raise
        half = len(group) // 2
        return [
            *_compiled(patterns, group[:half], max_mem, split),
            *_compiled(patterns, group[half:], max_mem, split),
        ]


class PatternSet:
    """A compiled set of RE2 patterns (case-insensitive) searched in one pass over a text.

    The patterns run in RE2 sets by ``groups`` (lists of indices; by default chunks of
    :data:`GROUP_SIZE` in order): a caller that knows which patterns are rarely active
    together (a detector knows its rules' kinds) groups them apart, see the module's notes.
    Every grouping gives the same answers, in time linear in the text.
    """

    def __init__(
        self,
        patterns: Sequence[str],
        *,
        max_mem: int = DEFAULT_MAX_MEM,
        groups: Sequence[Sequence[int]] | None = None,
    ) -> None:
        self.patterns: tuple[str, ...] = tuple(patterns)
        for index, pattern in enumerate(self.patterns):
            reason = engine_rejection(pattern)
            if reason is not None:
                raise InputError(f"{reason} (pattern {pattern!r})", field=f"patterns[{index}]")
        split = groups is None  # the default groups are halved until each fits the budget
        if groups is None:
            groups = default_groups(self.patterns)
        elif sorted(i for group in groups for i in group) != list(range(len(self.patterns))):
            raise InputError("the groups must hold every pattern index once", field="groups")
        self._sets: tuple[tuple[_Re2Set, tuple[int, ...]], ...] = tuple(
            compiled
            for group in groups
            if group
            for compiled in _compiled(self.patterns, tuple(group), max_mem, split)
        )
        # One group holding every pattern in order needs no translation of its answer.
        whole = len(self._sets) == 1 and self._sets[0][1] == tuple(range(len(self.patterns)))
        self._whole: _Re2Set | None = self._sets[0][0] if whole else None

    def __len__(self) -> int:
        return len(self.patterns)

    def searcher(self) -> Callable[[bytes], list[int]]:
        """:meth:`search` for UTF-8 bytes, with no step between it and RE2 that it can skip.

        For callers that search many texts: a set of one group is searched directly.
        """
        return self._whole.search if self._whole is not None else self.search

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The pattern indices of each RE2 set of the pass."""
        return tuple(indices for _, indices in self._sets)

    @property
    def fallbacks(self) -> int:
        """How many searches needed the per-pattern fallback (for diagnostics)."""
        return sum(each.fallbacks for each, _ in self._sets)

    def search(self, text: str | bytes) -> list[int]:
        """Indices (ascending) of the patterns that occur anywhere in ``text``."""
        data = encode_text(text) if isinstance(text, str) else text
        if self._whole is not None:
            return self._whole.search(data)
        found: list[int] = []
        for each, indices in self._sets:
            hits = each.search(data)
            if hits:
                found.extend([indices[i] for i in hits])
        found.sort()
        return found

    def search_many(self, texts: Sequence[bytes]) -> list[list[int]]:
        """:meth:`search` of each of ``texts`` (UTF-8), in one list.

        A set of one group calls RE2 from C for every text: about a microsecond a text less
        than calling :meth:`search` for each (docs/benchmarks.md, "The scoring stage").
        """
        if self._whole is not None:
            return self._whole.search_many(texts)
        return [self.search(data) for data in texts]

    def search_each(self, data: bytes) -> list[int]:
        """The same answer as :meth:`search`, one pattern at a time (the out-of-memory path)."""
        found: list[int] = []
        for each, indices in self._sets:
            found.extend([indices[i] for i in each.search_each(data)])
        found.sort()
        return found
