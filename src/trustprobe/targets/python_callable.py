"""Target: a Python callable ``module:function`` taking the request document."""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.targets.errors import HarnessError, InvalidTargetResponse, TargetFailed
from trustprobe.targets.messages import probe_request
from trustprobe.targets.models import PythonTargetConfig, TargetReply
from trustprobe.targets.protocol import Pace
from trustprobe.targets.tool_loop import Turn, run_tool_loop, turn_from_document


def import_callable(spec: str) -> Callable[..., Any]:
    """Resolve ``package.module:attr.path`` to a callable, or explain why not."""
    module_name, _, attr_path = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"cannot import module '{module_name}': {exc}", field="callable") from exc
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise InputError(f"'{spec}': no attribute '{part}'", field="callable") from exc
    if not callable(obj):
        raise InputError(f"'{spec}' is not callable", field="callable")
    return obj  # type: ignore[no-any-return]


def _turn(result: Any) -> Turn:
    if isinstance(result, TargetReply):
        return Turn(result.text, (), result.input_tokens, result.output_tokens)
    if isinstance(result, str):
        return Turn(result)
    if isinstance(result, dict):
        return turn_from_document(result)
    raise InvalidTargetResponse(
        f"callable returned {type(result).__name__}; expected str or {{'text': ...}}"
    )


class PythonTarget:
    """Calls the function with the request document; sync functions run in worker threads."""

    def __init__(self, config: PythonTargetConfig, *, env: Mapping[str, str]) -> None:
        self.config = config
        self._function = import_callable(config.callable)
        self._is_async = inspect.iscoroutinefunction(self._function)
        self._executor: ThreadPoolExecutor | None = None
        if not self._is_async:
            self._executor = ThreadPoolExecutor(
                max_workers=config.threads, thread_name_prefix="trustprobe-target"
            )

    async def send(self, probe: Probe, *, sample: int, pace: Pace | None = None) -> TargetReply:
        """Call the function once per turn of the case's conversation (once without calls)."""

        async def ask(messages: list[dict[str, Any]], step: int) -> Turn:
            return await self._call(
                probe_request(probe, sample=sample, messages=messages, step=step)
            )

        return await run_tool_loop(probe, ask, pace)

    async def _call(self, request: dict[str, Any]) -> Turn:
        """Call the function once with ``request``."""
        try:
            if self._executor is None:
                result = await self._function(request)
            else:
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(self._executor, self._function, request)
                if inspect.isawaitable(result):
                    result = await result
        except HarnessError:
            raise  # the callable may classify its own failures
        except Exception as exc:
            raise TargetFailed(f"{type(exc).__name__}: {exc}") from exc
        return _turn(result)

    async def aclose(self) -> None:
        """Stop the worker threads (a call still running in one is left to finish)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
