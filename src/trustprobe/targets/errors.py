"""Harness errors: the target could not produce an answer, which is not an agent failure."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Protocol

from trustprobe.errors import TrustprobeError


class ErrorClass:
    """The error classes written to ``responses.jsonl`` (``error`` field)."""

    TIMEOUT = "timeout"
    CONNECTION = "connection"
    INVALID_RESPONSE = "invalid_response"
    TARGET_ERROR = "target_error"

    @staticmethod
    def http(status: int) -> str:
        """Class of an HTTP status error, e.g. ``http_429`` or ``http_503``."""
        return f"http_{status}"


class HarnessError(TrustprobeError):
    """The target failed to answer; ``error_class`` goes into the record, never a verdict."""

    error_class: str = ErrorClass.TARGET_ERROR
    retryable: bool = False

    def __init__(self, detail: str, *, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after
        """Seconds the target asked us to wait (``Retry-After``), if it said."""


class TargetTimeout(HarnessError):
    """No full answer within the per-request timeout."""

    error_class = ErrorClass.TIMEOUT
    retryable = True


class TargetConnectionError(HarnessError):
    """Could not connect, or the connection dropped before a full answer."""

    error_class = ErrorClass.CONNECTION
    retryable = True


class TargetHTTPError(HarnessError):
    """The endpoint answered with an HTTP error status."""

    def __init__(self, status: int, detail: str, *, retry_after: float | None = None) -> None:
        super().__init__(detail, retry_after=retry_after)
        self.status = status
        self.error_class = ErrorClass.http(status)
        # 408 and 429 say "try again later"; 5xx are the server's fault and often transient.
        self.retryable = status in (408, 429) or status >= 500


class InvalidTargetResponse(HarnessError):
    """The target answered, but not in the shape we were told to expect."""

    error_class = ErrorClass.INVALID_RESPONSE


class MalformedTargetBody(InvalidTargetResponse):
    """A success status whose body is not JSON at all: most often one cut short on the way.

    A proxy or load balancer that drops the end of an answer leaves a 2xx with a truncated
    body. That is transient like a 5xx, so it is retried; a well-formed answer of the wrong
    shape is not, since asking again gives the same shape.
    """

    retryable = True


class TargetFailed(HarnessError):
    """The target itself reported failure (non-zero exit, an exception in a callable)."""

    error_class = ErrorClass.TARGET_ERROR


def parse_retry_after(
    value: str | None, *, now: Callable[[], datetime] = lambda: datetime.now(UTC)
) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date.

    Returns ``None`` when the header is absent or unreadable (then normal backoff applies).
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; obsolete formats may lack the zone
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now()).total_seconds())


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret value in ``text`` so error details never carry a key."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


class _Readable(Protocol):
    """A stream of bytes: asyncio's ``StreamReader`` (a command's pipe) or aiohttp's (a body)."""

    def read(self, n: int = ...) -> Awaitable[bytes]: ...


async def read_bounded(
    stream: _Readable, limit: int, what: str, then: str, *, declared: int | None = None
) -> bytes:
    """An agent's answer or output read to its end, never past ``limit`` bytes.

    Nothing at all is read when its ``declared`` length is already past the limit.

    Raises:
        InvalidTargetResponse: longer than ``limit``: "``what`` larger than ``limit`` bytes
            (max_response_bytes); ``then``".
    """
    data = bytearray()
    if declared is None or declared <= limit:
        while chunk := await stream.read(1 << 16):
            data += chunk
            if len(data) > limit:
                break
        else:
            return bytes(data)
    raise InvalidTargetResponse(f"{what} larger than {limit} bytes (max_response_bytes); {then}")
