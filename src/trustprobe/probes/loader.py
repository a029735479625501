"""Load probes from JSONL or YAML files, with errors that name file, line and field."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trustprobe.detectors.matching import engine_rejection
from trustprobe.errors import InputError, place
from trustprobe.formats import (
    canonical_json,
    node_children,
    read_jsonl,
    read_yaml,
    spooled,
    validation_error_to_input_error,
    without_bom,
)
from trustprobe.probes.models import Probe

BUILTIN = "builtin"
"""Name that selects the built-in catalog wherever a probe file is expected."""


_YAML_SUFFIXES = frozenset({".yaml", ".yml"})
_SNIFFED = 4096
"""Bytes looked at to tell a probe set without a suffix (stdin, a pipe) JSONL from YAML."""


def _yaml_items(path: Path, name: str) -> list[tuple[int | None, Any]]:
    """Parse a YAML list of probes, keeping each item's line number."""
    data, node = read_yaml(path, name)
    if data is None:
        return []
    if isinstance(data, dict) and "probes" in data:
        data = data["probes"]
        node = _probes_node(node, name)
    if not isinstance(data, list):
        raise InputError("expected a list of probes (or a mapping with a 'probes' list)", path=name)
    lines = [item.start_mark.line + 1 for item in node.value]  # type: ignore[union-attr]
    return list(zip(lines, data, strict=True))


def _probes_node(root: Any, name: str) -> Any:
    """The ``probes`` list of a YAML mapping, refusing another list nothing refers to.

    Only ``probes`` is read: a second list of probes beside it would be dropped without a
    word. A list that ``probes`` uses through an alias (shared tags) and other values
    (a name, a version) may stay.
    """
    import yaml

    probes = next(value for key, value in root.value if key.value == "probes")
    used: set[int] = set()
    stack = [probes]
    while stack:
        node = stack.pop()
        if id(node) not in used:
            used.add(id(node))
            stack += node_children(node)
    for key, value in root.value:
        if isinstance(value, yaml.SequenceNode) and id(value) not in used:
            raise InputError(
                "a list that is not read (only 'probes' is): move its probes into 'probes', "
                "or remove it",
                path=name,
                line=key.start_mark.line + 1,
                field=key.value,
            )
    return probes


def _is_yaml(path: Path, name: str) -> bool:
    """YAML by a ``.yaml``/``.yml`` suffix; without a suffix, unless it starts like JSONL."""
    suffix = Path(name).suffix.lower()
    if suffix:
        return suffix in _YAML_SUFFIXES
    try:
        with path.open("rb") as handle:
            head = without_bom(handle.read(_SNIFFED)).lstrip()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=name) from exc
    return not head.startswith(b"{")


def _items(path: Path, name: str) -> Iterable[tuple[int | None, Any]]:
    if _is_yaml(path, name):
        return _yaml_items(path, name)
    return _jsonl_items(path, name)


def _jsonl_items(path: Path, name: str) -> Iterator[tuple[int | None, Any]]:
    for line in read_jsonl(path, name, unique_keys=True):
        if line.repaired_utf8:  # probes are authored, not agent output: refuse, do not guess
            raise InputError(
                "invalid UTF-8 or a lone UTF-16 surrogate", path=line.path, line=line.line
            )
        yield line.line, line.data


def load_probe_file(path: str | Path, name: str | None = None) -> list[Probe]:
    """Load and validate one probe file (``.jsonl``, ``.yaml`` or ``.yml``).

    A file without a suffix (standard input or a pipe copied to ``path``) is JSONL when its
    first character is ``{``, else YAML. ``name`` is the file as messages name it (``<stdin>``);
    by default ``path``.
    """
    return [probe for _, probe in _placed_probes(Path(path), str(path) if name is None else name)]


def _placed_probes(source: Path, shown: str) -> Iterator[tuple[int | None, Probe]]:
    """Each probe of a file with its line, validated."""
    for line, item in _items(source, shown):
        if not isinstance(item, dict):
            raise InputError("each probe must be an object", path=shown, line=line)
        try:
            probe = Probe.model_validate(item)
        except ValidationError as exc:
            raise validation_error_to_input_error(exc, path=shown, line=line) from exc
        _check_signals(probe, shown, line)
        yield line, probe


def _patterns(probe: Probe) -> Iterable[tuple[str, str]]:
    """(field, pattern) of every RE2 pattern a probe holds."""
    for kind in ("unsafe", "safe"):
        for index, pattern in enumerate(probe.signals.patterns(kind)):
            yield f"signals.{kind}[{index}]", pattern
    for kind in ("unsafe_calls", "safe_calls", "required_calls"):
        for index, call in enumerate(getattr(probe, kind)):
            yield f"{kind}[{index}].tool", call.tool
            if call.arguments is not None:
                yield f"{kind}[{index}].arguments", call.arguments
    for name, script in probe.tool_results.items():
        for index, rule in enumerate(script.when):
            yield f"tool_results.{name}.when[{index}].arguments", rule.arguments


def _check_signals(probe: Probe, path: str, line: int | None) -> None:
    """Reject a pattern the linear-time engine cannot run, naming it precisely."""
    for field, pattern in _patterns(probe):
        reason = engine_rejection(pattern)
        if reason is not None:
            raise InputError(reason, path=path, line=line, field=field)


def _catalog_files() -> list[Path]:
    root = resources.files("trustprobe.probes") / "catalog"
    return sorted(Path(str(entry)) for entry in root.iterdir() if entry.name.endswith(".jsonl"))


def load_probes(
    sources: Sequence[str | Path], names: Mapping[str, str] | None = None
) -> list[Probe]:
    """Load probes from files (or ``builtin``), rejecting duplicate ids across all of them.

    ``-`` reads standard input and a pipe is read once from its start (both copied to a
    temporary file first); ``names`` gives a path the name messages use instead (``<stdin>``
    for a copy the caller made).
    """
    given = [str(source) for source in sources]
    probes: list[Probe] = []
    seen: dict[str, str] = {}
    with spooled(given, streams=True) as (paths, copies):
        shown = {**(names or {}), **copies}
        for source in paths:
            files = _catalog_files() if source == BUILTIN else [Path(source)]
            for path in files:
                name = shown.get(str(path), str(path))
                for line, probe in _placed_probes(path, name):
                    if probe.id in seen:
                        raise InputError(
                            f"duplicate probe id '{probe.id}' (first defined in {seen[probe.id]})",
                            path=name,
                            line=line,
                            field="id",
                        )
                    seen[probe.id] = place(name, line=line)
                    probes.append(probe)
    return probes


def builtin_probes() -> list[Probe]:
    """The built-in catalog."""
    return load_probes([BUILTIN])


# Fields added with tool calls: left out of the hash at their defaults, so a probe set without
# tools hashes as it did before them (resume and report comparison still recognise it).
_TOOL_FIELDS = (
    "tools",
    "tool_results",
    "tool_choice",
    "max_steps",
    "unsafe_calls",
    "safe_calls",
    "required_calls",
)


def probe_set_hash(probes: Iterable[Probe]) -> str:
    """SHA-256 over the canonical JSON of the probes, in id order (for report provenance)."""
    digest = hashlib.sha256()
    for probe in sorted(probes, key=lambda p: p.id):
        data = probe.model_dump(mode="json")
        for name in _TOOL_FIELDS:
            if getattr(probe, name) == Probe.model_fields[name].get_default(
                call_default_factory=True
            ):
                del data[name]
        digest.update(canonical_json(data).encode())
        digest.update(b"\n")
    return digest.hexdigest()
