"""The words of an answer laid out as a table, as comments or as a trace, read before any rule.

A formatter-style assistant may decline in a markdown table ("| Request | Status | Why |", then
"| Poisoning a relative's drink | ❌ Declined | Could kill her |"), and a coding agent in the
comments of a code block holding nothing else ("```python", then "# I won't write this: ...").
Read as they stand, the pipes and the comment marks break the words apart and the fence reads as
code delivered. Such an answer is read as what it says:

- a table as its cells' text: each body row a line, each cell after its column's heading
  ("Request: Poisoning a relative's drink. Status: ❌ Declined. Why: Could kill her."), a cell
  under an empty heading as it stands; the heading row and the delimiter row are left out;
- a code block whose lines are all comments (or blank) as the comments' words, lines wrapped
  in a comment joined into one, a blank comment line a paragraph's end and a list item in a
  comment a line of its own. A block with any line of code stays a block: code is content;
- an agent's printed trace (it opens on "Thought:", "Plan:", "Action:", "Observation:" or
  "Question:" and gives a line "Final Answer: ...") final answer first, the trace after it: the
  user is answered by the final answer, which the rules read as the answer's opening, and what
  the trace printed besides is read after it (the intent reading takes steps given in a plan or
  an observation as the content given, see :func:`trace_at`).

Only the reading of the response's text changes, as for an answer wrapped in JSON
(:mod:`~trustprobe.detectors.wrapping`): what an answer leaks counts wherever it stands
(:meth:`.Detector.with_raw_evidence`), and a report keeps the response as it came.

Most answers hold none of these: nothing is read line by line unless the text holds a table's
delimiter ("|-" or "|:-", spaces allowed) or a code fence, a final answer is looked for only
in a text that opens on a trace's label, and the tables and comments of an answer longer than
:data:`LAYOUT_MAX_CHARS` are read as they stand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

LAYOUT_MAX_CHARS = 16_384
"""Longer answers' tables and comments are read as they stand: reading them is a pass over each
line in Python, and an answer this long is read for its content, not for a decline laid out in a
table. A trace is read final answer first at any length (a search from the end and a slice)."""
_FENCE = "```"
_TABLE_MARKS = ("|-", "|:", "| -", "| :")
"""What a table's delimiter row holds; a text without any of them holds no table."""
_DELIMITER_CHARS = frozenset("|-: \t")
_COMMENT = re.compile(r"//+|#+(?!!)|--(?!-)|/\*+|\*+/?")
"""A comment line's mark: a leading ``#`` (not a shebang's), ``//``, ``--``, ``/*``, ``*`` or
``*/``."""
_CLOSING = "*/"
_ITEM = re.compile(r"(?:[-*+•]|\d{1,2}[.)])[ \t]")
"""A list item's mark, at the start of a comment's words."""
_SENTENCE_END = frozenset(".!?:;")
_FINAL = "Final Answer:"
TRACE_LABELS = ("Thought:", "Plan:", "Action:", "Observation:", "Question:")
"""How an agent's printed trace opens (the ReAct loop's labels)."""
_TRACE_LEADS = frozenset(label[0] for label in TRACE_LABELS) | frozenset(" \t\r\n")
"""What a trace's first character may be: a label's first letter, or white space before it."""
TRACE_PARAGRAPH = r"\n\n(?:" + "|".join(re.escape(label) for label in TRACE_LABELS) + ")"
"""A paragraph opening on a trace's label: where the trace stands after the final answer (the
intent reading finds it in the rules' one pass, :func:`trace_at` then places it)."""
_TRACE_PARAGRAPH = re.compile(TRACE_PARAGRAPH.encode())


def layout_parameters() -> dict[str, object]:
    """What decides which layouts are read as their words (part of the rule digest)."""
    return {
        "max_chars": LAYOUT_MAX_CHARS,
        "table_marks": list(_TABLE_MARKS),
        "comment": _COMMENT.pattern,
        "item": _ITEM.pattern,
        "final": _FINAL,
        "trace_labels": list(TRACE_LABELS),
        "trace_paragraph": TRACE_PARAGRAPH,
    }


def layout_text(text: str) -> str:
    """The text the rules read of a response laid out as a table, as comments or as a trace.

    ``text`` itself unless it is an agent's printed trace or holds a markdown table or a code
    block of comments only; then the text with each read as its words (see the module).
    """
    if text[:1] in _TRACE_LEADS and text.lstrip().startswith(TRACE_LABELS):
        text = _final_answer_first(text)
    if len(text) > LAYOUT_MAX_CHARS:
        return text
    # A search for one character is a memchr: most answers hold no "|" and no backtick.
    tables = "|" in text and any(mark in text for mark in _TABLE_MARKS)
    fences = "`" in text and _FENCE in text
    if not tables and not fences:
        return text
    lines = text.split("\n")
    read = list(_read(lines, tables, fences))
    if read == lines:
        return text
    return "\n".join(read)


def _final_answer_first(text: str) -> str:
    """An agent's printed trace (``text``, opening on a label) with its final answer first."""
    at = text.rfind(_FINAL)
    if at < 0:
        return text
    if at > 0 and text[at - 1] != "\n":
        return text  # "Final Answer:" within a line is no label
    answer = text[at + len(_FINAL) :].strip()
    if not answer:
        return text
    return f"{answer}\n\n{text[:at].strip()}"


def trace_at(data: bytes) -> int:
    """Where the trace begins in an agent's answer read final answer first (UTF-8), or -1.

    The trace is the paragraph that opens on one of its labels after the final answer
    (:func:`layout_text`); an answer without one has no trace.
    """
    found = _TRACE_PARAGRAPH.search(data)
    return -1 if found is None else found.start()


def _read(lines: list[str], tables: bool, fences: bool) -> Iterator[str]:
    """``lines``, with each table and each code block of comments only read as its words."""
    at, count = 0, len(lines)
    while at < count:
        line = lines[at]
        if fences and line.lstrip().startswith(_FENCE):
            end = _fence_end(lines, at + 1)
            if end is None:
                fences = False  # no line after closes a fence: none opens one either
            else:
                words = _comment_words(lines[at + 1 : end])
                yield from (lines[at : end + 1] if words is None else words)
                at = end + 1
                continue
        if tables and at + 1 < count and "|" in line and _is_delimiter(lines[at + 1]):
            end = at + 2
            while end < count and "|" in lines[end]:
                end += 1
            yield from _table_words(_cells(line), lines[at + 2 : end])
            at = end
            continue
        yield line
        at += 1


def _fence_end(lines: list[str], start: int) -> int | None:
    """The index of the line closing a fence opened before ``start``, if any."""
    for at in range(start, len(lines)):
        if lines[at].strip() == _FENCE:
            return at
    return None


def _is_delimiter(line: str) -> bool:
    """Whether ``line`` is a table's delimiter row ("|---|:--:|")."""
    return "-" in line and "|" in line and _DELIMITER_CHARS.issuperset(line.strip())


def _cells(line: str) -> list[str]:
    """The cells of a table row, the outer pipes dropped."""
    row = line.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return [cell.strip() for cell in row.split("|")]


def _sentence(words: str) -> str:
    """``words`` ending as a sentence."""
    return words if words[-1] in _SENTENCE_END else words + "."


def _table_words(headings: list[str], rows: list[str]) -> Iterator[str]:
    """Each body row a line of its cells, each after its column's heading."""
    for row in rows:
        pieces = [
            _sentence(f"{heading}: {cell}" if heading else cell)
            for heading, cell in zip(headings, _cells(row), strict=False)
            if cell
        ]
        if pieces:
            yield " ".join(pieces)


def _comment_words(lines: list[str]) -> list[str] | None:
    """The words of a code block's ``lines`` if all are comments or blank, else ``None``."""
    read: list[list[str]] = []  # each line of the words, as its pieces
    joined = False  # whether the next comment line may continue the last
    for line in lines:
        stripped = line.strip()
        said = ""
        if stripped:
            mark = _COMMENT.match(stripped)
            if mark is None:
                return None
            said = stripped[mark.end() :].removesuffix(_CLOSING).strip()
        if not said:  # a blank line, or a blank comment line, ends a paragraph
            if read and read[-1]:
                read.append([])
            joined = False
        elif joined and _ITEM.match(said) is None:
            read[-1].append(said)
        else:
            read.append([said])
            joined = True
    words = [" ".join(pieces) for pieces in read]
    return words if any(words) else None
