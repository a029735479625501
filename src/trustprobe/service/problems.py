"""A request body's first problems, found without building every one of them.

Validating a body builds one error per problem, and a small body can hold a great many: every
``{}`` in a report's ``cases`` misses some twenty required fields, so 200 kB of them held 1.3 GB
while a million errors were built. Here each element of a list of models is validated on its
own (its own lists first), and the search stops once enough problems are found.
"""

from __future__ import annotations

import types
from functools import cache
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError


def _model(annotation: Any) -> type[BaseModel] | None:
    """The model ``annotation`` names, alone or in an optional (``X | None``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Union, types.UnionType):
        found = [m for a in get_args(annotation) if (m := _model(a)) is not None]
        return found[0] if len(found) == 1 else None
    return None


def _item_model(annotation: Any) -> type[BaseModel] | None:
    """``X`` when ``annotation`` is a list of the model ``X`` (or such a list, optional)."""
    if get_origin(annotation) in (Union, types.UnionType):
        found = [m for a in get_args(annotation) if (m := _item_model(a)) is not None]
        return found[0] if len(found) == 1 else None
    if get_origin(annotation) is list:
        (item,) = get_args(annotation) or (None,)
        return _model(item)
    return None


@cache
def _adapter(model: type[BaseModel]) -> TypeAdapter[Any]:
    return TypeAdapter(model)


@cache
def _nested(
    model: type[BaseModel],
) -> tuple[tuple[str, type[BaseModel] | None, type[BaseModel] | None], ...]:
    """The fields of ``model`` that hold models: (name, item model of a list, model)."""
    found = []
    for name, field in model.model_fields.items():
        item, inner = _item_model(field.annotation), _model(field.annotation)
        if item is not None or inner is not None:
            found.append((name, item, inner))
    return tuple(found)


def first_problems(
    model: type[BaseModel], data: Any, *, limit: int, loc: tuple[Any, ...] = ()
) -> list[dict[str, Any]]:
    """Up to ``limit`` problems of the lists of models inside ``data``, in document order.

    Errors are pydantic's, located from the body's root (``loc`` is prepended). Fewer than
    ``limit`` means the lists hold no more problems than that: validating ``data`` as a whole
    then builds a bounded number of errors.
    """
    found: list[dict[str, Any]] = []
    _search(model, data, loc, found, limit)
    return found[:limit]


def _search(
    model: type[BaseModel],
    data: Any,
    loc: tuple[Any, ...],
    found: list[dict[str, Any]],
    limit: int,
) -> None:
    if not isinstance(data, dict):
        return
    for name, item, inner in _nested(model):
        value = data.get(name)
        if item is not None and isinstance(value, list):
            for index, element in enumerate(value):
                before = len(found)
                _search(item, element, (*loc, name, index), found, limit)
                if len(found) == before:  # its own lists are sound: its errors are few
                    try:
                        _adapter(item).validate_python(element)
                    except ValidationError as exc:
                        found.extend(
                            {**error, "loc": (*loc, name, index, *error["loc"])}
                            for error in exc.errors(include_url=False)
                        )
                if len(found) >= limit:
                    return
        elif inner is not None:
            _search(inner, value, (*loc, name), found, limit)
            if len(found) >= limit:
                return
