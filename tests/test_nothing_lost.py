"""Issue 31 ("nothing lost, nothing silent"): match files whose games used to vanish without a word,
files with no match that exited 0, convert output that did not replay, error lines eaten by emoji
codes, CR-only and UTF-32 files, and the memory of one huge match. Each test failed before the fix."""

from __future__ import annotations

import json
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.analysis.normalise import normalise
from analyzer.analysis.replay import replay_games
from analyzer.cli import app
from analyzer.formats import read_any, stream_any
from analyzer.formats.mat import read_match_text, read_matches, stream_matches
from analyzer.formats.mat_writer import format_match

DATA = Path(__file__).parent / "data"
GALAXY = DATA / "corpus" / "bglab" / "galaxy"
runner = CliRunner()

GAME_1 = """ 3 point match

 Game 1
 alice : {a}                     bob : {b}
  1) 31: 8/5 6/5                 42: 8/4 6/4
"""


def run(*args: str):
    return runner.invoke(app, list(args))


def _jsonl(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


# ---------------------------------------------------------------- defect 1: scores at the match length
def test_a_first_game_at_the_match_length_is_an_error_with_its_line(tmp_path):
    path = tmp_path / "s.mat"
    path.write_text(GAME_1.format(a=3, b=0))
    res = run("replay", str(path), "--format", "jsonl")
    assert res.exit_code == 1
    assert f"{path}:4:" in res.stderr and "3-0" in res.stderr
    [g] = list(replay_games(next(read_matches(path))))
    assert g.error is not None and g.error.line == 4


def _corpus_match_with_score(tmp_path: Path, game_no: int, score: str) -> tuple[Path, Path, int]:
    """A 15-game 17-point corpus match with game ``game_no``'s score line changed to ``score``."""
    src = GALAXY / "match8067917.txt"
    lines = src.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.strip() == f"Game {game_no}") + 1
    names = lines[at].split(":")
    lines[at] = f"{names[0]}: {score.split('-')[0]}   {names[1].split()[1]} : {score.split('-')[1]}\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(lines))
    return src, bad, at + 1


def test_a_mid_match_score_at_the_length_loses_only_that_game(tmp_path):
    src, bad, line = _corpus_match_with_score(tmp_path, 4, "2-17")
    [good] = list(read_any(src))
    assert good.length == 17 and len(good.games) == 15
    replays = list(replay_games(next(read_any(bad))))
    assert len(replays) == len(good.games)  # every game is still there
    [failed] = [g for g in replays if g.error is not None]
    assert failed.number == 4 and failed.error.line == line and "2-17" in str(failed.error)
    clean = {g.number: g.decisions for g in replay_games(good)}
    for g in replays:
        if g.number != 4:
            assert [(d.kind, d.normalised) for d in g.decisions] == [(d.kind, d.normalised) for d in clean[g.number]]
    res = run("replay", str(bad), "--format", "jsonl")
    assert res.exit_code == 1 and f"{bad}:{line}:" in res.stderr
    assert len(_jsonl(res.stdout)) == sum(len(d) for n, d in clean.items() if n != 4)


# ---------------------------------------------------------------- defect 2: no match in the file
NO_MATCH = {"empty.mat": b"", "blank.mat": b"  \n\n\t\n", "header.mat": b'; [Player 1 "a"]\n; [Player 2 "b"]\n',
            "matchline.mat": b" 5 point match\n\n"}


@pytest.mark.parametrize("name", sorted(NO_MATCH))
@pytest.mark.parametrize("command", ["replay", "convert", "analyze"])
def test_a_file_with_no_match_exits_2_with_one_line(tmp_path, name, command):
    path = tmp_path / name
    path.write_bytes(NO_MATCH[name])
    args = {"replay": ["replay", str(path)], "convert": ["convert", str(path), "--to", "mat"],
            "analyze": ["analyze", str(path), "--ply", "0", "--out", str(tmp_path / "out")]}[command]
    res = run(*args)
    assert res.exit_code == 2, res.output
    errors = res.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith(f"error: {path}:1: ")
    assert "no match" in errors[0] or "no game" in errors[0]


def test_cr_only_line_ends_read_like_the_others(tmp_path):
    text = (GALAXY / "match3128361.txt").read_text()
    lf, cr = tmp_path / "lf.txt", tmp_path / "cr.txt"
    lf.write_bytes(text.encode())
    cr.write_bytes(text.replace("\n", "\r").encode())
    assert len(text) > 4096  # over 4 KB it used to fail with "line longer than 4096 characters"
    a, b = next(read_matches(lf)), next(read_matches(cr))
    assert b.errors == () and [g.actions for g in a.games] == [g.actions for g in b.games]
    small = "".join(text.splitlines(keepends=True)[:40]).replace("\n", "\r")
    res = run("replay", str(_write(tmp_path / "small.txt", small)), "--format", "jsonl")
    assert res.exit_code == 0 and len(_jsonl(res.stdout)) > 10


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


@pytest.mark.parametrize("encoding, name", [("utf-16", "UTF-16"), ("utf-32", "UTF-32"),
                                            ("utf-16-be", None), ("utf-32-le", None)])
def test_utf16_and_utf32_files_are_named_as_they_are(tmp_path, encoding, name):
    path = tmp_path / "m.mat"
    body = GAME_1.format(a=0, b=0).encode(encoding)
    path.write_bytes(({"utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00"}.get(encoding, b"")) + body)
    [m] = list(read_matches(path))
    [e] = m.errors
    assert m.games == () and e.line == 1 and (name or encoding[:6].upper()) in e.message


# ---------------------------------------------------------------- defect 5: convert output replays
def test_convert_without_a_failed_game_keeps_crawford_right(tmp_path):
    src = GALAXY / "match3128361.txt"
    lines = src.read_text().splitlines(keepends=True)
    del lines[89]  # `sed '90d'`: game 2 of this 5-point match no longer replays
    broken = _write(tmp_path / "m.txt", "".join(lines))
    out = tmp_path / "c.mat"
    res = run("convert", str(broken), "--to", "mat", "-o", str(out))
    assert res.exit_code == 1 and f"{broken}:90:" in res.stderr
    kept = [g for g in replay_games(next(read_any(broken))) if g.error is None]
    back = list(replay_games(next(read_any(out))))
    assert all(g.error is None and g.score_error is None for g in back)
    assert len(back) == len(kept)
    for a, b in zip(kept, back, strict=True):
        assert (a.number, a.state.crawford, a.state.post_crawford) == \
               (b.number, b.state.crawford, b.state.post_crawford)
        assert [(d.kind, d.side, d.dice, d.normalised, d.position) for d in a.decisions] == \
               [(d.kind, d.side, d.dice, d.normalised, d.position) for d in b.decisions]
    assert run("replay", str(out)).exit_code == 0


def test_the_crawford_tag_is_written_only_when_the_scores_do_not_show_it():
    [m] = list(read_any(GALAXY / "match3128361.txt"))
    assert "CrawfordGame" not in format_match(normalise(m))  # nothing left out: inferred as before
    rows = "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
    text = "".join(f" Game {n}\n alice : {a}   bob : {b}\n{rows}" for n, (a, b) in
                   enumerate([(0, 0), (2, 0), (2, 1)], 1))
    norm = normalise(read_match_text(" 3 point match\n" + text)[0])
    g1, g2, g3 = norm.games
    assert (g1.crawford, g2.crawford, g3.crawford) == (False, True, False)
    assert "CrawfordGame" not in format_match(norm)
    written = format_match(replace(norm, games=(g1, g3)))  # the Crawford game left out
    assert written.count('; [CrawfordGame "No"]') == 1
    [again] = read_match_text(written)
    assert [(g.state.crawford, g.state.post_crawford) for g in replay_games(again)] == [(False, False), (False, True)]


# ---------------------------------------------------------------- defect 6: no emoji in error lines
def test_error_lines_keep_their_line_numbers_and_names(tmp_path):
    head = " 3 point match\n\n Game 1\n :cool: : 0                     bob : 0\n"
    path = _write(tmp_path / "e.mat", head + "\n" * 95 + "  1) 31: 8/5 6/9\n")  # the bad play on line 100
    res = run("replay", str(path))
    assert res.exit_code == 1
    assert f"{path}:100:" in res.stderr and "\U0001f4af" not in res.stderr
    cool = _write(tmp_path / ":cool:.mat", GAME_1.format(a=3, b=0))
    res = run("replay", str(cool))
    assert f"{cool}:4:" in res.stderr and "\U0001f60e" not in res.stderr


# ---------------------------------------------------------------- defect 8: one huge match streamed
def _money_session(games: int) -> str:
    one = ("\n Game {n}\n alice : 0                     bob : 0\n  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
           "  2)  Doubles => 2                 Drops\n      Wins 1 point\n")
    return " 0 point match\n" + "".join(one.format(n=n) for n in range(1, games + 1))


def _peak_read(path: Path) -> tuple[int, int]:
    tracemalloc.start()
    try:
        n = sum(1 for match in stream_matches(path) for _ in match.games)
        return n, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.integration
def test_one_huge_match_is_read_game_by_game(tmp_path):
    small = _write(tmp_path / "small.mat", _money_session(1000))  # over the reader's 64 KB chunk
    big = _write(tmp_path / "big.mat", _money_session(6000))
    _peak_read(small)  # one-time allocations
    (n_small, peak_small), (n_big, peak_big) = _peak_read(small), _peak_read(big)
    assert (n_small, n_big) == (1000, 6000)
    assert peak_big < 1.2 * peak_small  # the whole match held in memory grew four-fold here
    first = next(stream_matches(big))
    assert first.header.games == () and first.header.length == 0 and next(first.games).number == 1


def test_the_replay_reads_one_game_ahead_only(tmp_path):
    match = next(stream_any(_write(tmp_path / "m.mat", _money_session(6))))
    pulled: list[int] = []

    def games():
        for g in match.games:
            pulled.append(g.number)
            yield g

    for g in replay_games(match.header, games()):
        assert g.error is None and pulled[-1] <= g.number + 1  # the score check looks at the next game
    assert pulled == [1, 2, 3, 4, 5, 6]


def test_batch_prints_paths_as_they_are(tmp_path):
    path = tmp_path / "m.mat"
    path.write_text(GAME_1.format(a=0, b=0))
    out = tmp_path / ":100:"
    res = run("batch", str(path), "--out", str(out), "--replay-only", "--no-progress")
    assert res.exit_code == 0, res.output
    assert ":100:" in res.stderr.replace("\n", "") and "\U0001f4af" not in res.stderr
