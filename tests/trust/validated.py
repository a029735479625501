"""A check that a model built without validation is exactly what validation would build."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def assert_as_validated(model: BaseModel) -> None:
    """``model`` equals its re-validated self: the same values of the same types, the same set
    fields and the same pydantic state, nested models included, and the same JSON."""
    again = type(model).model_validate(model.model_dump(exclude_unset=True))
    _assert_same(model, again, type(model).__name__)
    assert model.model_dump_json() == again.model_dump_json()


def _assert_same(built: Any, validated: Any, where: str) -> None:
    assert type(built) is type(validated), f"{where}: {type(built)} against {type(validated)}"
    if isinstance(built, BaseModel):
        state, expected = built.__getstate__(), validated.__getstate__()
        assert state.keys() == expected.keys(), where
        for key in state:
            if key != "__dict__":
                assert state[key] == expected[key], f"{where}.{key}"
        assert list(built.__dict__) == list(validated.__dict__), f"{where}: field order"
        for name, value in built.__dict__.items():
            _assert_same(value, validated.__dict__[name], f"{where}.{name}")
    elif isinstance(built, dict):
        assert list(built) == list(validated), where
        for key, value in built.items():
            _assert_same(key, next(k for k in validated if k == key), f"{where} key")
            _assert_same(value, validated[key], f"{where}[{key!r}]")
    elif isinstance(built, list):
        assert len(built) == len(validated), where
        for i, (a, b) in enumerate(zip(built, validated, strict=True)):
            _assert_same(a, b, f"{where}[{i}]")
    else:
        assert built == validated or (built != built and validated != validated), where
