"""Importing a garak report of 1,000,000 attempts: rate and memory of the CLI, end to end.

The report is made from the attempt entries of the committed garak fixture
(``tests/data/garak``, garak 0.17.1 against its ``test.Repeat`` generator), cycled with fresh
uuids: every attempt has its two entries, as garak writes them (``status`` 1 after generation,
2 after detection), two outputs each. The 33 KB DAN prompt is left out so the file stays
within a few GB; the other probes' entries are 1.6–4.9 KB, as in real reports.

Each run is a user's command in a fresh interpreter, ``trustprobe import garak FILE --agent A
--output evidence.jsonl``, measured from outside: wall time, the child's own CPU time (from
``wait4``) and its peak RSS (``VmHWM`` in ``/proc``). The same run measures two baselines over
the same file: reading every line with ``json.loads`` (what a first importer would do before any
other work), and reading every line into the SHA-256 only (the floor: the digest the evidence
records carry needs every byte). Memory is
constant when the peak RSS at 1,000,000 attempts matches the one at 250,000. Figures and the
command: docs/benchmarks.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "garak" / "garak-repeat.report.jsonl"
SIZES = (250_000, 1_000_000)
TARGET_ATTEMPTS_PER_SECOND = 50_000

_JSON_LOADS = """
import json, sys
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        json.loads(line)
"""
_READ_AND_HASH = """
import hashlib, sys
digest = hashlib.sha256()
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        digest.update(line)
"""


def _templates() -> tuple[bytes, list[tuple[str, str, str]]]:
    """The fixture's head (setup, init) and its attempt pairs: (uuid, status 1, status 2)."""
    head: list[str] = []
    pairs: dict[str, list[str]] = {}
    for line in FIXTURE.read_text(encoding="utf-8").splitlines(keepends=True):
        entry = json.loads(line)
        if entry["entry_type"] in ("start_run setup", "init"):
            head.append(line)
        elif entry["entry_type"] == "attempt" and not entry["probe_classname"].startswith("dan."):
            pairs.setdefault(entry["uuid"], []).append(line)
    return "".join(head).encode(), [(u, a, b) for u, (a, b) in pairs.items()]


def write_report(path: Path, attempts: int) -> int:
    """Write a report of ``attempts`` attempts; returns its size in bytes."""
    head, pairs = _templates()
    with open(path, "wb") as handle:
        handle.write(head)
        chunk: list[str] = []
        for n in range(attempts):
            uuid, generated, evaluated = pairs[n % len(pairs)]
            fresh = f"{n:08x}-0000-4000-8000-{n:012x}"
            chunk.append(generated.replace(uuid, fresh))
            chunk.append(evaluated.replace(uuid, fresh))
            if len(chunk) >= 20_000:
                handle.write("".join(chunk).encode())
                chunk.clear()
        handle.write("".join(chunk).encode())
    return path.stat().st_size


def _peak_rss_mib(pid: int) -> float | None:
    """The process's high-water RSS (``VmHWM``: its own, reset at exec), or ``None`` if gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def measure(command: list[str]) -> tuple[float, float, float]:
    """Run ``command``; return its wall seconds, CPU seconds and peak RSS in MiB.

    The peak is read from ``/proc`` while the command runs (``ru_maxrss`` would also count
    the pages the child shared with this process before ``exec``); it is a high-water mark,
    so the last reading before exit is the peak but for the final 20 ms.
    """
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0.0
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _peak_rss_mib(child.pid) or 0.0)
        time.sleep(0.02)
    wall = time.perf_counter() - start
    assert child.stderr is not None
    errors = child.stderr.read().decode()
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{command[:4]} failed: {errors}")
    return wall, usage.ru_utime + usage.ru_stime, peak


def main() -> None:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-import-") as scratch:
        for attempts in SIZES:
            report = Path(scratch) / "big.report.jsonl"
            size = write_report(report, attempts)
            print(
                f"\n{attempts:,} attempts ({2 * attempts:,} attempt entries), {size / 1e9:.2f} GB"
            )
            rows = [
                ("json.loads every line", [sys.executable, "-c", _JSON_LOADS]),
                ("read and SHA-256 only", [sys.executable, "-c", _READ_AND_HASH]),
            ]
            results = {}
            for label, command in rows:
                results[label] = measure([*command, str(report)])
            evidence = Path(scratch) / "evidence.jsonl"
            cli = [sys.executable, "-m", "trustprobe", "import", "garak", str(report)]
            results["trustprobe import garak"] = measure(
                [*cli, "--agent", "bench", "--output", str(evidence)]
            )
            print(f"{'':26}{'wall s':>9}{'cpu s':>9}{'attempts/s (cpu)':>18}{'peak RSS MiB':>14}")
            for label, (wall, cpu, rss) in results.items():
                print(f"{label:26}{wall:9.1f}{cpu:9.1f}{attempts / cpu:18,.0f}{rss:14.0f}")
            wall, cpu, _ = results["trustprobe import garak"]
            floor = results["json.loads every line"][1]
            on_cpu = "met" if attempts / cpu >= TARGET_ATTEMPTS_PER_SECOND else "MISSED"
            on_wall = "met" if attempts / wall >= TARGET_ATTEMPTS_PER_SECOND else "missed"
            print(
                f"import vs json.loads alone: {floor / cpu:.2f}x the speed; target "
                f"{TARGET_ATTEMPTS_PER_SECOND:,}/s {on_cpu} on CPU time, {on_wall} on wall time"
            )
            report.unlink()


if __name__ == "__main__":
    main()
