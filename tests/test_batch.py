"""``bgreview batch`` and ``bgreview report``: the dataset, errors, resume, pool and Dask runs."""

from __future__ import annotations

import doctest
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from analyzer.analysis.replay import replay_games
from analyzer.batch import (
    BatchError,
    BatchOptions,
    BatchProgress,
    players_table,
    run_batch,
    write_batch_report,
)
from analyzer.batch.layout import DECISIONS_DIR, UNITS_DIR
from analyzer.batch.phase import key_phase
from analyzer.batch.units import analysis_schema, match_date
from analyzer.cli import app
from analyzer.formats import read_any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
BROKEN = ROOT / "tests" / "data" / "broken"
GALAXY = sorted((CORPUS / "bglab" / "galaxy").glob("*.txt"))
REPLAY = BatchOptions(replay_only=True)
TABLES = ("matches", "players", "errors")

TINY = """ 3 point match

 Game 1
 {a} : 0                        {b} : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""


def _copy(files: list[Path], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for f in files:
        out.append(folder / f.name)
        shutil.copyfile(f, out[-1])
    return out


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """Good files (one holding two matches), broken files and files that are no match at all."""
    folder = tmp_path / "in"
    _copy(GALAXY[:3] + [CORPUS / "gnubgparser" / "charlot1-charlot2_7p_2025-11-08-2308.sgf"], folder / "good")
    two = folder / "good" / "two_matches.txt"
    two.write_bytes(GALAXY[3].read_bytes() + b"\n" + GALAXY[4].read_bytes())
    _copy([BROKEN / n for n in ("truncated.mat", "binary_junk.mat", "illegal_move.mat", "utf16.mat")],
          folder / "bad")
    (folder / "bad" / "junk.txt").write_text("just some notes\nnothing to see\n")
    (folder / "bad" / "empty.mat").write_text("")
    (folder / "readme.md").write_text("not a match suffix: not walked\n")
    return folder


def _tables(out: Path) -> dict[str, pl.DataFrame]:
    got = {t: pl.read_parquet(out / f"{t}.parquet") for t in TABLES}
    got["decisions"] = pl.read_parquet(out / DECISIONS_DIR / "*.parquet").sort(["file", "match_index", "game",
                                                                                 "move_no"])
    return got


def _same(a: Path, b: Path) -> None:
    ta, tb = _tables(a), _tables(b)
    for name in ta:
        assert_frame_equal(ta[name], tb[name], check_exact=True)
    names = [sorted(p.name for p in (d / DECISIONS_DIR).iterdir()) for d in (a, b)]
    assert names[0] == names[1]


def _expected(folder: Path) -> tuple[dict[tuple[str, int], int], set[str]]:
    """Independently: decisions per (file, match) of the good games, and the files with errors."""
    decisions: dict[tuple[str, int], int] = {}
    bad: set[str] = set()
    for f in sorted(str(p) for p in folder.rglob("*") if p.suffix in (".txt", ".mat", ".sgf")):
        recs = list(read_any(f))
        if not recs:
            bad.add(f)
        for i, r in enumerate(recs):
            if r.errors:
                bad.add(f)
            games = list(replay_games(r))
            if any(not g.ok for g in games):
                bad.add(f)
            if r.games:
                decisions[(f, i)] = sum(len(g.decisions) for g in games if g.error is None)
    return decisions, bad


def test_doctests() -> None:
    import analyzer.batch.layout as layout
    import analyzer.batch.phase as phase
    import analyzer.batch.report as report
    import analyzer.batch.run as run
    import analyzer.batch.tables as tables
    import analyzer.batch.units as units

    for mod in (layout, phase, units, tables, run, report):
        result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
        assert result.failed == 0, mod.__name__
        assert result.attempted > 0, mod.__name__


def test_mixed_folder_every_match_and_every_error(mixed: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["batch", str(mixed), "--out", str(out), "--replay-only", "--jobs", "1",
                                   "--no-progress"])
    assert res.exit_code == 1, res.output
    t = _tables(out)
    decisions, bad = _expected(mixed)
    got = {(r["file"], r["match_index"]): r["decisions"] for r in t["matches"].iter_rows(named=True)}
    assert got == decisions
    per_match = t["decisions"].group_by("file", "match_index").len()
    assert {(r["file"], r["match_index"]): r["len"] for r in per_match.iter_rows(named=True)} == \
        {k: v for k, v in decisions.items() if v}
    assert set(t["errors"]["file"]) == bad
    assert {Path(f).name for f in bad} >= {"truncated.mat", "binary_junk.mat", "illegal_move.mat", "utf16.mat",
                                            "junk.txt", "empty.mat"}
    assert not any("good" in Path(f).parts for f in bad)
    assert t["matches"].filter(pl.col("file").str.ends_with("two_matches.txt"))["match_index"].to_list() == [0, 1]
    illegal = t["errors"].filter(pl.col("file").str.ends_with("illegal_move.mat")).row(0, named=True)
    assert illegal["kind"] == "replay" and illegal["line"] is not None and illegal["game"] is not None
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["state"] == "complete" and manifest["options"]["replay_only"] is True
    status = {Path(i["path"]).name: i["status"] for i in manifest["inputs"]}
    assert status["junk.txt"] == "failed" and status[GALAXY[0].name] == "done"
    assert all(i["size"] is not None and i["mtime_ns"] for i in manifest["inputs"])
    # the summary names each failed file and why (its first error's reason, as in the errors table)
    summary = res.output.replace("\n", " ")
    for path in bad:
        first = t["errors"].filter(pl.col("file") == path).row(0, named=True)
        assert f"{path}: " in summary and str(first["reason"])[:30] in summary, path
    # players: one row per name, decisions add up to the matches table
    assert t["players"]["decisions"].sum() == t["matches"]["decisions"].sum()
    assert t["players"]["matches"].sum() == 2 * t["matches"].height


def test_good_inputs_exit_zero(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    _copy(GALAXY[:2], folder)
    res = CliRunner().invoke(app, ["batch", str(folder), "--out", str(tmp_path / "out"), "--replay-only",
                                   "--jobs", "1", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "batch summary" in res.output


def test_progress_callback_counts_matches(mixed: Path, tmp_path: Path) -> None:
    seen: list[BatchProgress] = []
    res = run_batch([str(mixed)], tmp_path / "out", options=REPLAY, jobs=1, progress=seen.append)
    assert seen[-1].files_done == seen[-1].files_total == res.files == 11
    assert seen[-1].bytes_done == seen[-1].bytes_total
    assert seen[-1].matches_done == sum(len(list(read_any(str(p)))) for p in mixed.rglob("*")
                                        if p.suffix in (".txt", ".mat", ".sgf"))
    assert [p.matches_done for p in seen] == sorted(p.matches_done for p in seen)


def test_resume_after_lost_work_is_identical(mixed: Path, tmp_path: Path) -> None:
    clean, broken = tmp_path / "clean", tmp_path / "broken"
    run_batch([str(mixed)], clean, options=REPLAY, jobs=1)
    run_batch([str(mixed)], broken, options=REPLAY, jobs=1)
    # an interruption: one unit lost its marker and one of its parts, the tables are gone,
    # a temporary file is left behind
    marker = next(p for p in sorted((broken / UNITS_DIR).iterdir()) if p.name.startswith("two_matches"))
    marker.unlink()
    part = next(p for p in sorted((broken / DECISIONS_DIR).iterdir()) if p.name.startswith("two_matches"))
    part.unlink()
    (broken / DECISIONS_DIR / ".x.parquet.1.tmp").write_bytes(b"half")
    for t in TABLES:
        (broken / f"{t}.parquet").unlink()
    res = run_batch([str(mixed)], broken, options=REPLAY, jobs=1, resume=True)
    assert res.files_skipped == res.files - 1
    assert res.written == 1  # the lost part; the other match of the file was still in place
    assert not list((broken / DECISIONS_DIR).glob(".*"))
    _same(clean, broken)


def test_resume_redoes_a_changed_input(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    [a, b] = _copy(GALAXY[:2], folder)
    out = tmp_path / "out"
    run_batch([str(folder)], out, options=REPLAY, jobs=1)
    b.write_bytes(GALAXY[5].read_bytes())
    res = run_batch([str(folder)], out, options=REPLAY, jobs=1, resume=True)
    assert res.files_skipped == 1
    clean = tmp_path / "clean"
    run_batch([str(folder)], clean, options=REPLAY, jobs=1)
    _same(clean, out)


def test_resume_with_fewer_or_shorter_inputs_keeps_only_them(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    [a, b, c] = _copy(GALAXY[:3], folder)
    a.write_bytes(GALAXY[0].read_bytes() + b"\n" + GALAXY[5].read_bytes())
    out = tmp_path / "out"
    run_batch([str(folder)], out, options=REPLAY, jobs=1)
    assert len(list((out / DECISIONS_DIR).iterdir())) == 4
    a.write_bytes(GALAXY[0].read_bytes())
    run_batch([str(a), str(b)], out, options=REPLAY, jobs=1, resume=True)
    clean = tmp_path / "clean"
    run_batch([str(a), str(b)], clean, options=REPLAY, jobs=1)
    _same(clean, out)
    assert sorted(p.name for p in (out / UNITS_DIR).iterdir()) == sorted(p.name for p in (clean / UNITS_DIR).iterdir())


def test_resume_with_other_options_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    _copy(GALAXY[:1], folder)
    out = tmp_path / "out"
    run_batch([str(folder)], out, options=REPLAY, jobs=1)
    with pytest.raises(BatchError, match="cannot resume"):
        run_batch([str(folder)], out, options=BatchOptions(ply=0), jobs=1, resume=True)
    res = CliRunner().invoke(app, ["batch", str(folder), "--out", str(out), "--ply", "0", "--resume"])
    assert res.exit_code == 2
    # resume without paths takes the earlier run's inputs
    again = run_batch([], out, options=REPLAY, jobs=1, resume=True)
    assert again.files == again.files_skipped == 1


def test_resume_of_a_run_recorded_before_an_option_existed(tmp_path: Path) -> None:
    """A manifest written before ``confirm`` was an option resumes as the default (off)."""
    folder = tmp_path / "in"
    _copy(GALAXY[:1], folder)
    out = tmp_path / "out"
    run_batch([str(folder)], out, options=REPLAY, jobs=1)
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["options"]["confirm"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    again = run_batch([], out, options=REPLAY, jobs=1, resume=True)
    assert again.files == again.files_skipped == 1
    with pytest.raises(BatchError, match="cannot resume"):
        run_batch([], out, options=BatchOptions(replay_only=True, confirm=True), jobs=1, resume=True)


@pytest.mark.integration
def test_batch_with_the_confirmation_pass(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "a.mat").write_text(TINY.format(a="ann", b="bob"))
    res = CliRunner().invoke(app, ["batch", str(inp), "--out", str(tmp_path / "out"), "--ply", "0", "--jobs", "1",
                                   "--confirm", "--no-progress"])
    assert res.exit_code == 0, res.output
    d = _tables(tmp_path / "out")["decisions"]
    again = d.filter(pl.col("equity_loss_first").is_not_null())
    assert again.height >= 2 and set(again["method"]) == {"rollout"}  # the double and the pass at least
    assert set(d.filter(pl.col("equity_loss_first").is_null())["method"]) == {"0-ply"}
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["options"]["confirm"] is True


def test_fresh_run_replaces_an_old_dataset(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    _copy(GALAXY[:3], folder)
    out = tmp_path / "out"
    run_batch([str(folder)], out, options=REPLAY, jobs=1)
    res = run_batch([str(folder / GALAXY[0].name)], out, options=REPLAY, jobs=1)
    assert res.matches == 1
    assert len(list((out / DECISIONS_DIR).iterdir())) == 1


def test_relative_paths_are_kept_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _copy(GALAXY[:2], tmp_path / "in")
    monkeypatch.chdir(tmp_path)
    res = run_batch(["in"], "out", options=REPLAY, jobs=1)  # paths, not the pool, are under test
    assert res.tables.matches["file"].to_list() == [f"in/{f.name}" for f in GALAXY[:2]]
    assert set(pl.read_parquet("out/decisions/*.parquet")["file"]) == {f"in/{f.name}" for f in GALAXY[:2]}


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["batch", str(tmp_path / "nope"), "--out", str(tmp_path / "o"), "--replay-only"])
    assert res.exit_code == 2
    assert "no such file" in res.output


@pytest.mark.integration
def test_local_pool_equals_in_process(mixed: Path, tmp_path: Path) -> None:
    run_batch([str(mixed)], tmp_path / "one", options=REPLAY, jobs=1)
    res = run_batch([str(mixed)], tmp_path / "two", options=REPLAY, jobs=2)
    assert not res.ok
    _same(tmp_path / "one", tmp_path / "two")


@pytest.mark.integration
def test_a_killed_worker_is_replaced(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    folder = tmp_path / "in"
    _copy(GALAXY[:40], folder)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", "batch", str(folder), "--out", str(out),
                             "--replay-only", "--jobs", "2", "--no-progress"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / DECISIONS_DIR).is_dir() and len(list((out / DECISIONS_DIR).glob("*.parquet"))) >= 3:
            break
        time.sleep(0.005)
    workers = [p for p in psutil.Process(proc.pid).children(recursive=True)
               if "spawn_main" in " ".join(p.cmdline())]
    assert workers, "no pool worker found"
    workers[0].kill()
    assert proc.wait(timeout=300) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert [i["status"] for i in manifest["inputs"]] == ["done"] * 40
    run_batch([str(folder)], tmp_path / "clean", options=REPLAY, jobs=1)
    _same(tmp_path / "clean", out)


@pytest.mark.integration
def test_dask_local_cluster_equals_local_pool(mixed: Path, tmp_path: Path) -> None:
    from distributed import LocalCluster

    run_batch([str(mixed)], tmp_path / "local", options=REPLAY, jobs=1)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None, protocol="tcp://",
                      host="127.0.0.1") as cluster:
        res = run_batch([str(mixed)], tmp_path / "dask", options=REPLAY, scheduler=cluster.scheduler_address)
    assert res.files == 11
    _same(tmp_path / "local", tmp_path / "dask")


@pytest.mark.integration
def test_local_dask_cluster_started_for_the_run(mixed: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    run_batch([str(mixed)], tmp_path / "pool", options=REPLAY, jobs=2)
    res = run_batch([str(mixed)], tmp_path / "dask", options=REPLAY, scheduler="local", jobs=2)
    assert res.files == 11
    _same(tmp_path / "pool", tmp_path / "dask")


def _kill_and_resume(tmp_path: Path, n_files: int, kill_after: int) -> None:
    folder = tmp_path / "in"
    _copy(GALAXY[:n_files], folder)
    out, clean = tmp_path / "out", tmp_path / "clean"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", "batch", str(folder), "--out", str(out),
                             "--replay-only", "--jobs", "1", "--no-progress"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    parts = out / DECISIONS_DIR
    while time.monotonic() < deadline and proc.poll() is None:
        if parts.is_dir() and len(list(parts.glob("*.parquet"))) >= kill_after:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(list(parts.glob("*.parquet")))
    assert kill_after <= done < n_files
    assert not (out / "matches.parquet").exists()
    res = subprocess.run([sys.executable, "-m", "analyzer", "batch", str(folder), "--out", str(out),
                          "--replay-only", "--jobs", "1", "--no-progress", "--resume"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    run_batch([str(folder)], clean, options=REPLAY, jobs=1)
    _same(clean, out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [i["status"] for i in manifest["inputs"]] == ["done"] * n_files


@pytest.mark.integration
def test_sigkill_then_resume_30_files(tmp_path: Path) -> None:
    _kill_and_resume(tmp_path, 30, 5)


@pytest.mark.integration
def test_ctrl_c_stops_the_workers_at_once(tmp_path: Path) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the workers in the middle of their
    # units (7- to 13-point matches at 1-ply, many seconds each) instead of letting them finish the
    # units already queued for them (about 50 s here before); --resume redoes the unfinished ones
    folder = tmp_path / "in"
    _copy(sorted((CORPUS / "bglab" / "backgammon-studio").glob("*.txt")), folder)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", "batch", str(folder), "--out", str(out),
                             "--ply", "1", "--jobs", "2", "--no-progress"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (out / "manifest.json").exists():
        time.sleep(0.05)
    time.sleep(8)  # the workers are started and deep in their first units
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("the run went on after Ctrl-C") from None
    assert proc.returncode == 130, err
    assert b"--resume" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert "pending" in [i["status"] for i in manifest["inputs"]]


# ---------------------------------------------------------------------- analysis and report
@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 0-ply dataset of two tiny matches (one player with markup in the name) and one bad file."""
    folder = tmp_path_factory.mktemp("analysed")
    inp = folder / "in"
    inp.mkdir()
    (inp / "a.mat").write_text("; [EventDate \"2024.01.02\"]\n" + TINY.format(a="<b>Ann&Co", b="bob"))
    (inp / "b.mat").write_text("; [EventDate \"2024.02.03\"]\n" + TINY.format(a="bob", b="<b>Ann&Co"))
    (inp / "c.mat").write_text("garbage\n")
    res = run_batch([str(inp)], folder / "out", options=BatchOptions(ply=0), jobs=1)
    assert res.errors == 1 and res.matches == 2
    return folder / "out"


def test_analysis_dataset(analysed: Path) -> None:
    t = _tables(analysed)
    assert t["decisions"].schema == pl.Schema(analysis_schema())
    m = t["matches"]
    assert t["decisions"]["phase"].null_count() == 0
    assert m["ply"].to_list() == [0, 0]
    assert m["pr_0"].null_count() == 0 and m["error_rate_1"].null_count() == 0
    assert m["winner"].to_list() == [None, None]  # 1-0 in a 3-point match
    assert m["score_0"].to_list() == [1, 1]
    assert m["date"].to_list() == ["2024-01-02", "2024-02-03"]
    manifest = json.loads((analysed / "manifest.json").read_text())
    assert manifest["evaluator"]["ply"] == 0 and manifest["evaluator"]["engine"] == "bgreview"


def test_resume_refused_when_the_nets_changed(analysed: Path, tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(analysed, out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["evaluator_fingerprint"]
    manifest["evaluator_fingerprint"] = "0" * 40
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BatchError, match="nets changed"):
        run_batch([], out, options=BatchOptions(ply=0), jobs=1, resume=True)


def test_report(analysed: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(analysed), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "<b>Ann" not in html and "&lt;b&gt;Ann&amp;Co" in html
    assert html.count('href="matches/') == 2
    for link in (tmp_path / "rep" / "matches").glob("*/report.html"):
        assert "&lt;b&gt;Ann" in link.read_text()
    players = pl.read_csv(tmp_path / "rep" / "players.csv")
    assert players["player"].to_list() == ["<b>Ann&Co", "bob"]
    assert players["matches"].to_list() == [2, 2]
    assert len(list((tmp_path / "rep" / "pr").glob("*.svg"))) == 2
    mix = pl.read_csv(tmp_path / "rep" / "phase_mix.csv")
    assert mix["phase"].to_list() == ["contact"]
    assert mix["decisions"].sum() == _tables(analysed)["decisions"].height
    assert "garbage" in html or "c.mat" in html


def test_report_of_a_replay_dataset(mixed: Path, tmp_path: Path) -> None:
    run_batch([str(mixed)], tmp_path / "out", options=REPLAY, jobs=1)
    rep = write_batch_report(tmp_path / "out")
    assert rep.match_reports == 0
    mix = pl.read_csv(tmp_path / "out" / "report" / "phase_mix.csv")
    assert set(mix["phase"]) <= {"contact", "race", "bear-off"} and "race" in set(mix["phase"])
    assert mix["decisions"].sum() == _tables(tmp_path / "out")["decisions"].height


def test_phase_column_agrees_with_the_key(mixed: Path, tmp_path: Path) -> None:
    run_batch([str(mixed)], tmp_path / "out", options=REPLAY, jobs=1)
    d = _tables(tmp_path / "out")["decisions"].select("key", "phase").unique()
    assert d.height > 100
    assert [key_phase(k) for k in d["key"].to_list()] == d["phase"].to_list()


def test_report_needs_a_dataset(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert res.exit_code == 2


# ---------------------------------------------------------------------- small pieces
def test_game_phase_bar_is_contact() -> None:
    from analyzer.core.ids import encode_key
    from analyzer.core.position import Position

    race = Position.from_notation("P 10:5 | O 20:5 | off P10 O10")
    on_bar = Position.from_notation("P 10:4 | O 20:5 | bar P1 O0 | off P10 O10")
    passed = Position.from_notation("P 10:5 | O 9:5 | off P10 O10")
    assert key_phase(encode_key(race)) == "race"
    assert key_phase(encode_key(on_bar)) == "contact"
    assert key_phase(encode_key(passed)) == "contact"
    assert key_phase("nonsense") == "unknown"


@pytest.mark.integration
def test_key_phase_reads_the_keys_counts_as_position_phase() -> None:
    # key_phase reads the checker counts of the key without building the position; along random
    # games of every variant (pins in Mahbusa, the reserve in Dutch, both sides on roll) it gives
    # the phase of the position itself
    import random

    from analyzer.batch.phase import position_phase
    from analyzer.core.ids import encode_key
    from analyzer.rules import find_variant

    rng = random.Random(5)
    seen: set[str] = set()
    for variant in ("standard", "dutch", "mahbusa"):
        rules = find_variant(variant)
        for _game in range(6):
            pos = rules.start()
            for _ply in range(120):
                for p in (pos, pos.flip()):
                    phase = position_phase(p)
                    assert key_phase(encode_key(p)) == phase
                    seen.add(phase)
                plays = rules.legal_plays(pos, (rng.randint(1, 6), rng.randint(1, 6)))
                pos = rng.choice(plays).result
                if pos.mover_off == 15 or pos.opponent_off == 15:
                    break
                pos = pos.flip()
    assert seen == {"contact", "race", "bear-off"}


def test_match_date_rejects_impossible_dates() -> None:
    assert match_date("2024.02.30") is None
    assert match_date("played 2024.12.31 18.00") == "2024-12-31"


def test_players_trend_is_the_slope_over_time() -> None:
    rows = [{"file": f"f{i}", "match_index": 0, "player_0": "ann", "player_1": f"opp{i}", "date": d,
             "decisions_0": 10, "decisions_1": 10, "winner_side": 0, "unforced_0": 10, "unforced_1": 10,
             "total_error_0": pr / 500 * 10, "total_error_1": 0.1, "errors_0": 1, "errors_1": 1, "pr_0": pr,
             "pr_1": 5.0} for i, (d, pr) in enumerate([("2024-03-01", 6.0), ("2024-01-01", 10.0),
                                                         ("2024-02-01", 8.0)])]
    p = players_table(pl.DataFrame(rows)).filter(pl.col("player") == "ann").row(0, named=True)
    assert p["pr_trend"] == pytest.approx(-2.0)
    assert p["mean_pr"] == pytest.approx(8.0)
    assert p["first_date"] == "2024-01-01" and p["last_date"] == "2024-03-01"
    assert p["wins"] == 3


def test_unit_is_not_done_when_a_part_file_is_missing(tmp_path: Path) -> None:
    from analyzer.batch.units import make_unit, prepare_folders, process_unit, unit_done

    src = tmp_path / "m.mat"
    src.write_text(TINY.format(a="ann", b="bob"))
    out = tmp_path / "out"
    prepare_folders(out)
    unit = make_unit(str(src))
    process_unit(unit, str(out), REPLAY)
    assert unit_done(out, unit)
    for part in (out / DECISIONS_DIR).iterdir():
        part.unlink()
    assert not unit_done(out, unit)  # a resume must redo the match whose part is gone


def test_a_unit_that_could_not_be_read_is_tried_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.batch import units
    from analyzer.batch.units import make_unit, prepare_folders, process_unit, unit_done

    src = tmp_path / "m.mat"
    src.write_text(TINY.format(a="ann", b="bob"))
    out = tmp_path / "out"
    prepare_folders(out)
    unit = make_unit(str(src))

    def unreadable(path: str) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(units, "read_any", unreadable)
    result = process_unit(unit, str(out), REPLAY)
    assert result.errors == 1
    assert not unit_done(out, unit)  # a transient read failure is retried by --resume
    monkeypatch.undo()
    process_unit(unit, str(out), REPLAY)
    assert unit_done(out, unit)


# ---------------------------------------------------------------------- one run per --out
def _batch_cmd(folder: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "analyzer", "batch", str(folder), "--out", str(out), "--replay-only", "--jobs", "1",
            "--no-progress", *extra]


@pytest.mark.integration
def test_a_second_run_into_the_same_out_is_refused(tmp_path: Path) -> None:
    """Issue 31, defect 4: a second run started while the first one writes into the same --out
    must not touch the dataset (it used to clear it, write its own and exit 0)."""
    first, second = tmp_path / "first", tmp_path / "second"
    _copy(GALAXY[:40], first)
    _copy(GALAXY[40:44], second)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(_batch_cmd(first, out), cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    parts = out / DECISIONS_DIR
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if parts.is_dir() and len(list(parts.glob("*.parquet"))) >= 2:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the first run ended before the second could start"
    proc.send_signal(signal.SIGSTOP)  # the first run stays in the middle of its work
    try:
        assert not (out / "matches.parquet").exists(), "the first run ended before it could be stopped"
        res = subprocess.run(_batch_cmd(second, out), cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
    finally:
        proc.send_signal(signal.SIGCONT)
    first_code = proc.wait(timeout=300)
    assert res.returncode == 2, res.stderr
    assert first_code == 0
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert str(out) in lines[0] and f"pid {proc.pid}" in lines[0]
    run_batch([str(first)], tmp_path / "clean", options=REPLAY, jobs=1)
    _same(tmp_path / "clean", out)  # the first run's dataset, untouched by the second


def test_run_batch_refuses_a_locked_out(tmp_path: Path) -> None:
    from filelock import FileLock

    from analyzer.batch.layout import LOCK_FILE

    folder = tmp_path / "in"
    _copy(GALAXY[:1], folder)
    out = tmp_path / "out"
    assert run_batch([str(folder)], out, options=REPLAY, jobs=1).ok
    before = {p.name: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    with FileLock(out / LOCK_FILE):
        with pytest.raises(BatchError, match="another bgreview batch"):
            run_batch([str(folder)], out, options=REPLAY, jobs=1)
        with pytest.raises(BatchError, match="another bgreview batch"):
            run_batch([], out, options=REPLAY, jobs=1, resume=True)
    assert {p.name: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == before
    assert run_batch([], out, options=REPLAY, jobs=1, resume=True).ok  # released: the next run goes on
    assert run_batch([str(folder)], out, options=REPLAY, jobs=1).ok


def test_a_file_without_a_match_gets_an_error_row_with_a_line(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by bench/fuzz_inputs.py: a reader that yields no record (an empty file, at the time)
    left a 'no match in the file' row without a line; a file-level error names line 1."""
    from analyzer.batch import units

    src = tmp_path / "m.mat"
    src.write_text(TINY.format(a="ann", b="bob"))
    monkeypatch.setattr(units, "read_any", lambda path: iter(()))
    res = run_batch([str(src)], tmp_path / "out", options=REPLAY, jobs=1)
    assert res.errors == 1
    row = res.tables.errors.row(0, named=True)
    assert (row["file"], row["line"], row["kind"]) == (str(src), 1, "parse")


HUGE_GAME = """ 3 point match

 Game {number}
 ann : 0                        bob : 0
  1) 31: {play}                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""


@pytest.mark.parametrize("number", ["2147483648", "99999999999999999999"])
def test_a_game_number_beyond_the_columns_costs_one_match_only(tmp_path: Path, number: str) -> None:
    """Found from bench/fuzz_inputs.py (a 'Game 2147483648' line, which replay accepts): a failed
    game with such a number crashed the whole batch at the end (the errors table's Int32 game
    column), and one that replayed lost every later match of its file."""
    folder = tmp_path / "in"
    folder.mkdir()
    good = TINY.format(a="cy", b="dee")
    (folder / "failed.mat").write_text(HUGE_GAME.format(number=number, play="8/2 6/5") + "\n" + good)
    (folder / "replayed.mat").write_text(HUGE_GAME.format(number=number, play="8/5 6/5") + "\n" + good)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["batch", str(folder), "--out", str(out), "--replay-only", "--jobs", "1",
                                   "--no-progress"])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert res.exit_code == 1
    t = _tables(out)
    # the reader refuses the number (its 'Game' line): that match is an error row, the next match of each
    # file is in the dataset
    assert t["matches"].height == 2
    assert set(t["decisions"].filter(pl.col("player") == "cy")["file"]) == {str(folder / "failed.mat"),
                                                                             str(folder / "replayed.mat")}
    errors = t["errors"].sort("file")
    assert errors["file"].to_list() == [str(folder / "failed.mat"), str(folder / "replayed.mat")]  # one each
    assert errors["line"].to_list() == [3, 3]
    assert errors["match_index"].to_list() == [0, 0]


def test_workers_sharing_the_cores_run_one_engine_thread_each() -> None:
    import numpy as np

    from analyzer.batch import units as U
    from analyzer.core.position import Position
    from analyzer.eval.engine import Engine
    from analyzer.rules import Standard

    assert U.worker_threads(10 ** 6) == 1
    assert U.worker_threads(1) >= 1
    try:
        U.set_engine_threads(1)
        assert U._engine().threads == 1
    finally:
        U.set_engine_threads(None)
    assert U._engine().threads == Engine().threads
    # the cap never changes a number: a batched 1-ply evaluation split over threads or not
    boards = Standard().legal_results(Position.start(), (3, 1))  # 16 boards: split over threads at 1-ply
    assert np.array_equal(Engine(threads=1).evaluate_boards(boards, 1), Engine().evaluate_boards(boards, 1))


# ---------------------------------------------------------------------- issue 55, defect 1: --out of the user
def _users_folder(folder: Path) -> dict[Path, bytes]:
    """A folder of the user's own files under the names a dataset uses."""
    files = {folder / "units" / "notes.json": b'{"mine": 1}\n', folder / "decisions" / "q1.parquet": b"PAR1 mine",
             folder / "manifest.json": b'{"project": "mine"}\n', folder / "matches.csv": b"a,b\n1,2\n",
             folder / "thesis.txt": b"years of work\n"}
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


@pytest.mark.parametrize("resume", [False, True])
def test_out_folder_of_other_files_is_refused(tmp_path: Path, resume: bool) -> None:
    folder = tmp_path / "in"
    _copy(GALAXY[:1], folder)
    mine = _users_folder(tmp_path / "mine")
    args = ["batch", str(folder), "--out", str(tmp_path / "mine"), "--replay-only", "--jobs", "1", "--no-progress"]
    res = CliRunner().invoke(app, args + (["--resume"] if resume else []))
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {tmp_path / 'mine'}: ") and "not a bgreview" in lines[0]
    assert {p: p.read_bytes() for p in mine} == mine
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == sorted(
        ["units", "decisions", "manifest.json", "matches.csv", "thesis.txt"])  # no lock, no mark left in it


def test_new_or_empty_folder_is_taken_and_marked(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    _copy(GALAXY[:1], folder)
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "empty", tmp_path / "new" / "deeper"):
        res = run_batch([str(folder)], out, options=REPLAY, jobs=1)
        assert res.ok and (out / ".bgreview-dataset").is_file()
        again = run_batch([str(folder)], out, options=REPLAY, jobs=1)  # a dataset: a fresh run replaces it
        assert again.ok and again.written == res.written


def test_dataset_from_before_the_mark_resumes(tmp_path: Path) -> None:
    """A dataset written before the mark existed is recognised by its manifest and its file names, resumed and
    marked; the same with one file of the user's in it is refused."""
    folder = tmp_path / "in"
    _copy(GALAXY[:2], folder)
    out = tmp_path / "out"
    first = run_batch([str(folder)], out, options=REPLAY, jobs=1)
    (out / ".bgreview-dataset").unlink()
    again = run_batch([], out, options=REPLAY, jobs=1, resume=True)
    assert again.files_skipped == again.files == 2 and again.matches == first.matches
    assert (out / ".bgreview-dataset").is_file()
    (out / ".bgreview-dataset").unlink()
    (out / "thesis.txt").write_text("mine")
    with pytest.raises(OSError, match="not a bgreview batch dataset"):
        run_batch([str(folder)], out, options=REPLAY, jobs=1)
    assert len(list((out / DECISIONS_DIR).iterdir())) == first.matches


def test_theme_and_crawford_columns(analysed: Path) -> None:
    from analyzer.analysis.themes import PLAYER_THEMES, player_theme
    from analyzer.core.ids import decode_key

    d = _tables(analysed)["decisions"].select("key", "theme", "crawford", "post_crawford").unique()
    assert d["theme"].null_count() == 0 and set(d["theme"]) <= set(PLAYER_THEMES)
    assert [player_theme(decode_key(k)) for k in d["key"].to_list()] == d["theme"].to_list()
    assert d["crawford"].to_list() == [False] * d.height  # 1-0 in a 3-point match: no Crawford game yet
    assert d["post_crawford"].to_list() == [False] * d.height


@pytest.mark.integration
def test_crawford_columns_of_a_match_with_a_crawford_game(tmp_path: Path) -> None:
    src = Path(__file__).parent / "data" / "corpus" / "gnubgparser" / "charlot1-charlot2_7p_2025-11-08-2305.mat"
    run_batch([str(src)], tmp_path / "out", options=BatchOptions(ply=0), jobs=1)
    d = _tables(tmp_path / "out")["decisions"]
    games = d.group_by("game").agg(pl.col("score_me").max(), pl.col("score_opp").max(), pl.col("crawford").all(),
                                   pl.col("post_crawford").any(), pl.col("crawford").any().alias("any")).sort("game")
    one_away = [max(a, b) == 6 for a, b in zip(games["score_me"], games["score_opp"], strict=True)]
    first = one_away.index(True)
    assert games["crawford"].to_list() == [i == first for i in range(games.height)]
    assert games["any"].to_list() == games["crawford"].to_list()
    assert games["post_crawford"].to_list() == [i > first and one_away[i] for i in range(games.height)]
