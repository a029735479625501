"""Other tools' results as evidence: garak reports, promptfoo results, Inspect logs.

Each importer reads the tool's own output format in one streaming pass, tallies the tool's
verdicts per family, and maps families to trust dimensions through a versioned data file
(``families.yaml``) that a user's file can extend. See docs/importers.md.
"""

from trustprobe.importers.garak import GarakReport
from trustprobe.importers.importing import READERS, ImportResult, evidence_id, import_results
from trustprobe.importers.inspect_logs import InspectLog
from trustprobe.importers.mapping import (
    TOOLS,
    FamilyEntry,
    FamilyMapping,
    Tool,
    builtin_family_mapping,
    load_family_mapping,
)
from trustprobe.importers.models import (
    Agreement,
    Disagreement,
    FamilyTally,
    ImportedFile,
    ImportSummary,
    Outcome,
    RunInfo,
    ToolFile,
)
from trustprobe.importers.promptfoo import PromptfooResults
from trustprobe.importers.rescore import RESCORE_FILES, Rescorer, rescoring

__all__ = [
    "Agreement",
    "Disagreement",
    "FamilyEntry",
    "FamilyMapping",
    "FamilyTally",
    "GarakReport",
    "ImportResult",
    "ImportSummary",
    "ImportedFile",
    "InspectLog",
    "Outcome",
    "PromptfooResults",
    "READERS",
    "RESCORE_FILES",
    "Rescorer",
    "RunInfo",
    "TOOLS",
    "Tool",
    "ToolFile",
    "builtin_family_mapping",
    "evidence_id",
    "import_results",
    "load_family_mapping",
    "rescoring",
]
