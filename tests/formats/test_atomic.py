from pathlib import Path

import pytest

from trustprobe.formats import atomic_write_text


class Boom(Exception):
    pass


def test_writes_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.json"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.json"]


def test_failure_keeps_old_file_and_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.json"
    atomic_write_text(target, "old")

    def fail(*_: object) -> None:
        raise Boom

    monkeypatch.setattr("os.replace", fail)
    with pytest.raises(Boom):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
