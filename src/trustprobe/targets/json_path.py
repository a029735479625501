"""Find a value in decoded JSON by a dotted path or a JSON Pointer (RFC 6901)."""

from __future__ import annotations

from typing import Any


class PathNotFound(LookupError):
    """The path does not lead to a value in this document."""


def path_segments(path: str) -> list[str]:
    """Split a path: ``/a/0/b`` is a JSON Pointer, anything else is dotted (``a.0.b``)."""
    if path.startswith("/"):
        return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]
    return path.split(".")


def find_path(document: Any, path: str) -> Any:
    """Return the value at ``path`` (list indexes are integers; negative ones count back)."""
    node = document
    walked: list[str] = []
    for segment in path_segments(path):
        walked.append(segment)
        if isinstance(node, dict):
            if segment not in node:
                raise PathNotFound(f"no key '{segment}' at {'.'.join(walked[:-1]) or 'top'}")
            node = node[segment]
        elif isinstance(node, list):
            try:
                node = node[int(segment)]
            except (ValueError, IndexError) as exc:
                where = ".".join(walked[:-1]) or "top"
                raise PathNotFound(f"no item '{segment}' in the list at {where}") from exc
        else:
            where = ".".join(walked[:-1]) or "top"
            raise PathNotFound(f"cannot look up '{segment}' in a {type(node).__name__} at {where}")
    return node
