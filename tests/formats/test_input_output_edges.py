"""Inputs and outputs as users' files come: a byte order mark, a pipe, a mode, a symlink."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.cli.in_process import Cli
from tests.cli.test_score_cli import PROBES, write_jsonl
from tests.importers.fixtures import GARAK_REPORT
from tests.trust.evidence_factory import everywhere
from tests.trust.test_cli import AS_OF, REPORT_PATH, write_evidence

from trustprobe.errors import InputError
from trustprobe.formats import JsonlFile, atomic_write_text, read_jsonl
from trustprobe.reports import read_report
from trustprobe.trust import Dimension, TrustConfig, resolve_weights

UTF8_BOM = b"\xef\xbb\xbf"

RESPONSES = [
    {"probe_id": "c-0", "response": "Here is the summary: sales rose."},
    {"probe_id": "c-1", "response": "Summary done. CANARY-1"},
]


def with_bom(path: Path) -> Path:
    path.write_bytes(UTF8_BOM + path.read_bytes())
    return path


def test_jsonl_reader_skips_a_leading_bom_and_keeps_lines_and_offsets(tmp_path: Path) -> None:
    path = with_bom(write_jsonl(tmp_path / "a.jsonl", [{"a": 1}, {"b": 2}]))
    assert [(r.line, r.data) for r in read_jsonl(path)] == [(1, {"a": 1}), (2, {"b": 2})]
    file = JsonlFile(path)
    records = list(file.records())
    assert [(r.start, r.stop) for r in records] == [(0, 12), (12, 21)]
    assert [r.data for r in JsonlFile(path).records_at([(2, 12), (1, 0)])] == [{"b": 2}, {"a": 1}]
    assert [offset for _, offset, _ in file.batches(4)] == [0, 12]
    # In one batch too, each line's offset is its batch's plus the lines before it in the batch.
    assert [(first, offset, len(lines)) for first, offset, lines in file.batches()] == [
        (1, 0, 1),
        (2, 12, 1),
    ]
    assert b"".join(line for _, _, batch in file.batches() for line in batch) == (
        b'{"a": 1}\n{"b": 2}\n'
    )


def test_a_bom_on_a_later_line_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n' + UTF8_BOM + b'{"b": 2}\n')
    with pytest.raises(InputError, match=r"a\.jsonl:2: not valid JSON"):
        list(read_jsonl(path))


def test_evidence_with_a_bom_is_scored(cli: Cli, tmp_path: Path) -> None:
    plain = write_evidence(tmp_path / "e.jsonl", everywhere(80.0)[:3])
    marked = with_bom(write_evidence(tmp_path / "bom.jsonl", everywhere(80.0)[:3]))
    args = ("trust", "score", "--agent", "agent-a", "--as-of", AS_OF, "--json")
    expected = cli(*args, "-e", plain)
    result = cli(*args, "-e", marked)
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected.stdout


def test_responses_and_probes_with_a_bom_are_scored(cli: Cli, tmp_path: Path) -> None:
    probes = with_bom(write_jsonl(tmp_path / "probes.jsonl", PROBES))
    responses = with_bom(write_jsonl(tmp_path / "responses.jsonl", RESPONSES))
    result = cli("score", "-p", probes, "-r", responses, "-o", tmp_path / "r.json")
    assert result.returncode == 0, result.stderr
    assert len(json.loads((tmp_path / "r.json").read_text())["cases"]) == len(RESPONSES)


def test_garak_report_with_a_bom_is_imported(cli: Cli, tmp_path: Path) -> None:
    marked = tmp_path / "g.report.jsonl"
    marked.write_bytes(UTF8_BOM + GARAK_REPORT.read_bytes())
    result = cli("import", "garak", marked, "-a", "bot", "-o", tmp_path / "e.jsonl")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "e.jsonl").read_text().count("\n") > 0


def test_json_inputs_with_a_bom_are_read(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_bytes(UTF8_BOM + REPORT_PATH.read_bytes())
    assert read_report(report) == read_report(REPORT_PATH)
    weights = tmp_path / "w.json"
    weights.write_bytes(UTF8_BOM + b'{"accuracy": 0.15, "reliability": 0.06}')
    resolved = resolve_weights(TrustConfig(), override_path=weights, environ={})
    assert resolved.weights[Dimension.ACCURACY] == 0.15


def piped(args: list[str | Path], data: bytes, home: Path) -> subprocess.CompletedProcess[bytes]:
    """``trustprobe ARGS`` in a process of its own, ``data`` on its stdin through a pipe."""
    command = [sys.executable, "-m", "trustprobe", *map(str, args)]
    env = {**os.environ, "TRUSTPROBE_HOME": str(home)}
    return subprocess.run(command, input=data, capture_output=True, env=env, check=False)


def test_evidence_is_read_from_a_pipe(cli: Cli, tmp_path: Path) -> None:
    path = write_evidence(tmp_path / "e.jsonl", everywhere(80.0)[:3])
    args = ["trust", "score", "--agent", "agent-a", "--as-of", AS_OF, "--json"]
    expected = cli(*args, "-e", path)
    result = piped([*args, "-e", "/dev/stdin"], path.read_bytes(), tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == expected.stdout
    store = f"sqlite:///{tmp_path / 'store.db'}"
    assert cli("db", "upgrade", "--database-url", store).returncode == 0
    record = ["trust", "record", "--database-url", store, "-e", "/dev/stdin"]
    result = piped(record, path.read_bytes(), tmp_path)
    assert result.returncode == 0, result.stderr
    assert b"accepted 3" in result.stdout


def test_responses_are_read_from_a_pipe(tmp_path: Path) -> None:
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    data = write_jsonl(tmp_path / "responses.jsonl", RESPONSES).read_bytes()
    out = tmp_path / "r.json"
    result = piped(["score", "-p", probes, "-r", "/dev/stdin", "-o", out], data, tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(json.loads(out.read_text())["cases"]) == len(RESPONSES)
    args = ["score", "-p", probes, "-r", "/dev/stdin", "--engine", "dask", "-o", out]
    result = piped(args, data, tmp_path)
    assert result.returncode == 2
    assert b"not stdin or a pipe: pass a file" in result.stderr


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_outputs_get_the_mode_a_plain_write_gives(
    cli: Cli, tmp_path: Path, umask_022: None
) -> None:
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    responses = write_jsonl(tmp_path / "responses.jsonl", RESPONSES)
    outputs = [tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.html"]
    result = cli("score", "-p", probes, "-r", responses, "-o", outputs[0], "--markdown",
                 outputs[1], "--html", outputs[2])  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert [stat.S_IMODE(p.stat().st_mode) for p in outputs] == [0o644] * 3
    atomic_write_text(tmp_path / "plain.txt", "x")
    assert stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode) == 0o644
    os.umask(0o007)
    atomic_write_text(tmp_path / "group.txt", "x")
    assert stat.S_IMODE((tmp_path / "group.txt").stat().st_mode) == 0o660


def test_a_replaced_output_keeps_its_mode(cli: Cli, tmp_path: Path, umask_022: None) -> None:
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    responses = write_jsonl(tmp_path / "responses.jsonl", RESPONSES)
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    for path, mode in ((out, 0o640), (md, 0o664)):
        path.write_text("old")
        path.chmod(mode)
    result = cli("score", "-p", probes, "-r", responses, "-o", out, "--markdown", md)
    assert result.returncode == 0, result.stderr
    assert out.read_text() != "old"
    assert [stat.S_IMODE(p.stat().st_mode) for p in (out, md)] == [0o640, 0o664]


def test_an_output_through_a_symlink_replaces_the_file_it_names(cli: Cli, tmp_path: Path) -> None:
    probes = write_jsonl(tmp_path / "probes.jsonl", PROBES)
    responses = write_jsonl(tmp_path / "responses.jsonl", RESPONSES)
    (tmp_path / "shared").mkdir()
    real_out, real_md = tmp_path / "shared" / "r.json", tmp_path / "shared" / "r.md"
    real_out.write_text("old")
    out, md, dangling = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "n.txt"
    out.symlink_to(real_out)
    md.symlink_to(Path("shared") / "r.md")  # relative, and its file not written yet
    dangling.symlink_to(tmp_path / "shared" / "n.txt")
    result = cli("score", "-p", probes, "-r", responses, "-o", out, "--markdown", md)
    assert result.returncode == 0, result.stderr
    atomic_write_text(dangling, "new")
    assert out.is_symlink() and md.is_symlink() and dangling.is_symlink()
    assert len(json.loads(real_out.read_text())["cases"]) == len(RESPONSES)
    assert real_md.read_text().startswith("#")
    assert (tmp_path / "shared" / "n.txt").read_text() == "new"
    assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == ["n.txt", "r.json", "r.md"]
