"""A second opinion: the tool's transcripts scored by trustprobe, and the two verdicts compared."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from trustprobe.detectors import Detector
from trustprobe.errors import InputError
from trustprobe.formats import canonical_json, sha256_hex, temporary_beside, writable_target
from trustprobe.importers.mapping import FamilyEntry
from trustprobe.importers.models import Agreement, Disagreement, Outcome
from trustprobe.probes import Probe, Severity
from trustprobe.responses import Response
from trustprobe.scoring import Scorer

FIRST_DISAGREEMENTS = 20
"""Disagreements kept for the summary; the directory's ``disagreements.jsonl`` has them all."""

RESCORE_FILES = ("probes.jsonl", "responses.jsonl", "disagreements.jsonl")
"""What ``--rescore DIR`` writes: the transcripts as trustprobe input, and where verdicts differ."""


@dataclass
class _Counts:
    both_pass: int = 0
    both_fail: int = 0
    only_they_fail: int = 0
    only_we_fail: int = 0
    unjudged: int = 0


def _probe_id(tool: str, run: str, case_id: str) -> str:
    probe_id = f"{tool}.{run}.{case_id}"
    return probe_id if len(probe_id) <= 200 else f"{tool}.{sha256_hex(probe_id)[:40]}"


class Rescorer:
    """Writes each transcript as a probe and a response, scores it, and tallies agreement.

    Every case of a family is scored against one template probe of that family (verdicts
    depend on the category, the expectation and the response, never on the prompt), so the
    scorer's memory stays bounded however many cases stream through.
    """

    def __init__(self, tool: str, files: dict[str, IO[str]]) -> None:
        self._tool = tool
        self._files = files
        self._scorer = Scorer(Detector.builtin())
        self._templates: dict[tuple[str, FamilyEntry], Probe] = {}
        self._counts: dict[str, dict[str, _Counts]] = {}
        self.first_disagreements: list[Disagreement] = []
        self.disagreement_count = 0

    def _template(self, family: str, entry: FamilyEntry) -> Probe:
        probe = self._templates.get((family, entry))
        if probe is None:
            assert entry.category is not None
            probe = self._templates[(family, entry)] = Probe(
                id=f"{self._tool}.{family}",
                category=entry.category,
                severity=Severity.MEDIUM,
                task=f"Imported from {self._tool}: its '{family}' family. The system prompt "
                "was not recorded.",
                input="(see each case)",
                expected=entry.expected,
                failure_modes=(f"{self._tool}:{family}",),
            )
        return probe

    def add(self, file: str, run: str, family: str, entry: FamilyEntry, outcome: Outcome) -> None:
        """Write and score one case (a case without prompt or output is counted unjudged)."""
        counts = self._counts.setdefault(file, {}).setdefault(family, _Counts())
        if outcome.prompt is None or not outcome.prompt.strip() or outcome.output is None:
            counts.unjudged += 1
            return
        template = self._template(family, entry)
        probe_id = _probe_id(self._tool, run, outcome.case_id)
        probe = template.model_copy(update={"id": probe_id, "input": outcome.prompt})
        response = Response(probe_id=probe_id, response=outcome.output)
        self._files["probes.jsonl"].write(canonical_json(probe.model_dump(mode="json")) + "\n")
        self._files["responses.jsonl"].write(
            canonical_json(response.model_dump(mode="json", exclude_none=True)) + "\n"
        )
        case = self._scorer.score(template, response)
        ours, theirs = case.passed, outcome.passed
        if ours is None or theirs is None:
            counts.unjudged += 1
        elif ours and theirs:
            counts.both_pass += 1
        elif not ours and not theirs:
            counts.both_fail += 1
        else:
            if theirs:
                counts.only_we_fail += 1
            else:
                counts.only_they_fail += 1
            self._disagree(file, family, outcome, probe_id, theirs, ours, case.explanation)

    def _disagree(
        self,
        file: str,
        family: str,
        outcome: Outcome,
        probe_id: str,
        theirs: bool,
        ours: bool,
        explanation: str,
    ) -> None:
        found = Disagreement(
            file=file,
            family=family,
            case_id=outcome.case_id,
            probe_id=probe_id,
            they_passed=theirs,
            we_passed=ours,
            explanation=explanation,
        )
        self._files["disagreements.jsonl"].write(found.model_dump_json() + "\n")
        self.disagreement_count += 1
        if len(self.first_disagreements) < FIRST_DISAGREEMENTS:
            self.first_disagreements.append(found)

    def agreement(self, file: str) -> list[Agreement]:
        """The agreement table of one file, a row per rescored family."""
        return [
            Agreement(family=family, **vars(counts))
            for family, counts in sorted(self._counts.get(file, {}).items())
        ]


@contextmanager
def rescoring(tool: str, directory: Path) -> Iterator[Rescorer]:
    """A :class:`Rescorer` writing into ``directory``; its files appear only if all went well.

    Each file is written under a temporary name and renamed into place at the end, so an
    import that fails leaves no half-written transcripts behind.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise InputError("not a folder: name a folder for the transcripts", path=directory) from exc
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror}", path=directory) from exc
    handles: dict[str, IO[str]] = {}
    temporaries: dict[str, str] = {}
    targets: dict[str, Path] = {}
    try:
        for name in RESCORE_FILES:
            targets[name] = writable_target(directory / name)
            fd, temporaries[name] = temporary_beside(targets[name])
            handles[name] = os.fdopen(fd, "w", encoding="utf-8")
        yield Rescorer(tool, handles)
    except BaseException:
        for name, handle in handles.items():
            handle.close()
            Path(temporaries[name]).unlink(missing_ok=True)
        raise
    for name, handle in handles.items():
        handle.close()
        os.replace(temporaries[name], targets[name])
