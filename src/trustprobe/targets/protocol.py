"""The one interface every target implements."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from trustprobe.probes import Probe
from trustprobe.targets.models import TargetReply

Pace = Callable[[], Awaitable[None]]
"""Waits until the runner's rate limit allows one more request."""


class Target(Protocol):
    """An agent under test: answers one probe per call.

    ``send`` raises a :class:`~trustprobe.targets.HarnessError` subclass when no answer could
    be had. It has no timeout of its own: the runner bounds each call and cancels it.
    """

    async def send(self, probe: Probe, *, sample: int, pace: Pace | None = None) -> TargetReply:
        """Send one probe (repeat ``sample``) and return the agent's answer.

        A case whose agent calls tools takes several requests: ``pace`` is awaited before each
        one after the first, so a rate limit counts requests, not cases.
        """
        ...

    async def aclose(self) -> None:
        """Release connections, threads or processes."""
        ...
