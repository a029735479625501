r"""Text that can always be written: lone UTF-16 surrogates replaced with U+FFFD.

A JSON ``"\ud800"`` escape decodes to a lone surrogate: a Python string, but not Unicode text,
so it cannot be encoded as UTF-8 and any report, journal or hash of it would fail. Agents emit
such escapes (a model cut off mid-emoji, a buggy proxy); they are replaced where text enters,
like invalid UTF-8 bytes, and the record is reported as repaired.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

from pydantic import AfterValidator, Field, ValidationInfo

REPLACEMENT: Final = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# In decoded strings every surrogate is lone: json.loads joins a valid pair into one character.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def replace_lone_surrogates(text: str) -> tuple[str, bool]:
    """``text`` with each lone surrogate replaced by U+FFFD, and whether any was."""
    repaired, count = _LONE_SURROGATE.subn(REPLACEMENT, text)
    return repaired, count > 0


def repair_strings(value: Any) -> tuple[Any, bool]:
    """``value`` (decoded JSON) with lone surrogates replaced in every string, keys included."""
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, list):
        items = [repair_strings(item) for item in value]
        return [item for item, _ in items], any(changed for _, changed in items)
    if isinstance(value, dict):
        changed = False
        repaired: dict[Any, Any] = {}
        for key, item in value.items():
            new_key, key_changed = repair_strings(key)
            repaired[new_key], item_changed = repair_strings(item)
            changed = changed or key_changed or item_changed
        return repaired, changed
    return value, False


def may_hold_surrogate_escape(raw: bytes) -> bool:
    r"""Whether JSON text ``raw`` has a ``\uD800``-``\uDFFF`` escape (cheap pre-check)."""
    return b"\\u" in raw and _SURROGATE_ESCAPE.search(raw) is not None


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_UNFIT_IN_ID = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")  # controls, lone surrogates


STORED_CONTEXT: Final = "stored"
"""Validation context key set when re-reading records a store accepted earlier: rules added
since then (id characters, time range) are not applied again, so an older store stays readable.
"""


def entering(info: ValidationInfo) -> bool:
    """Whether a validator runs on new input (not on a record re-read from a store)."""
    return not (isinstance(info.context, dict) and info.context.get(STORED_CONTEXT))


def check_identifier(value: str, info: ValidationInfo) -> str:
    """Refuse an id holding a control character or a lone surrogate (pydantic validator).

    Ids are stored as database text and shown in tables: PostgreSQL cannot store NUL, a lone
    surrogate cannot be encoded at all, and SQLite accepting both would make the two backends
    disagree on what is valid. Checking in the model makes every backend refuse alike.
    """
    # One search finds any character either rule refuses (nearly every id has none); only then
    # is it told which, and whether the rules apply.
    if _UNFIT_IN_ID.search(value) is None or not entering(info):
        return value
    if _CONTROL.search(value):
        raise ValueError("must not contain control characters (U+0000-U+001F, U+007F-U+009F)")
    return check_storable(value)


def check_storable(value: str) -> str:
    """Refuse free text that no database can store: NUL, or a lone surrogate (validator)."""
    if "\x00" in value:
        raise ValueError("must not contain the NUL character (U+0000)")
    if _LONE_SURROGATE.search(value):
        raise ValueError("must be text: it holds a lone UTF-16 surrogate")
    return value


Identifier = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(check_identifier)]
"""An id as the public formats take it: 1-200 characters, no control characters."""
StorableText = Annotated[str, AfterValidator(check_storable)]
"""Free text a database can store (no NUL, no lone surrogate); line breaks are fine."""


# Characters that change how the text around them is shown without being seen: bidirectional
# controls (U+202E makes "exe.txt" read "txt.exe"), zero-width and other invisible format
# characters, tag characters (text hidden from people but read by models), and C0/C1 controls.
# Zero-width (non-)joiners stay: scripts and emoji sequences need them.
_INVISIBLE = re.compile(
    "[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


def show_invisible(text: str) -> str:
    """``text`` with each invisible or direction-changing character shown as ``⟨U+202E⟩``.

    For reports a person reads: a response must not be able to reorder or hide what is shown
    next to it (visual spoofing). Line breaks and tabs are kept.
    """
    return _INVISIBLE.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", text)
