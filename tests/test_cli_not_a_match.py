"""A file that is not a match (prose, an XG binary) ends in exit 2 with one line, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli import app

NOT_MATCHES = {
    "notes.txt": b"Dear diary,\nToday I played backgammon at the club.\nI lost the 7 point match.\n",
    "readme.txt": b"# bgreview\n\nReview backgammon matches.\n\n| command | what |\n|---|---|\n",
    "game-notes.txt": b"Notes on Game 1\nI doubled too late.\n",
    # an eXtreme Gammon binary: RichGameFormat container header, then binary data
    "match.xg": b"RGMH" + bytes(range(256)) * 4,
}


@pytest.mark.parametrize("name", sorted(NOT_MATCHES))
def test_analyze_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(NOT_MATCHES[name])
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["analyze", name, "--ply", "0"])
    assert res.exit_code == 2, res.output
    errors = res.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith(f"error: {name}:"), errors
    if name.endswith(".txt"):  # an .xg file's message is its reader's
        assert "not a match" in errors[0]
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no reports/ folder


@pytest.mark.parametrize("name", sorted(NOT_MATCHES))
def test_replay_and_convert_exit_2(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(NOT_MATCHES[name])
    for args in (["replay", str(path), "--format", "jsonl"], ["replay", str(path)],  # no table header either
                 ["convert", str(path), "--to", "mat"]):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert res.stdout == ""
        assert len(res.stderr.strip().splitlines()) == 1 and str(path) in res.stderr
