"""Case scoring: ``score_case(probe, response, detector) -> CaseScore`` by transparent rules."""

from trustprobe.scoring.formula import noisy_or
from trustprobe.scoring.models import (
    LOW_CONFIDENCE,
    CallMatch,
    CaseScore,
    FlaggedCall,
    JudgeOpinion,
    ScoringConfig,
)
from trustprobe.scoring.rows import LightCase, ScoredCases
from trustprobe.scoring.scorer import Scorer, score_case

__all__ = [
    "CallMatch",
    "CaseScore",
    "FlaggedCall",
    "JudgeOpinion",
    "LOW_CONFIDENCE",
    "LightCase",
    "ScoredCases",
    "Scorer",
    "ScoringConfig",
    "noisy_or",
    "score_case",
]
