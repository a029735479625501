"""The one interface every target implements."""

from __future__ import annotations

from typing import Protocol

from trustprobe.probes import Probe
from trustprobe.targets.models import TargetReply


class Target(Protocol):
    """An agent under test: answers one probe per call.

    ``send`` raises a :class:`~trustprobe.targets.HarnessError` subclass when no answer could
    be had. It has no timeout of its own: the runner bounds each call and cancels it.
    """

    async def send(self, probe: Probe, *, sample: int) -> TargetReply:
        """Send one probe (repeat ``sample``) and return the agent's answer."""
        ...

    async def aclose(self) -> None:
        """Release connections, threads or processes."""
        ...
