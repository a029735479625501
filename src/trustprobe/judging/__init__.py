"""An optional judge model for the cases the rules cannot read well (``--judge``)."""

from trustprobe.judging.judge import JudgeSettings, judge_report
from trustprobe.judging.rubric import RUBRIC, RUBRIC_VERSION

__all__ = ["JudgeSettings", "RUBRIC", "RUBRIC_VERSION", "judge_report"]
