"""JSON errors a person can act on, for every failure the service reports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from trustprobe.errors import InputError, TrustprobeError
from trustprobe.store import NotFoundError, ReviewClosedError, SchemaOutOfDateError

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "rate_limited",
    503: "unavailable",
}
_UNION_TAGS = ("eval", "jury", "operational")


class ErrorDetail(BaseModel):
    """One specific problem, located as precisely as possible."""

    model_config = ConfigDict(extra="forbid")

    index: int | None = None
    """0-based position of the offending record in a JSON array body."""
    field: str | None = None
    """Dotted path of the offending field within the record or body."""
    message: str
    """What is wrong."""


class ApiError(BaseModel):
    """The body of every error response."""

    model_config = ConfigDict(extra="forbid")

    status: int
    """The HTTP status, repeated for clients that only keep the body."""
    code: str
    """Stable machine-readable code, e.g. ``unauthorized`` or ``invalid_input``."""
    message: str
    """What went wrong and what to do about it."""
    details: list[ErrorDetail] = []
    """Per-record or per-field problems, when there are any."""


class ServiceError(StarletteHTTPException):
    """An error with a message for the client; rendered as :class:`ApiError`."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        details: list[ErrorDetail] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.details = details or []


def error_response(
    status: int,
    message: str,
    *,
    details: list[ErrorDetail] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """Render an :class:`ApiError`."""
    body = ApiError(
        status=status,
        code=_CODES.get(status, "error"),
        message=message,
        details=details or [],
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


_HTTP_MESSAGES = {
    404: "no such route; see /docs for the API",
    405: "method not allowed on this route; see /docs for the API",
}


async def handle_http_error(_request: Request, exc: Exception) -> JSONResponse:
    """Render Starlette/FastAPI HTTP errors (ours, 404 routes, 413 from the body limit)."""
    assert isinstance(exc, StarletteHTTPException)
    details = exc.details if isinstance(exc, ServiceError) else []
    message = str(exc.detail)
    if not isinstance(exc, ServiceError):
        message = _HTTP_MESSAGES.get(exc.status_code, message)
    headers = None if exc.headers is None else dict(exc.headers)
    return error_response(exc.status_code, message, details=details, headers=headers)


def _detail(error: dict[str, Any]) -> ErrorDetail:
    loc = list(error.get("loc", ()))
    where = loc.pop(0) if loc and loc[0] in ("body", "query", "path", "header") else "body"
    index = None
    if where == "body" and loc and isinstance(loc[0], int):
        index = loc.pop(0)
    if loc and loc[0] in _UNION_TAGS:  # the evidence union puts its tag first; not a field
        loc.pop(0)
    field = ".".join(str(part) for part in loc) or None
    message = str(error.get("msg", "invalid"))
    cause = (error.get("ctx") or {}).get("error")
    if error.get("type") == "json_invalid":
        field, index = None, None
        message = f"the body is not valid JSON ({cause})" if cause else "the body is not valid JSON"
    elif error.get("type") == "extra_forbidden":
        message = "unknown field"
    elif error.get("type") == "missing":
        message = "required field is missing"
    elif error.get("type") == "union_tag_not_found":
        field, message = "kind", "required field is missing (one of eval, jury, operational)"
    elif error.get("type") == "union_tag_invalid":
        field, message = "kind", "must be one of eval, jury, operational"
    elif isinstance(cause, ValueError) and hasattr(cause, "field"):
        field, message = str(cause.field), str(cause)
    elif error.get("type") == "value_error" and cause is not None:
        message = str(cause)  # without pydantic's "Value error, " prefix
    if where != "body" and field is not None:
        field = f"{where}.{field}"
    return ErrorDetail(index=index, field=field, message=message)


LISTED_PROBLEMS = 100
"""Problems a 422 lists at most; the message gives the total (a 600 kB body of 200,000 empty
records made a 20 MB answer listing each)."""


def invalid_request(total: int | None, errors: Sequence[Any]) -> ServiceError:
    """The 422 of a request with ``total`` problems (``None``: too many to count), first listed."""
    details = [_detail(dict(error)) for error in errors[:LISTED_PROBLEMS]]
    count = f"{LISTED_PROBLEMS} or more problems" if total is None else f"{total} problem(s)"
    many = total is None or total > LISTED_PROBLEMS
    listed = f", the first {LISTED_PROBLEMS} listed" if many else ""
    return ServiceError(
        422, f"the request is invalid ({count}{listed}); nothing was stored", details=details
    )


async def handle_validation_error(request: Request, exc: Exception) -> JSONResponse:
    """Render request validation failures as 422 with the first problems listed."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    return await handle_http_error(request, invalid_request(len(errors), errors))


def input_error_detail(exc: InputError) -> ErrorDetail:
    """Turn an :class:`InputError` from the library into a detail."""
    index = exc.index if exc.index is not None else exc.line
    return ErrorDetail(index=index, field=exc.field, message=exc.message)


STATUSES: tuple[tuple[type[TrustprobeError], int], ...] = (
    (NotFoundError, 404),
    (ReviewClosedError, 409),
    (SchemaOutOfDateError, 503),
    (InputError, 422),
    (TrustprobeError, 500),
)
"""Most specific first; the first class a library error is an instance of decides its status."""


async def handle_trustprobe_error(_request: Request, exc: Exception) -> JSONResponse:
    """Render an error the library raised on purpose with its status from :data:`STATUSES`."""
    assert isinstance(exc, TrustprobeError)
    status = next(code for kind, code in STATUSES if isinstance(exc, kind))
    details = [input_error_detail(exc)] if isinstance(exc, InputError) else []
    return error_response(status, str(exc), details=details)
