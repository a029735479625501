"""Target configuration validation and harness error helpers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from trustprobe.errors import InputError
from trustprobe.targets import (
    CommandTargetConfig,
    ErrorClass,
    TargetHTTPError,
    parse_retry_after,
    parse_target_config,
    redact,
)


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"kind": "smoke"}, "kind", "unknown target kind 'smoke'"),
        ({"kind": "openai", "model": "m"}, "base_url", "required field is missing"),
        ({"kind": "openai", "base_url": "ftp://x", "model": "m"}, "base_url", "pattern"),
        (
            {"kind": "openai", "base_url": "http://x", "model": "m", "api_key": "sk-1"},
            None,
            "secrets are never read from configuration",
        ),
        (
            {
                "kind": "http",
                "url": "http://x",
                "response_path": "a",
                "headers": {"Authorization": "B"},
            },
            "headers",
            "looks like a credential",
        ),
        (
            {"kind": "openai", "base_url": "http://x", "model": "m", "api_key_env": "1BAD"},
            "api_key_env",
            "pattern",
        ),
        ({"kind": "python", "callable": "no_colon"}, "callable", "pattern"),
        ({"kind": "cmd", "command": []}, "command", "at least 1"),
    ],
    ids=[
        "unknown-kind",
        "missing-field",
        "bad-url",
        "inline-key",
        "secret-header",
        "bad-env-name",
        "bad-callable",
        "empty-command",
    ],
)
def test_invalid_configs_name_the_field(
    data: dict[str, Any], field: str | None, message: str
) -> None:
    with pytest.raises(InputError, match=message) as caught:
        parse_target_config(data)
    if field is not None:
        assert caught.value.field == field


def test_command_string_is_split_like_a_shell() -> None:
    config = CommandTargetConfig(command="python3 -m 'my agent' --flag=1")
    assert config.command == ("python3", "-m", "my agent", "--flag=1")


NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("7", 7.0),
        (" 1.5 ", 1.5),
        ("-3", 0.0),
        ("Thu, 01 Jan 2026 12:00:30 GMT", 30.0),  # HTTP date 30 s after NOW
        ("Thu, 01 Jan 2026 11:59:00 GMT", 0.0),  # already past: no wait
        ("soon", None),
        ("", None),
        (None, None),
    ],
    ids=["seconds", "fraction", "negative", "http-date", "past-date", "garbage", "empty", "absent"],
)
def test_parse_retry_after(header: str | None, seconds: float | None) -> None:
    assert parse_retry_after(header, now=lambda: NOW) == seconds


@pytest.mark.parametrize(
    ("status", "retryable"), [(400, False), (401, False), (408, True), (429, True), (503, True)]
)
def test_http_errors_retry_only_when_transient(status: int, retryable: bool) -> None:
    error = TargetHTTPError(status, "x")
    assert (error.error_class, error.retryable) == (ErrorClass.http(status), retryable)


def test_redact_replaces_every_secret_and_ignores_empty_ones() -> None:
    assert redact("key sk-1 and sk-1 and tok", ["sk-1", "", "tok"]) == "key *** and *** and ***"
