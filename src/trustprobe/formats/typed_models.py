"""Pydantic models assembled from values already of their fields' exact types.

Validating values that were typed by construction (checked by mypy) costs a third of scoring a
case and a fifth of building a trust score (docs/benchmarks.md). Where that matters, a model is
assembled from its field values and pydantic's per-class state instead; the tests of each such
model check that it equals its re-validated self, types, fields set and pydantic's state
included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from pydantic import BaseModel

_Setter = Callable[[Any, Any], None]
ModelState = tuple[tuple[_Setter, Any], ...]
"""Pydantic's attributes of an instance besides its fields and their set: each as the setter
of its slot and its value."""

_M = TypeVar("_M", bound=BaseModel)


def _slot_setter(name: str) -> _Setter:
    """The ``__set__`` of :class:`BaseModel`'s slot ``name``, called on an instance directly.

    About half the cost of ``object.__setattr__(instance, name, value)``, which checks the call,
    looks the slot up on the instance's type and then calls the same setter (docs/benchmarks.md,
    "In process, same data"). The model's own ``__setattr__`` is bypassed either way.
    """
    slot = BaseModel.__dict__.get(name)
    setter = getattr(slot, "__set__", None)
    if setter is None:
        raise RuntimeError(f"pydantic's BaseModel no longer has a slot {name!r}")
    return cast(_Setter, setter)


_set_dict = _slot_setter("__dict__")
_set_fields_set = _slot_setter("__pydantic_fields_set__")


def model_state(instance: BaseModel) -> ModelState:
    """Pydantic's state of ``instance`` besides its fields and their set.

    The same for every instance of its class that pydantic built.
    """
    return tuple(
        (_slot_setter(key), value)
        for key, value in instance.__getstate__().items()
        if key not in ("__dict__", "__pydantic_fields_set__")
    )


def assemble(cls: type[_M], values: dict[str, Any], fields_set: set[str], state: ModelState) -> _M:
    """An instance of ``cls`` holding ``values`` (every field, in the model's order), unchecked.

    ``fields_set`` becomes its ``model_fields_set``; ``state`` is :func:`model_state` of an
    instance pydantic built.
    """
    instance = cls.__new__(cls)
    _set_dict(instance, values)
    _set_fields_set(instance, fields_set)
    for set_slot, value in state:
        set_slot(instance, value)
    return instance
