"""The fitting sample's TF-IDF rows, kept from the fit, are the rows the model gives them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.observability.embedding import CaseText, fit_embedding

WORDS = ("refuse", "leak", "token", "vault", "delete", "table", "email", "forward", "the", "42")
_PART = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(st.tuples(_PART, _PART, _PART, _PART), min_size=1, max_size=30),
    max_features=st.integers(4, 9),
)
def test_the_rows_kept_from_the_fit_are_the_rows_of_the_model(
    texts: list[CaseText], max_features: int
) -> None:
    """Same values, same column order, bit for bit: the SVDs and clusters read these rows."""
    texts = [("refuse leak token", "vault delete", "table email", "forward 42"), *texts]
    model, rows = fit_embedding(texts, seed=0, max_features=max_features)
    again = model.tfidf_rows(texts)
    assert rows.shape == again.shape
    assert (rows.indptr == again.indptr).all()
    assert (rows.indices == again.indices).all()
    assert rows.data.tobytes() == again.data.tobytes()
