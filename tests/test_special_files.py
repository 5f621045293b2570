"""Special files where a match file is expected (a FIFO, /dev/zero, a folder named .mat), unreadable
files and folders, endless lines: one error line and exit 2 (a batch or a replay of many files reports
the file and goes on), never a hang, a MemoryError or a traceback (issue 55, defects 8, 9, 12, 16)."""

from __future__ import annotations

import builtins
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from analyzer._read import ReadError, bounded_lines, open_regular, read_limited
from analyzer.cli import app
from analyzer.formats import expand_inputs

MATCH = Path(__file__).parent / "data" / "corpus" / "gnubgparser" / "gnubg_roll_then_resign_1p.mat"
XGP = Path(__file__).parent / "data" / "xg" / "position.xgp"

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def _run(args: list[str]) -> Any:
    return CliRunner().invoke(app, args)


def _one_error(res: Any, *needles: str) -> str:
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    for n in needles:
        assert n in lines[0], lines[0]
    assert "Traceback" not in res.output
    return str(lines[0])


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO named like a match file, with no writer (a plain open blocks on it forever)."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = tmp_path / "pipe.mat"
    os.mkfifo(path)
    yield path


# ----------------------------------------------------------------------------- the helpers
@needs_fifo
def test_open_regular_refuses_a_fifo_without_blocking(fifo: Path) -> None:
    with pytest.raises(ReadError, match="not a regular file \\(a FIFO\\)"):
        open_regular(fifo)


def test_open_regular_names_each_kind(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match="a folder"):
        open_regular(tmp_path)
    with pytest.raises(ReadError, match="a character device"):
        open_regular("/dev/zero")
    with pytest.raises(ReadError, match="no such file"):
        open_regular(tmp_path / "nothing.mat")


def test_read_limited_and_bounded_lines_stop_at_their_limits(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"a\n" * 100)
    assert read_limited(big, 200) == b"a\n" * 100
    with pytest.raises(ReadError, match="larger than 199 bytes"):
        read_limited(big, 199)
    with open("/dev/zero", "rb") as fh, pytest.raises(ReadError, match=":1: line longer than 1 KiB"):
        next(bounded_lines(fh, 1024, name="/dev/zero"))
    with open(big, "rb") as fh:
        assert list(bounded_lines(fh, 1)) == [b"a"] * 100  # the line end does not count


# ----------------------------------------------------------------------------- the commands
@needs_fifo
@pytest.mark.parametrize("args", [["replay", "{f}"], ["analyze", "{f}", "--ply", "0"],
                                  ["convert", "{f}", "--to", "mat"], ["play", "--resume", "{f}"]])
def test_a_fifo_named_mat_is_refused(fifo: Path, args: list[str]) -> None:
    res = _run([a.format(f=fifo) for a in args])
    assert res.exit_code == 2, res.output
    _one_error(res, str(fifo), "not a regular file (a FIFO)")


@pytest.mark.parametrize("args", [["replay", "/dev/zero"], ["analyze", "/dev/zero", "--ply", "0"],
                                  ["convert", "/dev/zero", "--to", "sgf"]])
def test_dev_zero_is_refused(args: list[str]) -> None:
    res = _run(args)
    assert res.exit_code == 2, res.output
    _one_error(res, "/dev/zero", "not a regular file (a character device)")


@needs_fifo
def test_report_aliases_refuses_a_fifo_and_dev_zero(fifo: Path, tmp_path: Path) -> None:
    for source in (str(fifo), "/dev/zero"):
        res = _run(["report", str(tmp_path), "--aliases", source])
        assert res.exit_code == 2, res.output
        _one_error(res, source, "not a regular file")


def test_alias_file_size_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.batch.report as report

    aliases = tmp_path / "aliases.tsv"
    aliases.write_text("a\tb\n" * 100)
    monkeypatch.setattr(report, "MAX_ALIASES", 100)
    with pytest.raises(ReadError, match="alias file larger than 100 bytes"):
        report.load_aliases(aliases)


@pytest.mark.parametrize("command", ["moves"])
def test_batch_lines_from_dev_zero_are_bounded(command: str) -> None:
    res = _run([command, "--batch", "/dev/zero"])
    assert res.exit_code == 2, res.output
    _one_error(res, "/dev/zero:1: line longer than 64 KiB")


@needs_fifo
def test_a_folder_walk_reports_special_files_and_goes_on(fifo: Path, tmp_path: Path) -> None:
    shutil.copy(MATCH, tmp_path / "a.mat")
    (tmp_path / "folder.mat").mkdir()  # a folder named like a match file is walked, not read
    res = _run(["replay", str(tmp_path), "--format", "jsonl"])
    assert res.exit_code == 1, res.output
    errors = [line for line in res.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {fifo}: not a regular file (a FIFO)"]
    assert res.stdout.count("\n") > 0  # a.mat replayed


def test_replay_of_an_empty_folder_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    res = _run(["replay", str(tmp_path / "empty")])
    assert res.exit_code == 2, res.output
    _one_error(res, "no match files", str(tmp_path / "empty"))


# ----------------------------------------------------------------------------- unreadable (we may run as root)
def _deny(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """Reading ``target`` raises PermissionError, as it does for a user without the right (root reads anything)."""
    real_open, real_os_open = builtins.open, os.open

    def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)) and os.path.abspath(file) == str(target):
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real_open(file, *args, **kwargs)

    def fake_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if os.path.abspath(path) == str(target):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "open", fake_os_open)


@pytest.mark.parametrize("command", ["show", "hint", "eval", "cube"])
def test_an_unreadable_xgp_gives_one_line(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    xgp = tmp_path / "locked.xgp"
    shutil.copy(XGP, xgp)
    _deny(monkeypatch, xgp)
    res = _run([command, str(xgp)])
    assert res.exit_code == 2, res.output
    _one_error(res, str(xgp), "permission denied")


def _deny_folder(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    real = os.scandir

    def fake(path: Any = ".") -> Any:
        if os.path.abspath(path) == str(target):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", fake)


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    top = tmp_path / "archive"
    (top / "locked").mkdir(parents=True)
    shutil.copy(MATCH, top / "a.mat")
    shutil.copy(MATCH, top / "locked" / "b.mat")
    return top, top / "locked"


def test_expand_inputs_never_drops_an_unreadable_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top, locked = _tree(tmp_path)
    _deny_folder(monkeypatch, locked)
    errors: list[Any] = []
    assert expand_inputs([str(top)], walk_errors=errors) == [str(top / "a.mat"), str(locked)]
    assert [str(e) for e in errors] == [f"{locked}: cannot read the folder (Permission denied): its match files "
                                        "are left out"]
    with pytest.raises(ValueError, match="cannot read the folder"):
        expand_inputs([str(top)])


def test_replay_reports_an_unreadable_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top, locked = _tree(tmp_path)
    _deny_folder(monkeypatch, locked)
    res = _run(["replay", str(top), "--format", "jsonl"])
    assert res.exit_code == 1, res.output  # a.mat replayed, the folder failed
    errors = [line for line in res.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {locked}: cannot read the folder (Permission denied): its match files are left out"]


def test_batch_reports_an_unreadable_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import polars as pl

    top, locked = _tree(tmp_path)
    _deny_folder(monkeypatch, locked)
    out = tmp_path / "out"
    res = _run(["batch", str(top), "--out", str(out), "--replay-only", "--jobs", "1"])
    assert res.exit_code == 1, res.output
    errors = pl.read_csv(out / "errors.csv")
    assert errors["file"].to_list() == [str(locked)], errors
    assert "cannot read the folder (Permission denied)" in errors["reason"][0]


def test_an_sgf_of_another_game_is_refused(tmp_path: Path) -> None:
    go = tmp_path / "go.sgf"
    tree = "(;FF[4]GM[{gm}]MI[length:3][game:{n}][ws:0][bs:0]PW[ann]PB[bob]RE[B+1];W[31fehe];B[double];W[drop])"
    go.write_text(tree.format(gm=1, n=0) + tree.format(gm=1, n=1))
    res = _run(["replay", str(go)])
    assert res.exit_code == 2, res.output
    _one_error(res, f"{go}:1:", "not a backgammon game", "'1'")
    go.write_text(tree.format(gm=6, n=0))
    assert _run(["replay", str(go)]).exit_code == 0


def test_random_bytes_give_one_reason(tmp_path: Path) -> None:
    # text-like lines, then binary: one error (binary data), not a second one calling it prose
    path = tmp_path / "r.mat"
    path.write_bytes(b"Dear diary,\nsome words here\n\x00\x01\x02\x03binary\n")
    res = _run(["replay", str(path)])
    assert res.exit_code == 2, res.output
    _one_error(res, f"{path}:3: binary data, not a match file")


def test_a_thresholds_file_is_read_bounded(tmp_path: Path) -> None:
    from analyzer.analysis.thresholds import load_thresholds

    big = tmp_path / "t.json"
    big.write_text('{"name": "x"' + " " * (1 << 20) + "}")
    with pytest.raises(ValueError, match="thresholds file larger than 1 MiB"):
        load_thresholds(str(big))


@needs_fifo
def test_a_glob_reports_a_special_file_it_matches(fifo: Path, tmp_path: Path) -> None:
    shutil.copy(MATCH, tmp_path / "a.mat")
    (tmp_path / "sub.mat").mkdir()
    assert expand_inputs([str(tmp_path / "*.mat")]) == [str(tmp_path / "a.mat"), str(fifo)]
    res = _run(["replay", str(tmp_path / "*.mat"), "--format", "jsonl"])
    assert res.exit_code == 1, res.output
    assert [x for x in res.stderr.splitlines() if x.startswith("error: ")] == [
        f"error: {fifo}: not a regular file (a FIFO)"]
