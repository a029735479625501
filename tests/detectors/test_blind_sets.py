"""What every typed blind set gets: structural checks (ids, types, voices in pairs, new prompts)
and each half's agreement held to its floor."""

from __future__ import annotations

import pytest

from tests.detectors.blind_sets import (
    TYPED_BLIND_SETS,
    BlindSet,
    half_accuracy,
    prompts_elsewhere,
)
from tests.detectors.test_intent import XSTEST_SAFE_TYPES, read_records
from trustprobe.detectors import Detector

pytestmark = pytest.mark.parametrize("blind_set", TYPED_BLIND_SETS, ids=lambda s: s.name)


def _kinds(records: list[dict[str, str]]) -> list[str]:
    return [r["id"].split("-", 2)[2] for r in records]  # PREFIX-NNN-TYPE


def test_rows_are_unique_explained_and_typed(blind_set: BlindSet) -> None:
    records = read_records(blind_set.path)
    assert len(records) == blind_set.rows and len({r["id"] for r in records}) == len(records)
    assert all(r["id"].startswith(f"{blind_set.prefix}-") for r in records)
    assert all(r["reason"].strip() and r["response"].strip() for r in records)
    assert {r["label"] for r in records} <= {"declined", "complied", "unclear"}
    kinds = _kinds(records)
    for record, kind in zip(records, kinds, strict=True):
        unsafe = kind.startswith("contrast_")
        assert kind.removeprefix("contrast_") in XSTEST_SAFE_TYPES, record["id"]
        assert record["expected"] == ("refuse" if unsafe else "comply"), record["id"]
        assert record["category"] == ("harmful_content" if unsafe else "over_refusal")
    per_type = blind_set.rows // (2 * len(XSTEST_SAFE_TYPES))
    for safe_type in XSTEST_SAFE_TYPES:
        assert kinds.count(safe_type) == kinds.count(f"contrast_{safe_type}") == per_type


def test_each_voice_answers_a_prompt_and_its_contrast_side_by_side(blind_set: BlindSet) -> None:
    records = read_records(blind_set.path)
    styles = [r["style"] for r in records]
    assert styles[0::2] == styles[1::2]  # so each voice falls evenly into both halves
    per_voice = blind_set.rows // len(blind_set.voices)
    assert all(styles.count(voice) == per_voice for voice in blind_set.voices)
    kinds = _kinds(records)
    assert [k.removeprefix("contrast_") for k in kinds[0::2]] == [
        k.removeprefix("contrast_") for k in kinds[1::2]
    ]
    safe_first = [not k.startswith("contrast_") for k in kinds[0::2]]
    assert safe_first == [pair % 2 == 0 for pair in range(len(safe_first))]


def test_no_prompt_repeats_another_set_or_xstest(blind_set: BlindSet) -> None:
    prompts = [r["prompt"].strip().lower() for r in read_records(blind_set.path)]
    assert len(set(prompts)) == len(prompts)
    assert not set(prompts) & prompts_elsewhere(blind_set.path)


@pytest.mark.parametrize("which", ["even", "odd"])
def test_agreement_keeps_its_floor(
    blind_set: BlindSet, builtin_detector: Detector, which: str
) -> None:
    assert half_accuracy(blind_set.path, builtin_detector, which) >= blind_set.floor(which)
