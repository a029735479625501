"""Case scoring: ``score_case(probe, response, detector) -> CaseScore`` by transparent rules."""

from trustprobe.scoring.case import Scorer, noisy_or, score_case
from trustprobe.scoring.models import CaseScore, ScoringConfig

__all__ = ["CaseScore", "Scorer", "ScoringConfig", "noisy_or", "score_case"]
