"""Standard backgammon rules: the conformance cases S01-S19 of ``docs/rules.md`` §1.12 and
property tests over random positions.

Expected results are *sets of resulting positions* (``docs/rules.md`` §0.2), written in the test
notation straight from the specification, never move text. The properties run on positions
reached by random legal play from the start and on random legal positions.
"""

from __future__ import annotations

import random
from itertools import permutations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.core.play import BAR, OFF
from analyzer.core.position import Position
from analyzer.rules import LegalPlay, Outcome, Standard, kernel

RULES = Standard()
START = "P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2"
START_O = "O 19:5 17:3 12:5 1:2"


def P(text: str) -> Position:  # noqa: N802 - reads like the notation
    return Position.from_notation(text)


def results(pos: Position | str, dice: tuple[int, int]) -> set[Position]:
    """Our set of resulting positions (still seen from the mover)."""
    if isinstance(pos, str):
        pos = P(pos)
    plays = RULES.legal_plays(pos, dice)
    out = {p.result for p in plays}
    assert len(out) == len(plays), "legal_plays returned two plays with the same result"
    return out


def after(pos: str, *hops: tuple[int, int]) -> Position:
    """Apply hops (25 = bar, 0 = off) by hand: a checker landing on a lone O checker hits it.

    A test helper only, independent of the generator: it knows nothing about legality.
    """
    p = P(pos)
    me = list(p.mover)
    opp = list(p.opponent)
    me_bar, opp_bar, me_off = p.mover_bar, p.opponent_bar, p.mover_off
    for src, dst in hops:
        if src == BAR:
            me_bar -= 1
        else:
            me[src - 1] -= 1
        if dst == OFF:
            me_off += 1
            continue
        if opp[dst - 1] == 1:
            opp[dst - 1] = 0
            opp_bar += 1
        me[dst - 1] += 1
    return Position.from_points(me, opp, mover_bar=me_bar, opponent_bar=opp_bar, mover_off=me_off,
                                opponent_off=p.opponent_off)


# --------------------------------------------------------------------------- §1.12 S01-S19
def test_s01_start() -> None:
    pos = Position.start()
    assert pos == P(START)
    assert pos.pips() == (167, 167)
    assert (pos.mover_bar, pos.opponent_bar, pos.mover_off, pos.opponent_off) == (0, 0, 0, 0)
    assert RULES.start() == pos


def test_s02_opening_65() -> None:
    want = {P(f"{m} | {START_O}") for m in (
        "P 24:1 13:6 8:3 6:5",
        "P 24:1 18:1 13:4 8:4 6:5",
        "P 24:1 18:1 13:5 8:2 6:5 3:1",
        "P 24:2 13:3 8:4 7:1 6:5",
        "P 24:2 13:4 8:2 7:1 6:5 3:1",
        "P 24:2 13:4 8:3 6:5 2:1",
        "P 24:2 13:5 8:1 6:5 3:1 2:1",
    )}
    assert results(START, (6, 5)) == want
    assert results(START, (5, 6)) == want


def test_s03_opening_31() -> None:
    singles = {after(START, (s, s - 3), (s - 3, s - 4)) for s in (24, 13, 8, 6)}
    combos = {after(START, (a, a - 3), (b, b - 1)) for a in (24, 13, 8, 6) for b in (24, 8, 6)}
    want = singles | combos
    assert len(want) == 16
    assert after(START, (8, 5), (6, 5)) in want
    assert after(START, (13, 10), (10, 9)) == after(START, (13, 9))
    assert results(START, (3, 1)) == want


@pytest.mark.parametrize(("case", "pos", "dice", "want"), [
    ("S04", "P 13:1 1:14 | O 24:13 7:2", (6, 5), ["P 2:1 1:14 | O 24:13 7:2"]),
    ("S05", "P 13:1 1:14 | O 24:11 8:2 7:2", (6, 5), ["P 13:1 1:14 | O 24:11 8:2 7:2"]),
    ("S06", "P 11:1 1:14 | O 24:13 2:2", (6, 3), ["P 5:1 1:14 | O 24:13 2:2"]),
    ("S07", "P 10:1 1:14 | O 24:11 4:2 2:2", (6, 2), ["P 8:1 1:14 | O 24:11 4:2 2:2"]),
    ("S08", "P 10:1 3:14 | O 24:13 1:2", (6, 3), ["P 4:1 3:13 | O 24:13 1:2 | off P1 O0"]),
    ("S09", "P 13:1 1:14 | O 24:13 5:2", (4, 4), ["P 9:1 1:14 | O 24:13 5:2"]),
    ("S10", "P 14:1 1:14 | O 24:13 2:2", (3, 3), ["P 5:1 1:14 | O 24:13 2:2"]),
    ("S11", "P 6:13 | O 24:2 23:2 22:2 21:2 20:2 12:5 | bar P2", (6, 5),
     ["P 19:1 6:13 | O 24:2 23:2 22:2 21:2 20:2 12:5 | bar P1"]),
    ("S12", "P 6:14 | O 24:2 23:2 22:2 21:2 20:2 19:2 12:3 | bar P1", (6, 1),
     ["P 6:14 | O 24:2 23:2 22:2 21:2 20:2 19:2 12:3 | bar P1"]),
    ("S13", "P 6:13 | O 12:15 | bar P2", (4, 4),
     ["P 17:2 6:13 | O 12:15", "P 21:1 13:1 6:13 | O 12:15", "P 21:1 17:1 6:12 2:1 | O 12:15",
      "P 21:2 6:11 2:2 | O 12:15"]),
    ("S14", "P 1:13 | O 12:15 | bar P1 | off P1", (6, 1), ["P 18:1 1:13 | O 12:15 | off P1 O0"]),
    ("S15", "P 6:1 5:1 | O 24:15 | off P13", (6, 5),
     ["P | O 24:15 | off P15 O0", "P 1:1 | O 24:15 | off P14 O0"]),
    ("S16", "P 6:1 2:1 | O 24:15 | off P13", (5, 4),
     ["P 1:1 | O 24:15 | off P14 O0", "P 2:1 | O 24:15 | off P14 O0"]),
    ("S17", "P 4:1 2:1 | O 24:15 | off P13", (6, 1),
     ["P 1:1 | O 24:15 | off P14 O0", "P 2:1 | O 24:15 | off P14 O0"]),
    ("S18", "P 13:1 1:14 | O 24:14 10:1", (3, 2),
     ["P 8:1 1:14 | O 24:14 10:1", "P 8:1 1:14 | O 24:14 | bar P0 O1"]),
    # §0.3 rule 2: bearing off the last checker gets no exemption from "use both dice".
    ("0.3", "P 2:1 | O 24:14 1:1 | off P14", (2, 1), ["P | O 24:14 | bar P0 O1 | off P15 O0"]),
])
def test_conformance_results(case: str, pos: str, dice: tuple[int, int], want: list[str]) -> None:
    expected = {P(w) for w in want}
    assert len(expected) == len(want), case
    assert results(pos, dice) == expected, case
    assert results(pos, (dice[1], dice[0])) == expected, case


def test_s05_s12_pass_is_the_empty_play() -> None:
    for pos, dice in (("P 13:1 1:14 | O 24:11 8:2 7:2", (6, 5)),
                      ("P 6:14 | O 24:2 23:2 22:2 21:2 20:2 19:2 12:3 | bar P1", (6, 1))):
        plays = RULES.legal_plays(P(pos), dice)
        assert len(plays) == 1 and plays[0].hops == () and plays[0].text == ""


def test_s06_s17_illegal_alternatives_rejected() -> None:
    """The plays the specification calls illegal are not among the results."""
    assert P("P 8:1 1:14 | O 24:13 2:2") not in results("P 11:1 1:14 | O 24:13 2:2", (6, 3))
    assert P("P 3:1 | O 24:15 | off P14") not in results("P 4:1 2:1 | O 24:15 | off P13", (6, 1))
    s15 = results("P 6:1 5:1 | O 24:15 | off P13", (6, 5))
    assert RULES.outcome(P("P | O 24:15 | off P15")) in {RULES.outcome(r) for r in s15}


@pytest.mark.parametrize(("case", "pos", "points", "kind"), [
    ("a", "P | O 24:12 | off P15 O3", 1, "single"),
    ("b", "P | O 24:5 19:5 18:3 13:2 | off P15", 2, "gammon"),
    ("c", "P | O 24:14 3:1 | off P15", 3, "backgammon"),
    ("d", "P | O 24:14 | bar P0 O1 | off P15", 3, "backgammon"),
    ("e", "P | O 24:12 | bar P0 O1 | off P15 O2", 1, "single"),
    ("f", "P | O 24:14 7:1 | off P15", 2, "gammon"),
])
def test_s19_scoring(case: str, pos: str, points: int, kind: str) -> None:
    p = P(pos)
    assert RULES.outcome(p) == Outcome(0, points, kind), case
    assert RULES.outcome(p.flip()) == Outcome(1, points, kind), case


def test_s19_no_outcome_while_playing() -> None:
    assert RULES.outcome(Position.start()) is None
    assert RULES.outcome(P("P 1:1 | O 24:15 | off P14")) is None


# --------------------------------------------------------------------------- properties
DICE = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def random_walk(seed: int, plies: int) -> Position:
    """The position after ``plies`` random legal plays from the start (fixed by ``seed``), or the
    last position before the game ended."""
    rng = random.Random(seed)
    pos = Position.start()
    for _ in range(plies):
        rows = RULES.legal_results(pos, rng.choice(DICE))
        nxt = Position(rows[rng.randrange(len(rows))].tobytes())
        if RULES.outcome(nxt) is not None:
            break
        pos = nxt.flip()
    return pos


@st.composite
def legal_positions(draw: st.DrawFn) -> Position:
    """Any legal standard position of a game in progress: each side's 15 checkers on points, the
    bar or off, neither side with all 15 off."""
    places = st.integers(0, 25)  # 0 = off, 25 = bar
    me = [0] * 26
    for x in draw(st.lists(places, min_size=15, max_size=15)):
        me[x] += 1
    free = [0, 25] + [p for p in range(1, 25) if me[p] == 0]
    opp = [0] * 26
    for x in draw(st.lists(st.sampled_from(free), min_size=15, max_size=15)):
        opp[x] += 1
    if me[0] == 15:
        me[0], me[25] = 14, 1
    if opp[0] == 15:
        opp[0], opp[25] = 14, 1
    return Position.from_points(me[1:25], opp[1:25], mover_bar=me[25], opponent_bar=opp[25],
                                mover_off=me[0], opponent_off=opp[0])


walked = st.builds(random_walk, st.integers(0, 2**32 - 1), st.integers(0, 160))
positions = st.one_of(walked, legal_positions())
rolls = st.sampled_from(DICE)
PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def dice_fit(play: LegalPlay, dice: tuple[int, int]) -> bool:
    """Some assignment of the dice to the hops makes every hop legal in size.

    A hop moves exactly its die, except a bear-off, which may use a larger die.
    """
    pool = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    for order in permutations(pool, len(play.hops)):
        if all(h.source - h.dest == d or (h.dest == OFF and h.source - h.dest < d)
               for h, d in zip(play.hops, order, strict=True)):
            return True
    return False


@PROPS
@given(positions, rolls)
def test_checkers_conserved(pos: Position, dice: tuple[int, int]) -> None:
    for res in results(pos, dice):
        res.validate()
        assert sum(res.mover) + res.mover_bar + res.mover_off == 15
        assert sum(res.opponent) + res.opponent_bar + res.opponent_off == 15
        assert res.opponent_off == pos.opponent_off


@PROPS
@given(positions, rolls)
def test_pips_drop_by_the_pips_moved(pos: Position, dice: tuple[int, int]) -> None:
    """Mover's pips drop by the sum of hop distances (off counts as point 0); hits add to O's."""
    before_me, before_opp = pos.pips()
    plays = RULES.legal_plays(pos, dice)
    used = {len(p.hops) for p in plays}
    assert len(used) == 1  # every legal play uses the same (largest possible) number of dice
    for play in plays:
        moved = sum(h.source - h.dest for h in play.hops)
        after_me, after_opp = play.result.pips()
        assert before_me - after_me == moved
        assert after_opp - before_opp == sum(h.dest for h in play.hops if h.hit)
        assert dice_fit(play, dice)
        pool = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
        if len(play.hops) == len(pool) and not any(h.dest == OFF for h in play.hops):
            assert moved == sum(pool)


@PROPS
@given(positions)
def test_flip_is_an_involution(pos: Position) -> None:
    f = pos.flip()
    assert f.flip() == pos
    assert f.pips() == pos.pips()[::-1]
    assert (f.mover_bar, f.mover_off) == (pos.opponent_bar, pos.opponent_off)
    assert f.mover == tuple(reversed(pos.opponent))


@PROPS
@given(positions, rolls)
def test_results_distinct_and_consistent(pos: Position, dice: tuple[int, int]) -> None:
    plays = RULES.legal_plays(pos, dice)
    boards = [p.result.board for p in plays]
    assert len(set(boards)) == len(boards)
    arr = RULES.legal_results(pos, dice)
    assert {bytes(row.tobytes()) for row in arr} == set(boards)
    swapped = {p.result for p in RULES.legal_plays(pos, (dice[1], dice[0]))}
    assert swapped == {p.result for p in plays}


@PROPS
@given(positions, rolls)
def test_play_text_resolves_to_its_result(pos: Position, dice: tuple[int, int]) -> None:
    """Every play's canonical text reads back to the same play (checked on a spread of up to 8
    plays per position, as each :meth:`Variant.resolve` regenerates the whole list)."""
    plays = RULES.legal_plays(pos, dice)
    for play in plays[:: max(1, len(plays) // 8)]:
        assert RULES.resolve(pos, dice, play.text).result == play.result, play.text


def test_workspace_survives_stamp_wraparound() -> None:
    """The dedup table's call stamp restarts at 1 after 2**31 calls; results must not change."""
    ws = kernel.Workspace()
    fresh = kernel.Workspace()
    pos = random_walk(11, 40)
    board = np.frombuffer(pos.board, dtype=np.int8)
    ws.stampbox[0] = 2**31 - 3
    for d1, d2 in DICE:
        n = ws.generate(board, d1, d2, Standard.code, 0)
        m = fresh.generate(board, d1, d2, Standard.code, 0)
        got = sorted(ws.pool[ws.results[k]].tobytes() for k in range(n))
        want = sorted(fresh.pool[fresh.results[k]].tobytes() for k in range(m))
        assert got == want, (d1, d2)
    assert 1 <= ws.stampbox[0] < 100
