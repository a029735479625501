"""Case scoring: ``score_case(probe, response, detector) -> CaseScore`` by transparent rules."""

from trustprobe.scoring.formula import noisy_or
from trustprobe.scoring.models import CaseScore, JudgeOpinion, ScoringConfig
from trustprobe.scoring.scorer import Scorer, score_case

__all__ = ["CaseScore", "JudgeOpinion", "Scorer", "ScoringConfig", "noisy_or", "score_case"]
