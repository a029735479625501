"""The one canonical JSON spelling, for everything that is hashed or compared as text."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any, Final

import msgspec

# The reference spelling. One encoder for every call: json.dumps with these options builds a
# new one each time, which costs about a quarter of encoding a small record.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
# msgspec writes the same text three times faster for the values it spells alike (see
# _msgspec_spells_alike); tests/formats/test_canonical.py holds the two to the same text.
_FAST_ENCODER = msgspec.json.Encoder(order="sorted")
# Python writes a float in exponent form (1e-05, 1e+16) outside this range, msgspec otherwise.
_FIXED_NOTATION = (1e-4, 1e16)


def canonical_json(value: Any, *, floats: Iterable[Any] | None = None) -> str:
    """Deterministic JSON: sorted keys, no insignificant whitespace, UTF-8 kept as is, no NaN.

    ``floats``, when given, are every float ``value`` holds, and the caller vouches that the
    rest is plain JSON (exact ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, ``bool``,
    ``None``): a validated model's ``model_dump(mode="json")``, whose fields fix the types. Only
    they are checked then, instead of every value (the check walks ``value`` in Python).
    """
    try:
        alike = (
            _msgspec_spells_alike(value)
            if floats is None
            else all(_msgspec_spells_number_alike(number) for number in floats)
        )
        if alike:
            return _FAST_ENCODER.encode(value).decode()
    except (UnicodeEncodeError, RecursionError):  # a lone surrogate; a circular value
        pass
    return _ENCODER.encode(value)


def _msgspec_spells_alike(value: Any) -> bool:
    """Whether msgspec writes ``value`` exactly as :data:`_ENCODER` does.

    True for plain JSON values (exact ``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
    ``bool``, ``None``) whose floats are zero or in :data:`_FIXED_NOTATION`; anything else
    (tuples, subclasses such as enums, NaN, other floats) takes the reference encoder.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return _msgspec_spells_number_alike(value)
    if kind is dict:
        return all(type(key) is str and _msgspec_spells_alike(item) for key, item in value.items())
    if kind is list:
        return all(_msgspec_spells_alike(item) for item in value)
    return False


def _msgspec_spells_number_alike(number: Any) -> bool:
    """Whether ``number`` is an ``int`` or a float msgspec writes as :data:`_ENCODER` does."""
    kind = type(number)
    if kind is int:
        return True
    return kind is float and bool(
        number == 0.0 or _FIXED_NOTATION[0] <= abs(number) < _FIXED_NOTATION[1]
    )


SMALL_DECIMALS: Final = tuple(b"%d" % number for number in range(4096))
"""The ASCII decimal spelling of 0 to 4095, by number: for what is spelled once per case (a
case's sample), looking it up costs about a tenth of formatting it (``b"%d" % number``)."""


def sha256_hex(text: str) -> str:
    """Hex SHA-256 of UTF-8 ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
