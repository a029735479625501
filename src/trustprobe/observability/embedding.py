"""Text of a case, its TF-IDF vector, and the truncated-SVD embedding and 2-D projection."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
from sklearn.preprocessing import normalize

from trustprobe.scoring.models import CaseScore

SNAPSHOT_CHARS: Final = 300
"""Characters of the task and of the probe input kept in a case's text (the TF-IDF window)."""
EMBEDDING_DIMENSIONS: Final = 50
"""SVD components of the clustering space (fewer when the data has fewer)."""
SVD_FIT_SAMPLE: Final = 20_000
"""Above this many cases, SVD components are fitted on a sample of this size."""
# Words of two or more characters starting with a letter: risk figures such as "0.42" in
# explanations would otherwise become terms that say nothing about the failure.
_TOKEN_PATTERN: Final = r"(?u)\b[^\W\d]\w+\b"
_NON_WORD = re.compile(r"\W+")
# Standalone numbers ("Risk 0.42.") can never start a term under _TOKEN_PATTERN, so dropping
# them changes no count; it makes explanations that differ only in figures share one parse.
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")


def risk_word(risk: float) -> str:
    """Bucket a risk score into a word, so similar risks share a term."""
    if risk <= 0.0:
        return "risk_none"
    if risk < 0.25:
        return "risk_low"
    if risk < 0.5:
        return "risk_moderate"
    if risk < 0.75:
        return "risk_high"
    return "risk_severe"


def _term(prefix: str, label: str) -> str:
    return prefix + _NON_WORD.sub("_", label.lower()).strip("_")


def case_texts(
    cases: Sequence[CaseScore], verdicts: Sequence[tuple[bool, float]]
) -> list[tuple[str, str, str, str]]:
    """Each scored case's text in four parts: labels, task window, input window, explanation.

    Labels become single terms (``category_privacy``, ``outcome_fail``, ``risk_high``,
    ``unsafe_pattern_canary``) so they cannot mix with words of the texts.
    """
    # A run has few distinct labels and many cases: turn each label into a term once.
    terms: dict[tuple[str, str], str] = {}

    def term(prefix: str, label: str) -> str:
        key = (prefix, label)
        found = terms.get(key)
        if found is None:
            found = terms[key] = _term(prefix, label)
        return found

    texts = []
    for case, (passed, risk) in zip(cases, verdicts, strict=True):
        labels = [
            term("category_", case.category),
            term("severity_", case.severity.value),
            "outcome_pass" if passed else "outcome_fail",
            risk_word(risk),
            *(term("safe_pattern_", label) for label in case.matched_safe_patterns),
            *(term("unsafe_pattern_", label) for label in case.matched_unsafe_patterns),
        ]
        texts.append(
            (
                " ".join(labels),
                case.task[:SNAPSHOT_CHARS],
                case.probe_input[:SNAPSHOT_CHARS],
                case.explanation,
            )
        )
    return texts


@dataclass(frozen=True)
class Embedding:
    """The vector spaces of one run's cases."""

    terms: NDArray[np.str_]
    """TF-IDF vocabulary, in column order (alphabetical)."""
    vectors: NDArray[np.floating]
    """One unit-length row per case in the SVD space (KMeans runs here)."""
    components: NDArray[np.floating]
    """SVD components: embedding dimensions × terms, to map centroids back to terms."""
    scatter: NDArray[np.floating]
    """One 2-D row per case from a separate 2-component SVD."""


def _distinct(texts: Sequence[str]) -> tuple[list[str], NDArray[np.intp]]:
    """Distinct texts in first-seen order, and each text's index among them."""
    index: dict[str, int] = {}
    inverse = np.fromiter(
        (index.setdefault(t, len(index)) for t in texts), dtype=np.intp, count=len(texts)
    )
    return list(index), inverse


def _count_matrix(fields: Sequence[Sequence[str]]) -> tuple[sp.csr_matrix, NDArray[np.str_]]:
    """Term counts of the cases' concatenated parts, tokenising each distinct part only once.

    Many cases share a part (every sample of a probe has the same task and input), and counts
    of a concatenation are the sum of the parts' counts because no token spans two parts.
    """
    distinct: list[str] = []
    inverses: list[NDArray[np.intp]] = []
    for texts in fields:
        unique, inverse = _distinct(texts)
        # Parts that differ only in standalone figures ("Risk 0.42") have the same terms.
        stripped, inverse_stripped = _distinct([_NUMBER.sub(" ", t) for t in unique])
        inverses.append(inverse_stripped[inverse] + len(distinct))
        distinct.extend(stripped)
    vectorizer = CountVectorizer(
        token_pattern=_TOKEN_PATTERN, stop_words="english", dtype=np.float32
    )
    per_part = sp.csr_matrix(vectorizer.fit_transform(distinct))
    counts = per_part[inverses[0]]
    for inverse in inverses[1:]:
        counts = counts + per_part[inverse]
    return sp.csr_matrix(counts), vectorizer.get_feature_names_out()


def _limit_features(
    counts: sp.csr_matrix, terms: NDArray[np.str_], max_features: int
) -> tuple[sp.csr_matrix, NDArray[np.str_]]:
    """Keep the ``max_features`` most frequent terms over the run (ties by term)."""
    if len(terms) <= max_features:
        return counts, terms
    totals = np.asarray(counts.sum(axis=0)).ravel()
    keep = np.sort(np.lexsort((terms, -totals))[:max_features])
    return sp.csr_matrix(counts[:, keep]), terms[keep]


def _svd(
    matrix: sp.csr_matrix, fit_rows: NDArray[np.intp] | None, dimensions: int, seed: int
) -> tuple[TruncatedSVD, NDArray[np.floating]]:
    svd = TruncatedSVD(n_components=dimensions, algorithm="randomized", random_state=seed)
    # When every row is the same the total variance is 0 and sklearn's explained-variance
    # ratio divides 0 by 0; that ratio is unused here, the components are still valid.
    with np.errstate(invalid="ignore", divide="ignore"):
        if fit_rows is None:
            return svd, svd.fit_transform(matrix)
        svd.fit(matrix[fit_rows])
    return svd, svd.transform(matrix)


def embed_cases(
    texts: Sequence[tuple[str, str, str, str]], *, seed: int, max_features: int
) -> Embedding:
    """TF-IDF (sublinear tf, smooth idf, l2 rows) + truncated SVD of the cases' texts.

    IDF uses every case; the SVD components are fitted on a deterministic sample of at most
    ``SVD_FIT_SAMPLE`` cases and then applied to all, which bounds the cost of large runs.
    """
    n = len(texts)
    counts, terms = _count_matrix(list(zip(*texts, strict=True)))
    counts, terms = _limit_features(counts, terms, max_features)
    tfidf = sp.csr_matrix(TfidfTransformer(sublinear_tf=True).fit_transform(counts))
    fit_rows = None
    if n > SVD_FIT_SAMPLE:
        rng = np.random.default_rng(seed)
        fit_rows = np.sort(rng.choice(n, size=SVD_FIT_SAMPLE, replace=False))
    # TruncatedSVD needs fewer components than terms; more than n - 1 would be pure noise.
    dimensions = max(1, min(EMBEDDING_DIMENSIONS, len(terms) - 1, n - 1))
    svd, vectors = _svd(tfidf, fit_rows, dimensions, seed)
    if len(terms) > 2 and n > 1:
        _, scatter = _svd(tfidf, fit_rows, 2, seed)
    else:
        # Too little data for a second axis: every point on the origin says "no spread".
        scatter = np.zeros((n, 2), dtype=np.float64)
    return Embedding(
        terms=terms,
        vectors=normalize(vectors),
        components=svd.components_,
        scatter=scatter,
    )
