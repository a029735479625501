"""The async scan engine: concurrency, pacing, retries, a crash-safe journal, and resume."""

from trustprobe.runner.config import ConfigFile, ScanConfig, build_scan_config, merge_config
from trustprobe.runner.dispatch import (
    Case,
    ProgressListener,
    RunOutcome,
    plan_cases,
    run_cases,
)
from trustprobe.runner.interrupt import stop_on_signals
from trustprobe.runner.journal import (
    JournalContents,
    ResponseJournal,
    read_journal,
    rewrite_journal,
)
from trustprobe.runner.manifest import (
    CaseCounts,
    RunFiles,
    RunManifest,
    RunSession,
    RunStatus,
    read_manifest,
    write_manifest,
)
from trustprobe.runner.pacing import RetryDecision, TokenBucket, backoff_ceiling, decide_retry
from trustprobe.runner.progress import ProgressBar, ProgressLog, progress_for
from trustprobe.runner.scan import (
    ScanResult,
    resume_scan,
    scan,
    select_probes,
)
from trustprobe.runner.settings import RunnerSettings

__all__ = [
    "Case",
    "CaseCounts",
    "ConfigFile",
    "JournalContents",
    "ProgressBar",
    "ProgressListener",
    "ProgressLog",
    "ResponseJournal",
    "RetryDecision",
    "RunFiles",
    "RunManifest",
    "RunOutcome",
    "RunSession",
    "RunStatus",
    "RunnerSettings",
    "ScanConfig",
    "ScanResult",
    "TokenBucket",
    "backoff_ceiling",
    "build_scan_config",
    "decide_retry",
    "merge_config",
    "plan_cases",
    "progress_for",
    "read_journal",
    "read_manifest",
    "resume_scan",
    "rewrite_journal",
    "run_cases",
    "scan",
    "select_probes",
    "stop_on_signals",
    "write_manifest",
]
