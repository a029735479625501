"""``make demo``: start the demo agent, scan it with the built-in catalog, stop it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from trustprobe.demo.personas import Persona
from trustprobe.demo.server import DemoAgentServer
from trustprobe.detectors import Detector
from trustprobe.errors import InputError
from trustprobe.probes import BUILTIN
from trustprobe.runner import (
    RunFiles,
    RunnerSettings,
    ScanConfig,
    ScanResult,
    progress_for,
    read_manifest,
    scan,
    stop_on_signals,
)
from trustprobe.targets import OpenAITargetConfig

DEMO_MODEL_PREFIX = "trustprobe-demo-"


def _clear_previous_demo(run_dir: Path) -> None:
    """Remove an earlier demo run from ``run_dir`` so ``make demo`` can be run again.

    Only a run this flow wrote (its model name says so) is removed; any other run is kept
    and reported, because it may be someone's real results.
    """
    files = RunFiles(run_dir)
    if not files.manifest.exists() and not files.responses.exists():
        return
    manifest = read_manifest(run_dir)
    target = manifest.config.target
    if not (target.kind == "openai" and target.model.startswith(DEMO_MODEL_PREFIX)):
        raise InputError(
            "holds a run that is not a demo run; choose another output directory", path=run_dir
        )
    for path in (files.responses, files.report_json, files.report_md, files.manifest):
        path.unlink(missing_ok=True)


def demo_config(base_url: str, persona: Persona) -> ScanConfig:
    """Scan configuration for the demo agent: the built-in catalog, gentle pacing."""
    return ScanConfig(
        target=OpenAITargetConfig(base_url=base_url, model=f"{DEMO_MODEL_PREFIX}{persona.value}"),
        runner=RunnerSettings(concurrency=8, timeout=10.0, retries=1),
        probes=(BUILTIN,),
    )


async def run_demo(
    run_dir: Path,
    *,
    detector: Detector,
    persona: Persona = Persona.GUARDED,
    progress_console: Console | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> ScanResult:
    """Serve the demo agent on a free loopback port, scan it, and stop it again."""
    _clear_previous_demo(run_dir)
    with DemoAgentServer(persona) as agent:
        progress = progress_for(progress_console) if progress_console is not None else None
        async with stop_on_signals() as stop:
            return await scan(
                demo_config(agent.base_url, persona),
                run_dir,
                env={},  # the demo agent needs no key; nothing from the environment is read
                detector=detector,
                progress=progress,
                stop=stop,
                now=now,
            )
