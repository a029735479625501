"""Ids refuse control characters on the way in, never when read back.

(A lone surrogate, the other character ``check_identifier`` refuses, never reaches it through
pydantic, which refuses such a string first.)
"""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from trustprobe.formats import STORED_CONTEXT, Identifier

IDS: TypeAdapter[str] = TypeAdapter(Identifier)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a\x00b", "must not contain control characters"),
        ("tab\there", "must not contain control characters"),
        ("del\x7f", "must not contain control characters"),
        ("c1\x9f", "must not contain control characters"),
    ],
)
def test_an_unfit_character_is_refused_with_its_reason(value: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        IDS.validate_python(value)
    assert IDS.validate_python(value, context={STORED_CONTEXT: True}) == value


@pytest.mark.parametrize("value", ["agent-7", "café/ü", "\u00a0nbsp", "emoji \U0001f600", "\x20"])
def test_printable_ids_pass_unchanged(value: str) -> None:
    assert IDS.validate_python(value) == value
