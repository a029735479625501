"""``trustprobe reviews``: list, approve and reject anomalous score transitions."""

from __future__ import annotations

import getpass
import json
from datetime import UTC, datetime

import typer
from rich.table import Table

from trustprobe.cli.console import console
from trustprobe.cli.db_cmd import DATABASE_URL_OPTION, cli_store, organisation_option
from trustprobe.store import Review, ReviewStatus, decide_review, list_reviews

app = typer.Typer(help="Review anomalous score swings.", no_args_is_help=True)

ORG_OPTION = organisation_option("Organisation whose reviews.")
REASON_OPTION = typer.Option(..., "--reason", help="Why; kept with the review forever.")
REVIEWER_OPTION = typer.Option(
    None, "--reviewer", help="Who decides (default: the login name, recorded as user:NAME)."
)


def _print_reviews(reviews: list[Review]) -> None:
    table = Table("id", "agent", "transition", "status", "canonical", "proposed", "opened", "by")
    for review in reviews:
        table.add_row(
            str(review.id),
            review.agent_id,
            str(review.transition_seq),
            review.status.value,
            str(review.canonical_composite),
            f"{review.composite} ({review.tier})",
            review.opened_at.isoformat(timespec="seconds"),
            review.decided_by or "",
        )
    console.print(table)


@app.command("list")
def list_(
    status: str = typer.Option(
        "pending", "--status", help="pending, approved, rejected, superseded or all."
    ),
    org: str = ORG_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """List reviews of anomalous transitions, oldest first."""
    wanted = None if status == "all" else ReviewStatus(status)
    with cli_store(database_url) as store:
        reviews = list_reviews(store, organisation=org, status=wanted)
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in reviews], indent=2))
    elif reviews:
        _print_reviews(reviews)
    else:
        console.print(f"no {status} reviews in organisation {org!r}", soft_wrap=True)


def _decide(
    review_id: int, approve: bool, reason: str, reviewer: str | None, org: str, url: str | None
) -> None:
    actor = f"user:{reviewer or getpass.getuser()}"
    with cli_store(url) as store:
        review = decide_review(
            store,
            review_id,
            organisation=org,
            approve=approve,
            reviewer=actor,
            reason=reason,
            now=datetime.now(UTC),
        )
    _print_reviews([review])


@app.command("approve")
def approve(
    review_id: int = typer.Argument(
        ..., min=1, max=2**31 - 1, help="Review id (see `reviews list`)."
    ),
    reason: str = REASON_OPTION,
    reviewer: str | None = REVIEWER_OPTION,
    org: str = ORG_OPTION,
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Approve a pending review: its transition becomes the canonical score."""
    _decide(review_id, True, reason, reviewer, org, database_url)


@app.command("reject")
def reject(
    review_id: int = typer.Argument(
        ..., min=1, max=2**31 - 1, help="Review id (see `reviews list`)."
    ),
    reason: str = REASON_OPTION,
    reviewer: str | None = REVIEWER_OPTION,
    org: str = ORG_OPTION,
    database_url: str | None = DATABASE_URL_OPTION,
) -> None:
    """Reject a pending review: its transition is kept, marked rejected, never canonical."""
    _decide(review_id, False, reason, reviewer, org, database_url)
