"""YAML reading that keeps the node tree, so errors can name the line of an item."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from trustprobe.errors import InputError

if TYPE_CHECKING:  # imported on use: the command line's --help reads no YAML
    import yaml


def read_yaml(path: Path, name: str | None = None) -> tuple[Any, yaml.Node | None]:
    """Return the parsed data and its node tree (for line numbers) of a UTF-8 YAML file.

    ``name`` is the file as messages name it (``<stdin>`` for standard input copied to
    ``path``); by default ``path``.

    Raises:
        InputError: unreadable file, invalid UTF-8 or invalid YAML (with the line when known).
    """
    shown = str(path) if name is None else name
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("file is not valid UTF-8", path=shown) from exc
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=shown) from exc
    parsed = _read_with_libyaml(text, shown)
    return _read_with_pyyaml(text, shown) if parsed is None else parsed


def _read_with_pyyaml(text: str, shown: str) -> tuple[Any, yaml.Node | None]:
    """Data and node tree parsed by the pure-Python reader, whose errors name the line."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        _check_keys(node, shown)  # before the data: merge keys (<<) are flattened into the tree
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"not valid YAML: {problem}", path=shown, line=line) from exc
    except RecursionError as exc:
        raise InputError("not valid YAML (nested too deeply to read)", path=shown) from exc
    return data, node


def _read_with_libyaml(text: str, shown: str) -> tuple[Any, yaml.Node | None] | None:
    """Data and node tree parsed once by libyaml; ``None`` if libyaml is absent or fails.

    Ten times faster than the pure-Python parser, which parses twice (the tree, then the
    data): the built-in probes and rule packs are read on every run. Any error is left to the
    pure-Python reader, whose messages (and its refusal of very deep nesting) stay the ones
    users see. The data are those of ``yaml.safe_load``: the same safe constructor builds
    them from the same tree.
    """
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", None)
    if loader_class is None:
        return None
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        _check_keys(node, shown)  # before the data: merge keys (<<) are flattened into the tree
        data = None if node is None else loader.construct_document(node)
    except (yaml.YAMLError, RecursionError):
        return None
    finally:
        loader.dispose()
    return data, node


def node_children(node: yaml.Node) -> list[yaml.Node]:
    """A YAML node's children: a mapping's keys and values, a sequence's items."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


ALIAS_NODES = 100_000
"""Nodes aliases may add to a YAML document read in full (anchors repeated by reference)."""


def _check_keys(root: yaml.Node | None, shown: str) -> None:
    """Refuse a repeated key, an alias inside its own anchor, and aliases that expand too far.

    A YAML reader keeps a repeated key's last value only. Aliases share their anchor's data,
    but everything that walks the data (validation, hashing, writing it out) walks each
    reference again: nine levels of nine aliases (a "billion laughs") are 387 million nodes.
    Each node is looked at once, however many aliases name it; its expanded size is summed
    from its children's.
    """
    import yaml

    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [] if root is None else [(root, False)]
    while stack:
        node, closing = stack.pop()
        key = id(node)
        if closing:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in node_children(node))
            if sizes[key] > len(sizes) + ALIAS_NODES:
                raise InputError(
                    f"aliases expand this document past {ALIAS_NODES:,} repeated nodes",
                    path=shown,
                    line=node.start_mark.line + 1,
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise InputError(
                "an alias refers to itself (it is inside its own anchor)",
                path=shown,
                line=node.start_mark.line + 1,
            )
        open_nodes.add(key)
        if isinstance(node, yaml.MappingNode):
            _check_mapping(node, shown)
        stack.append((node, True))
        for child in node_children(node):
            if isinstance(child, yaml.ScalarNode):  # most nodes: no children, nothing to check
                sizes[id(child)] = 1
            else:
                stack.append((child, False))


def _check_mapping(node: yaml.MappingNode, shown: str) -> None:
    import yaml

    lines: dict[str, int] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        line = key.start_mark.line + 1
        if key.value in lines:
            raise InputError(
                f"given twice in one mapping (first on line {lines[key.value]}; "
                "the first value would be lost)",
                path=shown,
                line=line,
                field=key.value,
            )
        lines[key.value] = line
