"""Dutch backgammon conformance cases D01-D16 of ``docs/rules.md`` §2.6.

Every expected set of results below was worked out by hand from the rules text (and is the one
printed in rules.md); the engine's answer is compared as a set of resulting positions.
"""

from __future__ import annotations

import pytest

from analyzer.core.position import Position
from analyzer.rules import Dutch, Outcome, Standard


def pos(text: str) -> Position:
    return Position.from_notation(text, "dutch")


def results(rules: Dutch, start: Position, dice: tuple[int, int]) -> set[Position]:
    plays = rules.legal_plays(start, dice)
    out = {p.result for p in plays}
    assert len(out) == len(plays), "two legal plays with the same result"
    return out


def assert_pass(rules: Dutch, start: Position, dice: tuple[int, int]) -> None:
    plays = rules.legal_plays(start, dice)
    assert len(plays) == 1
    assert plays[0].hops == ()
    assert plays[0].result == start


# An empty board with both reserves full, both sides locked.
START = "P | O | res P15 O15 | locked | olocked"


def first(board: str, reserve: int, lock: str = "locked") -> Position:
    """A result of the first turn: P's board, P's reserve; O untouched (reserve 15, locked)."""
    return pos(f"P {board} | O | res P{reserve} O15 | {lock} | olocked")


# ---------------------------------------------------------------------------------------- D01


def test_d01_start() -> None:
    rules = Dutch()
    start = rules.start()
    assert start == pos(START)
    assert start.mover == (0,) * 24 and start.opponent == (0,) * 24
    assert (start.mover_reserve, start.opponent_reserve) == (15, 15)
    assert (start.mover_bar, start.opponent_bar) == (0, 0)
    assert (start.mover_off, start.opponent_off) == (0, 0)
    assert not start.mover_can_hit and not start.opponent_can_hit
    assert start.pips() == (375, 375)
    assert rules.outcome(start) is None
    assert Dutch.has_cube is False


# ---------------------------------------------------------------------------------------- D02-D05


def test_d02_first_turn_4_2() -> None:
    rules = Dutch()
    two_entries = first("23:1 21:1", 13)
    run_on = first("19:1", 14)  # in/21/19 = in/23/19
    assert results(rules, rules.start(), (4, 2)) == {two_entries, run_on}
    assert results(rules, rules.start(), (2, 4)) == {two_entries, run_on}
    assert results(Dutch(entry_choice="turn_start"), rules.start(), (4, 2)) == {two_entries}


def test_d03_first_turn_6_5() -> None:
    rules = Dutch()
    two_entries = first("20:1 19:1", 13)
    run_on = first("14:1", 14)
    assert results(rules, rules.start(), (6, 5)) == {two_entries, run_on}
    assert results(Dutch(entry_choice="turn_start"), rules.start(), (6, 5)) == {two_entries}


def test_d04_first_turn_6_6() -> None:
    rules = Dutch()
    expected = {
        first("19:4", 11),
        first("19:2 13:1", 12),
        first("13:2", 13),
        first("19:1 7:1", 13),
        first("1:1", 14, "unlocked"),  # reached home: unlocked
    }
    assert results(rules, rules.start(), (6, 6)) == expected
    assert results(Dutch(entry_choice="turn_start"), rules.start(), (6, 6)) == {first("19:4", 11)}


def test_d05_first_turn_1_1() -> None:
    rules = Dutch()
    expected = {
        first("24:4", 11),
        first("24:2 23:1", 12),
        first("24:1 22:1", 13),
        first("23:2", 13),
        first("21:1", 14),
    }
    assert results(rules, rules.start(), (1, 1)) == expected
    # Under turn_start nothing was on the board when the turn began: four entries only.
    assert results(Dutch(entry_choice="turn_start"), rules.start(), (1, 1)) == {first("24:4", 11)}


def test_first_turn_enter_all_first() -> None:
    # D-a alternative: while the reserve is not empty, only entries.
    rules = Dutch(enter_all_first=True)
    assert results(rules, rules.start(), (4, 2)) == {first("23:1 21:1", 13)}
    assert results(rules, rules.start(), (6, 6)) == {first("19:4", 11)}


# ---------------------------------------------------------------------------------------- D06-D08


def test_d06_no_hitting_while_locked() -> None:
    rules = Dutch()
    start = pos("P 20:1 | O 16:1 | res P14 O14 | locked | olocked")
    expected = {
        pos("P 13:1 | O 16:1 | res P14 O14 | locked | olocked"),  # 20/17/13
        pos("P 20:1 18:1 | O 16:1 | res P13 O14 | locked | olocked"),  # in/21/18
        pos("P 21:1 17:1 | O 16:1 | res P13 O14 | locked | olocked"),  # 20/17 in/21
        pos("P 22:1 21:1 20:1 | O 16:1 | res P12 O14 | locked | olocked"),  # in/22 in/21
    }
    got = results(rules, start, (4, 3))
    assert got == expected
    assert all(r.opponent_bar == 0 for r in got)


def test_d06_enter_all_first() -> None:
    rules = Dutch(enter_all_first=True)
    start = pos("P 20:1 | O 16:1 | res P14 O14 | locked | olocked")
    entries = pos("P 22:1 21:1 20:1 | O 16:1 | res P12 O14 | locked | olocked")
    assert results(rules, start, (4, 3)) == {entries}


def test_d07_hitting_once_unlocked() -> None:
    rules = Dutch()
    start = pos("P 8:14 5:1 | O 24:14 1:1 | unlocked | ounlocked")
    expected = {
        pos("P 8:13 5:1 1:1 | O 24:14 | bar O1 | unlocked | ounlocked"),  # 5/1* 8/5
        pos("P 8:13 4:1 2:1 | O 24:14 1:1 | unlocked | ounlocked"),  # 8/4 5/2
        pos("P 8:12 5:2 4:1 | O 24:14 1:1 | unlocked | ounlocked"),  # 8/4 8/5
    }
    assert results(rules, start, (4, 3)) == expected


def test_d08_unlock_in_mid_turn() -> None:
    rules = Dutch()
    start = pos("P 19:14 8:1 | O 24:14 16:1 | locked | ounlocked")
    hit_after_unlock = pos("P 19:13 16:1 4:1 | O 24:14 | bar O1 | unlocked | ounlocked")
    expected = {
        hit_after_unlock,  # 8/4 19/16*
        pos("P 19:14 1:1 | O 24:14 16:1 | unlocked | ounlocked"),  # 8/5/1
        pos("P 19:13 15:1 5:1 | O 24:14 16:1 | unlocked | ounlocked"),  # 19/15 8/5
        pos("P 19:13 12:1 8:1 | O 24:14 16:1 | locked | ounlocked"),  # 19/15/12
    }
    assert results(rules, start, (4, 3)) == expected
    # The representative sequence of the hit is the legal order: home first, then the hit.
    (play,) = [p for p in rules.legal_plays(start, (4, 3)) if p.result == hit_after_unlock]
    assert [(h.source, h.dest, h.hit) for h in play.hops] == [(8, 4, 0), (19, 16, 1)]


# ---------------------------------------------------------------------------------------- D09-D13


def test_d09_bar_before_reserve() -> None:
    rules = Dutch()
    start = pos("P 15:4 | O 23:2 22:2 21:2 20:2 19:2 | bar P1 | res P10 O5 | locked | ounlocked")
    expected = {
        pos("P 18:1 15:4 | O 23:2 22:2 21:2 20:2 19:2 | res P10 O5 | locked | ounlocked"),  # bar/24/18
        pos("P 24:1 15:3 9:1 | O 23:2 22:2 21:2 20:2 19:2 | res P10 O5 | locked | ounlocked"),  # bar/24 15/9
    }
    got = results(rules, start, (6, 1))
    assert got == expected
    assert all(r.mover_reserve == 10 for r in got)  # in/24 never


D10_O = "O 24:2 23:2 22:1 21:2 20:2 19:2 12:4"


@pytest.mark.parametrize("dice", [(3, 3), (3, 1)])
def test_d10_locked_player_cannot_enter_onto_a_blot(dice: tuple[int, int]) -> None:
    rules = Dutch()
    start = pos(f"P 13:14 | {D10_O} | bar P1 | locked | ounlocked")
    assert_pass(rules, start, dice)


def test_d11_same_position_unlocked() -> None:
    rules = Dutch()
    start = pos(f"P 13:13 6:1 | {D10_O} | bar P1 | unlocked | ounlocked")
    expected = pos("P 22:1 13:13 5:1 | O 24:2 23:2 21:2 20:2 19:2 12:4 | bar O1 | unlocked | ounlocked")
    assert results(rules, start, (3, 1)) == {expected}


def test_d12_reserve_entry_onto_a_blot_while_locked() -> None:
    rules = Dutch()
    start = pos("P 18:2 | O 23:2 20:1 | res P13 O12 | locked | olocked")
    expected = {
        pos("P 16:1 13:1 | O 23:2 20:1 | res P13 O12 | locked | olocked"),  # 18/13 18/16
        pos("P 18:1 11:1 | O 23:2 20:1 | res P13 O12 | locked | olocked"),  # 18/13/11
    }
    assert results(rules, start, (5, 2)) == expected


def test_d13_no_bear_off_while_the_reserve_is_not_empty() -> None:
    start = pos("P 1:14 | O 12:15 | res P1 | unlocked | olocked")
    expected = pos("P 14:1 1:14 | O 12:15 | unlocked | olocked")  # in/19/14
    assert results(Dutch(), start, (6, 5)) == {expected}
    # The same with enter_all_first: the entered checker may move once the reserve is empty.
    assert results(Dutch(enter_all_first=True), start, (6, 5)) == {expected}


# ---------------------------------------------------------------------------------------- D14-D16


def test_d14_scoring_mars_without_triple() -> None:
    rules = Dutch()
    # O has borne off none, with checkers in the reserve, on the bar and in P's home board.
    done = pos("P | O 24:3 2:1 | bar O2 | res P0 O9 | off P15 O0 | unlocked | ounlocked")
    assert rules.outcome(done) == Outcome(0, 2, "mars")
    assert rules.outcome(done.flip()) == Outcome(1, 2, "mars")
    single = pos("P | O 24:14 | off P15 O1 | unlocked | ounlocked")
    assert rules.outcome(single) == Outcome(0, 1, "single")
    assert rules.outcome(single.flip()) == Outcome(1, 1, "single")
    # Standard rules would call the first one a backgammon; Dutch has no triple.
    assert Dutch.max_points == 2


def test_d14_scoring_through_a_play() -> None:
    rules = Dutch()
    start = pos("P 1:1 | O 24:4 | bar O2 | res O9 | off P14 | unlocked | ounlocked")
    (play,) = rules.legal_plays(start, (2, 1))
    assert play.result.mover_off == 15
    assert rules.outcome(play.result) == Outcome(0, 2, "mars")
    assert rules.outcome(start) is None


def test_d15_no_cube_and_double_opening() -> None:
    assert Dutch.has_cube is False
    assert Standard.has_cube is True
    assert Dutch.opener_rerolls is True
    rules = Dutch()
    assert len(rules.legal_plays(rules.start(), (6, 6))) == 5  # the opener's double is playable


D16_POS = "P 13:15 | O 24:14 10:1 | {lock} | ounlocked"


def test_d16_permanent_unlock() -> None:
    # P had a checker on his 4-point once (it was hit, re-entered and ran to 13): still unlocked.
    start = pos(D16_POS.format(lock="unlocked"))
    assert start.mover[:6] == (0,) * 6 and start.mover_can_hit
    expected = {
        pos("P 13:13 12:1 10:1 | O 24:14 | bar O1 | unlocked | ounlocked"),  # 13/10* 13/12
        pos("P 13:14 9:1 | O 24:14 | bar O1 | unlocked | ounlocked"),  # 13/10*/9
        pos("P 13:14 9:1 | O 24:14 10:1 | unlocked | ounlocked"),  # 13/12/9
    }
    assert results(Dutch(), start, (3, 1)) == expected
    # unlock=current: no checker on 1-6 now, so P may not hit and the blot blocks 10.
    assert results(Dutch(unlock="current"), start, (3, 1)) == {
        pos("P 13:14 9:1 | O 24:14 10:1 | unlocked | ounlocked")}
    # And a player who never reached home is locked under the default too.
    locked = pos(D16_POS.format(lock="locked"))
    assert results(Dutch(), locked, (3, 1)) == {pos("P 13:14 9:1 | O 24:14 10:1 | locked | ounlocked")}


def test_unlock_current_counts_checkers_home_now() -> None:
    # With unlock=current a checker on 1-6 allows the hit whatever the flag says.
    start = pos("P 13:14 2:1 | O 24:14 10:1 | locked | ounlocked")
    got = results(Dutch(unlock="current"), start, (3, 1))
    assert pos("P 13:12 12:1 10:1 2:1 | O 24:14 | bar O1 | locked | ounlocked") in got


def test_options_are_validated() -> None:
    with pytest.raises(ValueError):
        Dutch(entry_choice="sometimes")
    with pytest.raises(ValueError):
        Dutch(unlock="never")


def test_turn_start_counts_a_hit_checker_as_entered() -> None:
    # turn_start asks whether a checker had been entered when the turn began; a checker on the
    # bar had been, so once it is back in it may move on (as under the default per_step).
    start = pos("P | O 12:15 | bar P1 | res P14 | locked | olocked")
    expected = {
        pos("P 21:1 | O 12:15 | res P14 | locked | olocked"),  # bar/22/21 = bar/24/21
        pos("P 24:1 22:1 | O 12:15 | res P13 | locked | olocked"),  # bar/22 in/24
    }
    assert results(Dutch(), start, (3, 1)) == expected
    assert results(Dutch(entry_choice="turn_start"), start, (3, 1)) == expected
