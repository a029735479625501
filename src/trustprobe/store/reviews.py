"""Review of anomalous transitions: list them, approve (canonical) or reject (never canonical)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from trustprobe.errors import InputError
from trustprobe.store.chains import ReviewHolder
from trustprobe.store.database import read_transaction, write_transaction
from trustprobe.store.errors import NotFoundError, ReviewClosedError
from trustprobe.store.evidence import lock_organisation
from trustprobe.store.history import OpenReview, close_reviews, review_from_row, review_query
from trustprobe.store.models import Review, ReviewStatus
from trustprobe.store.schema import OrganisationRow, ReviewRow, TransitionRow
from trustprobe.store.store import TrustStore

MAX_REASON = 2000


def list_reviews(
    store: TrustStore, *, organisation: str, status: ReviewStatus | None = ReviewStatus.PENDING
) -> list[Review]:
    """List the organisation's reviews with ``status`` (all when ``None``), oldest first."""
    query = (
        review_query()
        .join(OrganisationRow, OrganisationRow.id == ReviewRow.organisation_id)
        .where(OrganisationRow.name == organisation)
    )
    if status is not None:
        query = query.where(ReviewRow.status == status.value)
    with read_transaction(store.engine) as connection:
        rows = connection.execute(query.order_by(ReviewRow.id)).all()
        return [review_from_row(connection, row) for row in rows]


def decide_review(
    store: TrustStore,
    review_id: int,
    *,
    organisation: str,
    approve: bool,
    reviewer: str,
    reason: str,
    now: datetime,
) -> Review:
    """Approve or reject a pending review of ``organisation``.

    Raises :class:`NotFoundError` for a review that does not exist in the organisation (another
    organisation's review looks exactly the same), :class:`ReviewClosedError` if it was decided.
    """
    reason = reason.strip()
    if not reason:
        raise InputError("a review decision needs a reason", field="reason")
    if len(reason) > MAX_REASON:
        raise InputError(f"a review reason is at most {MAX_REASON} characters", field="reason")
    status = ReviewStatus.APPROVED if approve else ReviewStatus.REJECTED
    with write_transaction(store.engine) as connection:
        organisation_id = connection.execute(
            select(OrganisationRow.id).where(OrganisationRow.name == organisation)
        ).scalar_one_or_none()
        if organisation_id is None:
            raise NotFoundError(f"no review {review_id} in this organisation")
        lock_organisation(connection, organisation, now=now)
        row = connection.execute(
            select(
                ReviewRow.status,
                ReviewRow.transition_seq,
                ReviewRow.opened_at,
                ReviewRow.agent_pk,
                TransitionRow.row_hash,
            )
            # The transition must be the organisation's too: a review row moved to another
            # organisation (by hand, in SQL) cannot be decided there.
            .join(
                TransitionRow,
                (TransitionRow.seq == ReviewRow.transition_seq)
                & (TransitionRow.organisation_id == ReviewRow.organisation_id)
                & (TransitionRow.agent_pk == ReviewRow.agent_pk),
            )
            .where(ReviewRow.id == review_id, ReviewRow.organisation_id == organisation_id)
        ).first()
        if row is None:
            raise NotFoundError(f"no review {review_id} in this organisation")
        if row.status != ReviewStatus.PENDING.value:
            raise ReviewClosedError(
                f"review {review_id} is already {row.status}; only pending reviews can be decided"
            )
        holder = ReviewHolder(organisation_id, row.agent_pk)
        close_reviews(
            connection,
            [OpenReview(review_id, row.transition_seq, row.row_hash, holder, row.opened_at)],
            status=status,
            decided_by=reviewer,
            reason=reason,
            now=now,
        )
        decided = connection.execute(review_query().where(ReviewRow.id == review_id)).one()
        return review_from_row(connection, decided)
