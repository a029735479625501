"""From other tools' result files to evidence: tallies per family, mapped to dimensions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from trustprobe.errors import InputError
from trustprobe.formats import canonical_json, sha256_hex
from trustprobe.importers.garak import GarakReport
from trustprobe.importers.inspect_logs import InspectLog
from trustprobe.importers.mapping import FamilyMapping, Tool
from trustprobe.importers.models import (
    Disagreement,
    FamilyTally,
    ImportedFile,
    ImportSummary,
    ToolFile,
)
from trustprobe.importers.promptfoo import PromptfooResults
from trustprobe.importers.rescore import Rescorer
from trustprobe.trust import EvalEvidence, Evidence, EvidenceOrigin

READERS: dict[Tool, type[ToolFile]] = {
    "garak": GarakReport,
    "promptfoo": PromptfooResults,
    "inspect": InspectLog,
}
"""The reader of each tool's output format."""


@dataclass
class _Tally:
    passed: int = 0
    failed: int = 0
    errors: int = 0


@dataclass
class ImportResult:
    """The evidence an import produced and the summary that explains it."""

    evidence: list[Evidence]
    summary: ImportSummary


def evidence_id(origin: EvidenceOrigin, dimension: str, agent_id: str) -> str:
    """``<tool>-<digest>``: the same run, family, dimension and agent always give the same id.

    The digest covers the run (its id and the file's SHA-256) but not the file's name, so a
    renamed copy of an imported file is recognised, not counted twice.
    """
    key = canonical_json(
        [origin.tool, origin.run_id, origin.file_sha256, origin.family, dimension, agent_id]
    )
    return f"{origin.tool}-{sha256_hex(key)[:32]}"


def import_results(
    tool: Tool,
    paths: Sequence[Path],
    *,
    agent_id: str,
    mapping: FamilyMapping,
    observed_at: datetime | None = None,
    rescorer: Rescorer | None = None,
) -> ImportResult:
    """Read each file once, front to back, and turn its verdicts into eval evidence.

    Each mapped family of each file becomes one ``passed``/``total`` record per dimension it
    maps to, carrying a ``source`` that names the tool, run, file and family. Unjudged cases
    are counted, not scored; unmapped families are listed, never guessed.
    """
    evidence: list[Evidence] = []
    files: list[ImportedFile] = []
    unmapped: Counter[str] = Counter()
    ignored: Counter[str] = Counter()
    digests: dict[str, int] = {}
    for position, path in enumerate(paths):
        reader = READERS[tool](path, transcripts=rescorer is not None)
        tallies = _read(tool, reader, mapping, unmapped, ignored, rescorer)
        first = digests.setdefault(reader.sha256, position)
        if first != position:
            # Its records would repeat the first file's ids under another file name: an
            # evidence file no reader accepts.
            raise InputError(
                f"the same file as {paths[first]} (SHA-256 {reader.sha256[:12]}): import it once",
                path=path,
            )
        moment = observed_at or reader.run.started_at
        if moment is None:
            raise InputError(
                "the file does not say when the run happened; pass --observed-at", path=path
            )
        families = _families(tool, reader, tallies, mapping, agent_id, moment, evidence)
        files.append(
            ImportedFile(
                file=str(path),
                file_sha256=reader.sha256,
                tool_version=reader.run.tool_version,
                run_id=reader.run.run_id,
                observed_at=moment,
                families=families,
                agreement=None if rescorer is None else rescorer.agreement(str(path)),
            )
        )
    disagreements: list[Disagreement] = [] if rescorer is None else rescorer.first_disagreements
    summary = ImportSummary(
        tool=tool,
        agent_id=agent_id,
        mapping=mapping.version,
        files=files,
        evidence=len(evidence),
        unmapped=dict(sorted(unmapped.items())),
        ignored=dict(sorted(ignored.items())),
        disagreements=disagreements,
        disagreements_total=0 if rescorer is None else rescorer.disagreement_count,
    )
    return ImportResult(evidence, summary)


def _families(
    tool: Tool,
    reader: ToolFile,
    tallies: dict[str, _Tally],
    mapping: FamilyMapping,
    agent_id: str,
    moment: datetime,
    evidence: list[Evidence],
) -> list[FamilyTally]:
    """One file's tally per family; the records of each judged, mapped family go to ``evidence``.

    A family becomes one ``passed``/``total`` record per dimension it maps to, its ``source``
    naming the tool, run, file and family.
    """
    families: list[FamilyTally] = []
    for family, tally in sorted(tallies.items()):
        entry = mapping.resolve(tool, (family,)).entry
        dimensions = list(entry.dimensions) if entry is not None else []
        families.append(FamilyTally(family=family, dimensions=dimensions, **vars(tally)))
        total = tally.passed + tally.failed
        if not total:
            continue
        origin = EvidenceOrigin(
            tool=tool,
            tool_version=reader.run.tool_version,
            run_id=reader.run.run_id,
            file=reader.path.name,
            file_sha256=reader.sha256,
            family=family,
        )
        for dimension in dimensions:
            evidence.append(
                EvalEvidence(
                    id=evidence_id(origin, dimension.value, agent_id),
                    agent_id=agent_id,
                    dimension=dimension,
                    observed_at=moment,
                    passed=tally.passed,
                    total=total,
                    source=origin,
                )
            )
    return families


def _read(
    tool: Tool,
    reader: ToolFile,
    mapping: FamilyMapping,
    unmapped: Counter[str],
    ignored: Counter[str],
    rescorer: Rescorer | None,
) -> dict[str, _Tally]:
    """Stream one file's outcomes into per-family tallies (memory grows with families only).

    Outcomes are counted by (tool's family name, verdict) and mapped once at the end; only
    rescoring looks at each outcome's mapping as it streams past.
    """
    counts: Counter[tuple[str, bool | None]] = Counter()
    if rescorer is None:
        counts.update((outcome.key, outcome.passed) for outcome in reader.outcomes())
    else:
        name = str(reader.path)
        for outcome in reader.outcomes():
            counts[(outcome.key, outcome.passed)] += 1
            found = mapping.resolve(tool, reader.candidates(outcome.key))
            if found.entry is not None and found.entry.category is not None:
                run = reader.run.run_id or reader.path.stem
                rescorer.add(name, run, found.family, found.entry, outcome)
    tallies: dict[str, _Tally] = {}
    for (key, passed), count in sorted(counts.items(), key=lambda item: str(item[0])):
        found = mapping.resolve(tool, reader.candidates(key))
        if found.entry is None:
            (ignored if found.mapped else unmapped)[found.family] += count
            continue
        tally = tallies.setdefault(found.family, _Tally())
        if passed is None:
            tally.errors += count
        elif passed:
            tally.passed += count
        else:
            tally.failed += count
    return tallies
