"""The headline scoring benchmark: ``trustprobe score`` end to end, as a user runs it.

Fresh synthetic responses to the 282 built-in probes (:mod:`benchmarks.fresh_responses`, about
480 bytes each, nearly all distinct) are scored by the CLI in a child process::

    trustprobe score --probes builtin --responses r.jsonl --output out.json

and the child's CPU time (user + system, from its rusage), wall time and peak RSS
(``ru_maxrss``) are taken from the operating system, with the run's own per-stage CPU split
(``--profile-stages``). Measured, on the same file, in the same run:

* ``builtin``: the built-in rule packs;
* ``rules x10``: the built-in packs plus nine variants of every rule (``bench_scoring.ten_times``:
  same structure, other literal words), passed as ``--rules`` files;
* ``substring scan``: the baseline, :mod:`benchmarks.substring_scan` in a child process of the
  same Python — 156 mitigation phrases, nothing else.

Beside it, **in process** (:func:`in_process`): the scoring stage against the scan's matching,
on the same responses in the same process, chunk by chunk as ``trustprobe score`` reads them —
``Scorer.score_all`` building every case (built-in rules, then rules x10) against the scan's
:func:`~benchmarks.substring_scan.bypassed` on each text. Reading the file, metrics, the report
and writing are left out of both: this is the comparison the "2x the substring scan" target is
stated as (same process, same data), the end-to-end rows are the other. Beside it, with their
ratio to the scan: ``score_all`` with the cases rendered whole, and ``score_text`` ("case
lines"), what ``trustprobe score`` does per chunk: the cases whose verdict recurs kept as
columns (not built), every case's line of the report's text joined.

``python -m benchmarks end_to_end`` measures 200,000 cases; ``TRUSTPROBE_BENCH_SIZES`` takes a
comma-separated list (``200000,1000000``). ``TRUSTPROBE_BENCH_BEFORE=COMMIT`` also runs the
built-in configuration with the source tree of an earlier commit (``git archive``, put first on
``PYTHONPATH``), in the same run, so a before/after comparison meets the same machine load;
``TRUSTPROBE_BENCH_ROUNDS=N`` runs the two built-in configurations N times, alternated, and
prints the ratio of their CPU time in each round (rules x10 is set against the median). With
an earlier commit the in-process rows are measured for both trees too, each in a process of its
own (``--in-process PATH``), alternated N times.
Input files are kept under the system's temporary directory between runs
(``trustprobe-bench``), keyed by size and seed; each is written under a name of its own and
renamed into place, and the variant packs of ``rules x10`` are written into the run's own
directory, so runs of different source trees at the same time don't read each other's files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from benchmarks.bench_scoring import ten_times
from benchmarks.fresh_responses import write_responses
from benchmarks.substring_scan import bypassed
from trustprobe.cli.collection import bulk_collection
from trustprobe.detectors import Detector, builtin_rule_packs
from trustprobe.probes import builtin_probes
from trustprobe.reports.writers import CASES, CASES_DEPTH, line_layout, render_items
from trustprobe.responses import read_responses
from trustprobe.scoring import Scorer

SEED = 20261125
SIZES = (200_000,)
TARGET_CASES_PER_CPU_SECOND = 30_000
DATA = Path(tempfile.gettempdir()) / "trustprobe-bench"
PYTHON = sys.executable
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Measured:
    """One child process: its CPU and wall seconds, peak RSS and stage split."""

    cpu: float
    wall: float
    rss_mb: float
    stages: dict[str, dict[str, float | None]]


def run_child(
    args: list[str], stages: Path | None = None, env: dict[str, str] | None = None
) -> Measured:
    """Run ``args`` to completion and read its resource use from ``wait4``."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in (0, 1):  # 1: the run's own gate, not a failure to run
            errors.seek(0)
            raise RuntimeError(f"{args[:4]} exited {child.returncode}: {errors.read()[-2000:]!r}")
    split = json.loads(stages.read_text()) if stages is not None and stages.exists() else {}
    return Measured(
        cpu=usage.ru_utime + usage.ru_stime,
        wall=wall,
        rss_mb=usage.ru_maxrss / 1024,
        stages=split,
    )


def responses_file(count: int) -> Path:
    """The fresh response file of ``count`` cases, written once per size and seed."""
    DATA.mkdir(exist_ok=True)
    path = DATA / f"responses-{count}-{SEED}.jsonl"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.partial")
        write_responses(partial, count, SEED)
        partial.replace(path)
    return path


def ten_times_rule_files(directory: Path) -> list[Path]:
    """The nine variant packs of ``rules x10`` as YAML files in ``directory`` (the built-in
    packs are implied): made from this tree's packs, so they are written per run."""
    builtin = builtin_rule_packs()
    paths: list[Path] = []
    for pack in ten_times(builtin, SEED)[len(builtin) :]:
        path = directory / f"{pack.pack}-{SEED}.yaml"
        path.write_text(yaml.safe_dump(pack.model_dump(mode="json"), sort_keys=False))
        paths.append(path)
    return paths


def score(responses: Path, rules: list[Path], work: Path, source: Path | None = None) -> Measured:
    """``trustprobe score`` in a child; ``source``: an older ``src`` tree to run instead."""
    stages = work / "stages.json"
    stages.unlink(missing_ok=True)
    args = [PYTHON, "-m", "trustprobe", "score", "--probes", "builtin", "--responses"]
    args += [str(responses), "--output", str(work / "out.json")]
    if source is None:
        args += ["--profile-stages", str(stages)]
    for path in rules:
        args += ["--rules", str(path)]
    env = None if source is None else {**os.environ, "PYTHONPATH": str(source)}
    return run_child(args, stages, env)


def source_tree(commit: str) -> Path:
    """The ``src`` directory of ``commit``, exported once under the data directory."""
    target = DATA / f"src-{commit}"
    if not target.exists():
        DATA.mkdir(exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f"src-{commit}.", dir=DATA))
        archive = subprocess.run(
            ["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(partial)], input=archive.stdout, check=True)
        try:
            partial.rename(target)
        except OSError:  # another run put the same tree in place first
            shutil.rmtree(partial)
    return target / "src"


def substring_scan(responses: Path, work: Path) -> Measured:
    args = [PYTHON, "-m", "benchmarks.substring_scan", str(responses), str(work / "scan.jsonl")]
    return run_child(args)


@dataclass(frozen=True)
class InProcess:
    """CPU seconds of the scoring stage (by rule set) and of the scan's matching, same data.

    ``rendered``: the built-in scoring with the cases' report text, each case rendered whole
    (``score_all`` then ``render_items``) and as ``trustprobe score`` renders it
    (``score_text``: the lines joined as the report lays them out).
    """

    cases: int
    scan: float
    scoring: dict[str, float]
    rendered: dict[str, float]


def in_process(responses: Path) -> InProcess:
    """Score ``responses`` and scan their texts in this process, chunk by chunk, timing each.

    Every chunk is scanned, then scored with the built-in rules, then with rules x10, each
    by a scorer and detector made before the first chunk (as ``trustprobe score`` does), so
    all three meet the same text at the same machine load. Garbage is collected as the CLI
    collects it (``bulk_collection``).
    """
    probes = builtin_probes()
    builtin = builtin_rule_packs()
    scorers = {
        "builtin": Scorer(Detector(builtin)),
        "rules x10": Scorer(Detector(ten_times(builtin, SEED))),
    }
    lines_scorer = Scorer(Detector(builtin))
    prefix, separator = line_layout(CASES_DEPTH)
    clock = time.process_time
    scan = 0.0
    scoring = dict.fromkeys(scorers, 0.0)
    rendered = dict.fromkeys(("whole cases", "case lines"), 0.0)
    cases = 0
    with bulk_collection():
        for part in read_responses([responses]):
            texts = [r.response if r.error is None else None for r in part.responses]
            start = clock()
            for text in texts:
                bypassed(text)
            scan += clock() - start
            for name, scorer in scorers.items():
                start = clock()
                scored = scorer.score_all(probes, part.responses)
                scoring[name] += clock() - start
                if name == "builtin":
                    render_items(CASES, scored, CASES_DEPTH)
                    rendered["whole cases"] += clock() - start
            start = clock()
            lines_scorer.score_text(probes, part.responses, separator, prefix)
            rendered["case lines"] += clock() - start
            cases += len(part.responses)
    return InProcess(cases=cases, scan=scan, scoring=scoring, rendered=rendered)


def print_in_process(result: InProcess) -> None:
    n = result.cases
    print(f"  in process, same data ({n:,} cases), CPU s of the matching or scoring only:")
    scan = result.scan
    print(f"    {'substring scan':<16} {n / scan:>9,.0f} cases/CPU-s  cpu {scan:6.1f} s")
    for name, cpu in result.scoring.items():
        print(
            f"    {'scoring ' + name:<16} {n / cpu:>9,.0f} cases/CPU-s  cpu {cpu:6.1f} s"
            f"  {scan / cpu:5.2f}x the substring scan (target 2x)",
            flush=True,
        )
    for name, cpu in result.rendered.items():
        print(
            f"    scoring builtin, rendering {name}: {n / cpu:,.0f} cases/CPU-s  cpu {cpu:.1f} s"
            f"  {scan / cpu:5.2f}x the substring scan",
            flush=True,
        )


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def print_row(name: str, count: int, m: Measured, baseline: Measured) -> None:
    rate = count / m.cpu
    print(
        f"  {name:<16} {rate:>9,.0f} cases/CPU-s  cpu {m.cpu:7.1f} s  wall {m.wall:7.1f} s"
        f"  peak RSS {m.rss_mb:7.0f} MB  {baseline.cpu / m.cpu:5.2f}x the substring scan",
        flush=True,
    )


def print_stages(name: str, m: Measured) -> None:
    if m.stages:
        split = "  ".join(f"{k} {v['cpu_s']:.1f}" for k, v in m.stages.items())
        print(f"    {name} CPU s by stage: {split}", flush=True)


def main() -> None:
    sizes = [int(s) for s in os.environ.get("TRUSTPROBE_BENCH_SIZES", "").split(",") if s]
    before = os.environ.get("TRUSTPROBE_BENCH_BEFORE")
    old_source = source_tree(before) if before else None
    rounds = int(os.environ.get("TRUSTPROBE_BENCH_ROUNDS", "1"))
    for count in sizes or SIZES:
        responses = responses_file(count)
        size = responses.stat().st_size / 1e6
        print(f"{count:,} fresh cases ({size:.0f} MB), load {load_average()}", flush=True)
        with tempfile.TemporaryDirectory(dir=DATA) as tmp:
            work = Path(tmp)
            rules = ten_times_rule_files(work)
            baseline = substring_scan(responses, work)
            olds: list[Measured] = []
            builtins: list[Measured] = []
            for _ in range(rounds):  # the two trees alternated, so both meet the same load
                if old_source is not None:
                    olds.append(score(responses, [], work, old_source))
                builtins.append(score(responses, [], work))
            tenfold = score(responses, rules, work)
        print_row("substring scan", count, baseline, baseline)
        for at, builtin in enumerate(builtins):
            if olds:
                print_row(f"builtin {before}", count, olds[at], baseline)
            print_row("builtin", count, builtin, baseline)
            print_stages("builtin", builtin)
        if olds:
            ratios = ", ".join(f"{o.cpu / b.cpu:.3f}" for o, b in zip(olds, builtins, strict=True))
            print(f"  CPU of {before} / this tree, round by round: {ratios}")
        builtin = sorted(builtins, key=lambda m: m.cpu)[len(builtins) // 2]  # the median
        print_row("rules x10", count, tenfold, baseline)
        print_stages("rules x10", tenfold)
        print(
            f"  rules x10 cost {tenfold.cpu / builtin.cpu:.2f}x the CPU of builtin;"
            f" target {TARGET_CASES_PER_CPU_SECOND:,} cases/CPU-s; load {load_average()}",
            flush=True,
        )
        if old_source is not None:  # the in-process rows of both trees, alternated
            for _ in range(rounds):
                in_process_child(responses, before, old_source)
                in_process_child(responses, "this tree")
        else:
            print_in_process(in_process(responses))
        print(f"  load {load_average()}", flush=True)


def in_process_child(responses: Path, label: str, source: Path | None = None) -> None:
    """The in-process rows in a process of their own, with ``source`` first on the path."""
    print(f"  {label}:", flush=True)
    env = None if source is None else {**os.environ, "PYTHONPATH": str(source)}
    args = [PYTHON, "-m", "benchmarks.bench_end_to_end", "--in-process", str(responses)]
    subprocess.run(args, env=env, check=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--in-process"]:
        print_in_process(in_process(Path(sys.argv[2])))
    else:
        main()
