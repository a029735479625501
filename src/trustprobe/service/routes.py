"""The v1 routes: parse, call one store function, render."""

from __future__ import annotations

import asyncio
import email.message
import hashlib
import json
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from fastapi.routing import APIRoute
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
)
from starlette.requests import ClientDisconnect

from trustprobe.errors import InputError
from trustprobe.formats import Identifier, StorableText, check_identifier
from trustprobe.reports import (
    NON_FINITE,
    SCHEMA_VERSION,
    Report,
    ReportFieldError,
    non_finite_field,
)
from trustprobe.service.auth import get_store, require, scope_extra
from trustprobe.service.errors import (
    LISTED_PROBLEMS,
    ApiError,
    ServiceError,
    input_error_detail,
    invalid_request,
)
from trustprobe.service.problems import first_problems
from trustprobe.store import (
    AgentScore,
    EvidenceSource,
    HistoryPage,
    IngestResult,
    Principal,
    ReportIngestResult,
    Review,
    ReviewStatus,
    Scope,
    StoredRun,
    TrustStore,
    canonical_score_json,
    decide_review,
    ingest_evidence,
    list_reviews,
    score_history,
    stored_runs,
    submit_report,
)
from trustprobe.trust import Evidence, ObservedAt


class ReportSubmission(BaseModel):
    """A probe report to convert to evidence for one agent."""

    model_config = ConfigDict(extra="forbid")

    agent_id: Identifier
    """The agent the report is about."""
    report: Report
    """The report JSON exactly as ``trustprobe score`` or ``scan`` wrote it."""
    observed_at: ObservedAt | None = None
    """When the probes ran; default: the report's creation time, else the time of receipt."""

    @field_validator("report", mode="before")
    @classmethod
    def _supported_version(cls, value: Any) -> Any:
        version = value.get("schema_version") if isinstance(value, dict) else None
        if version is not None and version != SCHEMA_VERSION:
            raise ValueError(
                f"report schema version {version} is not supported (this service reads"
                f" {SCHEMA_VERSION})"
            )
        # The body's JSON reader takes NaN and Infinity, which no report holds: refused here,
        # they would otherwise fail the report's digest as a server error.
        found = non_finite_field(value)
        if found is not None:
            raise ReportFieldError(NON_FINITE, field=f"report.{found}" if found else "report")
        return value


class ReviewDecision(BaseModel):
    """Why a reviewer approves or rejects a transition."""

    model_config = ConfigDict(extra="forbid")

    reason: StorableText = Field(min_length=1, max_length=2000, pattern=r"\S")
    """Why; kept with the review forever."""


Store = Annotated[TrustStore, Depends(get_store)]
AgentId = Annotated[
    str,
    Path(min_length=1, max_length=200, description="The agent's id."),
    AfterValidator(check_identifier),
]
# Review ids are 32-bit integer keys on every backend (PostgreSQL's INTEGER): a larger one
# names no review, and is refused before it reaches the database.
ReviewId = Annotated[int, Path(ge=1, le=2**31 - 1, description="The review's id.")]

Responses = dict[int | str, dict[str, Any]]
_AUTH: Responses = {401: {"model": ApiError}, 403: {"model": ApiError}, 429: {"model": ApiError}}
_BODY: Responses = {413: {"model": ApiError}, 415: {"model": ApiError}, 422: {"model": ApiError}}
_404: Responses = {404: {"model": ApiError}}
_409: Responses = {409: {"model": ApiError}}


def _declares_json(content_type: str) -> bool:
    """Whether a ``Content-Type`` is one FastAPI reads as JSON (``application/json``, ``+json``)."""
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


async def json_body(request: Request) -> None:
    """Refuse a body not declared as JSON with 415, saying what to send.

    FastAPI hands such a body to validation as bytes, and the answer was a 422 saying a valid
    JSON array "should be a valid list" (``curl -d`` sends form encoding; some clients send no
    type at all).
    """
    declared = request.headers.get("content-type")
    if (declared is None or not _declares_json(declared)) and await request.body():
        raise ServiceError(
            415,
            "send the body as JSON with the header Content-Type: application/json "
            f"(this request said {declared or 'no Content-Type'})",
        )


_JSON_BODY = [Depends(json_body)]


def entity_tag(body: bytes) -> str:
    """A strong ETag for a response body: a digest of its bytes, quoted."""
    return f'"{hashlib.blake2b(body, digest_size=16).hexdigest()}"'


def etag_matches(if_none_match: str | None, tag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``tag`` (weak comparison, as RFC 9110 says)."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    candidates = (c.strip().removeprefix("W/") for c in if_none_match.split(","))
    return tag in candidates


def _render(model: BaseModel) -> Response:
    # The model is already the declared response model: serialise it once, in pydantic's
    # Rust serializer, instead of FastAPI's validate → dict → json.dumps round trip.
    return Response(model.model_dump_json(), media_type="application/json")


_RECORDS: TypeAdapter[list[Evidence]] = TypeAdapter(list[Evidence])


class _RecordsRequest(Request):
    """A request whose JSON body is read straight into evidence records when it holds valid ones.

    One ``validate_json`` over the raw bytes replaces ``json.loads`` then validation of the
    Python objects; FastAPI's own validation then only checks the records are records. A body
    that does not validate is parsed as plain JSON, as any request's, so FastAPI validates it and
    reports exactly the errors it always did.
    """

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = _RECORDS.validate_json(body)
            except ValidationError as exc:
                total = exc.error_count()
                if total > LISTED_PROBLEMS:
                    # FastAPI's validation would build every problem (200,000 empty records
                    # in 600 kB of body held 400 MB); only the listed ones are built here.
                    raise invalid_request(total, _first_problems(body)) from None
                self._json = json.loads(body)
        return self._json


def _first_problems(body: bytes) -> list[dict[str, Any]]:
    """The first problems of a records body, located as FastAPI locates them, a slice at a time."""
    records = json.loads(body)
    found: list[dict[str, Any]] = []
    if not isinstance(records, list):
        return found
    for start in range(0, len(records), LISTED_PROBLEMS):
        if len(found) >= LISTED_PROBLEMS:
            break
        try:
            _RECORDS.validate_python(records[start : start + LISTED_PROBLEMS])
        except ValidationError as exc:
            for error in exc.errors(include_url=False):
                index, *rest = error["loc"] or (0,)
                found.append({**error, "loc": ("body", start + int(index), *rest)})
    return found[:LISTED_PROBLEMS]


class _RecordsRoute(APIRoute):
    """The route of ``POST /v1/evidence``: its handler reads the body as a records request.

    On SQLite a process validates and ingests one batch at a time (its body is received first,
    outside that turn). The database takes one writer at a time anyway, and a second batch
    validated in the same process meanwhile only competed for the interpreter's lock with the
    one holding the write lock, which then held it longer: the other worker process, on the
    other core, is where the next batch gets ready (docs/benchmarks.md, "Ingestion under the
    write lock").
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        turn = asyncio.Lock()

        async def read_records(request: Request) -> Response:
            records = _RecordsRequest(request.scope, request.receive)
            store: TrustStore = request.app.state.store
            if store.engine.dialect.name != "sqlite":
                return await handler(records)
            try:
                await records.body()
            except ClientDisconnect:
                # The client left mid-body: nothing to store and no one to answer; a 400
                # (dropped unsent) rather than an unhandled error logged with a traceback.
                raise ServiceError(400, "the client closed the connection mid-body") from None
            async with turn:
                return await handler(records)

        return read_records


class _ReportRequest(Request):
    """A request whose report is searched for its first problems before it is validated whole."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            data = json.loads(await self.body())
            found = first_problems(ReportSubmission, data, limit=LISTED_PROBLEMS, loc=("body",))
            if len(found) >= LISTED_PROBLEMS:
                raise invalid_request(None, found)
            self._json = data
        return self._json


class _ReportRoute(APIRoute):
    """The route of ``POST /v1/reports``: a body of many bad cases never builds every error."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def read_report(request: Request) -> Response:
            return await handler(_ReportRequest(request.scope, request.receive))

        return read_report


def build_router(clock: Callable[[], datetime]) -> APIRouter:
    """Build the v1 API; ``clock`` supplies ``now`` for ingestion and decisions."""
    router = APIRouter(prefix="/v1")
    _add_ingestion_routes(router, clock)
    _add_agent_routes(router)
    _add_review_routes(router, clock)
    return router


def _add_ingestion_routes(router: APIRouter, clock: Callable[[], datetime]) -> None:
    """``POST /evidence`` and ``POST /reports``: what the organisation sends in."""

    def post_evidence(
        records: Annotated[list[Evidence], Body()],
        store: Store,
        principal: Annotated[Principal, Depends(require(Scope.WRITE))],
    ) -> IngestResult:
        """Store new records; identical re-sends count as duplicates; conflicts are rejected."""
        return ingest_evidence(
            store,
            records,
            organisation=principal.organisation,
            now=clock(),
            source=EvidenceSource.API,
        )

    router.add_api_route(
        "/evidence",
        post_evidence,
        methods=["POST"],
        response_model=IngestResult,
        responses={**_AUTH, **_BODY},
        summary="Send a JSON array of evidence records",
        openapi_extra=scope_extra(Scope.WRITE),
        route_class_override=_RecordsRoute,
        dependencies=_JSON_BODY,
    )

    def post_report(
        submission: ReportSubmission,
        store: Store,
        principal: Annotated[Principal, Depends(require(Scope.WRITE))],
    ) -> ReportIngestResult:
        """Convert a probe report to evidence for the agent and ingest it."""
        try:
            return submit_report(
                store,
                submission.report,
                agent_id=submission.agent_id,
                organisation=principal.organisation,
                observed_at=submission.observed_at,
                now=clock(),
            )
        except InputError as exc:
            detail = input_error_detail(exc)
            detail.field = f"report.{detail.field}" if detail.field else "report"
            raise ServiceError(
                422, f"the report cannot be converted: {exc}", details=[detail]
            ) from exc

    router.add_api_route(
        "/reports",
        post_report,
        methods=["POST"],
        response_model=ReportIngestResult,
        responses={**_AUTH, **_BODY},
        summary="Send a probe report; it is converted to evidence",
        openapi_extra=scope_extra(Scope.WRITE),
        dependencies=_JSON_BODY,
        route_class_override=_ReportRoute,
    )


def _add_agent_routes(router: APIRouter) -> None:
    """``GET /agents/{agent_id}/...``: an agent's score, its history and its sources."""

    @router.get(
        "/agents/{agent_id}/score",
        response_model=AgentScore,
        responses={
            **_AUTH,
            **_404,
            304: {"description": "Not modified: If-None-Match names the current ETag"},
        },
        summary="The agent's canonical score, with its explanation and any pending review",
        openapi_extra=scope_extra(Scope.READ),
    )
    def get_score(
        request: Request,
        agent_id: AgentId,
        store: Store,
        principal: Annotated[Principal, Depends(require(Scope.READ))],
    ) -> Response:
        """Return the canonical score: the last committed or approved transition.

        The body carries an ``ETag``; a request whose ``If-None-Match`` names it gets 304.
        """
        body = canonical_score_json(store, organisation=principal.organisation, agent_id=agent_id)
        tag = entity_tag(body)
        if etag_matches(request.headers.get("if-none-match"), tag):
            return Response(status_code=304, headers={"ETag": tag})
        return Response(body, media_type="application/json", headers={"ETag": tag})

    @router.get(
        "/agents/{agent_id}/history",
        response_model=HistoryPage,
        responses={**_AUTH, **_404, 422: {"model": ApiError}},
        summary="The agent's score transitions, newest first",
        openapi_extra=scope_extra(Scope.READ),
    )
    def get_history(
        request: Request,
        agent_id: AgentId,
        store: Store,
        principal: Annotated[Principal, Depends(require(Scope.READ))],
        limit: Annotated[int | None, Query(ge=1, le=500)] = None,
        before: Annotated[int | None, Query(ge=1, le=2**62)] = None,
    ) -> Response:
        """Return a page of transitions; follow ``next_before`` for older ones."""
        page = score_history(
            store,
            organisation=principal.organisation,
            agent_id=agent_id,
            limit=limit or request.app.state.settings.history_page_size,
            before=before,
        )
        return _render(page)

    @router.get(
        "/agents/{agent_id}/sources",
        response_model=list[StoredRun],
        responses={**_AUTH, **_404},
        summary="The runs of other tools whose results are stored about the agent",
        openapi_extra=scope_extra(Scope.READ),
    )
    def get_sources(
        agent_id: AgentId,
        store: Store,
        principal: Annotated[Principal, Depends(require(Scope.READ))],
    ) -> list[StoredRun]:
        """List each imported run (tool, run id, file digest) with its record count."""
        return stored_runs(store, organisation=principal.organisation, agent_id=agent_id)


def _add_review_routes(router: APIRouter, clock: Callable[[], datetime]) -> None:
    """``/reviews``: the anomalous transitions held for a reviewer, and their decisions."""

    @router.get(
        "/reviews",
        response_model=list[Review],
        responses={**_AUTH, 422: {"model": ApiError}},
        summary="Reviews of anomalous transitions",
        openapi_extra=scope_extra(Scope.REVIEW),
    )
    def get_reviews(
        store: Store,
        principal: Annotated[Principal, Depends(require(Scope.REVIEW))],
        status: ReviewStatus = ReviewStatus.PENDING,
    ) -> list[Review]:
        """List the organisation's reviews with ``status`` (default ``pending``), oldest first."""
        return list_reviews(store, organisation=principal.organisation, status=status)

    def decide(approve: bool) -> Callable[..., Review]:
        def route(
            review_id: ReviewId,
            decision: ReviewDecision,
            store: Store,
            principal: Annotated[Principal, Depends(require(Scope.REVIEW))],
        ) -> Review:
            return decide_review(
                store,
                review_id,
                organisation=principal.organisation,
                approve=approve,
                reviewer=principal.actor,
                reason=decision.reason,
                now=clock(),
            )

        return route

    for approve, action, summary in (
        (True, "approve", "Approve a pending review: its transition becomes canonical"),
        (False, "reject", "Reject a pending review: its transition is kept but never canonical"),
    ):
        router.add_api_route(
            f"/reviews/{{review_id}}/{action}",
            decide(approve),
            methods=["POST"],
            response_model=Review,
            responses={**_AUTH, **_BODY, **_404, **_409},
            summary=summary,
            openapi_extra=scope_extra(Scope.REVIEW),
            name=f"{action}_review",
            dependencies=_JSON_BODY,
        )
