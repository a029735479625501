"""Pydantic models assembled from values already of their fields' exact types.

Validating values that were typed by construction (checked by mypy) costs a third of scoring a
case and a fifth of building a trust score (docs/benchmarks.md). Where that matters, a model is
assembled from its field values and pydantic's per-class state instead; the tests of each such
model check that it equals its re-validated self, types, fields set and pydantic's state
included.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

ModelState = tuple[tuple[str, Any], ...]
"""Pydantic's attributes of an instance besides its fields and their set."""

_M = TypeVar("_M", bound=BaseModel)
_set_attribute = object.__setattr__


def model_state(instance: BaseModel) -> ModelState:
    """Pydantic's state of ``instance`` besides its fields and their set.

    The same for every instance of its class that pydantic built.
    """
    return tuple(
        (key, value)
        for key, value in instance.__getstate__().items()
        if key not in ("__dict__", "__pydantic_fields_set__")
    )


def assemble(cls: type[_M], values: dict[str, Any], fields_set: set[str], state: ModelState) -> _M:
    """An instance of ``cls`` holding ``values`` (every field, in the model's order), unchecked.

    ``fields_set`` becomes its ``model_fields_set``; ``state`` is :func:`model_state` of an
    instance pydantic built.
    """
    instance = cls.__new__(cls)
    _set_attribute(instance, "__dict__", values)
    _set_attribute(instance, "__pydantic_fields_set__", fields_set)
    for key, value in state:
        _set_attribute(instance, key, value)
    return instance
