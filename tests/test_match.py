"""Match state, cube and scoring: docs/rules.md S19-S25, and the gnubg / XGID conversions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analyzer.core.errors import RulesError
from analyzer.core.ids import decode_match_id, decode_xgid, match_id_from_state, xgid_fields
from analyzer.core.match import (
    MatchState,
    automatic_double,
    beaver,
    can_double,
    crawford_flags,
    double_refusal,
    drop_value,
    is_match_over,
    match_winner,
    next_game,
    raccoon,
    refusal_value,
    resignation_value,
    take,
    win_value,
)
from analyzer.core.position import Position
from analyzer.rules import Standard

P, O = 0, 1  # the player on roll in the rules.md cases, and his opponent
RULES = Standard()


# ---------------------------------------------------------------------- S19 scoring
@pytest.mark.parametrize(
    ("notation", "points"),
    [
        ("P | O 19:12 | off P15 O3", 1),  # a) O has borne off 3
        ("P | O 19:10 13:5 | off P15", 2),  # b) nothing off, nothing in P's home or on the bar
        ("P | O 19:14 3:1 | off P15", 3),  # c) a checker on P's 3
        ("P | O 19:14 | bar P0 O1 | off P15", 3),  # d) a checker on the bar
        ("P | O 19:12 | bar P0 O1 | off P15 O2", 1),  # e) hit during his bear-off: single
        ("P | O 19:14 7:1 | off P15", 2),  # f) on P's 7 only: gammon
    ],
)
@pytest.mark.parametrize("cube", [1, 2, 4])
def test_s19_scoring(notation: str, points: int, cube: int) -> None:
    out = RULES.outcome(Position.from_notation(notation))
    assert out is not None and out.winner == 0 and out.points == points
    owner = None if cube == 1 else O
    for state in (MatchState(cube=cube, cube_owner=owner), MatchState(length=9, cube=cube, cube_owner=owner)):
        assert win_value(state, out.points) == points * cube
    # the same game seen from the loser's side is won by the opponent
    flipped = RULES.outcome(Position.from_notation(notation).flip())
    assert flipped is not None and flipped.winner == 1 and flipped.points == points


# ---------------------------------------------------------------------- S20 Jacoby
def test_s20_jacoby() -> None:
    money = MatchState(jacoby=True)
    assert win_value(money, 3) == 1  # centred cube: a backgammon counts single
    assert win_value(money, 2) == 1
    taken = take(money, O)
    assert (taken.cube, taken.cube_owner) == (2, O)
    assert win_value(taken, 2) == 4  # the cube was turned: gammons count
    auto = automatic_double(MatchState(jacoby=True, automatic_doubles=1), 0)
    assert (auto.cube, auto.cube_owner) == (2, None)
    assert win_value(auto, 2) == 2  # still centred after an automatic double
    assert win_value(MatchState(length=7, jacoby=True), 2) == 2  # match play ignores Jacoby
    assert win_value(MatchState(jacoby=False), 2) == 2
    assert win_value(money, 0) == 0


# ---------------------------------------------------------------------- S21 cube sequence
def test_s21_cube_sequence() -> None:
    s0 = MatchState()
    assert can_double(s0, P) and can_double(s0, O)
    s1 = take(s0, O)
    assert (s1.cube, s1.cube_owner) == (2, O)
    assert not can_double(s1, P)
    assert double_refusal(s1, P) == "player 0 does not own the cube"
    with pytest.raises(RulesError, match="does not own"):
        take(s1, O)  # a double by P that O would take
    assert can_double(s1, O)
    assert drop_value(s1) == 2  # O redoubles, P drops: O +2
    assert refusal_value(take(s1, P)) == 2
    after = next_game(s1, O, drop_value(s1))
    assert after.score == (0, 2) and (after.cube, after.cube_owner) == (1, None)
    s2 = take(s1, P)
    assert (s2.cube, s2.cube_owner) == (4, P)
    assert win_value(s2, 2) == 8
    assert not can_double(s0, P, rolled=True)  # a double after rolling is illegal
    assert double_refusal(s0, P, rolled=True) == "a double is offered before rolling"


def test_cube_limit() -> None:
    s = MatchState(cube=512, cube_owner=P, cube_limit=1024)
    assert can_double(s, P)
    s = take(s, O)
    assert s.cube == 1024 and not can_double(s, O)
    with pytest.raises(RulesError, match="limit"):
        take(s, P)
    with pytest.raises(RulesError, match="limit"):
        beaver(MatchState(cube=512, beavers=True, cube_limit=1024), O)


# ---------------------------------------------------------------------- S22 beaver and raccoon
def test_s22_beaver_and_raccoon() -> None:
    s0 = MatchState(beavers=True, raccoons=True)
    s1 = beaver(s0, O)  # P doubles, O beavers
    assert (s1.cube, s1.cube_owner) == (4, O)
    assert refusal_value(s1) == 2  # P drops the beaver: O +2
    assert win_value(s1, 1) == 4  # P takes: play at 4, O owns
    s2 = raccoon(s1, P)
    assert (s2.cube, s2.cube_owner) == (8, P)
    assert refusal_value(s2) == 4  # O drops the raccoon: P +4
    with pytest.raises(RulesError, match="match play"):
        beaver(MatchState(length=7, beavers=True), O)
    with pytest.raises(RulesError, match="beavers are off"):
        beaver(MatchState(), O)
    with pytest.raises(RulesError, match="raccoons are off"):
        raccoon(beaver(MatchState(beavers=True), O), P)
    with pytest.raises(RulesError, match="answers the opponent's beaver"):
        raccoon(s1, O)


# ---------------------------------------------------------------------- S23 Crawford
def test_s23_crawford() -> None:
    s = MatchState(length=5, score=(3, 2))
    s = next_game(s, P, win_value(s, 1))
    assert s.score == (4, 2) and s.crawford and not s.post_crawford
    assert not can_double(s, P) and not can_double(s, O)
    assert double_refusal(s, O) == "no doubling in the Crawford game"
    s = next_game(s, O, 1)
    assert s.score == (4, 3) and not s.crawford and s.post_crawford
    assert can_double(s, P) and can_double(s, O)
    s = next_game(s, O, 1)
    assert s.score == (4, 4) and not s.crawford and s.post_crawford  # no second Crawford game
    gammon = MatchState(length=5, score=(3, 2), cube=2, cube_owner=O)
    end = next_game(gammon, P, win_value(gammon, 2))
    assert end.score == (7, 2) and match_winner(end) == P and is_match_over(end) and not end.crawford
    with pytest.raises(RulesError, match="already over"):
        next_game(end, O, 1)
    assert not can_double(end, O)


def test_crawford_flags_from_scores() -> None:
    assert crawford_flags(5, [(0, 0), (3, 2), (4, 2), (4, 3), (4, 4)]) == [
        (False, False), (False, False), (True, False), (False, True), (False, True)]
    # the trailer reaching N-1 first is just as good; a jump past N-1 ends the match without one
    assert crawford_flags(7, [(0, 0), (2, 6), (4, 6)]) == [(False, False), (True, False), (False, True)]
    assert crawford_flags(7, [(0, 0), (4, 2)]) == [(False, False), (False, False)]
    assert crawford_flags(1, [(0, 0)]) == [(False, False)]  # 1-point match: no Crawford game
    assert crawford_flags(0, [(0, 0), (6, 6)]) == [(False, False), (False, False)]
    assert crawford_flags(5, [(0, 0), (4, 0)], crawford_rule=False) == [(False, False), (False, False)]


@given(st.sampled_from([1, 2, 3, 5, 7, 11]),
       st.lists(st.tuples(st.integers(0, 1), st.sampled_from([1, 2, 3, 4, 6, 8])), max_size=30))
def test_next_game_agrees_with_crawford_flags(length: int, results: list[tuple[int, int]]) -> None:
    state = MatchState(length=length)
    states = [state]
    for winner, points in results:
        if is_match_over(state):
            break
        state = next_game(state, winner, points)
        states.append(state)
    playing = [s for s in states if not is_match_over(s)]
    flags = crawford_flags(length, [s.score for s in playing])
    assert [(s.crawford, s.post_crawford) for s in playing] == flags
    assert sum(s.crawford for s in playing) <= 1
    for s in playing:
        if s.crawford:
            assert sorted(s.score)[1] == length - 1 and not can_double(s, 0) and not can_double(s, 1)


# ---------------------------------------------------------------------- S24 automatic doubles
def test_s24_automatic_doubles() -> None:
    s = MatchState(automatic_doubles=1)
    s1 = automatic_double(s, 0)  # opening 4/4
    assert (s1.cube, s1.cube_owner) == (2, None)
    s2 = automatic_double(s1, 1)  # 2/2 again: the limit of one is used up
    assert s2.cube == 2
    assert automatic_double(MatchState(length=7, automatic_doubles=1), 0).cube == 1  # match play
    assert automatic_double(MatchState(), 0).cube == 1  # off
    two = MatchState(automatic_doubles=2)
    assert automatic_double(automatic_double(two, 0), 1).cube == 4
    assert automatic_double(MatchState(automatic_doubles=3, cube_limit=2, cube=2), 1).cube == 2


# ---------------------------------------------------------------------- S25 resignation
def test_s25_resignation() -> None:
    s = MatchState(cube=2, cube_owner=O)
    assert resignation_value(s, 2) == 4  # O accepts P's gammon resignation: O +4
    assert resignation_value(s, 1) == 2 and resignation_value(s, 3) == 6
    assert resignation_value(MatchState(jacoby=True), 2) == 1  # Jacoby, centred cube
    assert resignation_value(MatchState(jacoby=True, cube=2, cube_owner=P), 3) == 6
    assert resignation_value(MatchState(length=5, jacoby=True), 2) == 2
    for bad in (0, 4):
        with pytest.raises(RulesError):
            resignation_value(s, bad)


# ---------------------------------------------------------------------- state checks and facts
@pytest.mark.parametrize(
    "kwargs",
    [
        {"cube": 3},
        {"cube_owner": 2},
        {"score": (-1, 0)},
        {"length": 5, "score": (4, 2), "crawford": True, "post_crawford": True},
        {"crawford": True},
        {"length": 5, "score": (4, 2), "crawford": True, "cube": 2, "cube_owner": 0},
        {"length": 5, "score": (3, 2), "crawford": True},
        {"length": 5, "score": (4, 4), "crawford": True},
        {"length": 5, "score": (2, 2), "post_crawford": True},
        {"cube_limit": 1000},
        {"automatic_doubles": -1},
    ],
)
def test_invalid_states(kwargs: dict[str, object]) -> None:
    with pytest.raises(RulesError):
        MatchState(**kwargs)  # type: ignore[arg-type]


def test_away_and_winner() -> None:
    s = MatchState(length=7, score=(6, 2))
    assert (s.away(0), s.away(1)) == (1, 5)
    assert match_winner(s) is None and not is_match_over(s)
    assert MatchState().away(0) == 0 and match_winner(MatchState(score=(30, 2))) is None
    assert MatchState(jacoby=True).jacoby_active and not MatchState(length=3, jacoby=True).jacoby_active


# ---------------------------------------------------------------------- gnubg and XG conversions
def test_from_match_id() -> None:
    s = decode_match_id("QYkqASAAIAAA").match_state()
    assert (s.length, s.score, s.cube, s.cube_owner, s.crawford) == (9, (2, 4), 2, 0, False)
    money = decode_match_id("cAkAAAAAAAAA").match_state()
    assert money.is_money and money.jacoby  # plain IDs: Jacoby bit not set means on
    assert not decode_match_id("cAkAAAAAAAAE").match_state().jacoby


def test_to_match_id_matches_gnubg() -> None:
    assert match_id_from_state(MatchState(length=7), on_roll=0, dice=(1, 5), game_state=0).encode() == "MIDmAAAAAAAE"
    assert match_id_from_state(MatchState(length=7), on_roll=1, dice=(4, 2)).encode() == "cAnqAAAAAAAE"
    mid = match_id_from_state(MatchState(length=9, score=(2, 4), cube=2, cube_owner=0),
                              on_roll=1, dice=(5, 2), extended=False)
    assert mid.encode() == "QYkqASAAIAAA"
    offered = match_id_from_state(MatchState(length=7), on_roll=0, double_offered=True)
    assert offered.turn == 1 and offered.double_offered


def test_post_crawford_inferred_from_ids() -> None:
    # 7-point match at 6-2, not the Crawford game -> post-Crawford
    mid = match_id_from_state(MatchState(length=7, score=(6, 2), post_crawford=True), on_roll=0)
    back = mid.match_state()
    assert back.post_crawford and not back.crawford
    craw = match_id_from_state(MatchState(length=7, score=(6, 2), crawford=True), on_roll=0)
    assert craw.crawford and craw.match_state().crawford
    one = match_id_from_state(MatchState(length=1), on_roll=0).match_state()
    assert not one.post_crawford and not one.crawford


def test_xgid_fields_round_trip() -> None:
    s = MatchState(length=11, score=(3, 10), cube=4, cube_owner=1, post_crawford=True)
    for bottom in (0, 1):
        f = xgid_fields(s, bottom_player=bottom)
        assert f["score_bottom"] == s.score[bottom] and f["cube_log2"] == 2
        assert f["cube_position"] == (1 if bottom == 1 else -1)
    x = decode_xgid("XGID=-b----E-C---eE---c-e----B-:2:1:1:00:10:3:0:11:10")
    back = x.match_state(bottom_player=1)
    assert back == MatchState(length=11, score=(3, 10), cube=4, cube_owner=1, post_crawford=True,
                              cube_limit=1024)
    money = decode_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:3:0:8")
    ms = money.match_state()
    assert ms.jacoby and ms.beavers and ms.cube_limit == 256
    assert xgid_fields(ms, bottom_player=0)["flags"] == 3
    craw = decode_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:1:5:10").match_state()
    assert craw.crawford and craw.score == (4, 2)
