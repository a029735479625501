"""Errors raised by the store; the CLI and the service map each to an exit code or status."""

from __future__ import annotations

from trustprobe.errors import StoreError

__all__ = ["NotFoundError", "ReviewClosedError", "SchemaOutOfDateError", "StoreError"]


class SchemaOutOfDateError(StoreError):
    """The database is not at the schema revision this version of trustprobe expects."""


class NotFoundError(StoreError):
    """The agent or review does not exist in the caller's organisation."""


class ReviewClosedError(StoreError):
    """The review was already decided (or superseded) and cannot be decided again."""
