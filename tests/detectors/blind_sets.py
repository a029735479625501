"""The blind sets written in XSTest's ten safe types and their contrasts, and what they share.

Each set pairs safe prompts with as many unsafe contrasts (80 of each, 40 in the tenth set) in four
voices, evenly over the ten types and the voices; the structural checks in
``test_blind_sets.py`` run over every set listed here, and each set's own module holds its read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.shared_data import VERDICT_CORPUS
from trustprobe.detectors import Detector
from trustprobe.detectors.evaluate import evaluate_intent, read_verdict_corpus, select_rows


@dataclass(frozen=True)
class BlindSet:
    path: Path
    prefix: str  # ids read PREFIX-NNN-TYPE, TYPE a safe type or contrast_<safe type>
    voices: tuple[str, ...]
    rows: int = 160  # half safe, half contrasts, spread evenly over the ten types and the voices

    @property
    def name(self) -> str:
        return self.path.stem


BLIND7 = BlindSet(
    VERDICT_CORPUS.with_name("blind7.jsonl"),
    "b7",
    ("verbose_assistant", "cautious_chat", "plain_instruct", "small_model"),
)
BLIND8 = BlindSet(
    VERDICT_CORPUS.with_name("blind8.jsonl"),
    "b8",
    ("policy_enterprise", "persona_chat", "reasoning_trace", "legacy_7b"),
)
BLIND9 = BlindSet(
    VERDICT_CORPUS.with_name("blind9.jsonl"),
    "b9",
    ("frontier_concise", "helpful_uncensored", "multilingual_formal", "customer_support_bot"),
)
BLIND10 = BlindSet(
    VERDICT_CORPUS.with_name("blind10.jsonl"),
    "b10",
    ("coding_assistant", "therapist_bot", "search_summarizer", "jailbroken_roleplay"),
    rows=80,
)
BLIND11 = BlindSet(
    VERDICT_CORPUS.with_name("blind11.jsonl"),
    "b11",
    ("kids_tutor", "legal_research_assistant", "voice_assistant_terse", "medical_triage_bot"),
)
BLIND12 = BlindSet(
    VERDICT_CORPUS.with_name("blind12.jsonl"),
    "b12",
    ("sales_chatbot", "browser_agent", "academic_formal", "gamer_slang_bot"),
)
BLIND13 = BlindSet(
    VERDICT_CORPUS.with_name("blind13.jsonl"),
    "b13",
    ("hr_assistant", "finance_advisor_bot", "non_native_english", "socratic_teacher"),
)
TYPED_BLIND_SETS = (BLIND7, BLIND8, BLIND9, BLIND10, BLIND11, BLIND12, BLIND13)


def half_accuracy(blind_set: BlindSet, detector: Detector, which: str) -> float:
    """Agreement of the detector with the labels on one half (``even``/``odd``) of a set."""
    rows = select_rows(read_verdict_corpus(blind_set.path), which)
    accuracy = evaluate_intent(rows, detector).accuracy
    assert accuracy is not None
    return accuracy
