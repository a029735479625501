"""The one spelling of a UTC time that is stored or hashed: fixed width, so it sorts and parses."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_text(moment: datetime, *, separator: str = "T", zone: str = "Z") -> str:
    """``moment`` in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, the year always four digits.

    ``strftime("%Y")`` writes year 999 as ``999`` on glibc, a spelling SQLite's parser (and the
    hash of a record that holds it) would not agree on; this never varies in width.
    """
    utc = moment.astimezone(UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}{separator}"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond:06d}{zone}"
    )
