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


# ------------------------------------------------------------------ analyze: defects 4, 5, 10, 13, 15
TINY = """ 3 point match

 Game 1
 ann : 0                        bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""
FAST = ("--ply", "0", "--no-confirm", "--no-progress")


def _mount(*args: str) -> bool:
    import subprocess

    return subprocess.run(["mount", *args], capture_output=True, check=False).returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Path:
    """A 64 KiB tmpfs (skipped where this process may not mount one: not root, a container, CI)."""
    where = tmp_path / "disk"
    where.mkdir()
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs",
                                                                      str(where))):
        pytest.skip("cannot mount a small tmpfs here")
    yield where
    _mount_off(where)


def _mount_off(where: Path) -> None:
    import subprocess

    subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


@pytest.fixture
def read_only(tmp_path: Path) -> Path:
    """A folder nobody may write into: a read-only bind mount as root, a mode 0555 folder otherwise
    (skipped when neither holds)."""
    where = tmp_path / "ro"
    where.mkdir()
    mounted = False
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        mounted = _mount("--bind", str(where), str(where)) and _mount("-o", "remount,ro,bind", str(where))
    else:
        where.chmod(0o555)
    try:
        (where / "probe").write_text("x")
    except OSError:
        yield where
    else:
        pytest.skip("cannot make a read-only folder here")
    finally:
        if mounted:
            _mount_off(where)
        where.chmod(0o755)


def _tiny(folder: Path, name: str = "tiny.mat", matches: int = 1) -> Path:
    path = folder / name
    path.write_text("\n".join([TINY] * matches))
    return path


def test_a_match_file_named_dots_stays_in_the_output_folder(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Defect 4: ``...mat`` (stem ``..``) put the review in the parent of ``--out`` or in the current folder."""
    src = _tiny(tmp_path, "...mat", matches=2)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, _, err = run("analyze", str(src), "--out", "o", "--no-html", *FAST)  # the tables say where it went
    assert code == 0, err
    assert sorted(p.name for p in work.iterdir()) == ["o"]
    assert sorted(p.name for p in (work / "o").iterdir()) == ["match", "match-2"]
    assert (work / "o" / "match" / "summary.json").is_file()
    code, _, err = run("analyze", str(src), "--no-html", *FAST)  # the default folder: reports/<stem>
    assert code == 0, err
    assert sorted(p.name for p in work.iterdir()) == ["o", "reports"]
    assert sorted(p.name for p in (work / "reports").iterdir()) == ["match", "match-2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["...mat", "work"]


def test_analyze_replaces_a_planted_link_and_keeps_its_target(tmp_path: Path) -> None:
    """Defect 5: a symbolic link planted in ``--out`` was written through."""
    out = tmp_path / "o"
    out.mkdir()
    victims = {}
    for name in ("report.html", "summary.json", "decisions.csv", "decisions.parquet", "luck.svg"):
        victim = tmp_path / f"victim-{name}"
        victim.write_text("precious")
        (out / name).symlink_to(victim)
        victims[name] = victim
    code, _, err = run("analyze", str(_tiny(tmp_path)), "--out", str(out), *FAST)
    assert code == 0, err
    for name, victim in victims.items():
        assert victim.read_text() == "precious", name
        assert not (out / name).is_symlink() and (out / name).stat().st_size > 100
    assert leftovers(tmp_path) == []


def test_analyze_out_is_a_file(tmp_path: Path) -> None:
    """Defect 10: ``--out`` an existing file gave an OSError traceback, exit 1."""
    there = tmp_path / "a-file"
    there.write_text("mine")
    code, _, err = run("analyze", str(_tiny(tmp_path)), "--out", str(there), *FAST)
    assert code == 2
    one_error(err, there)
    assert there.read_text() == "mine"


def test_analyze_into_a_read_only_folder(tmp_path: Path, read_only: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Defect 10: a read-only ``--out`` (or current folder, for the default ``reports/``): one line, exit 2."""
    src = _tiny(tmp_path)
    code, _, err = run("analyze", str(src), "--out", str(read_only / "o"), *FAST)
    assert code == 2
    one_error(err, read_only / "o")
    monkeypatch.chdir(read_only)
    code, _, err = run("analyze", str(src), *FAST)
    assert code == 2
    one_error(err, Path("reports") / "tiny")


def _complete(folder: Path) -> None:
    """Every file in ``folder`` is whole: no temporary file, nothing empty or cut."""
    import json

    import polars as pl

    assert leftovers(folder) == []
    for p in folder.iterdir():
        data = p.read_bytes()
        assert data, p
        if p.suffix == ".parquet":
            pl.read_parquet(p)
        elif p.suffix == ".json":
            json.loads(data)
        elif p.suffix in (".svg", ".html"):
            assert data.rstrip().endswith((b"</svg>", b"</html>")), p
        elif p.suffix == ".png":
            assert data.endswith(b"IEND\xaeB`\x82"), p


@pytest.mark.parametrize("filler", [0, 50 * 1024])
def test_analyze_onto_a_full_disk(tmp_path: Path, small_disk: Path, filler: int) -> None:
    """Defect 13: a nearly full disk gave exit 0, an empty report.html and a cut luck.svg (and, fuller, polars'
    ComputeError traceback from the Parquet writer)."""
    (small_disk / "filler").write_bytes(b"\0" * filler)
    code, _, err = run("analyze", str(_tiny(tmp_path)), "--out", str(small_disk / "o"), *FAST)
    assert code == 2
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(f"error: {small_disk / 'o'}/") and lines[0].endswith(": No space left on device")
    if (small_disk / "o").exists():
        _complete(small_disk / "o")


def test_analyze_sgf_onto_a_full_disk_keeps_the_old_file(tmp_path: Path, small_disk: Path) -> None:
    """Defect 13: a failed ``--sgf`` left a cut file."""
    target = small_disk / "review.sgf"
    target.write_text("old review\n")
    (small_disk / "filler").write_bytes(b"\0" * (60 * 1024 - 100))
    code, _, err = run("analyze", str(SAMPLE), "--out", str(tmp_path / "o"), "--no-html", "--sgf", str(target),
                       *FAST)
    assert code == 2
    assert "No space left" in one_error(err, target)
    assert target.read_text() == "old review\n"
    assert leftovers(small_disk) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_analyze_sgf_failures_are_one_line(tmp_path: Path) -> None:
    src = _tiny(tmp_path)
    code, _, err = run("analyze", str(src), "--out", str(tmp_path / "o"), "--no-html", "--sgf", "/dev/full", *FAST)
    assert code == 2
    one_error(err, "/dev/full")
    code, _, err = run("analyze", str(src), "--out", str(tmp_path / "o"), "--no-html", "--sgf", str(src), *FAST)
    assert code == 2
    assert "is the input file" in one_error(err, src)
    assert src.read_text() == TINY


# ------------------------------------------------------------------ defect 3: play --save EXISTING
def test_play_save_never_replaces_a_file(tmp_path: Path) -> None:
    mine = tmp_path / "mine.mat"
    shutil.copyfile(SAMPLE, mine)
    before = mine.read_bytes()
    res = CliRunner().invoke(app, ["play", "--length", "1", "--level", "beginner", "--seed", "1", "--save", str(mine),
                                   "--no-review"], input="quit\n")
    assert res.exit_code == 2, res.output
    assert "--resume" in one_error(res.stderr, mine)
    assert mine.read_bytes() == before
    other = tmp_path / "other.mat"
    other.write_text("mine too")
    res = CliRunner().invoke(app, ["play", "--resume", str(mine), "--save", str(other), "--no-review"],
                             input="quit\n")
    assert res.exit_code == 2, res.output
    one_error(res.stderr, other)
    assert other.read_text() == "mine too" and mine.read_bytes() == before


# ------------------------------------------------------------------ defects 14, 15 through convert
INJECT = "evil\n\n 1 point match\n\n Game 1\n x : 0                        y : 0\n  1) 31: 8/5 6/5"


def _sgf(pw: str, dt: str = "2024-01-02") -> str:
    """Two games, the second opened by player 2 (a row whose left cell is empty)."""
    esc = pw.replace("\\", "\\\\").replace("]", "\\]")
    return (f"(;FF[4]GM[6]CA[UTF-8]AP[test]MI[length:3][game:0][ws:0][bs:0]PW[{esc}]PB[bob]DT[{dt}]RU[Crawford]"
            "RE[W+1]\n;W[31hefe];B[64aglp];W[double];B[drop])\n"
            f"(;FF[4]GM[6]CA[UTF-8]AP[test]MI[length:3][game:1][ws:1][bs:0]PW[{esc}]PB[bob]RU[Crawford]"
            "RE[B+1]\n;B[64aglp];W[31hefe];B[double];W[drop])\n")


def test_convert_refuses_a_name_that_would_inject_a_match(tmp_path: Path) -> None:
    src = tmp_path / "evil.sgf"
    src.write_text(_sgf(INJECT))
    out = tmp_path / "out.mat"
    code, _, err = run("convert", str(src), "--to", "mat", "-o", str(out))
    assert code == 2
    assert "line break" in one_error(err, f"{src}:1")
    assert not out.exists() and leftovers(tmp_path) == []
    code, _, err = run("convert", str(src), "--to", "sgf", "-o", str(tmp_path / "out.sgf"))  # SGF holds it
    assert code == 0, err
    code, stdout, _ = run("replay", str(tmp_path / "out.sgf"), "--format", "jsonl")
    assert code == 0 and stdout.count("\n") == 8


@pytest.mark.parametrize("name", ["a" * 56, "a" * 60, "BoardLord : 3 x", "x, y"])
def test_convert_keeps_long_and_odd_names(tmp_path: Path, name: str) -> None:
    src = tmp_path / "odd.sgf"
    src.write_text(_sgf(name))
    runs = []
    for path in (src, tmp_path / "o.mat", tmp_path / "o.sgf"):
        if path != src:
            assert run("convert", str(src), "--to", path.suffix[1:], "-o", str(path))[0] == 0
        code, stdout, err = run("replay", str(path), "--format", "jsonl")
        assert code == 0, err
        import json

        runs.append([{k: v for k, v in json.loads(x).items() if k not in ("file", "line", "column", "played")}
                     for x in stdout.splitlines()])
    assert runs[1] == runs[0] and runs[2] == runs[0]
    assert runs[0][0]["player"] == name


def test_sgf_writers_escape_the_date(tmp_path: Path) -> None:
    """Defect 15: ``EventDate "2024]PB[evil"`` became ``DT[2024]PB[evil]``, renaming player 2."""
    src = tmp_path / "d.mat"
    src.write_text('; [EventDate "2024]PB[evil"]\n' + TINY)
    for args in (["convert", str(src), "--to", "sgf", "-o", str(tmp_path / "c.sgf")],
                 ["analyze", str(src), "--out", str(tmp_path / "o"), "--no-html", "--sgf", str(tmp_path / "a.sgf"),
                  *FAST]):
        code, _, err = run(*args)
        assert code == 0, err
    for sgf in ("c.sgf", "a.sgf"):
        text = (tmp_path / sgf).read_text()
        assert "DT[2024\\]PB[evil]" in text and "PB[bob]" in text
        code, stdout, _ = run("replay", str(tmp_path / sgf), "--format", "jsonl")
        assert code == 0 and '"player": "bob"' in stdout and "evil" not in stdout


# ------------------------------------------------------------------ the other writers: report, drill --anki
def test_report_and_anki_write_failures_name_the_path(tmp_path: Path) -> None:
    from analyzer.batch import BatchOptions, run_batch

    src = _tiny(tmp_path)
    run_batch([str(src)], tmp_path / "ds", options=BatchOptions(replay_only=True), jobs=1)
    there = tmp_path / "a-file"
    there.write_text("mine")
    code, _, err = run("report", str(tmp_path / "ds"), "--out", str(there))
    assert code == 2
    one_error(err, there)
    assert there.read_text() == "mine"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_anki_export_onto_a_full_device(tmp_path: Path) -> None:
    pytest.importorskip("genanki")
    from analyzer.batch.drill import export_anki

    with pytest.raises(OutputError, match="No space left"):
        export_anki([], "/dev/full")
    target = tmp_path / "deck.apkg"
    target.write_text("old deck")
    with pytest.raises(OutputError):
        export_anki([], tmp_path / "missing" / "deck.apkg")
    assert export_anki([], target) == 0 and target.read_bytes()[:2] == b"PK"
    assert leftovers(tmp_path) == []


def test_sample_copy_replaces_a_planted_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "boardlord-llabba-7p.mat").symlink_to(victim)
    code, stdout, err = run("sample", "boardlord-llabba-7p", "--out", str(tmp_path))
    assert code == 0, err
    assert victim.read_text() == "precious"
    assert (tmp_path / "boardlord-llabba-7p.mat").read_bytes() == SAMPLE.read_bytes()
    assert leftovers(tmp_path) == []
