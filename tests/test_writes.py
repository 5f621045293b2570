"""Issue 55, the write side: nothing of the user's destroyed, nothing written outside the output, a failed
write is one error line (exit 2) and leaves no partial file. Each test names the defect it covers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.core.files import OutputError, atomic_write, atomic_writer, check_inside, safe_stem

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "samples" / "boardlord-llabba-7p.mat"
SGF = ROOT / "tests" / "data" / "corpus" / "gnubgparser"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stdout, res.stderr


def one_error(stderr: str, name: str | Path) -> str:
    """The single error line of ``stderr``; it names ``name``."""
    lines = [x for x in stderr.splitlines() if x.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"error: {name}: "), lines[0]
    assert "Traceback" not in stderr
    return lines[0]


def leftovers(folder: Path) -> list[str]:
    """Temporary files a writer left behind."""
    return sorted(p.name for p in folder.rglob("*.tmp"))


# ------------------------------------------------------------------ defect 2: convert onto its own input
@pytest.mark.parametrize("how", ["same", "relative", "symlink", "hardlink"])
def test_convert_onto_its_input_is_refused(tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "m.mat"
    shutil.copyfile(SAMPLE, src)
    before = src.read_bytes()
    target = {"same": str(src), "relative": "./m.mat", "symlink": str(tmp_path / "l.mat"),
              "hardlink": str(tmp_path / "h.mat")}[how]
    if how == "symlink":
        os.symlink(src, target)
    if how == "hardlink":
        os.link(src, target)
    monkeypatch.chdir(tmp_path)
    code, _, err = run("convert", str(src), "--to", "mat", "-o", target)
    assert code == 2
    assert "is the input file" in one_error(err, target)
    assert src.read_bytes() == before
    assert leftovers(tmp_path) == []


# ------------------------------------------------------------------ defect 11: convert onto a full device
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("to", ["mat", "sgf"])
def test_convert_onto_a_full_device_is_one_line(to: str) -> None:
    code, _, err = run("convert", str(SAMPLE), "--to", to, "-o", "/dev/full")
    assert code == 2
    assert "No space left" in one_error(err, "/dev/full")


def test_convert_into_a_missing_folder_or_onto_a_folder(tmp_path: Path) -> None:
    code, _, err = run("convert", str(SAMPLE), "--to", "mat", "-o", str(tmp_path / "nope" / "x.mat"))
    assert code == 2
    one_error(err, tmp_path / "nope" / "x.mat")
    code, _, err = run("convert", str(SAMPLE), "--to", "mat", "-o", str(tmp_path))
    assert code == 2
    one_error(err, tmp_path)


def test_convert_replaces_an_output_whole(tmp_path: Path) -> None:
    """The output is written beside the target and renamed: an old file is replaced at once, a link at
    the target is replaced (its target kept), no temporary file is left."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "out.mat").symlink_to(victim)
    code, _, _ = run("convert", str(SAMPLE), "--to", "mat", "-o", str(tmp_path / "out.mat"))
    assert code == 0
    assert victim.read_text() == "keep me"
    assert not (tmp_path / "out.mat").is_symlink() and "point match" in (tmp_path / "out.mat").read_text()
    assert leftovers(tmp_path) == []


# ------------------------------------------------------------------ the helpers themselves
def test_atomic_write_failure_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(ZeroDivisionError), atomic_writer(target) as fh:
        fh.write("new, half")
        raise ZeroDivisionError
    assert target.read_text() == "old" and leftovers(tmp_path) == []
    with pytest.raises(OutputError, match="is a folder"):
        atomic_write(tmp_path, "x")
    with pytest.raises(OutputError, match="No such file"):
        atomic_write(tmp_path / "no" / "a.txt", "x")


def test_check_inside_and_safe_stem(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert check_inside(out, out / "a" / "b.csv") == out / "a" / "b.csv"
    for bad in (out / ".." / "x.csv", out / "..", tmp_path / "x.csv"):
        with pytest.raises(OutputError, match="outside the output folder"):
            check_inside(out, bad)
    out.mkdir()
    (out / "link").symlink_to(tmp_path)
    with pytest.raises(OutputError, match="outside"):
        check_inside(out, out / "link" / "x.csv")
    for name in ("..", ".", "...", "", "/", "a/../..", "\n", "-", " .. "):
        stem = safe_stem(name)
        assert stem not in ("", ".", "..") and "/" not in stem and not stem.startswith((".", "-"))
        assert (out / stem).resolve().parent == out.resolve()
