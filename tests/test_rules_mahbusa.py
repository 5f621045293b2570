"""Mahbusa / Plakoto conformance cases M01-M16 (with M11b) of ``docs/rules.md`` §3.6.

Every expected set of results below was worked out by hand from the rules text (and is the one
printed in rules.md); the engine's answer is compared as a set of resulting positions, and game
ends through :meth:`Mahbusa.outcome`.
"""

from __future__ import annotations

import pytest

from analyzer.core.position import Position
from analyzer.rules import Mahbusa, Outcome, Standard


def pos(text: str) -> Position:
    return Position.from_notation(text, "mahbusa")


def results(rules: Mahbusa, start: Position, dice: tuple[int, int]) -> set[Position]:
    plays = rules.legal_plays(start, dice)
    out = {p.result for p in plays}
    assert len(out) == len(plays), "two legal plays with the same result"
    return out


MOTHER_WIN = Outcome(0, 2, "mother")


def assert_draw(outcome: Outcome | None) -> None:
    assert outcome is not None
    assert (outcome.points, outcome.kind) == (0, "draw")


# ---------------------------------------------------------------------------------------- M01-M03


def test_m01_start() -> None:
    rules = Mahbusa()
    start = rules.start()
    assert start == pos("P 24:15 | O 1:15")
    assert start.mover[23] == 15 and start.opponent[0] == 15
    assert (start.mover_bar, start.opponent_bar, start.mover_off, start.opponent_off) == (0, 0, 0, 0)
    assert start.pinned_mover == () and start.pinned_opponent == ()
    assert start.pips() == (360, 360)
    assert rules.outcome(start) is None
    assert Mahbusa.has_cube is False


def test_m02_opening_6_5() -> None:
    rules = Mahbusa()
    expected = {pos("P 24:13 19:1 18:1 | O 1:15"), pos("P 24:14 13:1 | O 1:15")}
    assert results(rules, rules.start(), (6, 5)) == expected


def test_m03_opening_6_6() -> None:
    rules = Mahbusa()
    expected = {
        pos("P 24:11 18:4 | O 1:15"),
        pos("P 24:12 18:2 12:1 | O 1:15"),
        pos("P 24:13 12:2 | O 1:15"),
        pos("P 24:13 18:1 6:1 | O 1:15"),
    }
    assert results(rules, rules.start(), (6, 6)) == expected


# ---------------------------------------------------------------------------------------- M04-M07


def test_m04_pin_and_release_by_moving_on() -> None:
    rules = Mahbusa()
    start = pos("P 24:15 | O 20:1 1:14")
    pinned = pos("P 24:13 23:1 20:1+o | O 1:14")  # 24/20^ 24/23
    released = pos("P 24:14 19:1 | O 20:1 1:14")  # 24/20^/19 = 24/23/19
    assert results(rules, start, (4, 1)) == {pinned, released}
    assert pinned.pinned_opponent == (20,)
    assert released.pinned_opponent == ()


def test_m05_a_point_holding_your_own_pinned_checker_is_closed() -> None:
    start = pos("P 14:1 1:13 | O 21:14 10:1+p")
    assert start.pinned_mover == (10,)
    assert results(Mahbusa(), start, (4, 2)) == {pos("P 8:1 1:13 | O 21:14 10:1+p")}


def test_m06_joining_or_leaving_your_own_pinning_point() -> None:
    start = pos("P 14:1 10:1+o 1:13 | O 21:14")
    expected = {
        pos("P 10:1+o 8:1 1:13 | O 21:14"),  # 14/10 10/8: pin kept
        pos("P 12:1 6:1 1:13 | O 21:14 10:1"),  # 10/6 14/12: released
        pos("P 14:1 4:1 1:13 | O 21:14 10:1"),  # 10/6/4: released
    }
    assert results(Mahbusa(), start, (4, 2)) == expected


def test_m07_a_touch_down_pin_is_transient() -> None:
    start = pos("P 24:1 1:14 | O 23:12 19:1 18:2")
    assert results(Mahbusa(), start, (6, 5)) == {pos("P 13:1 1:14 | O 23:12 19:1 18:2")}


# ---------------------------------------------------------------------------------------- M08-M11b


def test_m08_mother_win() -> None:
    rules = Mahbusa()
    start = pos("P 8:14 3:1 | O 20:14 1:1")
    wins = {
        pos("P 8:14 1:1+o | O 20:14 | over"),  # 3/1^, the game ends with the 1 unplayed
        pos("P 8:13 7:1 1:1+o | O 20:14 | over"),  # 8/7 3/1^
    }
    going_on = {
        pos("P 8:12 7:1 6:1 3:1 | O 20:14 1:1"),  # 8/6 8/7
        pos("P 8:13 5:1 3:1 | O 20:14 1:1"),  # 8/6/5
        pos("P 8:13 6:1 2:1 | O 20:14 1:1"),  # 8/6 3/2
    }
    got = results(rules, start, (2, 1))
    assert got == wins | going_on
    for r in wins:
        assert rules.outcome(r) == MOTHER_WIN
        assert rules.outcome(r.flip()) == Outcome(1, 2, "mother")
    for r in going_on:
        assert rules.outcome(r) is None


M09_START = "P 24:1 8:13 3:1 | O 20:14 1:1"
M09_PIN_CONTINUES = "P 24:1 8:12 7:1 1:1+o | O 20:14"  # 3/1^ 8/7
M09_WIN = "P 23:1 8:13 1:1+o | O 20:14 | over"  # 3/1^ 24/23, either order
M09_OTHERS = [
    "P 21:1 8:13 3:1 | O 20:14 1:1",  # 24/21
    "P 22:1 8:12 7:1 3:1 | O 20:14 1:1",  # 24/22 8/7
    "P 22:1 8:13 2:1 | O 20:14 1:1",  # 24/22 3/2
    "P 23:1 8:12 6:1 3:1 | O 20:14 1:1",  # 24/23 8/6
    "P 24:1 8:11 7:1 6:1 3:1 | O 20:14 1:1",  # 8/6 8/7
    "P 24:1 8:12 5:1 3:1 | O 20:14 1:1",  # 8/6/5
    "P 24:1 8:12 6:1 2:1 | O 20:14 1:1",  # 8/6 3/2
]


def test_m09_own_start_not_empty() -> None:
    rules = Mahbusa()
    got = results(rules, pos(M09_START), (2, 1))
    expected = {pos(M09_PIN_CONTINUES), pos(M09_WIN)} | {pos(t) for t in M09_OTHERS}
    assert len(expected) == 9
    assert got == expected
    assert rules.outcome(pos(M09_PIN_CONTINUES)) is None
    assert rules.outcome(pos(M09_WIN)) == MOTHER_WIN
    assert all(rules.outcome(pos(t)) is None for t in M09_OTHERS)


def test_m09_on_pin_is_order_dependent() -> None:
    # Checked only at the pinning step, "pin, then 24/23" goes on while "24/23, then pin" wins:
    # the same board appears both as a win and as a game that continues.
    rules = Mahbusa(mother_check="on_pin")
    got = results(rules, pos(M09_START), (2, 1))
    twin = pos("P 23:1 8:13 1:1+o | O 20:14")
    expected = {pos(M09_PIN_CONTINUES), pos(M09_WIN), twin} | {pos(t) for t in M09_OTHERS}
    assert got == expected
    assert rules.outcome(twin) is None
    assert rules.outcome(pos(M09_WIN)) == MOTHER_WIN


M10_START = "P 24:1 10:13 4:1 | O 20:14 1:1"


def test_m10_order_independence() -> None:
    rules = Mahbusa()
    win = pos("P 18:1 10:13 1:1+o | O 20:14 | over")  # 4/1^ 24/18
    expected = {
        win,
        pos("P 24:1 10:12 4:1 1:1+o | O 20:14"),  # 4/1^ 10/4
        pos("P 15:1 10:13 4:1 | O 20:14 1:1"),  # 24/15
        pos("P 18:1 10:12 7:1 4:1 | O 20:14 1:1"),  # 24/18 10/7
        pos("P 21:1 10:12 4:2 | O 20:14 1:1"),  # 24/21 10/4
        pos("P 24:1 10:11 7:1 4:2 | O 20:14 1:1"),  # 10/4 10/7
    }
    got = results(rules, pos(M10_START), (6, 3))
    assert got == expected
    assert [r for r in got if rules.outcome(r) is not None] == [win]
    assert rules.outcome(win) == MOTHER_WIN
    # on_pin: "4/1^, then 24/18" no longer wins, and the same board also appears as going on.
    on_pin = results(Mahbusa(mother_check="on_pin"), pos(M10_START), (6, 3))
    assert on_pin == expected | {pos("P 18:1 10:13 1:1+o | O 20:14")}


def test_m11_both_mothers_pinned_is_a_draw() -> None:
    rules = Mahbusa()
    start = pos("P 8:13 3:1 | O 24:1+p 20:13 1:1")
    assert start.pinned_mover == (24,)
    draws = {
        pos("P 8:13 1:1+o | O 24:1+p 20:13 | over"),  # 3/1^
        pos("P 8:12 7:1 1:1+o | O 24:1+p 20:13 | over"),  # 8/7 3/1^
    }
    going_on = {
        pos("P 8:11 7:1 6:1 3:1 | O 24:1+p 20:13 1:1"),  # 8/6 8/7
        pos("P 8:12 5:1 3:1 | O 24:1+p 20:13 1:1"),  # 8/6/5
        pos("P 8:12 6:1 2:1 | O 24:1+p 20:13 1:1"),  # 8/6 3/2
    }
    got = results(rules, start, (2, 1))
    assert got == draws | going_on
    for r in draws:
        assert_draw(rules.outcome(r))
        assert_draw(rules.outcome(r.flip()))
    for r in going_on:
        assert rules.outcome(r) is None


def test_m11b_a_game_ending_pin_counts_as_using_every_die() -> None:
    rules = Mahbusa()
    start = pos("P 3:3 2:11 | O 24:7 23:4+p 21:1 14:1 10:1 1:1")
    end = pos("P 3:3 2:10 1:1+o | O 24:7 23:4+p 21:1 14:1 10:1 | over")  # 2/1^
    plays = rules.legal_plays(start, (3, 1))
    assert {p.result for p in plays} == {end}
    assert [(h.source, h.dest, h.hit) for h in plays[0].hops] == [(2, 1, 2)]
    assert rules.outcome(end) == MOTHER_WIN


# ---------------------------------------------------------------------------------------- M12-M16


def test_m12a_no_bear_off_with_own_checker_pinned_in_home() -> None:
    start = pos("P 6:1 5:1 | O 20:14 3:1+p | off P12")
    assert results(Mahbusa(), start, (6, 5)) == {pos("P 5:1 1:1 | O 20:14 3:1+p | off P12")}


def test_m12b_same_position_with_the_checker_free() -> None:
    start = pos("P 6:1 5:1 3:1 | O 20:15 | off P12")
    expected = {pos("P 3:1 | O 20:15 | off P14"), pos("P 3:1 1:1 | O 20:15 | off P13")}
    assert results(Mahbusa(), start, (6, 5)) == expected


def test_m13_bearing_off_the_pinning_checker_releases_the_pin() -> None:
    rules = Mahbusa()
    start = pos("P 5:1 3:1+o | O 20:14 | off P13")
    won = pos("P | O 20:14 3:1 | off P15")  # 5/off 3/off: the O checker on 3 is free
    on = pos("P 2:1 | O 20:14 3:1 | off P14")  # 5/2 3/off
    assert results(rules, start, (5, 3)) == {won, on}
    assert rules.outcome(won) == Outcome(0, 2, "mars")
    assert rules.outcome(on) is None


def test_m14_pass() -> None:
    start = pos("P 24:15 | O 19:2 18:2 1:11")
    plays = Mahbusa().legal_plays(start, (6, 5))
    assert len(plays) == 1 and plays[0].hops == () and plays[0].result == start


def test_m15_scoring_and_no_cube() -> None:
    rules = Mahbusa()
    assert rules.outcome(pos("P | O 20:15 | off P15")) == Outcome(0, 2, "mars")
    assert rules.outcome(pos("P | O 20:14 | off P15 O1")) == Outcome(0, 1, "single")
    assert rules.outcome(pos("P 20:15 | O | off O15")) == Outcome(1, 2, "mars")
    # An O checker left in P's home board (it was pinned until the last bear-off): still 2.
    assert rules.outcome(pos("P | O 20:14 3:1 | off P15")) == Outcome(0, 2, "mars")
    assert Mahbusa.max_points == 2
    assert Mahbusa.has_cube is False and Standard.has_cube is True


def test_m15_bear_off_win_through_a_play() -> None:
    rules = Mahbusa()
    start = pos("P 6:1 5:1 | O 24:14 | off P13 O1")
    won = pos("P | O 24:14 | off P15 O1")
    assert won in results(rules, start, (6, 5))
    assert rules.outcome(won) == Outcome(0, 1, "single")


def test_m16_starting_rules() -> None:
    # The opener re-rolls both dice, so a double can open (e.g. 6-6, M03); standard does not.
    assert Mahbusa.opener_rerolls is True
    assert Standard.opener_rerolls is False
    rules = Mahbusa()
    assert len(rules.legal_plays(rules.start(), (6, 6))) == 4
    # Game 2: the game-1 winner rolls both dice; after a draw, a fresh single-die opening roll.
    assert rules.next_opener(None) is None
    assert rules.next_opener(Outcome(0, 1, "single")) == 0
    assert rules.next_opener(Outcome(1, 2, "mother")) == 1
    assert rules.next_opener(Outcome(0, 0, "draw")) is None
    assert Standard().next_opener(Outcome(0, 2, "gammon")) is None


def test_option_is_validated() -> None:
    with pytest.raises(ValueError):
        Mahbusa(mother_check="sometimes")
