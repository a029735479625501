"""Pydantic models assembled from values already of their fields' exact types.

Validating values that were typed by construction (checked by mypy) costs a third of scoring a
case and a fifth of building a trust score (docs/benchmarks.md). Where that matters, a model is
assembled from its field values and pydantic's per-class state instead; the tests of each such
model check that it equals its re-validated self, types, fields set and pydantic's state
included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, cast

from pydantic import BaseModel

_Setter = Callable[[Any, Any], None]


class ModelState(NamedTuple):
    """Pydantic's attributes of an instance besides its fields and their set."""

    extra: dict[str, Any] | None
    """``__pydantic_extra__``: the extra fields (``None`` where the model allows none)."""
    private: dict[str, Any] | None
    """``__pydantic_private__``: the private attributes' values (``None`` where it has none)."""


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
_set_extra = _slot_setter("__pydantic_extra__")
_set_private = _slot_setter("__pydantic_private__")
_STATE_KEYS = {"__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"}


def model_state(instance: BaseModel) -> ModelState:
    """Pydantic's state of ``instance`` besides its fields and their set.

    The same for every instance of its class that pydantic built.
    """
    state = instance.__getstate__()
    if state.keys() != _STATE_KEYS:  # assemble sets these four slots, and nothing else
        raise RuntimeError(f"pydantic's state of a model is no longer {sorted(_STATE_KEYS)}")
    return ModelState(state["__pydantic_extra__"], state["__pydantic_private__"])


def assemble(cls: type[_M], values: dict[str, Any], fields_set: set[str], state: ModelState) -> _M:
    """An instance of ``cls`` holding ``values`` (every field, in the model's order), unchecked.

    ``fields_set`` becomes its ``model_fields_set``; ``state`` is :func:`model_state` of an
    instance pydantic built.
    """
    instance = cls.__new__(cls)
    _set_dict(instance, values)
    _set_fields_set(instance, fields_set)
    _set_extra(instance, state.extra)
    _set_private(instance, state.private)
    return instance
