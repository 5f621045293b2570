"""``bgreview replay`` and ``bgreview convert`` through typer's CliRunner; broken inputs."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.analysis.replay import decisions, replay_games
from analyzer.cli import app
from analyzer.core.errors import IllegalPlayError, ParseError, RulesError
from analyzer.formats import read_any
from analyzer.formats.mat import read_match_text, read_matches
from analyzer.formats.sgf import read_sgf

DATA = Path(__file__).parent / "data"
GNUBG = DATA / "corpus" / "gnubgparser"
BROKEN = DATA / "broken"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def n_decisions(path: Path) -> int:
    return sum(1 for m in read_any(path) for _ in decisions(m))


def test_replay_jsonl_has_one_line_per_decision_with_ids():
    path = GNUBG / "gnubg_selfplay_drops_7p.mat"
    res = run("replay", str(path), "--format", "jsonl")
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == n_decisions(path)
    assert {r["kind"] for r in rows} >= {"move", "double", "drop"}
    first = rows[0]
    assert first["file"] == str(path) and first["game"] == 1 and first["move"] == 1
    assert first["player"] == "charlot2" and first["side"] == 1 and first["dice"] == "51"
    assert first["played"] == "13/8 24/23" and first["normalised"] == "24/23 13/8"
    assert first["position_id"] == "4HPwATDgc/ABMA" and first["xgid"].startswith("XGID=")
    assert len(first["match_id"]) == 12 and first["score"] == "0-0"


def test_replay_table_for_a_directory_and_a_glob():
    res = run("replay", str(GNUBG))
    assert res.exit_code == 0, res.output
    total = sum(n_decisions(p) for p in sorted(GNUBG.iterdir()) if p.suffix in (".mat", ".sgf"))
    assert len(res.stdout.splitlines()) == total + 1  # header line
    assert "replay summary" in res.stderr
    res2 = run("replay", str(GNUBG / "*.sgf"))
    assert res2.exit_code == 0
    assert len(res2.stdout.splitlines()) == 1 + sum(n_decisions(p) for p in GNUBG.glob("*.sgf"))


def test_replay_variant_rows_carry_the_text_key(tmp_path):
    text = '; [Variation "Dutch"]\n\n 0 point match\n\n Game 1\n a : 0                          b : 0\n'
    text += "  1) 42: bar/21 bar/23\n"
    p = tmp_path / "dutch.mat"
    p.write_text(text)
    res = run("replay", str(p), "--format", "jsonl")
    assert res.exit_code == 0, res.output
    [row] = [json.loads(x) for x in res.stdout.splitlines()]
    assert row["key"].startswith("D.") and row["position_id"] == "" and row["xgid"] == ""


def test_usage_errors_exit_2():
    assert run("replay", "/no/such/file.mat").exit_code == 2
    assert run("replay", str(GNUBG / "*.nothing")).exit_code == 2
    assert run("replay").exit_code == 2
    assert run("convert", str(GNUBG / "gnubg_selfplay_drops_7p.mat"), "--to", "xg").exit_code == 2


@pytest.mark.parametrize("to,reader", [("mat", read_matches), ("sgf", read_sgf)])
def test_convert_keeps_the_decisions(tmp_path, to, reader):
    src = GNUBG / "charlot1-charlot2_7p_2025-11-08-2305.mat"
    out = tmp_path / f"x.{to}"
    res = run("convert", str(src), "--to", to, "-o", str(out))
    assert res.exit_code == 0, res.output
    [a] = list(read_matches(src))
    [b] = list(reader(out))

    def key(m):
        return [(d.game, d.side, d.kind, d.dice, d.normalised) for d in decisions(m)]

    assert key(a) == key(b)
    res = run("convert", str(src), "--to", to)
    assert res.exit_code == 0 and res.stdout == out.read_text()


# ---------------------------------------------------------------------- broken files
EXPECT = {
    "truncated.mat": (ParseError, 15, "unreadable move", "13/"),
    "illegal_move.mat": (IllegalPlayError, 15, "not a legal play", "13/7 24/23"),
    "wrong_dice.mat": (IllegalPlayError, 8, "roll 65", "24/22 22/16"),
    "bad_dice_value.mat": (ParseError, 9, "dice must be 1 to 6", "73:"),
    "garbage_lines.mat": (ParseError, 9, "unreadable action", "this"),
    "utf16.mat": (ParseError, 1, "UTF-16", None),
    "binary_junk.mat": (ParseError, 1, "binary data", None),
    "wrong_winner.mat": (RulesError, 11, "'Wins' written for charlot2", "Wins 1 point"),
    "bad_score.mat": (RulesError, 14, "next score line says 2-0", "2-0"),
}


def first_error(path: Path):
    for m in read_matches(path):
        if m.errors:
            return m.errors[0]
        for g in replay_games(m):
            if g.error or g.score_error:
                return g.error or g.score_error
    return None


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_broken_file_gives_the_right_error(name):
    kind, line, words, token = EXPECT[name]
    path = BROKEN / name
    err = first_error(path)
    assert isinstance(err, kind), err
    assert err.file == str(path) and err.line == line and words in err.message
    assert err.token == token
    res = run("replay", str(path))
    assert res.exit_code == (2 if name in ("utf16.mat", "binary_junk.mat") else 1)  # 2: no game could be read
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output
    assert f"{path}:{line}" in res.stderr and words in res.stderr


def test_latin1_names_are_read():
    [m] = list(read_matches(BROKEN / "latin1_names.mat"))
    assert m.errors == () and m.players[0] == "Jos\u00e9"
    assert run("replay", str(BROKEN / "latin1_names.mat")).exit_code == 0


def test_garbage_lines_skip_only_their_games():
    [m] = list(read_matches(BROKEN / "garbage_lines.mat"))
    [good] = list(read_matches(GNUBG / "gnubg_selfplay_drops_7p.mat"))
    assert len(m.errors) == 2 and len(m.games) == len(good.games) - 2


def test_too_many_errors_stop_the_file(tmp_path):
    p = tmp_path / "junk.mat"
    p.write_text(" 1 point match\n" + "".join(f"line {i} of junk\n" for i in range(1000)))
    [m] = list(read_matches(p))
    assert len(m.errors) <= 60 and "skipped" in m.errors[-1].message
    assert m.errors[0].line == 2 and m.errors[0].token == "line 0 of junk"


def test_a_text_that_is_no_match_file_gives_one_error(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("".join(f"line {i} of prose\n" for i in range(1000)))
    [m] = list(read_matches(p))
    [e] = m.errors
    assert "not a match file" in e.message and (e.line, e.token) == (1, "line 0 of prose")


@pytest.mark.slow
def test_hundred_megabytes_of_noise(tmp_path):
    p = tmp_path / "noise.mat"
    rng = random.Random(1)
    words = ["Game", "1)", "31:", "8/5", "Wins", "point", "match", ":", "Doubles", "=>", "|", "@", "24/0"]
    block = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(20000)) + "\n"
    with open(p, "w") as fh:
        while fh.tell() < 100 * 1024 * 1024:
            fh.write(block)
    assert os.path.getsize(p) >= 100 * 1024 * 1024
    res = run("replay", str(p))
    assert res.exit_code == 1 and "Traceback" not in res.output
    binary = tmp_path / "noise.bin"
    with open(binary, "wb") as fh:
        for _ in range(100):
            fh.write(rng.randbytes(1024 * 1024))
    res = run("replay", str(binary))
    assert res.exit_code == 1 and "binary data" in res.stderr


def test_read_match_text_reports_locations():
    [m] = read_match_text(" 1 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 zz\n", name="q")
    [e] = m.errors
    assert (e.file, e.line, e.token) == ("q", 4, "zz")
