"""What a scan's harness errors say, and what to check: the hint of a failed harness gate."""

from __future__ import annotations

from collections.abc import Mapping

from trustprobe.targets import ErrorClass

_HINTS: dict[str, str] = {
    "http_401": "check --api-key-env (the key is missing, wrong or expired)",
    "http_403": "check --api-key-env and what the key is allowed to do",
    "http_404": "check --base-url / --url and --model",
    "http_405": "check --base-url / --url: the endpoint does not take POST",
    "http_408": "the target timed out the requests; lower --concurrency or raise --timeout",
    "http_413": "the requests are too large for the target",
    "http_422": "the target refused the request body; check --model / --body",
    "http_429": "the target is rate-limiting: lower --rate or --concurrency",
    ErrorClass.CONNECTION: "check the address and that the target is running",
    ErrorClass.TIMEOUT: "check that the target is running; raise --timeout if it is slow",
    ErrorClass.INVALID_RESPONSE: (
        "check that the endpoint speaks the configured protocol (--response-path for http)"
    ),
    ErrorClass.TARGET_ERROR: "run the command or callable by hand on one probe to see it fail",
}
_SERVER_ERROR = "the target is failing (5xx); check its logs"
_OTHER = "see error_detail in responses.jsonl"
_SHOWN = 3


def _hint(error_class: str) -> str:
    if error_class in _HINTS:
        return _HINTS[error_class]
    if error_class.startswith("http_5"):
        return _SERVER_ERROR
    return _OTHER


def harness_hint(error_classes: Mapping[str, int]) -> str:
    """The most frequent error classes with counts, then what to check for the first.

    E.g. ``196 × http_401: check --api-key-env (the key is missing, wrong or expired)``.
    """
    if not error_classes:
        return "no case has a record"
    ranked = sorted(error_classes.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{count} × {name}" for name, count in ranked[:_SHOWN])
    if len(ranked) > _SHOWN:
        shown += f", {len(ranked) - _SHOWN} more class(es)"
    return f"{shown}: {_hint(ranked[0][0])}"
