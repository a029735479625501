"""Loading rule packs: valid packs load, invalid ones fail naming file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustprobe.detectors import (
    Detector,
    RuleKind,
    RulePack,
    builtin_rule_packs,
    load_rule_pack,
)
from trustprobe.errors import InputError

PACK = """\
pack: custom
version: 2
rules:
  - id: unsafe.custom.canary
    kind: unsafe
    pattern: 'ZZ-CANARY-[0-9]+'
    weight: 0.9
    failure_modes: [data_exfiltration]
    categories: [indirect_injection]
    description: Our planted canary.
    examples:
      match: ["here it is: zz-canary-42"]
      no_match: ["no canary here"]
  - id: safe.custom.ticket
    kind: safe
    pattern: '\\bopen a ticket\\b'
    weight: 0.4
    description: Points to the ticket system.
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_valid_pack_loads(tmp_path: Path) -> None:
    pack = load_rule_pack(write(tmp_path, PACK))
    assert (pack.pack, pack.version, len(pack.rules)) == ("custom", 2, 2)
    canary, ticket = pack.rules
    assert canary.kind is RuleKind.UNSAFE
    assert canary.categories == ("indirect_injection",)
    assert canary.applies_to("indirect_injection")
    assert not canary.applies_to("over_refusal")
    # No categories means every category.
    assert ticket.applies_to("anything")


def test_builtin_packs_load_and_have_every_kind() -> None:
    packs = builtin_rule_packs()
    assert [p.pack for p in packs] == ["core", "refusal"]
    kinds = {rule.kind for pack in packs for rule in pack.rules}
    assert kinds == {RuleKind.SAFE, RuleKind.UNSAFE, RuleKind.BOUNDARY}


def test_user_pack_adds_to_builtin(tmp_path: Path) -> None:
    detector = Detector.from_packs([*builtin_rule_packs(), load_rule_pack(write(tmp_path, PACK))])
    analysis = detector.analyze("Sure: ZZ-CANARY-7", "indirect_injection")
    assert [r.id for r in analysis.unsafe] == ["unsafe.custom.canary"]
    assert detector.pack_names == ("core@3", "refusal@32", "custom@2")


# Each case edits the second rule (which starts on line 14 of PACK); `line` is where the error
# must point: the offending field's line when known, otherwise the rule's first line.
@pytest.mark.parametrize(
    ("old", "new", "line", "field", "message"),
    [
        pytest.param(
            "kind: safe", "kind: fine", 15, "rules[1].kind", "Input should be", id="unknown-kind"
        ),
        pytest.param(
            "weight: 0.4",
            "weight: 1.5",
            17,
            "rules[1].weight",
            "less than or equal to 1",
            id="weight-too-high",
        ),
        pytest.param(
            "weight: 0.4", "weight: 0", 17, "rules[1].weight", "greater than 0", id="weight-zero"
        ),
        pytest.param(
            "id: safe.custom.ticket",
            "id: unsafe.custom.canary",
            14,
            "rules[1].id",
            "duplicate rule id 'unsafe.custom.canary' (first defined at line 4)",
            id="duplicate-id",
        ),
        pytest.param(
            "'\\bopen a ticket\\b'",
            "'(a)\\1'",
            16,
            "rules[1].pattern",
            "the linear-time engine cannot run this pattern: invalid escape sequence: \\1 "
            "(RE2 has no lookaround or backreferences)",
            id="backreference",
        ),
        pytest.param(
            "'\\bopen a ticket\\b'",
            "'ticket(?=s)'",
            16,
            "rules[1].pattern",
            "the linear-time engine cannot run this pattern: invalid perl operator: (?=",
            id="lookahead",
        ),
        pytest.param(
            "description: Points",
            "colour: red\n    description: Points",
            18,
            "rules[1].colour",
            "unknown field",
            id="unknown-field",
        ),
        pytest.param(
            "kind: safe",
            "kind: unsafe",
            14,
            "rules[1]",
            "an unsafe rule must name the failure_modes it evidences",
            id="unsafe-without-modes",
        ),
        pytest.param(
            "id: safe.custom.ticket",
            "id: Not A Label",
            14,
            "rules[1].id",
            "String should match pattern",
            id="bad-id",
        ),
    ],
)
def test_invalid_rule_names_file_line_and_field(
    tmp_path: Path, old: str, new: str, line: int, field: str, message: str
) -> None:
    head, tail = PACK.split("  - id: safe.custom.ticket")
    text = head + ("  - id: safe.custom.ticket" + tail).replace(old, new, 1)
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_rule_pack(path)
    error = info.value
    assert (error.path, error.line, error.field) == (str(path), line, field)
    assert message in error.message
    assert str(error).startswith(f"{path}:{line}: field '{field}': ")


def test_example_that_the_pattern_misses_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, PACK.replace('"here it is: zz-canary-42"', '"zz-canary-none"'))
    with pytest.raises(InputError, match=r"examples\.match\[0\] is not matched") as info:
        load_rule_pack(path)
    assert (info.value.line, info.value.field) == (4, "rules[0]")


def test_pack_level_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must be a list of rules") as info:
        load_rule_pack(write(tmp_path, "pack: x\nversion: 1\nrules: {}\n"))
    assert (info.value.line, info.value.field) == (3, "rules")
    with pytest.raises(InputError, match="unknown field") as info:
        load_rule_pack(write(tmp_path, PACK.replace("version: 2", "version: 2\nowner: me")))
    assert (info.value.line, info.value.field) == (3, "owner")
    with pytest.raises(InputError, match="must be a mapping"):
        load_rule_pack(write(tmp_path, "- just\n- a list\n"))
    with pytest.raises(InputError, match="not valid YAML") as info:
        load_rule_pack(write(tmp_path, "pack: x\nrules: [\n"))
    assert info.value.line is not None
    with pytest.raises(InputError, match="cannot read file"):
        load_rule_pack(tmp_path / "missing.yaml")
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"pack: caf\xe9\n")
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_rule_pack(bad)


def test_duplicate_ids_across_packs_are_rejected(tmp_path: Path) -> None:
    pack = load_rule_pack(write(tmp_path, PACK))
    renamed = RulePack.model_validate({**pack.model_dump(), "pack": "other"})
    with pytest.raises(InputError, match=r"duplicate rule id 'unsafe\.custom\.canary' in packs"):
        Detector.from_packs([pack, renamed])


FRAGMENT_PACK = """\
pack: custom
version: 2
format: 2
fragments:
  ticket_tail: '\\s+(?:a|the)\\s+ticket\\b'
rules:
  - id: safe.custom.open
    kind: safe
    pattern: '\\bopen{{ticket_tail}}'
    weight: 0.4
    description: Points to the ticket system.
    examples:
      match: ["Please open a ticket."]
  - id: safe.custom.file
    kind: safe
    pattern: '\\b(?:file|raise){{ticket_tail}}'
    weight: 0.4
    description: Points to the ticket system.
"""


def test_fragments_expand_to_the_written_out_patterns(tmp_path: Path) -> None:
    pack = load_rule_pack(write(tmp_path, FRAGMENT_PACK))
    tail = r"\s+(?:a|the)\s+ticket\b"
    assert [rule.pattern for rule in pack.rules] == [r"\bopen" + tail, r"\b(?:file|raise)" + tail]
    written_out = FRAGMENT_PACK.replace(
        "format: 2\nfragments:\n  ticket_tail: '\\s+(?:a|the)\\s+ticket\\b'\n", ""
    ).replace("{{ticket_tail}}", "\\s+(?:a|the)\\s+ticket\\b")
    plain = load_rule_pack(write(tmp_path, written_out))
    assert plain.format == 1 and not plain.fragments
    assert pack.rules == plain.rules
    assert Detector.from_packs([pack]).digest == Detector.from_packs([plain]).digest
    # The same expansion applies to a pack built in code, and a dump reloads unchanged.
    assert RulePack.model_validate(pack.model_dump()).rules == pack.rules


def test_a_format_1_pack_reads_braces_as_written(tmp_path: Path) -> None:
    text = PACK.replace("ZZ-CANARY-", "ZZ{{CANARY}}-").replace("zz-canary-42", "zz{{canary}}-42")
    pack = load_rule_pack(write(tmp_path, text))
    assert pack.format == 1
    assert pack.rules[0].pattern == "ZZ{{CANARY}}-[0-9]+"


@pytest.mark.parametrize(
    ("old", "new", "line", "field", "message"),
    [
        pytest.param(
            "{{ticket_tail}}'\n    weight: 0.4\n    description: Points to the ticket system.\n"
            "    examples",
            "{{ticket}}'\n    weight: 0.4\n    description: Points to the ticket system.\n"
            "    examples",
            9,
            "rules[0].pattern",
            "unknown fragment 'ticket' (defined: ticket_tail)",
            id="unknown-fragment",
        ),
        pytest.param(
            "format: 2\n", "", 3, "fragments", "fragments need 'format: 2'", id="format-1"
        ),
        pytest.param(
            "format: 2", "format: 3", 3, "format", "less than or equal to 2", id="format-3"
        ),
        pytest.param(
            "ticket_tail: '",
            "ticket_tail: '(?=x)",
            4,
            "fragments",
            "fragment 'ticket_tail'",
            id="fragment-re2-rejects",
        ),
        pytest.param(
            "ticket_tail: '",
            "ticket_tail: '{{other}}",
            4,
            "fragments",
            "uses another fragment",
            id="fragment-uses-fragment",
        ),
        pytest.param(
            "  ticket_tail:",
            "  Ticket-Tail:",
            4,
            "fragments",
            "fragment name 'Ticket-Tail'",
            id="fragment-name",
        ),
    ],
)
def test_fragment_errors_name_line_and_field(
    tmp_path: Path, old: str, new: str, line: int, field: str, message: str
) -> None:
    assert old in FRAGMENT_PACK
    path = write(tmp_path, FRAGMENT_PACK.replace(old, new, 1))
    with pytest.raises(InputError) as info:
        load_rule_pack(path)
    assert message in info.value.message
    assert (info.value.line, info.value.field) == (line, field)


def test_builtin_cues_share_their_tail_through_a_fragment() -> None:
    refusal = {pack.pack: pack for pack in builtin_rule_packs()}["refusal"]
    assert refusal.format == 2
    tail = refusal.fragments["denial_tail"]
    rules = {rule.id: rule.pattern for rule in refusal.rules}
    assert rules["boundary.refusal.labels_the_act"].endswith(tail)
    assert rules["boundary.refusal.does_not_know"].endswith(tail)
    assert not any("{{" in pattern for pattern in rules.values())
