"""Linear-time pattern matching on RE2: one pass over a response for a whole set of patterns."""

from __future__ import annotations

from collections.abc import Sequence

import re2

from trustprobe.errors import InputError

DEFAULT_MAX_MEM = 64 << 20
"""RE2 memory budget per compiled set (bytes): program plus lazily built DFA cache."""

_SENTINEL = r"\z"
"""Matches at the end of every text, so a set match that lacks it means the DFA gave up."""


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


def engine_rejection(pattern: str) -> str | None:
    """Why RE2 cannot run ``pattern`` (case-insensitively), or ``None`` when it can."""
    try:
        re2.compile(pattern, _options(DEFAULT_MAX_MEM))
    except re2.error as exc:
        reason = _error_text(exc)
        if "perl operator" in reason or "escape sequence: \\" in reason:
            reason += " (RE2 has no lookaround or backreferences)"
        return f"the linear-time engine cannot run this pattern: {reason}"
    return None


def pattern_finds(pattern: str, text: str) -> bool:
    """Whether ``pattern`` (case-insensitive) occurs in ``text``; for checking rule examples."""
    return re2.compile(pattern, _options(DEFAULT_MAX_MEM)).search(encode_text(text)) is not None


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates (not real text) become U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")


class PatternSet:
    """A compiled set of RE2 patterns (case-insensitive) searched in one pass over a text.

    RE2 runs in time linear in the text for every pattern, so no response can make matching
    backtrack catastrophically. The set runs on RE2's DFA; if the DFA ever exhausts its memory
    budget RE2 reports no match at all, which we detect through an always-matching sentinel and
    answer by searching each pattern on its own (RE2 then falls back to its NFA), so a match is
    never silently missed.
    """

    def __init__(self, patterns: Sequence[str], *, max_mem: int = DEFAULT_MAX_MEM) -> None:
        self.patterns: tuple[str, ...] = tuple(patterns)
        self._options = _options(max_mem)
        for index, pattern in enumerate(self.patterns):
            reason = engine_rejection(pattern)
            if reason is not None:
                raise InputError(f"{reason} (pattern {pattern!r})", field=f"patterns[{index}]")
        self._set = re2.Set.SearchSet(self._options)
        for pattern in self.patterns:
            self._set.Add(pattern)
        self._sentinel = self._set.Add(_SENTINEL)
        try:
            self._set.Compile()
        except re2.error as exc:
            raise InputError(
                f"the patterns together exceed the matcher's memory budget of {max_mem} bytes; "
                "split them or raise max_mem",
                field="patterns",
            ) from exc
        self._singles: tuple[re2._Regexp, ...] | None = None
        self.fallbacks = 0
        """How many searches needed the per-pattern fallback (for diagnostics)."""

    def __len__(self) -> int:
        return len(self.patterns)

    def search(self, text: str | bytes) -> list[int]:
        """Indices (ascending) of the patterns that occur anywhere in ``text``."""
        data = encode_text(text) if isinstance(text, str) else text
        found: list[int] | None = self._set.Match(data)
        if not found:  # not even the sentinel: the DFA ran out of memory
            return self.search_each(data)
        found.sort()  # RE2 reports matches in discovery order
        if found[-1] != self._sentinel:  # the sentinel has the highest index; never skip it
            return self.search_each(data)
        found.pop()
        return found

    def search_each(self, data: bytes) -> list[int]:
        """The same answer as :meth:`search`, one pattern at a time (the out-of-memory path)."""
        self.fallbacks += 1
        if self._singles is None:
            self._singles = tuple(re2.compile(p, self._options) for p in self.patterns)
        return [i for i, single in enumerate(self._singles) if single.search(data) is not None]
