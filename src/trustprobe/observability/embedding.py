"""Text of a case, its TF-IDF vector, and the truncated-SVD embedding and 2-D projection.

The model is fitted on a sample (:func:`fit_embedding`), then applied case by case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # SciPy and scikit-learn take seconds to import: only when a geometry is made
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

from trustprobe.scoring.models import CaseScore

SNAPSHOT_CHARS: Final = 300
"""Characters of the task and of the probe input kept in a case's text (the TF-IDF window)."""
EMBEDDING_DIMENSIONS: Final = 50
"""SVD components of the clustering space (fewer when the data has fewer)."""
SVD_FIT_SAMPLE: Final = 20_000
"""Scored cases in the fitting sample: vocabulary, IDF, both SVDs and KMeans are fitted on it."""
# Words of two or more characters starting with a letter: risk figures such as "0.42" in
# explanations would otherwise become terms that say nothing about the failure.
_TOKEN_PATTERN: Final = r"(?u)\b[^\W\d]\w+\b"
_NON_WORD = re.compile(r"\W+")
# Standalone numbers ("Risk 0.42.") can never start a term under _TOKEN_PATTERN, so dropping
# them changes no count; it makes explanations that differ only in figures share one parse.
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")

CaseText = tuple[str, str, str, str]
"""A case's text in four parts: labels, task window, input window, explanation."""


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
) -> list[CaseText]:
    """Each scored case's text in four parts: labels, task window, input window, explanation.

    Labels become single terms (``category_privacy``, ``outcome_fail``, ``risk_high``,
    ``unsafe_pattern_canary``) so they cannot mix with words of the texts.
    """
    # A run has few distinct label sets and many cases: make each set's terms once. The
    # None keeps a safe pattern apart from an unsafe one of the same name.
    labels_of: dict[tuple[object, ...], str] = {}
    texts = []
    for case, (passed, risk) in zip(cases, verdicts, strict=True):
        safe, unsafe = case.matched_safe_patterns, case.matched_unsafe_patterns
        word = risk_word(risk)
        key = (case.category, case.severity, passed, word, *safe, None, *unsafe)
        labels = labels_of.get(key)
        if labels is None:
            labels = labels_of[key] = " ".join(
                [
                    _term("category_", case.category),
                    _term("severity_", case.severity.value),
                    "outcome_pass" if passed else "outcome_fail",
                    word,
                    *(_term("safe_pattern_", label) for label in safe),
                    *(_term("unsafe_pattern_", label) for label in unsafe),
                ]
            )
        texts.append(
            (
                labels,
                case.task[:SNAPSHOT_CHARS],
                case.probe_input[:SNAPSHOT_CHARS],
                case.explanation,
            )
        )
    return texts


def _distinct(texts: Sequence[str]) -> tuple[list[str], NDArray[np.intp]]:
    """Distinct texts in first-seen order, and each text's index among them."""
    index = dict.fromkeys(texts, 0)
    for number, text in enumerate(index):
        index[text] = number
    inverse = np.fromiter(map(index.__getitem__, texts), dtype=np.intp, count=len(texts))
    return list(index), inverse


def _count_matrix(
    fields: Sequence[Sequence[str]], vectorizer: CountVectorizer | None = None
) -> tuple[sp.csr_matrix, NDArray[np.str_]]:
    """Term counts of the cases' concatenated parts, tokenising each distinct part only once.

    Many cases share a part (every sample of a probe has the same task and input), and counts
    of a concatenation are the sum of the parts' counts because no token spans two parts.
    Without ``vectorizer`` the vocabulary is learnt from the parts; with a fitted one, its
    vocabulary is used and other terms are ignored.
    """
    import scipy.sparse as sp

    distinct: list[str] = []
    inverses: list[NDArray[np.intp]] = []
    for texts in fields:
        unique, inverse = _distinct(texts)
        # Parts that differ only in standalone figures ("Risk 0.42") have the same terms.
        stripped, inverse_stripped = _distinct([_NUMBER.sub(" ", t) for t in unique])
        inverses.append(inverse_stripped[inverse] + len(distinct))
        distinct.extend(stripped)
    if vectorizer is None:
        vectorizer = _vectorizer()
        per_part = sp.csr_matrix(vectorizer.fit_transform(distinct))
    else:
        per_part = sp.csr_matrix(vectorizer.transform(distinct))
    counts = per_part[inverses[0]]
    for inverse in inverses[1:]:
        counts = counts + per_part[inverse]
    return sp.csr_matrix(counts), vectorizer.get_feature_names_out()


def _vectorizer(vocabulary: Sequence[str] | None = None) -> CountVectorizer:
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(
        token_pattern=_TOKEN_PATTERN, stop_words="english", dtype=np.float32, vocabulary=vocabulary
    )


def _limit_features(
    counts: sp.csr_matrix, terms: NDArray[np.str_], max_features: int
) -> tuple[sp.csr_matrix, NDArray[np.str_]]:
    """Keep the ``max_features`` most frequent terms over the run (ties by term)."""
    import scipy.sparse as sp

    if len(terms) <= max_features:
        return counts, terms
    totals = np.asarray(counts.sum(axis=0)).ravel()
    keep = np.sort(np.lexsort((terms, -totals))[:max_features])
    return sp.csr_matrix(counts[:, keep]), terms[keep]


@dataclass(frozen=True, eq=False)
class EmbeddingModel:
    """TF-IDF vocabulary and weights, and the two SVDs' components, fitted once on the sample.

    :meth:`transform` maps each case on its own: a row's vector depends on that case and the
    model only, never on the other rows transformed with it, so any partitioning of a run
    gives every case the same coordinates to the last bit.
    """

    terms: NDArray[np.str_]
    """TF-IDF vocabulary, in column order (alphabetical)."""
    vectorizer: CountVectorizer
    """Counts terms of ``terms`` only."""
    tfidf: TfidfTransformer
    """Sublinear tf, smooth idf learnt on the sample, l2-normalised rows."""
    components: NDArray[np.floating]
    """The clustering space: ``dimensions`` components, one a row (:func:`_fit_svd`)."""
    scatter_components: NDArray[np.floating] | None
    """The 2-D plot space; ``None`` when the sample has too little data for two axes."""

    @property
    def dimensions(self) -> int:
        """Components of the clustering space."""
        return int(self.components.shape[0])

    def tfidf_rows(self, texts: Sequence[CaseText]) -> sp.csr_matrix:
        """TF-IDF rows of ``texts`` (one per case, columns in :attr:`terms` order)."""
        import scipy.sparse as sp

        counts, _ = _count_matrix(list(zip(*texts, strict=True)), self.vectorizer)
        return sp.csr_matrix(self.tfidf.transform(counts))

    def embed(self, tfidf: sp.csr_matrix) -> NDArray[np.floating]:
        """Unit-length embedding rows of TF-IDF rows."""
        from sklearn.preprocessing import normalize

        return np.asarray(normalize(_project(tfidf, self.components)))

    def transform(
        self, texts: Sequence[CaseText]
    ) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
        """Unit-length embedding rows and 2-D scatter rows of ``texts``, one per case."""
        if not texts:
            return np.zeros((0, self.dimensions)), np.zeros((0, 2))
        return self.place_rows(self.tfidf_rows(texts))

    def place_rows(self, tfidf: sp.csr_matrix) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
        """Unit-length embedding rows and 2-D scatter rows of TF-IDF rows, one per case."""
        return self.embed(tfidf), self.scatter(tfidf)

    def scatter(self, tfidf: sp.csr_matrix) -> NDArray[np.floating]:
        """2-D scatter rows of TF-IDF rows, one per case."""
        if self.scatter_components is None:
            # Too little data for a second axis: every point on the origin says "no spread".
            return np.zeros((tfidf.shape[0], 2), dtype=np.float64)
        return _project(tfidf, self.scatter_components)


def _project(tfidf: sp.csr_matrix, components: NDArray[np.floating]) -> NDArray[np.floating]:
    """TF-IDF rows in the space of ``components``: ``TruncatedSVD.transform``'s product."""
    return np.asarray(tfidf @ components.T)


def _fit_svd(matrix: sp.csr_matrix, dimensions: int, seed: int) -> NDArray[np.floating]:
    """The components of ``TruncatedSVD(algorithm="randomized")`` fitted on ``matrix``.

    ``dimensions`` components, one a row, with ``random_state=seed``. These are the two calls
    its ``fit`` makes, at its default settings (5 power iterations, 10 oversamples), so the
    components are the same to the bit (``tests/observability/test_embedding.py``); what
    ``fit`` computes besides them (the sample's projection, explained variances) is not read.
    """
    from sklearn.utils.extmath import randomized_svd, svd_flip

    left, _, components = randomized_svd(
        matrix, dimensions, n_iter=5, n_oversamples=10, flip_sign=False, random_state=seed
    )
    # The sign convention of TruncatedSVD (and PCA): decided by the components.
    return np.asarray(svd_flip(left, components, u_based_decision=False)[1])


def fit_embedding(
    texts: Sequence[CaseText], *, seed: int, max_features: int
) -> tuple[EmbeddingModel, sp.csr_matrix]:
    """Fit TF-IDF (sublinear tf, smooth idf, l2 rows) and truncated SVD on the sample ``texts``.

    The vocabulary keeps the ``max_features`` terms most frequent over the sample. Returns the
    model and the sample's TF-IDF rows as ``model.tfidf_rows(texts)`` gives them, without
    counting the terms again.
    """
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import TfidfTransformer

    n = len(texts)
    if n == 0:
        raise ValueError("the fitting sample is empty")
    counts, terms = _count_matrix(list(zip(*texts, strict=True)))
    counts, terms = _limit_features(counts, terms, max_features)
    tfidf = TfidfTransformer(sublinear_tf=True).fit(counts)
    matrix = sp.csr_matrix(tfidf.transform(counts))
    # TruncatedSVD needs fewer components than terms; more than n - 1 would be pure noise.
    dimensions = max(1, min(EMBEDDING_DIMENSIONS, len(terms) - 1, n - 1))
    model = EmbeddingModel(
        terms=terms,
        vectorizer=_vectorizer([str(t) for t in terms]),
        tfidf=tfidf,
        components=_fit_svd(matrix, dimensions, seed),
        scatter_components=_fit_svd(matrix, 2, seed) if len(terms) > 2 and n > 1 else None,
    )
    # Counting with the fitted vocabulary gives the same counts with each row's terms in
    # column order; learning the vocabulary leaves them in first-seen order, which the SVDs
    # above were fitted on. The same counts in the same order give the same rows.
    return model, sp.csr_matrix(tfidf.transform(counts.sorted_indices()))
