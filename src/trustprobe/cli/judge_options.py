"""``--judge`` and its options, shared by ``score`` and ``scan``.

Without ``--judge`` nothing is sent anywhere and the judging package is not even imported;
the other ``--judge-*`` options are refused without it, so a half-given judge is never ignored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from trustprobe.errors import InputError

if TYPE_CHECKING:
    from trustprobe.reports import Report

SHOWN_LOW_CONFIDENCE = 0.7
"""``scoring.LOW_CONFIDENCE`` as ``--help`` shows it: importing scoring would load the rules
for ``--help`` (a test holds the two equal)."""
JUDGE_KINDS = ("openai",)
"""Values ``--judge`` accepts."""
CACHE_DIR_NAME = "judge-cache"
"""Default cache folder, next to the report (``score``) or in the run directory (``scan``)."""

JUDGE_OPTION = typer.Option(
    None,
    "--judge",
    help="Ask a judge model about low-confidence cases: 'openai' (any compatible API).",
)
JUDGE_BASE_URL_OPTION = typer.Option(
    None, "--judge-base-url", help="With --judge: API root, e.g. http://127.0.0.1:8000/v1."
)
JUDGE_MODEL_OPTION = typer.Option(None, "--judge-model", help="With --judge: the model name.")
JUDGE_KEY_OPTION = typer.Option(
    None, "--judge-api-key-env", help="With --judge: NAME of the variable holding the API key."
)
JUDGE_BELOW_OPTION = typer.Option(
    None,
    "--judge-below",
    min=0.0,
    max=1.0,
    help="With --judge: send cases below this verdict confidence "
    f"(default {SHOWN_LOW_CONFIDENCE}).",
)
JUDGE_CACHE_OPTION = typer.Option(
    None,
    "--judge-cache",
    help=f"With --judge: ruling cache folder (default: {CACHE_DIR_NAME}/ beside the report).",
)


@dataclass(frozen=True)
class JudgeRequest:
    """The ``--judge*`` options as given."""

    kind: str | None
    base_url: str | None
    model: str | None
    api_key_env: str | None
    below: float | None
    cache: Path | None

    def wanted(self) -> bool:
        """Whether a judge was asked for; refuses ``--judge-*`` options without ``--judge``.

        Raises:
            InputError: an unknown judge, a missing URL or model, or options without --judge.
        """
        if self.kind is None:
            given = [
                name
                for name, value in (
                    ("--judge-base-url", self.base_url),
                    ("--judge-model", self.model),
                    ("--judge-api-key-env", self.api_key_env),
                    ("--judge-below", self.below),
                    ("--judge-cache", self.cache),
                )
                if value is not None
            ]
            if given:
                raise InputError(f"{given[0]} needs --judge openai", field=given[0])
            return False
        if self.kind not in JUDGE_KINDS:
            raise InputError(
                f"unknown judge {self.kind!r}; choose one of: {', '.join(JUDGE_KINDS)}",
                field="--judge",
            )
        for name, value in (("--judge-base-url", self.base_url), ("--judge-model", self.model)):
            if not value:
                raise InputError(f"--judge {self.kind} needs {name}", field=name)
        return True

    def rewrite(self, report: Report, written: Path, default_cache: Path) -> Report:
        """Judge the report written at ``written`` and write it back (only when :meth:`wanted`).

        A streamed report holds its cases only in its file: they are read back from there.
        """
        from trustprobe.judging import JudgeSettings, judge_report
        from trustprobe.reports import read_report, write_report_json
        from trustprobe.scoring import LOW_CONFIDENCE

        assert self.base_url is not None and self.model is not None
        settings = JudgeSettings(
            base_url=self.base_url,
            model=self.model,
            api_key_env=self.api_key_env,
            below=LOW_CONFIDENCE if self.below is None else self.below,
            cache_dir=self.cache or default_cache,
        )
        full = report if report.cases else read_report(written)
        judged = judge_report(full, settings, os.environ)
        write_report_json(judged, written)
        return judged
