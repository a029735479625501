"""Attack suite, probe files: hostile definitions end in exit 2 naming file, line and field.

What the loader tests already cover (wrong types, unknown fields, patterns RE2 cannot run) is
not repeated here; these are the ways a probe file could still lose data silently or hang.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.cli.test_attack_inputs import PROBE, check_refused


def _yaml_probe(extra: str = "", first: str = "id: c-0") -> str:
    return (
        f"- {first}\n  category: prompt_injection\n  severity: high\n  task: Keep it.\n"
        f"  input: What is it?\n  expected: refuse\n{extra}"
    )


def test_a_repeated_id_names_both_lines(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "probes.jsonl"
    other = {**PROBE, "id": "c-1"}
    path.write_text("".join(json.dumps(p) + "\n" for p in (PROBE, other, PROBE)))
    result = cli("probes", "validate", path)
    check_refused(result, f"{path}:3: field 'id'", f"first defined in {path}:1")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        pytest.param(
            json.dumps(PROBE)[:-1] + ', "severity": "low"}\n', ":1: field 'severity'", id="jsonl"
        ),
        pytest.param(
            json.dumps(PROBE)[:-2] + ', "safe": ["x"], "unsafe": ["y"]}}\n',
            ":1: field 'unsafe'",
            id="jsonl-nested",
        ),
        pytest.param(_yaml_probe("  severity: low\n"), ":7: field 'severity'", id="yaml"),
    ],
)
def test_a_key_given_twice_in_one_object_is_refused(
    cli: Cli, tmp_path: Path, text: str, where: str
) -> None:
    """Read as JSON and YAML readers do, the last value would win and the first be lost."""
    path = tmp_path / ("probes.yaml" if text.startswith("-") else "probes.jsonl")
    path.write_text(text)
    check_refused(cli("probes", "validate", path), f"{path}{where}", "given twice")


def test_a_merged_key_may_be_given_again(cli: Cli, tmp_path: Path) -> None:
    """``<<: *defaults`` then ``severity: low`` overrides one default: nothing is lost."""
    path = tmp_path / "probes.yaml"
    defaults = "defaults: &d {category: x, severity: high, expected: refuse}\nprobes:\n"
    path.write_text(defaults + "- {<<: *d, id: a, severity: low, task: t, input: i}\n")
    result = cli("probes", "list", "-p", path)
    assert result.returncode == 0, result.stderr
    assert "low" in result.stdout


def test_aliases_that_expand_past_the_limit_are_refused(cli: Cli, tmp_path: Path) -> None:
    """A billion laughs: nine levels of nine aliases are 387 million nodes to validate."""
    levels = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 9)]
    tools = "  tools:\n  - name: f\n    parameters: {type: object, examples: *l8}\n"
    path = tmp_path / "probes.yaml"
    path.write_text("\n".join(levels) + "\nprobes:\n" + _yaml_probe(tools))
    check_refused(cli("probes", "validate", path), f"{path}", "aliases")


def test_an_alias_of_its_own_ancestor_is_refused(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "probes.yaml"
    path.write_text(_yaml_probe("  tools:\n  - &me {name: f, parameters: {examples: [*me]}}\n"))
    check_refused(cli("probes", "validate", path), f"{path}", "refers to itself")


@pytest.mark.parametrize("depth", [33, 100, 400])
def test_a_tool_schema_nested_too_deep_is_refused(cli: Cli, tmp_path: Path, depth: int) -> None:
    """Checked against the meta-schema, 100 levels overflowed Python's stack (exit 70)."""
    level = '{"type": "object", "properties": {"a": '
    schema = level * depth + '{"type": "string"}' + "}}" * depth
    tool = f'[{{"name": "f", "parameters": {schema}}}]'
    path = tmp_path / "probes.jsonl"
    path.write_text(json.dumps(PROBE)[:-1] + f', "tools": {tool}}}\n')
    result = cli("probes", "validate", path)
    check_refused(result, f"{path}:1: field 'tools.0.parameters'", "nested deeper than 64 levels")


MARKUP_ID = "a[/]b[bold red]c\x1b[2J\x1b]0;pwned\x07"
"""Console markup and terminal escapes (clear the screen, set the window title) in an id."""
SHOWN_ID = "a[/]b[bold red]c\u27e8U+001B\u27e9[2J\u27e8U+001B\u27e9]0;pwned\u27e8U+0007\u27e9"


def test_markup_and_terminal_escapes_in_ids_are_printed_as_text(cli: Cli, tmp_path: Path) -> None:
    """Printed as console markup, '[/]' stopped the command (exit 70) and ESC reached the tty."""
    path = tmp_path / "probes.jsonl"
    path.write_text(json.dumps({**PROBE, "id": MARKUP_ID, "category": MARKUP_ID}) + "\n")
    responses = tmp_path / "responses.jsonl"
    record = json.dumps({"probe_id": MARKUP_ID, "response": "No."}) + "\n"
    responses.write_text(record * 2)  # the second is a duplicate, warned of by its id
    listed = cli("probes", "list", "-p", path)
    scored = cli("score", "-p", path, "-r", responses, "-o", tmp_path / "r.json")
    for result in (listed, scored):
        assert result.returncode == 0, result.stderr
        output = result.stdout + result.stderr
        assert "\x1b" not in output and "\x07" not in output
    assert SHOWN_ID in listed.stdout
    assert SHOWN_ID in scored.stdout  # the category in the summary's ranking
    assert f"probe '{SHOWN_ID}'" in "".join(scored.stderr.split("\n"))


def test_output_paths_and_errors_with_markup_or_escapes_are_printed_as_text(
    cli: Cli, tmp_path: Path
) -> None:
    """'report: PATH' read as markup stopped score and scan with exit 70 after they had written."""
    probes = tmp_path / "probes.jsonl"
    probes.write_text(json.dumps(PROBE) + "\n")
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps({"probe_id": "c-0", "response": "No."}) + "\n")
    folder = tmp_path / "o[/]x"
    folder.mkdir(parents=True)
    scored = cli("score", "-p", probes, "-r", responses, "-o", folder / "r.json")
    assert scored.returncode == 0, scored.stderr
    assert f"report: {folder / 'r.json'}" in scored.stdout
    (tmp_path / "markup_paths_agent.py").write_text("def respond(request):\n    return 'No.'\n")
    run = folder / "run"
    scanned = cli(
        "scan", "-t", "python", "--callable", "markup_paths_agent:respond", "-p", probes, "-o", run
    )
    assert scanned.returncode == 0, scanned.stderr
    assert f"run directory: {run}" in scanned.stdout
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text((json.dumps({**PROBE, "id": MARKUP_ID}) + "\n") * 2)
    refused = cli("probes", "validate", repeated)
    check_refused(refused, f"duplicate probe id '{SHOWN_ID}'")
    assert "\x1b" not in refused.stderr


TOOLS = {"tools": [{"name": "f"}]}
LOOSE_TYPES = {
    "count-as-string": ({"max_steps": "5"}, "max_steps"),
    "count-as-float": ({"max_steps": 5.0}, "max_steps"),
    "count-as-boolean": ({"max_steps": True}, "max_steps"),
    "flag-as-string": ({"refusal_required": "yes"}, "refusal_required"),
    "flag-as-number": ({"refusal_required": 1}, "refusal_required"),
    "script-flag-as-string": (
        {**TOOLS, "tool_results": {"f": {"result": "r", "error": "no"}}},
        "tool_results.f.error",
    ),
    "rule-flag-as-number": (
        {**TOOLS, "tool_results": {"f": {"when": [{"arguments": "x", "result": "r", "error": 0}]}}},
        "tool_results.f.when.0.error",
    ),
}


@pytest.mark.parametrize(("change", "field"), LOOSE_TYPES.values(), ids=LOOSE_TYPES.keys())
def test_numbers_and_flags_are_read_with_strict_types(
    cli: Cli, tmp_path: Path, change: dict[str, object], field: str
) -> None:
    """'yes' read as true and '5' as 5, as a lax reader does, is what docs/formats.md refuses."""
    path = tmp_path / "probes.jsonl"
    path.write_text(json.dumps({**PROBE, **change}) + "\n")
    check_refused(cli("probes", "validate", path), f"{path}:1: field '{field}'")


def test_a_second_list_beside_probes_is_refused_not_dropped(cli: Cli, tmp_path: Path) -> None:
    """Only 'probes' is read: another list of probes beside it was dropped without a word."""
    path = tmp_path / "probes.yaml"
    second = _yaml_probe(first="id: c-1").replace("\n", "\n  ")
    path.write_text("probes:\n" + _yaml_probe() + "more_probes:\n  " + second + "\n")
    check_refused(cli("probes", "validate", path), f"{path}:8: field 'more_probes'", "not read")


def test_lists_beside_probes_may_hold_anchors_and_metadata_may_stay(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "probes.yaml"
    path.write_text(
        "name: our probes\nversion: 2\nshared_tags: &tags [a, b]\nprobes:\n"
        + _yaml_probe("  tags: *tags\n")
    )
    result = cli("probes", "list", "-p", path)
    assert result.returncode == 0, result.stderr
    assert "a,b" in result.stdout
