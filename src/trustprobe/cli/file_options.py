"""File flags as a shell user writes them: several paths per flag, quoted globs, and ``-``.

Click gives an option one value per occurrence, so ``--responses a.jsonl b.jsonl`` (what a
shell makes of ``--responses *.jsonl``) would leave ``b.jsonl`` as an unexpected argument.
:func:`spread_values` rewrites it to ``--responses a.jsonl --responses b.jsonl`` before
parsing, for the flags listed in :data:`MULTI_PATH_FLAGS`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from trustprobe.errors import InputError
from trustprobe.formats import STDIO, expand_paths, spooled

MULTI_PATH_FLAGS: dict[str, frozenset[str]] = {
    "score": frozenset({"--probes", "-p", "--responses", "-r", "--rules"}),
    "scan": frozenset({"--probes", "-p"}),
}
"""Per command, the flags that take several paths after one occurrence."""


def _is_value(token: str) -> bool:
    return token == STDIO or not token.startswith("-")


def spread_values(args: Sequence[str], flags: frozenset[str]) -> list[str]:
    """Repeat a multi-path flag before each of the values that follow it.

    Values are the tokens up to the next option (``-`` alone is a value: stdin); ``--`` ends
    options as usual and is left alone with everything after it.
    """
    spread: list[str] = []
    tokens = list(args)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            return [*spread, *tokens[index:]]
        spread.append(token)
        index += 1
        flag, equals, _ = token.partition("=")
        if flag not in flags:
            continue
        if not equals:  # "--flag VALUE": the next token is the value, whatever it looks like
            if index >= len(tokens):
                continue
            spread.append(tokens[index])
            index += 1
        while index < len(tokens) and _is_value(tokens[index]):
            spread += [flag, tokens[index]]
            index += 1
    return spread


@contextmanager
def read_inputs(paths: Sequence[str | Path]) -> Iterator[tuple[list[str], dict[str, str]]]:
    """The paths with globs expanded and ``-`` spooled from stdin to a temporary file.

    Yields the paths to read and the names messages use for spooled ones (``<stdin>``); the
    temporary file is removed when the block ends. Pipes are read where they are, once.

    Raises:
        InputError: a pattern matches no file, or ``-`` is given twice.
    """
    with spooled(expand_paths(paths)) as inputs:
        yield inputs


def is_stdout(path: Path | None) -> bool:
    """Whether an output flag says ``-`` (standard output)."""
    return path is not None and str(path) == STDIO


def check_stdout_outputs(*paths: Path | None) -> bool:
    """Whether one output goes to stdout; refuses more than one.

    Raises:
        InputError: two outputs are ``-``.
    """
    count = sum(is_stdout(p) for p in paths)
    if count > 1:
        raise InputError("only one output can go to stdout ('-')", path=STDIO)
    return count == 1


def _same_file(first: Path, second: Path) -> bool:
    """Whether two paths name one file: by inode when both exist, else by resolved name."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return first.resolve() == second.resolve()


def check_outputs_apart(inputs: Sequence[Path], outputs: Sequence[tuple[str, Path | None]]) -> None:
    """Refuse an output that names an input, or the file another output names.

    Outputs are written under a temporary name and renamed over the target once the command
    has succeeded, so an output naming an input would replace the input with the result: the
    input would be gone. ``-`` (standard output) and options not given are skipped.

    Raises:
        InputError: an output is an input file, or two outputs are the same file.
    """
    given = [(flag, path) for flag, path in outputs if path is not None and not is_stdout(path)]
    for index, (flag, path) in enumerate(given):
        for source in inputs:
            if not is_stdout(source) and _same_file(path, source):
                raise InputError(
                    f"is the input file {str(source)!r}: writing here would replace it; "
                    "name another file",
                    path=path,
                    field=flag,
                )
        for other_flag, other in given[:index]:
            if _same_file(path, other):
                raise InputError(
                    f"is also the file of {other_flag}: one output would replace the other; "
                    "name another file",
                    path=path,
                    field=flag,
                )
