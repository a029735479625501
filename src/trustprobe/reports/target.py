"""Which agent a report is about, named without secrets."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, field_validator

# Query parameters that carry credentials in the wild: API keys, tokens, signatures (SAS,
# presigned URLs), passwords, session ids.
_SECRET_PARAMETER = re.compile(
    r"key|token|secret|sig|signature|password|passwd|pwd|auth|credential|session|code",
    re.IGNORECASE,
)


def redact_url(url: str) -> str:
    """``url`` without user, password, fragment, or query parameters that look like secrets.

    ``https://user:pw@host/v1?api-version=2024-02-01&api_key=sk-1#x`` becomes
    ``https://host/v1?api-version=2024-02-01``. A string that is not a URL is returned as is.
    """
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    kept = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not _SECRET_PARAMETER.search(name)
    ]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(kept), ""))


class ReportTarget(BaseModel):
    """The agent a report is about: kind, model and endpoint, never a secret."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    """Target kind: ``openai``, ``http``, ``cmd``, ``python``, or ``recorded`` (responses read
    from files)."""
    model: str | None = None
    """Model name sent to the endpoint, where the kind has one."""
    base_url: str | None = None
    """Endpoint, stripped of user, password, fragment and secret-looking query parameters."""
    name: str | None = None
    """What else identifies it: the command's program, or the Python callable."""

    @field_validator("base_url")
    @classmethod
    def _no_secrets(cls, url: str | None) -> str | None:
        # Stripped here, not only by the callers, so no report can carry one.
        return None if url is None else redact_url(url)

    @property
    def summary(self) -> str:
        """``openai · model gpt-4o-mini · https://host/v1``: the line reports start with."""
        return " · ".join(
            part
            for part in (
                self.kind,
                None if self.model is None else f"model {self.model}",
                self.base_url,
                self.name,
            )
            if part
        )
