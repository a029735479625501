"""Attack suite, live scans: an agent behind HTTP that misbehaves in every way we know of.

Each misbehaviour is one probe of one ``scan`` against a real server on loopback. Every case
must end as a counted, shown harness error with its reason, within the configured timeout and
body limit; the run must never crash or hang, and its reports must still be written.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.cli.in_process import Cli
from tests.runner.fault_server import Action, FaultServer, Seen, drop, ok, status
from trustprobe.runner import RunFiles, read_journal

_BOMB = gzip.compress(b" " * (64 << 20))  # 64 KiB that inflate to 64 MiB
_CHAT = b'{"choices": [{"message": {"role": "assistant", "content": "%s"}}]}'
BEHAVIOURS: dict[str, tuple[Action, str, str]] = {
    # input: (what the agent does, the error class recorded, text its detail holds)
    "slow-drip": (Action(drip=0.2), "timeout", "no answer within 2 s"),
    "huge-body": (Action(endless=True), "invalid_response", "larger than 1048576 bytes"),
    "huge-declared": (
        Action(raw_body=b" " * (1 << 21)),
        "invalid_response",
        "larger than 1048576 bytes",
    ),
    "html-page": (
        Action(raw_body=b"<html><body>Log in first</body></html>", content_type="text/html"),
        "invalid_response",
        "not JSON (content type text/html): <html>",
    ),
    "gzip-bomb": (
        Action(raw_body=_BOMB, headers=(("Content-Encoding", "gzip"),)),
        "invalid_response",
        "larger than 1048576 bytes",
    ),
    "deep-json": (
        Action(raw_body=b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        "invalid_response",
        "nested too deeply",
    ),
    "wrong-shape": (Action(raw_body=b'{"answer": "hi"}'), "invalid_response", "choices"),
    "redirect-loop": (
        Action(status=302, headers=(("Location", "/v1/chat/completions"),), raw_body=_CHAT % b"x"),
        "invalid_response",
        "HTTP 302 redirect to /v1/chat/completions",
    ),
    "reset-mid-body": (drop(), "connection", "ClientPayloadError"),
    "retry-after-huge": (status(429, retry_after="99999999999"), "http_429", "HTTP 429"),
    "retry-after-negative": (status(429, retry_after="-30"), "http_429", "gave up after 2"),
    "empty-200": (Action(raw_body=b""), "invalid_response", "empty answer: HTTP 200 with no body"),
}

REPAIRED: dict[str, Action] = {
    # input: an answer that is still read (bytes that are not UTF-8 replaced with U+FFFD)
    "bad-utf8": Action(raw_body=_CHAT % b"caf\xe9 \xff"),
    "byte-order-mark": Action(raw_body=b"\xef\xbb\xbf" + _CHAT % b"fine"),
}


def _script(seen: Seen, nth: int) -> Action:
    if seen.user in BEHAVIOURS:
        return BEHAVIOURS[seen.user][0]
    return REPAIRED.get(seen.user, ok("I will not do that."))


def _probes(path: Path, inputs: Iterable[str] = ("well-behaved", *BEHAVIOURS, *REPAIRED)) -> Path:
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": name,
                    "category": "prompt_injection",
                    "severity": "high",
                    "task": "Stay in role.",
                    "input": name,
                    "expected": "refuse",
                }
            )
            + "\n"
            for name in inputs
        )
    )
    return path


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    folder = tmp_path_factory.mktemp("misbehaving")
    config = folder / "scan.toml"
    config.write_text('[target]\nkind = "openai"\nmax_response_bytes = 1048576\n')
    with FaultServer(_script) as server:
        result = Cli(folder)(
            "scan", "--config", config, "--target", "openai", "--base-url", f"{server.url}/v1",
            "--model", "m", "--timeout", "2", "--retries", "1", "-c", "11",
            "-p", _probes(folder / "probes.jsonl"), "-o", folder / "run",
            "--html", folder / "report.html",
        )  # fmt: skip
    return folder, result.returncode, result.stdout + result.stderr


def test_every_misbehaviour_is_a_recorded_error_with_its_reason(
    scanned: tuple[Path, int, str],
) -> None:
    folder, code, output = scanned
    assert code == 3, output  # most cases did not reach the agent: a run that could not judge
    records = {r.probe_id: r for r in read_journal(RunFiles(folder / "run").responses).responses}
    assert set(records) == {"well-behaved", *BEHAVIOURS, *REPAIRED}
    assert records["well-behaved"].error is None
    assert records["bad-utf8"].response == "caf\ufffd \ufffd"
    assert records["byte-order-mark"].response == "fine"
    for name, (_, error_class, detail) in BEHAVIOURS.items():
        record = records[name]
        assert (record.error, name) == (error_class, name)
        assert detail in (record.error_detail or ""), (name, record.error_detail)


def test_the_reports_count_and_show_every_failed_case(scanned: tuple[Path, int, str]) -> None:
    folder, _, output = scanned
    report = json.loads(RunFiles(folder / "run").report_json.read_text())
    cases = {case["probe_id"]: case for case in report["cases"]}
    assert set(cases) == {"well-behaved", *BEHAVIOURS, *REPAIRED}
    assert cases["bad-utf8"]["error"] is None
    assert any("probe 'bad-utf8'" in warning for warning in report["warnings"])
    for name, (_, error_class, detail) in BEHAVIOURS.items():
        assert cases[name]["error"] == error_class
        assert detail in cases[name]["explanation"], cases[name]["explanation"]
    share = report["aggregate_metrics"]["overall"]["harness_error_rate"]
    assert share == len(BEHAVIOURS) / len(cases)
    assert re.search(rf"Harness errors\s+{len(BEHAVIOURS)} ", output), output
    page = (folder / "report.html").read_text()
    assert f"{len(BEHAVIOURS)} harness error(s)" in page
    for name in BEHAVIOURS:
        assert name in page


def test_lone_surrogates_in_tool_calls_are_replaced_not_a_crash(cli: Cli, tmp_path: Path) -> None:
    """A callable's calls reach the journal, which cannot hold a lone surrogate."""
    (tmp_path / "surrogate_calls_agent.py").write_text(
        "def respond(request):\n"
        "    if request['step'] > 1:\n"
        "        return 'Done.'\n"
        "    return {'text': None, 'tool_calls': [\n"
        "        {'name': 'f\\ud800', 'arguments': {'to\\udcff': 'x\\ud800'}}]}\n"
    )
    probe = {
        "id": "tool", "category": "excessive_agency", "severity": "high", "task": "t",
        "input": "i", "expected": "refuse", "tools": [{"name": "f"}], "max_steps": 2,
    }  # fmt: skip
    probes = tmp_path / "probes.jsonl"
    probes.write_text(json.dumps(probe) + "\n")
    run = tmp_path / "run"
    result = cli(
        "scan",
        "-t",
        "python",
        "--callable",
        "surrogate_calls_agent:respond",
        "-p",
        probes,
        "-o",
        run,
    )
    assert result.returncode in (0, 1), result.stderr
    (record,) = read_journal(RunFiles(run).responses).responses
    (call,) = record.tool_calls or ()
    assert (call.name, call.arguments) == ("f\ufffd", {"to\ufffd": "x\ufffd"})
    report = json.loads(RunFiles(run).report_json.read_text())
    assert any("probe 'tool'" in warning for warning in report["warnings"])


COMMAND_AGENT = """
import json, sys
request = json.load(sys.stdin)
user = request["messages"][-1]["content"]
out = sys.stdout.buffer
if user == "endless-stdout":
    while True:
        out.write(b"x" * 65536)
elif user == "endless-stderr":
    while True:
        sys.stderr.buffer.write(b"e" * 65536)
elif user == "bad-utf8":
    out.write(b'{"text": "caf\\xe9"}')
elif user == "deep-json":
    out.write(b'{"text": ' + b"[" * 100000 + b"]" * 100000 + b"}")
else:
    out.write(b'{"text": "I will not."}')
"""
COMMAND_CASES = {
    "endless-stdout": ("invalid_response", "larger than 1048576 bytes"),
    "endless-stderr": ("invalid_response", "stderr larger than 1048576 bytes"),
    "deep-json": ("invalid_response", "nested too deeply"),
}


def test_a_command_agent_that_misbehaves(cli: Cli, tmp_path: Path) -> None:
    """The same bounds hold for a ``cmd`` agent: its stdout and stderr are read up to a limit."""
    agent = tmp_path / "command_agent.py"
    agent.write_text(COMMAND_AGENT)
    probes = _probes(tmp_path / "probes.jsonl", ["well-behaved", "bad-utf8", *COMMAND_CASES])
    config = tmp_path / "scan.toml"
    config.write_text("[target]\nmax_response_bytes = 1048576\n")
    run = tmp_path / "run"
    result = cli(
        "scan", "--config", config, "-t", "cmd", "--command", f"{sys.executable} {agent}",
        "--output-format", "json", "--timeout", "20", "--retries", "0", "-p", probes, "-o", run,
    )  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    records = {r.probe_id: r for r in read_journal(RunFiles(run).responses).responses}
    assert records["well-behaved"].response == "I will not."
    assert records["bad-utf8"].response == "caf\ufffd"
    for name, (error_class, detail) in COMMAND_CASES.items():
        assert records[name].error == error_class, (name, records[name])
        assert detail in (records[name].error_detail or ""), (name, records[name].error_detail)
    report = json.loads(RunFiles(run).report_json.read_text())
    assert any("probe 'bad-utf8'" in warning for warning in report["warnings"])
