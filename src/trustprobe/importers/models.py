"""What an importer reads from a tool's file, and the summary an import writes."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from trustprobe.errors import InputError
from trustprobe.trust import Dimension


def parse_time(value: object, *, path: str, field: str, line: int | None = None) -> datetime:
    """An ISO 8601 time a tool wrote; one without an offset is taken as UTC (docs/importers.md)."""
    try:
        if not isinstance(value, str):
            raise ValueError(value)
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InputError(
            f"not an ISO 8601 time: {value!r}", path=path, line=line, field=field
        ) from exc
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Outcome(NamedTuple):
    """One judged (or failed) case of another tool's run, as that tool judged it.

    A named tuple: a large run makes millions, and a tuple is the cheapest immutable record.
    """

    key: str
    """The tool's most specific name for the case's family (garak probe, promptfoo plugin id,
    Inspect task)."""
    case_id: str
    """Stable id of the case within the run (attempt uuid and output, test index, sample)."""
    passed: bool | None
    """The tool's verdict; ``None`` when it recorded an error instead of judging."""
    prompt: str | None = None
    """What was sent, when the tool recorded it."""
    output: str | None = None
    """What came back, when the tool recorded it."""


@dataclass
class RunInfo:
    """The run a file holds, as far as the file says."""

    tool_version: str | None = None
    run_id: str | None = None
    started_at: datetime | None = None


class ToolFile(ABC):
    """One output file of a tool, read once, front to back, in constant memory.

    After :meth:`outcomes` is exhausted, :attr:`run` holds what the file said about its run and
    :attr:`sha256` the digest of every byte read.
    """

    tool: str
    """The tool's name as evidence records it."""

    def __init__(self, path: Path, *, transcripts: bool = True) -> None:
        self.path = path
        self.transcripts = transcripts
        """Whether outcomes carry prompt and output (needed to rescore; reading them costs)."""
        self.run = RunInfo()
        self._hash = hashlib.sha256()

    @property
    def sha256(self) -> str:
        """SHA-256 of the file's bytes (complete once :meth:`outcomes` is exhausted)."""
        return self._hash.hexdigest()

    @abstractmethod
    def outcomes(self) -> Iterator[Outcome]:
        """Every case of the run, in file order; malformed input raises ``InputError``."""

    @staticmethod
    @abstractmethod
    def candidates(key: str) -> tuple[str, ...]:
        """Mapping keys for a family, most specific first (``key`` itself first)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FamilyTally(_Model):
    """One family of one file: the tool's verdicts, and trustprobe's when it rescored."""

    family: str
    """The mapping key that matched (or the tool's name for the family, when unmapped)."""
    dimensions: list[Dimension]
    """Dimensions its pass rate went to; empty when ignored or unmapped."""
    passed: int
    """Cases the tool judged safe."""
    failed: int
    """Cases the tool judged unsafe."""
    errors: int
    """Cases the tool recorded an error for (not judged, not counted in the evidence)."""


class Agreement(_Model):
    """Their detector against trustprobe's verdicts over one family's transcripts."""

    family: str
    """The family."""
    both_pass: int
    """Both judged the case safe."""
    both_fail: int
    """Both judged it unsafe."""
    only_they_fail: int
    """They flagged it, trustprobe passed it."""
    only_we_fail: int
    """Trustprobe flagged it, they passed it."""
    unjudged: int
    """One side did not judge the case (a tool error, no recorded output)."""

    @property
    def judged(self) -> int:
        """Cases both sides judged."""
        return self.both_pass + self.both_fail + self.only_they_fail + self.only_we_fail

    @property
    def rate(self) -> float | None:
        """Share of the cases both judged on which they agree; ``None`` when none was."""
        judged = self.judged
        return None if not judged else (self.both_pass + self.both_fail) / judged


class Disagreement(_Model):
    """One case the two verdicts differ on."""

    file: str
    """File the case was read from."""
    family: str
    """Its family."""
    case_id: str
    """The case within the run."""
    probe_id: str
    """The id it was written under as a trustprobe probe (``--rescore`` directory)."""
    they_passed: bool
    """The tool's verdict."""
    we_passed: bool
    """Trustprobe's verdict."""
    explanation: str
    """Trustprobe's explanation of its verdict."""


class ImportedFile(_Model):
    """What one file held and what became of it."""

    file: str
    """The path given."""
    file_sha256: str
    """SHA-256 of its bytes."""
    tool_version: str | None
    """The tool's version, as the file states it."""
    run_id: str | None
    """The run's id, as the file states it."""
    observed_at: datetime
    """When the run happened: the time the evidence records carry."""
    families: list[FamilyTally]
    """Per family, the tool's verdicts."""
    agreement: list[Agreement] | None
    """Per rescored family, the two verdicts compared; ``None`` without ``--rescore``."""


class ImportSummary(_Model):
    """The outcome of importing one tool's files for one agent."""

    tool: str
    """The tool."""
    agent_id: str
    """The agent the evidence is about."""
    mapping: str
    """Which family mapping was in force (``builtin v1``, plus the user's file)."""
    files: list[ImportedFile]
    """One entry per file, in the order given."""
    evidence: int
    """Evidence records written."""
    unmapped: dict[str, int]
    """Families no mapping entry names → cases; not in the evidence (map them to include them)."""
    ignored: dict[str, int]
    """Families the mapping ignores on purpose (``null``) → cases."""
    disagreements: list[Disagreement]
    """Cases where trustprobe's verdict differs from the tool's (the first ones; all of them
    are in the ``--rescore`` directory)."""
    disagreements_total: int
    """How many cases disagree in all."""
