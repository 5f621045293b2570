"""The .mat reader on the tricky lines of docs/formats.md §6 and on hand-made variations."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from analyzer.core.errors import ParseError
from analyzer.formats.mat import read_match_text, read_matches
from analyzer.formats.records import Double, Drop, Resign, Roll, Take, Win

CORPUS = Path(__file__).parent / "data" / "corpus"
GALAXY = CORPUS / "bglab" / "galaxy"
STUDIO = CORPUS / "bglab" / "backgammon-studio"
GNUBG = CORPUS / "gnubgparser"


def one(path: Path):
    [m] = list(read_matches(path))
    assert m.errors == ()
    return m


def studio(prefix: str) -> Path:
    [p] = [p for p in STUDIO.iterdir() if p.name.startswith(prefix)]
    return p


def actions_on_line(m, line: int):
    return [a for g in m.games for a in g.actions if a.line == line]


def test_gnubg_overflowing_left_cell_goes_left_and_right_cell_right():
    m = one(GNUBG / "gnubg_selfplay_drops_7p.mat")
    a, b = actions_on_line(m, 8)
    assert (a.side, a.dice, a.play) == (0, (3, 3), "24/21 24/21 13/10 13/10")
    line8 = (GNUBG / "gnubg_selfplay_drops_7p.mat").read_text().splitlines()[7]
    assert (b.side, b.dice, b.play, b.column) == (1, (6, 2), "24/22 22/16", line8.index("62:") + 1)
    a, b = actions_on_line(m, 9)  # only two spaces between the cells
    assert (a.side, b.side, b.dice) == (0, 1, (6, 3))


def test_gnubg_drop_then_wins_on_own_line_under_left_column():
    m = one(GNUBG / "gnubg_selfplay_drops_7p.mat")
    (d, dr) = actions_on_line(m, 10)
    assert isinstance(d, Double) and d.side == 0 and d.value == 2
    assert isinstance(dr, Drop) and dr.side == 1
    [w] = actions_on_line(m, 11)
    assert isinstance(w, Win) and w.side == 0 and w.points == 1 and not w.match


def test_galaxy_player_two_opens_with_blank_left_cell():
    m = one(GALAXY / "match10013413.txt")
    [a] = actions_on_line(m, 18)
    assert a.side == 1 and a.dice == (5, 1)


def test_galaxy_losses_and_far_right_wins_on_one_row():
    m = one(GALAXY / "match9700805.txt")
    loss, win = actions_on_line(m, 67)
    assert isinstance(loss, Resign) and loss.side == 0 and loss.points == 3
    assert isinstance(win, Win) and win.side == 1 and win.match


def test_galaxy_losses_in_right_cell_then_wins_later():
    m = one(GALAXY / "match6608293.txt")
    roll, loss = actions_on_line(m, 38)
    assert isinstance(roll, Roll) and roll.side == 0
    assert isinstance(loss, Resign) and loss.side == 1
    [win] = actions_on_line(m, 40)
    assert isinstance(win, Win) and win.side == 0


def test_galaxy_repeated_row_number_in_right_cell():
    m = one(GALAXY / "match2900236.txt")
    roll, loss, win = actions_on_line(m, 59)
    assert (roll.side, loss.side, win.side) == (0, 1, 0)


def test_galaxy_empty_player_name():
    m = one(GALAXY / "match6047230.txt")
    assert m.games[0].names[1] == ""
    sides = {a.side for a in m.games[0].actions}
    assert sides == {0, 1}


def test_galaxy_metadata_with_decimal_comma_elo_and_no_date():
    m = one(GALAXY / "match1004844.txt")
    assert m.site == "BackgammonGalaxy" and m.date is None
    assert m.ratings[0] is not None and "," in m.ratings[0]
    assert m.crawford is True and m.cube_limit == 1024


def test_studio_question_marks_numbered_wins_and_empty_row():
    m = one(studio("solnze - Lasse 3pt"))
    [roll] = [a for a in actions_on_line(m, 73) if a.side == 1]
    assert isinstance(roll, Roll) and roll.note == "????" and roll.play == ""
    [win] = actions_on_line(m, 74)
    assert isinstance(win, Win) and win.side == 0
    assert actions_on_line(m, 75) == []


def test_studio_cannot_move_and_combined_hops():
    m = one(studio("BoardLord - Llabba 7pt"))
    [dance] = [a for a in actions_on_line(m, 84) if isinstance(a, Roll) and a.note]
    assert dance.note == "cannot move"
    kinds = [type(a).__name__ for a in actions_on_line(m, 89)]
    assert kinds == ["Roll", "Double"]
    assert m.event == "Online match" and m.tag("ClockType") is not None


def test_studio_junk_wins_number_is_read_as_written():
    m = one(studio("MrPurple - Lasse 3pt"))
    roll, win = actions_on_line(m, 58)
    assert roll.note == "????" and win.points == 4016 and win.side == 1


def test_galaxy_single_game_sixteen_point_match():
    m = one(GALAXY / "match7940391.txt")
    assert m.length == 16 and len(m.games) == 1


def test_take_and_takes_spelling_and_beaver_words():
    text = """ 0 point match

 Game 1
 a : 0                          b : 0
  1) 31: 8/5 6/5                 Doubles => 2
  2)  Beavers => 4
"""
    [m] = read_match_text(text)
    acts = m.games[0].actions
    assert isinstance(acts[1], Double) and acts[1].kind == "double" and acts[1].side == 1
    assert isinstance(acts[2], Double) and acts[2].kind == "beaver" and acts[2].value == 4
    assert m.length == 0


@pytest.mark.parametrize("word,points", [("Resigns", None), ("Resigned Game", None),
                                         ("Resigned Match", None), ("Losses 2 point", 2)])
def test_resignation_spellings(word, points):
    text = f""" 5 point match

 Game 1
 a : 0                          b : 0
  1) 31: 8/5 6/5                 {word}
                                  Wins 2 points
"""
    [m] = read_match_text(text)
    res, win = m.games[0].actions[1:]
    assert isinstance(res, Resign) and res.side == 1 and res.points == points
    assert isinstance(win, Win) and win.side == 0 and win.points == 2


def test_bom_crlf_and_takes():
    text = ("\ufeff; [Player 1 \"x\"]\r\n\r\n 1 point match\r\n\r\n Game 1\r\n"
            " x : 0                          y : 0\r\n  1) 31: 8/5 6/5                 Takes\r\n")
    [m] = list(read_matches(io.BytesIO(text.encode("utf-8"))))
    assert m.players == ("x", "y")
    roll, take = m.games[0].actions
    assert isinstance(take, Take) and take.side == 1 and roll.play == "8/5 6/5"


def test_several_matches_in_one_stream_keep_their_headers():
    one_match = (GNUBG / "gnubg_roll_then_resign_1p.mat").read_text()
    other = (GALAXY / "match10013413.txt").read_text()
    ms = list(read_matches(io.StringIO(one_match + "\n" + other + "\n" + one_match)))
    assert [m.length for m in ms] == [1, 5, 1]
    assert [m.index for m in ms] == [0, 1, 2]
    assert ms[1].site == "BackgammonGalaxy" and ms[0].site is None and ms[2].site is None
    assert all(m.errors == () for m in ms)


def test_variant_headers_and_game_override():
    text = """; [Variation "Dutch"]

 0 point match

 Game 1
 a : 0                          b : 0
  1) 42: bar/21 bar/23

 Game 2
; [GameVariation "Plakoto"]
 a : 1                          b : 0
  1) 65: 24/18 24/19
"""
    [m] = read_match_text(text)
    assert m.variant == "dutch"
    assert m.games[0].variation is None and m.games[1].variation == "Plakoto"
    assert m.games[1].actions[0].play == "24/18 24/19"


def test_pin_marks_are_accepted():
    text = """; [Variation "Mahbusa"]

 1 point match

 Game 1
 a : 0                          b : 0
  1) 61: 13/7^ 8/7
"""
    [m] = read_match_text(text)
    assert m.variant == "mahbusa" and m.games[0].actions[0].play == "13/7^ 8/7"


def test_bad_game_is_reported_with_location_and_the_rest_goes_on():
    text = """ 3 point match

 Game 1
 a : 0                          b : 0
  1) 31: 8/5 6/x                 64: 24/18 13/9

 Game 2
 a : 1                          b : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
"""
    [m] = read_match_text(text, name="m.mat")
    assert [g.number for g in m.games] == [2]
    [err] = m.errors
    assert isinstance(err, ParseError)
    assert (err.file, err.line, err.column, err.token) == ("m.mat", 5, 14, "6/x")


def test_missing_score_line_is_an_error():
    [m] = read_match_text(" 1 point match\n Game 1\n  1) 31: 8/5 6/5\n")
    assert m.games == () and "score line" in m.errors[0].message


def test_a_game_without_match_line_is_a_money_game():
    [m] = read_match_text(" Game 1\n a : 0      b : 0\n  1) 31: 8/5 6/5\n")
    assert m.length == 0 and len(m.games) == 1


@pytest.mark.parametrize("text, why", [("", "it is empty"), ("  \n\n \t\n", "3 blank lines"),
                                       ('; [Player 1 "a"]\n; [Player 2 "b"]\n', "header lines only"),
                                       (" 5 point match\n\n", "no game in the 5 point match")])
def test_a_file_without_a_game_is_an_error_not_nothing(text, why):
    # issue 31, defect 2: empty, blank, header-only files used to give no record and no error
    [m] = read_match_text(text, name="x.mat")
    [e] = m.errors
    assert m.games == () and why in e.message and e.file == "x.mat" and e.line == 1


def test_no_move_marker_after_moves_is_an_error():
    [m] = read_match_text(" 1 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 ????\n")
    [e] = m.errors
    assert e.token == "????" and e.column == 18 and m.games == ()
