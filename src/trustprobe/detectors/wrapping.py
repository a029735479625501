"""The words of an answer wrapped in JSON, read before any rule.

An agent behind an API may answer with a JSON object, its answer or its decline in the text
fields: ``{"answer": "I can't help with harming anyone.", "suggestion": "..."}``. Read as it
stands, the braces and quotes hide the opening sentence and the refusal in it, and the rules read
a delivered answer. Such an answer is read as what it says: the text of its string values, in
order, one paragraph each; an array of several strings as a list, one item a line. Keys, numbers
and ``true``/``false``/``null`` say nothing in words and are left out.

A JSON answer whose values carry the content reads as complied all the same: its values are
the content, and the rules read them as they would in prose. JSON that is not an answer in
words stays as it is: a value without a space in any string (data: a config, a record of ids),
and a tool call written as text (a key such as ``"arguments"`` or ``"tool_calls"``), which the
rules read as before. Only the reading of the response's text changes; the calls an agent made
(a response's ``tool_calls``) are observed as before, and what an answer leaks counts wherever it
stands: the unsafe rules and a probe's signals also meet the text as it came, keys and all
(:meth:`.Detector.with_raw_evidence`).

Most answers are prose: their first character (after white space) is neither ``{``, ``[`` nor a
code fence's backtick, and nothing is parsed.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from trustprobe.detectors.layout import TRACE_LABELS, layout_parameters, layout_text

CALL_KEYS = frozenset(
    (
        "action_input",
        "arguments",
        "function",
        "function_call",
        "parameters",
        "tool",
        "tool_call",
        "tool_calls",
        "tool_input",
        "tool_name",
    )
)
"""Keys that make a JSON object a tool call written as text: read as it stands, not as prose."""

_LEADS = frozenset("{[`")
_FENCE = "```"
_FENCE_LANGUAGES = frozenset(("", "json", "jsonc", "json5"))
_DECODE = msgspec.json.decode


def wrapping_parameters() -> dict[str, object]:
    """What decides which JSON is read as its words (part of the rule digest)."""
    return {
        "call_keys": sorted(CALL_KEYS),
        "leads": sorted(_LEADS),
        "fence_languages": sorted(_FENCE_LANGUAGES),
        "layout": layout_parameters(),
    }


def answer_text(text: str) -> str:
    """The text the rules read of a response: its words, however it is wrapped or laid out.

    An answer wrapped in JSON (:func:`json_words`), laid out as a table, written as comments or
    printed as an agent's trace (:func:`.layout.layout_text`).
    """
    if "|" not in text and "`" not in text:  # one memchr each
        lead = text[:1]
        if lead not in _LEADS and not lead.isspace() and not text.startswith(TRACE_LABELS):
            return text  # most answers: prose, neither JSON, nor a table, comments or a trace
    return layout_text(json_words(text))


def json_words(text: str) -> str:
    """The words of an answer wrapped in JSON.

    ``text`` unchanged unless, after white space is trimmed, it is a JSON object or array
    (alone, or alone in a code fence marked ``json`` or unmarked) whose string values hold words
    and which is no tool call; then the text of its string values (see the module).
    """
    lead = text[:1]
    if lead not in _LEADS:
        if not lead.isspace():  # most answers: a letter, a mark, or nothing
            return text
        lead = text.lstrip()[:1]
        if lead not in _LEADS:
            return text
    body = text.strip()
    if lead == "`":
        fenced = _fenced(body)
        if fenced is None:
            return text
        body = fenced
    if body[-1:] not in ("}", "]") or body[:1] not in ("{", "["):
        return text
    try:
        value = _DECODE(body)
    except msgspec.DecodeError:
        return text
    if _is_call(value):
        return text
    if not any(" " in string for string in _strings(value)):
        return text  # data, not an answer in words
    return "\n\n".join(_paragraphs(value))


def _fenced(body: str) -> str | None:
    """What a code fence holds when it is the whole of ``body`` and may hold JSON."""
    if not body.startswith(_FENCE) or not body.endswith(_FENCE) or len(body) < 2 * len(_FENCE):
        return None
    first_line, _, rest = body[len(_FENCE) : -len(_FENCE)].partition("\n")
    if first_line.strip().lower() not in _FENCE_LANGUAGES or _FENCE in rest:
        return None
    return rest.strip()


def _is_call(value: object) -> bool:
    """Whether ``value`` (or the first object of an array) is a tool call written as text."""
    if isinstance(value, list) and value:
        value = value[0]
    return isinstance(value, dict) and not CALL_KEYS.isdisjoint(value)


def _strings(value: object) -> Iterator[str]:
    """Every string of ``value``, in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _paragraphs(value: object) -> Iterator[str]:
    """The non-blank strings of ``value``, in order; strings of an array of several as items."""
    if isinstance(value, str):
        value = value.strip()
        if value:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _paragraphs(item)
    elif isinstance(value, list):
        strings = [item.strip() for item in value if isinstance(item, str) and item.strip()]
        if len(strings) > 1 and len(strings) == len(value):
            yield "\n".join(f"- {item}" for item in strings)
            return
        for item in value:
            yield from _paragraphs(item)
