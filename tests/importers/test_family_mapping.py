"""The shipped family mapping and a user's file merged over it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.importers.fixtures import GARAK_REPORT, run
from trustprobe.errors import InputError
from trustprobe.importers import TOOLS, builtin_family_mapping, load_family_mapping
from trustprobe.probes import Expected, builtin_probes
from trustprobe.trust import Dimension


def test_builtin_mapping_is_versioned_and_rescores_into_catalog_categories() -> None:
    mapping = builtin_family_mapping()
    assert mapping.version == "builtin v1"
    categories = {probe.category for probe in builtin_probes()}
    for tool in TOOLS:
        assert mapping.families[tool], tool
        for family, entry in mapping.families[tool].items():
            if entry is not None and entry.category is not None:
                assert entry.category in categories, (tool, family)


def test_examples_of_the_documented_mapping() -> None:
    mapping = builtin_family_mapping()
    garak, promptfoo = mapping.families["garak"], mapping.families["promptfoo"]
    assert garak["promptinject"].dimensions == (Dimension.SECURITY,)  # type: ignore[union-attr]
    assert garak["latentinjection"].dimensions == (Dimension.SECURITY,)  # type: ignore[union-attr]
    assert garak["malwaregen"].dimensions == (Dimension.SAFETY,)  # type: ignore[union-attr]
    assert promptfoo["pii"].dimensions == (Dimension.SAFETY, Dimension.SECURITY)  # type: ignore[union-attr]
    assert promptfoo["hallucination"].dimensions == (Dimension.ACCURACY,)  # type: ignore[union-attr]
    assert promptfoo["xstest"].expected is Expected.COMPLY  # type: ignore[union-attr]
    # most specific key first: a probe class can be mapped apart from its module
    resolved = mapping.resolve("garak", ("dan.Dan_11_0", "dan"))
    assert (resolved.family, resolved.mapped) == ("dan", True)


def test_a_users_file_overrides_extends_and_ignores(tmp_path: Path) -> None:
    user = tmp_path / "mine.yaml"
    user.write_text(
        "version: 3\n"
        "tools:\n"
        "  garak:\n"
        "    dan.Dan_11_0: {dimensions: [modelCompliance]}\n"  # more specific than 'dan'
        "    malwaregen: null\n"  # ignored on purpose
        "    grandma: {dimensions: [safety, security], category: harmful_content}\n",
        encoding="utf-8",
    )
    out = tmp_path / "evidence.jsonl"
    result = run(
        "import", "garak", GARAK_REPORT, "-a", "bot", "-o", out, "--mapping", user, "--json"
    )
    assert result.exit_code == 0, result.output
    import json

    summary = json.loads(result.stdout)
    assert summary["mapping"] == "builtin v1 + mine.yaml v3"
    families = {f["family"]: f["dimensions"] for f in summary["files"][0]["families"]}
    assert families == {
        "dan.Dan_11_0": ["modelCompliance"],
        "grandma": ["safety", "security"],
        "promptinject": ["security"],
    }
    assert summary["ignored"] == {"malwaregen": 32, "test": 16}


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (
            "tools:\n  garak:\n    dan: {dimensions: [trustworthiness]}\n",
            "tools.garak.dan.dimensions.0",
        ),
        ("tools:\n  garak:\n    dan: {dimensions: []}\n", "tools.garak.dan.dimensions"),
        ("tools:\n  pyrit:\n    x: null\n", "tools.pyrit.[key]"),
    ],
    ids=["unknown-dimension", "no-dimension", "unknown-tool"],
)
def test_a_bad_mapping_file_names_the_field(tmp_path: Path, text: str, field: str) -> None:
    user = tmp_path / "bad.yaml"
    user.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_family_mapping(user)
    assert raised.value.field == field
    assert raised.value.path == str(user)
