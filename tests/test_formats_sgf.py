"""The gnubg SGF reader and writer."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from analyzer.analysis.replay import replay_games
from analyzer.core.errors import ParseError
from analyzer.formats import read_any
from analyzer.formats.records import Double, Drop, Roll, Win
from analyzer.formats.sgf import read_sgf, sgf_point
from analyzer.formats.sgf_writer import sgf_letter

GNUBG = Path(__file__).parent / "data" / "corpus" / "gnubgparser"


def test_point_letters_round_trip_for_both_sides():
    for side in (0, 1):
        for p in [*range(1, 25), 25, 0]:
            assert sgf_point(sgf_letter(p, side), side) == p
    assert sgf_point("a", 0) == 1 and sgf_point("a", 1) == 24


def test_charlot_sgf_metadata_and_results():
    [m] = list(read_sgf(GNUBG / "charlot1-charlot2_7p_2025-11-08-2305.sgf"))
    assert m.players == ("charlot1", "charlot2") and m.length == 7 and m.crawford
    assert [g.score for g in m.games] == [(0, 0), (0, 2), (2, 2), (6, 2)]
    assert [g.resigned for g in m.games] == [True, False, False, True]
    assert [g.crawford for g in m.games] == [False, False, False, True]
    first = m.games[0].actions[0]
    assert isinstance(first, Roll) and (first.side, first.dice, first.play) == (1, (4, 1), "13/9 24/23")
    kinds = {type(a) for g in m.games for a in g.actions}
    assert {Roll, Double, Drop, Win} <= kinds
    assert m.date == "2025.11.08"


def test_second_sgf_replays_cleanly():
    [m] = list(read_any(GNUBG / "charlot1-charlot2_7p_2025-11-08-2308.sgf"))
    games = list(replay_games(m))
    assert len(games) == 5 and all(g.ok for g in games)
    final = games[-1]
    assert final.state.score[final.winner] + final.points >= 7


SMALL = ("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[a]PB[b]RE[W+1]"
         ";W[31fehe];B[double];W[drop])")


def test_truncated_sgf_is_an_error():
    [m] = list(read_sgf(io.StringIO(SMALL[:-9]), name="t.sgf"))
    assert m.games == () and "truncated" in m.errors[0].message
    assert m.errors[0].file == "t.sgf"


def test_bad_move_and_setup_nodes_are_reported_per_game():
    text = SMALL.replace("31fehe", "31fe!e") + SMALL.replace("[game:0]", "[game:1]").replace(
        ";W[31fehe]", ";AW[a]")
    [m] = list(read_sgf(io.StringIO(text), name="t.sgf"))
    assert m.games == ()
    assert any(isinstance(e, ParseError) for e in m.errors)
    msgs = " ".join(e.message for e in m.errors)
    assert "set-up" in msgs


def test_unreadable_sgf_move():
    [m] = list(read_sgf(io.StringIO(SMALL.replace("31fehe", "31fex"))))
    [err] = m.errors
    assert err.token == "31fex" and err.line == 1


def test_games_of_two_matches_split_into_two_records():
    text = SMALL + "\n" + SMALL.replace("PW[a]", "PW[c]")
    ms = list(read_sgf(io.StringIO(text)))
    assert [m.players for m in ms] == [("a", "b"), ("c", "b")] and [m.index for m in ms] == [0, 1]


@pytest.mark.parametrize("junk", ["", "garbage", "\x00\x01\x02"])
def test_no_game_in_sgf(junk):
    [m] = list(read_sgf(io.StringIO(junk)))
    assert m.games == () and m.errors


def test_roll_then_resign_survives_sgf(tmp_path):
    from analyzer.analysis.normalise import normalise
    from analyzer.formats.sgf_writer import format_sgf

    [m] = list(read_any(GNUBG / "gnubg_roll_then_resign_1p.mat"))
    [back] = list(read_sgf(io.StringIO(format_sgf(normalise(m)))))
    last_roll = [a for a in back.games[0].actions if isinstance(a, Roll)][-1]
    assert last_roll.note == "????" and last_roll.dice == (5, 1)
    [g] = replay_games(back)
    assert (g.end, g.winner, g.decisions[-1].kind, g.decisions[-1].dice) == ("resign", 0, "resign", (5, 1))
