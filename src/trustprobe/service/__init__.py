"""The HTTP service: app factory, bearer-key auth, limits and the v1 routes."""

from trustprobe.service.app import create_app
from trustprobe.service.auth import PrincipalCache
from trustprobe.service.errors import ApiError, ErrorDetail
from trustprobe.service.limits import BodySizeLimit, RateLimiter
from trustprobe.service.routes import ReportSubmission, ReviewDecision
from trustprobe.service.settings import DEFAULT_MAX_BODY_BYTES, ServiceSettings

__all__ = [
    "ApiError",
    "BodySizeLimit",
    "DEFAULT_MAX_BODY_BYTES",
    "ErrorDetail",
    "PrincipalCache",
    "RateLimiter",
    "ReportSubmission",
    "ReviewDecision",
    "ServiceSettings",
    "create_app",
]
