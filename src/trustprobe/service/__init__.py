"""The HTTP service: app factory, bearer-key auth, limits and the v1 routes."""

from trustprobe.service.app import create_app
from trustprobe.service.auth import PrincipalCache
from trustprobe.service.errors import ApiError, ErrorDetail
from trustprobe.service.health import Liveness, Readiness, build_health_router
from trustprobe.service.limits import BodySizeLimit, RateLimiter, StoreRateLimiter
from trustprobe.service.listen import listening_socket
from trustprobe.service.routes import ReportSubmission, ReviewDecision
from trustprobe.service.settings import DEFAULT_MAX_BODY_BYTES, ServiceSettings

__all__ = [
    "ApiError",
    "BodySizeLimit",
    "DEFAULT_MAX_BODY_BYTES",
    "ErrorDetail",
    "Liveness",
    "PrincipalCache",
    "RateLimiter",
    "Readiness",
    "ReportSubmission",
    "ReviewDecision",
    "ServiceSettings",
    "StoreRateLimiter",
    "build_health_router",
    "create_app",
    "listening_socket",
]
