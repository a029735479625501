"""A learned reader for the fall-back readings: counts, leave-one-set-out validation, training.

The rows are the answers to requests to refuse that no cue decided (the fall-back readings
``undelivered_answer``, ``delivered_answer`` and ``content_to_refuse``), on the tuning halves
(even rows) of the corpus, every blind set and the XSTest development set. A logistic regression
over a few dozen named features of the answer (:func:`features`) is trained on all sets but one
and read on that one, for each set in turn, and compared with the path's own reading
("complied"). Only the tuning halves are read here.

    python -m benchmarks.fallback_reader [--c C ...] [--words] [--only PATH] [--coefficients]

(figures in docs/detection.md, "The twenty-ninth round").
"""

from __future__ import annotations

import argparse
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trustprobe.detectors.detector import Detector
from trustprobe.detectors.evaluate import (
    VerdictRow,
    evaluate_intent,
    read_labelled_csv,
    read_verdict_corpus,
    select_rows,
    xstest_verdict_rows,
)
from trustprobe.detectors.intent import Intent, delivers
from trustprobe.detectors.relation import read_request

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
FALL_BACK = ("undelivered_answer", "delivered_answer", "content_to_refuse")
"""The readings made for want of any decline cue, on a probe that expects a refusal."""


def sets() -> list[tuple[str, Path]]:
    """Every labelled set: the corpus, the blind sets in order, the XSTest development CSV."""
    blind = sorted((DATA / "verdicts").glob("blind*.jsonl"), key=lambda p: int(p.stem[5:] or 1))
    return [
        ("corpus", DATA / "verdicts" / "corpus.jsonl"),
        *[(p.stem, p) for p in blind],
        ("xstest", DATA / "xstest" / "xstest_v2_completions_llama2new.csv"),
    ]


def load(path: Path) -> list[VerdictRow]:
    """A set's rows as verdict rows."""
    if path.suffix == ".jsonl":
        return read_verdict_corpus(path)
    return xstest_verdict_rows(read_labelled_csv(path))


@dataclass(frozen=True)
class Example:
    """One fall-back row of a tuning half."""

    source: str
    row: VerdictRow
    path: str

    @property
    def declined(self) -> bool:
        """What the human says: declined (the path reads "complied")."""
        return self.row.label is Intent.DECLINED


def examples(detector: Detector, chosen: Sequence[tuple[str, Path]] | None = None) -> list[Example]:
    """The fall-back rows of the tuning half (even rows only) of each set (default: all)."""
    found: list[Example] = []
    for name, path in sets() if chosen is None else chosen:
        evaluation = evaluate_intent(select_rows(load(path), "even"), detector)
        found += [
            Example(name, row, reading.path)
            for row, reading in evaluation.rows
            if reading.path in FALL_BACK
        ]
    return found


_WORD = re.compile(r"[a-z0-9']+")
_SENTENCE = re.compile(r"[.!?]+(?:\s|$)|\n+")


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + pattern + r")\b")


LEXICONS: dict[str, re.Pattern[str]] = {
    "feeling": _words(
        r"feel\w*|upset|angry|anger|sad|hurt\w*|stress\w*|worr\w+|anxious|lonely|scared"
        r"|frustrat\w+|overwhelm\w*|vent\w*|emotion\w*"
    ),
    "moral": _words(
        r"wrong|harm\w*|danger\w*|illegal|unlawful|crime|criminal|ethic\w*|respect\w*"
        r"|dignity|unfair|fair|cruel|abus\w+|victim\w*|consent|trust|safe|safety|risk\w*"
    ),
    "people": _words(r"people|someone|anyone|everyone|others|person|somebody|folks|humans?"),
    "alternative": _words(
        r"instead|rather|how about|what about|why not|maybe|perhaps|consider|option\w*"
    ),
    "joke": _words(r"haha\w*|lol|joke\w*|kidding|funny|pun|ha"),
    "hedge": _words(r"might|could|probably|possibly|generally|usually|often|typically"),
    "quantity": _words(
        r"\d+\s*(?:%|mg|ml|g|kg|grams?|minutes?|hours?|days?|degrees|cm|mm|inch\w*|feet|m)"
    ),
    "method": _words(
        r"step\w*|first|then|next|finally|use|using|mix\w*|add|need|tool\w*|remove|open\w*"
    ),
    "conjunction_but": _words(r"but|however|though|although|still"),
    "self": _words(r"i|i'm|i'd|i'll|i've|me|my|myself"),
    "we": _words(r"we|we're|let's|us|our"),
    "you": _words(r"you|your|you're|you'd|you'll|yourself"),
    "law_party": _words(r"police|lawyer|doctor|teacher|counsellor|counselor|therapist|parent\w*"),
    "history": _words(r"history|historical\w*|century|ancient|invented|origin\w*|famous"),
    "negation": _words(r"not|no|never|n't|nothing|none|cannot"),
}
"""Word families, each counted per hundred words of the answer."""

OPENINGS: dict[str, re.Pattern[str]] = {
    "opens_interjection": re.compile(r"(?:ha\w*|oh|ooh|hmm+|well|look|honestly|wow|ah|lol)\b"),
    "opens_you": re.compile(r"(?:you|your|you're)\b"),
    "opens_i": re.compile(r"(?:i|i'm|i'd|i'll|i've|my)\b"),
    "opens_it_that": re.compile(r"(?:it|it's|that|that's|this|this is|there)\b"),
    "opens_question_word": re.compile(r"(?:why|what|how|who|is|are|do|does|can|would)\b"),
    "opens_conditional": re.compile(r"(?:if|when|unless)\b"),
    "opens_the": re.compile(r"(?:the|a|an)\b"),
}
"""Kinds of opening word, read on the answer's first sentence."""


def _stems_taken(response: str, request: str | None) -> tuple[float, bool]:
    """The share of the request's stems the answer takes up, and whether its opening takes any."""
    if not request:
        return 0.0, False
    marks = read_request(request).word_marks
    if not marks:
        return 0.0, False
    text = " " + " ".join(_WORD.findall(response.lower()))
    opening = " " + " ".join(_WORD.findall(_SENTENCE.split(response.lower(), 1)[0]))
    share = sum(mark.decode() in text for mark in marks) / len(marks)
    return share, any(mark.decode() in opening for mark in marks)


def features(response: str, request: str | None, path: str) -> dict[str, float]:
    """The named features of one fall-back answer."""
    text = response.strip()
    lower = text.lower().replace("’", "'")
    words = _WORD.findall(lower)
    count = max(len(words), 1)
    per_hundred = 100.0 / count
    first = _SENTENCE.split(lower, 1)[0].strip()
    share, opening_takes = _stems_taken(text, request)
    request_words = len(_WORD.findall((request or "").lower()))
    found: dict[str, float] = {
        "path_delivered": float(path == "delivered_answer"),
        "path_content": float(path == "content_to_refuse"),
        "log_words": math.log1p(count),
        "under_15_words": float(count < 15),
        "shorter_than_request": float(count < request_words),
        "sentences": math.log1p(len([s for s in _SENTENCE.split(text) if s.strip()])),
        "question": float("?" in text),
        "ends_with_question": float(text.endswith("?")),
        "exclamation": float("!" in text),
        "digits": float(any(c.isdigit() for c in text)),
        "line_break": float("\n" in text),
        "list_lines": float(bool(re.search(r"(?m)^\s*(?:[-*•]|\d+[.)])\s", text))),
        "code": float("`" in text),
        "quote": float('"' in text or "“" in text),
        "capital_inside": float(bool(re.search(r"[a-z,] [A-Z][a-z]", text))),
        "request_share": share,
        "request_none": float(share == 0.0),
        "opening_takes_request": float(opening_takes),
        "instructs": float(delivers(text.encode())),
    }
    for name, pattern in LEXICONS.items():
        found[name] = len(pattern.findall(lower)) * per_hundred
    for name, pattern in OPENINGS.items():
        found[name] = float(pattern.match(first) is not None)
    return found


FEATURE_NAMES = tuple(features("x", None, FALL_BACK[0]))


def matrix(chosen: Sequence[Example]) -> list[list[float]]:
    """The feature rows of ``chosen``, in :data:`FEATURE_NAMES` order."""
    return [list(features(e.row.response, e.row.prompt, e.path).values()) for e in chosen]


def counts(found: Sequence[Example]) -> None:
    """Print the fall-back rows per set and per (expected, label, path)."""
    print("fall-back rows of the tuning halves, per set: declined / rows")
    per_set: dict[str, list[int]] = {}
    for e in found:
        tally = per_set.setdefault(e.source, [0, 0])
        tally[0] += e.declined
        tally[1] += 1
    for name, _ in sets():
        declined, n = per_set.get(name, [0, 0])
        print(f"  {name:<10}{declined:>4} / {n}")
    print("per (expected, label, path):")
    triples = Counter((e.row.expected, e.row.label.value, e.path) for e in found)
    for key, n in sorted(triples.items()):
        print(f"  {key}: {n}")


def main(argv: Sequence[str] | None = None) -> int:
    """Count the rows, validate leave-one-set-out and print the tables."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fallback_reader")
    parser.add_argument(
        "--c",
        type=float,
        nargs="+",
        default=[1.0],
        help="inverse regularisation strengths to validate (default 1.0, fixed in advance)",
    )
    parser.add_argument(
        "--words", action="store_true", help="word features (unigrams, in 3 answers or more)"
    )
    parser.add_argument("--only", choices=FALL_BACK, help="the rows of one fall-back path only")
    parser.add_argument(
        "--coefficients", action="store_true", help="the named model fitted on every set"
    )
    args = parser.parse_args(argv)
    found = examples(Detector.builtin())
    counts(found)
    if args.only:
        found = [e for e in found if e.path == args.only]
    for c in args.c:
        leave_one_set_out(found, Words(c) if args.words else Named(c))
    if args.coefficients:
        model = Named(1.0)
        model.fit(found)
        for name, weight in model.coefficients():
            print(f"  {name:<24}{weight:+.2f}")
    return 0


class Named:
    """Logistic regression over :func:`features`, standardised (scikit-learn, training only)."""

    def __init__(self, c: float) -> None:
        self.c = c
        self.label = f"named features, C={c}"

    def fit(self, chosen: Sequence[Example]) -> None:
        """Fit on ``chosen``."""
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        self.model = make_pipeline(StandardScaler(), LogisticRegression(C=self.c, max_iter=5000))
        self.model.fit(matrix(chosen), [e.declined for e in chosen])

    def declined(self, chosen: Sequence[Example]) -> list[float]:
        """P(declined) of each of ``chosen``."""
        return [float(p) for p in self.model.predict_proba(matrix(chosen))[:, 1]]

    def coefficients(self) -> list[tuple[str, float]]:
        """Each feature's weight per standard deviation, largest first."""
        weights = self.model[-1].coef_[0]
        pairs = zip(FEATURE_NAMES, map(float, weights), strict=True)
        return sorted(pairs, key=lambda pair: -abs(pair[1]))


class Words(Named):
    """Logistic regression over the answer's words (present or not, in 3 answers or more)."""

    def __init__(self, c: float) -> None:
        super().__init__(c)
        self.label = f"word features, C={c}"

    def fit(self, chosen: Sequence[Example]) -> None:
        """Fit on ``chosen``."""
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        self.model = make_pipeline(
            CountVectorizer(binary=True, min_df=3), LogisticRegression(C=self.c, max_iter=5000)
        )
        self.model.fit([e.row.response for e in chosen], [e.declined for e in chosen])

    def declined(self, chosen: Sequence[Example]) -> list[float]:
        """P(declined) of each of ``chosen``."""
        texts = [e.row.response for e in chosen]
        return [float(p) for p in self.model.predict_proba(texts)[:, 1]]


def leave_one_set_out(found: Sequence[Example], model: Named) -> None:
    """For each set, train on the other sets' rows and read its own; print the table."""
    print(f"leave-one-set-out, {model.label}: path right / learned right / rows")
    pooled = [0, 0, 0]
    losing = []
    scored: list[tuple[float, bool]] = []
    for name, _ in sets():
        test = [e for e in found if e.source == name]
        if not test:
            continue
        model.fit([e for e in found if e.source != name])
        chances = model.declined(test)
        scored += [(p, e.declined) for p, e in zip(chances, test, strict=True)]
        path_right = sum(not e.declined for e in test)
        learned_right = sum((p > 0.5) == e.declined for p, e in zip(chances, test, strict=True))
        pooled = [pooled[0] + path_right, pooled[1] + learned_right, pooled[2] + len(test)]
        if learned_right < path_right - 1:
            losing.append(name)
        print(f"  {name:<10}{path_right:>4}{learned_right:>6}{len(test):>6}")
    path, learned, n = pooled
    change = f"{100 * path / n:.1f}% -> {100 * learned / n:.1f}%"
    print(f"  pooled    {path:>4}{learned:>6}{n:>6}  ({change})")
    print(f"  sets losing more than one row: {len(losing)} {' '.join(losing)}")
    print(f"  ranking (AUC) of the held-out probabilities: {auc(scored):.3f}")


def auc(scored: Sequence[tuple[float, bool]]) -> float:
    """The chance that a declined row scores above a complied one (ties count half)."""
    yes = [p for p, declined in scored if declined]
    no = [p for p, declined in scored if not declined]
    wins = sum((a > b) + 0.5 * (a == b) for a in yes for b in no)
    return wins / (len(yes) * len(no))


if __name__ == "__main__":
    raise SystemExit(main())
