r"""Text that can always be written: lone UTF-16 surrogates replaced with U+FFFD.

A JSON ``"\ud800"`` escape decodes to a lone surrogate: a Python string, but not Unicode text,
so it cannot be encoded as UTF-8 and any report, journal or hash of it would fail. Agents emit
such escapes (a model cut off mid-emoji, a buggy proxy); they are replaced where text enters,
like invalid UTF-8 bytes, and the record is reported as repaired.
"""

from __future__ import annotations

import re
from typing import Any, Final

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
