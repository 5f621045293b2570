"""Cubeful equities and cube decisions (analyzer/eval/cube.py) from hand-made probabilities."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval.cube import (
    analyze_cube,
    cube_decision,
    cube_life_of,
    cubeful_emg,
    cubeful_value,
    gammon_values,
)
from analyzer.eval.cube_model import GameProbabilities
from analyzer.eval.met import met_by_name, mwc, mwc_to_emg
from analyzer.eval.probabilities import Probabilities

KXG = met_by_name("kazaross-xg2")
X = 0.68


def no_gammons(p: float) -> Probabilities:
    return Probabilities(p, 0.0, 0.0, 0.0, 0.0)


# ---------------------------------------------------------------------- Janowski's money formulas
def janowski_money(p: float, x: float) -> tuple[float, float]:
    """ND (centred) and DT per unit cube without gammons, by hand: live take points 0.2 / 0.8."""
    live_centred = -1.0 + 2.0 * (p - 0.2) / 0.6 if 0.2 <= p <= 0.8 else (1.0 if p > 0.8 else -1.0)
    live_opp_owns = -1.0 + 2.0 * (p - 0.2) / 0.8 if p >= 0.2 else -1.0
    dead = 2.0 * p - 1.0
    return x * live_centred + (1 - x) * dead, 2.0 * (x * live_opp_owns + (1 - x) * dead)


@pytest.mark.parametrize("p", [0.3, 0.55, 0.68, 0.71, 0.78])
@pytest.mark.parametrize("x", [0.0, 0.6, 0.68, 1.0])
def test_money_without_gammons_matches_janowski_by_hand(p: float, x: float) -> None:
    d = cube_decision(no_gammons(p), MatchState(), 0, cube_life=x)
    nd, dt = janowski_money(p, x)
    assert d.nd == pytest.approx(nd, abs=1e-12)
    assert d.dt == pytest.approx(dt, abs=1e-12)
    assert d.dp == 1.0
    assert d.take_point == pytest.approx(0.5 / (2.0 + 0.5 * x), abs=1e-9)


@pytest.mark.parametrize("x", [0.6, 0.68, 0.7])
def test_take_point_with_gammons_matches_janowski(x: float) -> None:
    pr = Probabilities(0.7, 0.21, 0.014, 0.06, 0.0)
    w = 1.0 + (pr.win_gammon + pr.win_backgammon) / pr.win  # doubler's average win
    lo = 1.0 + (pr.lose_gammon + pr.lose_backgammon) / pr.lose
    # the taker loses what the doubler wins: his take point is (W - 1/2) / (W + L + x/2)
    d = cube_decision(pr, MatchState(), 0, cube_life=x)
    assert d.take_point == pytest.approx((w - 0.5) / (w + lo + 0.5 * x), abs=1e-9)


# ---------------------------------------------------------------------- textbook money cases
def test_closed_out_blitz_is_too_good_at_money() -> None:
    # closed board, one opponent checker on the bar, lots of gammons
    pr = Probabilities(0.93, 0.56, 0.03, 0.01, 0.0)
    d = cube_decision(pr, MatchState(), 0, cube_life=X)
    assert d.action == "too good to double, pass"
    assert d.too_good and not d.double and not d.take
    assert d.nd > d.dp and d.best == d.nd


def test_race_eight_percent_ahead_is_double_take() -> None:
    pos = Position.from_points({6: 3, 5: 3, 4: 3, 8: 3, 9: 3}, {19: 3, 20: 3, 21: 3, 16: 3, 15: 2, 14: 1})
    me, opp = pos.pips()
    assert opp / me == pytest.approx(1.08, abs=0.02)
    d = analyze_cube(pos, MatchState(), 0, lambda _: no_gammons(0.71))
    assert d.cube_life == pytest.approx(0.55 + 0.00125 * me)
    assert d.action == "double, take"
    assert d.double and d.take and d.dt is not None and d.nd < d.dt < d.dp


def test_very_strong_without_gammons_is_double_pass() -> None:
    d = cube_decision(no_gammons(0.9), MatchState(), 0, cube_life=X)
    assert d.action == "double, pass"
    assert d.best == 1.0 and d.taker_pass == -1.0


def test_redouble_wording_and_owned_cube() -> None:
    owned = MatchState(cube=2, cube_owner=0)
    assert cube_decision(no_gammons(0.75), owned, 0, cube_life=X).action == "redouble, take"
    assert cube_decision(no_gammons(0.6), owned, 0, cube_life=X).action == "no redouble, take"
    # owning the cube is worth more than a centred cube, which is worth more than no access
    eq = [cubeful_emg(no_gammons(0.6), MatchState(cube=2, cube_owner=o), 0, cube_life=X) for o in (0, 1)]
    centred = cubeful_emg(no_gammons(0.6), MatchState(cube=2), 0, cube_life=X)
    assert eq[0] > centred > eq[1]
    d = cube_decision(no_gammons(0.9), MatchState(cube=2, cube_owner=1), 0, cube_life=X)
    assert d.action == "no double possible" and not d.available and d.dt is None


def test_jacoby_centred_cube() -> None:
    pr = Probabilities(0.93, 0.56, 0.03, 0.01, 0.0)
    plain = cube_decision(pr, MatchState(), 0, cube_life=X)
    jacoby = cube_decision(pr, MatchState(jacoby=True), 0, cube_life=X)
    assert plain.action == "too good to double, pass"
    # gammons do not count while the cube is centred: cash at once
    assert jacoby.action == "double, pass"
    assert jacoby.nd < plain.nd and jacoby.dt == plain.dt
    assert gammon_values(MatchState(jacoby=True), 0).me_gammon == 0.0
    # once the cube has been turned the Jacoby rule no longer applies
    owned = [cube_decision(pr, MatchState(cube=2, cube_owner=0, jacoby=j), 0, cube_life=X)
             for j in (False, True)]
    assert owned[0] == owned[1]


def test_beaver() -> None:
    pr = Probabilities(0.55, 0.1, 0.0, 0.05, 0.0)
    plain = cube_decision(pr, MatchState(), 0, cube_life=X)
    beav = cube_decision(pr, MatchState(beavers=True), 0, cube_life=X)
    assert plain.dt is not None and beav.dt is not None
    assert plain.dt < 0 and plain.action == "no double, take"
    assert beav.action == "no double, beaver" and beav.beaver
    assert beav.dt == pytest.approx(2 * plain.dt)  # money is linear in the cube
    stronger = cube_decision(Probabilities(0.75, 0.1, 0.0, 0.05, 0.0), MatchState(beavers=True), 0,
                             cube_life=X)
    assert not stronger.beaver


def test_cube_limit() -> None:
    d = cube_decision(no_gammons(0.8), MatchState(cube=4, cube_owner=0, cube_limit=4), 0, cube_life=X)
    assert not d.available and d.action == "no double possible"


# ---------------------------------------------------------------------- match play
def test_crawford_game_has_no_cube() -> None:
    s = MatchState(length=5, score=(4, 2), crawford=True)
    pr = Probabilities(0.6, 0.2, 0.0, 0.1, 0.0)
    for player in (0, 1):
        d = cube_decision(pr, s, player, cube_life=X)
        assert d.action == "no double possible" and d.dt is None
    # the trailer (3-away) gets to a post-Crawford score if he wins: cubeless value by hand
    v = (0.6 - 0.2) * mwc(KXG, 2, 1, post_crawford=True) + 0.2 * mwc(KXG, 1, 1, post_crawford=True)
    assert cubeful_value(pr, s, 1, cube_life=X) == pytest.approx(v)


@pytest.mark.parametrize("p", [0.35, 0.45, 0.5, 0.55, 0.65])
def test_post_crawford_trailer_doubles_at_once(p: float) -> None:
    pr = Probabilities(p, 0.15, 0.01, 0.12, 0.01)
    for score in [(4, 2), (4, 0), (6, 3)]:  # trailer 3, 5 and 4 away (7-point match for the last)
        length = 5 if score[0] == 4 else 7
        s = MatchState(length=length, score=score, post_crawford=True)
        d = cube_decision(pr, s, 1, cube_life=X)
        assert d.double, (score, p, d)


def test_post_crawford_free_drop() -> None:
    s = MatchState(length=5, score=(4, 3), post_crawford=True)  # trailer 2-away
    for p, take in [(0.45, True), (0.49, True), (0.51, False), (0.6, False)]:
        d = cube_decision(no_gammons(p), s, 1, cube_life=X)
        assert d.double and d.take is take
        # a take plays the match out at once: the trailer's MWC is his winning chance
        assert d.dt_mwc == pytest.approx(p)
        assert d.dp_mwc == 0.5
    # the leader's cube is dead: doubling can only lose
    d = cube_decision(Probabilities(0.6, 0.1, 0.0, 0.1, 0.0), s, 0, cube_life=X)
    assert d.available and d.action == "never double, take (dead cube)"


def test_dead_cube_when_a_single_game_wins_the_match() -> None:
    # 2-away holding a 2-cube: he can never use it, so cube life does not matter
    s = MatchState(length=7, score=(5, 1), cube=2, cube_owner=0)
    pr = Probabilities(0.62, 0.2, 0.01, 0.1, 0.005)
    live = cubeful_value(pr, s, 0, cube_life=1.0)
    dead = cubeful_value(pr, s, 0, cube_life=0.0)
    by_hand = (0.62 * 1.0 + (0.38 - 0.1) * mwc(KXG, 2, 4) + (0.1 - 0.005) * mwc(KXG, 2, 2)
               + 0.005 * mwc(KXG, 2, 0))
    assert live == pytest.approx(dead) == pytest.approx(by_hand)
    assert cube_decision(pr, s, 0, cube_life=X).action == "never redouble, take (dead cube)"
    # doubling from 2-away makes his gammons worthless: Double/take ignores them
    centred = MatchState(length=7, score=(5, 1))
    gammonish = cube_decision(Probabilities(0.7, 0.3, 0.0, 0.0, 0.0), centred, 0, cube_life=X)
    plain = cube_decision(no_gammons(0.7), centred, 0, cube_life=X)
    assert gammonish.dt == pytest.approx(plain.dt)
    assert gammonish.nd > plain.nd
    assert gammon_values(centred, 0, cube=2).me_gammon == 0.0


def test_match_emg_is_the_normalised_mwc() -> None:
    s = MatchState(length=9, score=(3, 5), cube=2, cube_owner=1)
    pr = Probabilities(0.57, 0.18, 0.01, 0.11, 0.005)
    v = cubeful_value(pr, s, 1, cube_life=X)
    assert cubeful_emg(pr, s, 1, cube_life=X) == pytest.approx(mwc_to_emg(KXG, s, 1, v))
    d = cube_decision(pr, s, 1, cube_life=X)
    assert d.redouble and d.dp == pytest.approx(1.0) and d.dp_mwc == pytest.approx(mwc(KXG, 2, 6))
    assert d.nd_mwc == pytest.approx(v)
    assert d.dt_mwc is not None and d.taker_take_mwc == pytest.approx(1.0 - d.dt_mwc)
    assert d.taker_pass_mwc == pytest.approx(1.0 - mwc(KXG, 2, 6)) and d.taker_pass == pytest.approx(-1.0)


# gnubg 1.07.001 (Kazaross-XG2, 0-ply, gnubg's own cubeless probabilities of five positions):
# ND and DT as printed by its cube analysis. gnubg's money cube info has the Jacoby rule on.
# Score = (opponent, player on roll); owner -1 centred, 1 player on roll, 0 opponent.
REF_PROBS = {
    "race_a": (0.588240, 0.000050, 0.000000, 0.000050, 0.000000),
    "race_c": (0.627414, 0.000161, 0.000000, 0.000374, 0.000000),
    "blitz": (0.947267, 0.947267, 0.033935, 0.000000, 0.000000),
    "start": (0.521483, 0.153909, 0.007563, 0.129867, 0.007548),
    "holding": (0.648000, 0.190640, 0.009056, 0.070717, 0.001144),
}
REF_X = {"race_a": 0.55 + 0.00125 * 85, "race_c": 0.55 + 0.00125 * 116, "blitz": X, "start": X, "holding": X}
REF_ROWS = [
    ("race_a", 0, (0, 0), 1, -1, 0.25369, 0.08274, "no double, take"),
    ("race_a", 0, (0, 0), 2, 1, 0.36950, 0.08274, "no redouble, take"),
    ("race_a", 7, (2, 4), 1, -1, 0.25955, -0.03270, "no double, take"),
    ("race_a", 7, (4, 2), 1, -1, 0.22797, -0.00627, "no double, take"),
    ("race_a", 7, (1, 3), 2, 1, 0.37020, -0.09735, "no redouble, take"),
    ("race_a", 5, (2, 4), 1, -1, 0.16316, -0.39745, "never double, take (dead cube)"),
    ("race_a", 7, (3, 3), 2, 0, -0.09123, None, "no double possible"),
    ("race_c", 0, (0, 0), 1, -1, 0.37270, 0.25028, "no double, take"),
    ("race_c", 7, (0, 0), 1, -1, 0.37515, 0.25707, "no double, take"),
    ("race_c", 7, (5, 2), 1, -1, 0.30507, 0.07612, "no double, take"),
    ("race_c", 5, (3, 4), 1, -1, -0.26330, -0.49035, "never double, take (dead cube)"),
    ("blitz", 0, (0, 0), 1, -1, 0.96625, 3.71562, "double, pass"),
    ("blitz", 0, (0, 0), 2, 1, 1.89908, 3.71562, "too good to redouble, pass"),
    ("blitz", 7, (0, 0), 1, -1, 1.91748, 3.88214, "too good to double, pass"),
    ("blitz", 7, (2, 4), 1, -1, 2.02628, 3.56903, "too good to double, pass"),
    ("blitz", 7, (4, 2), 1, -1, 1.75641, 4.43329, "too good to double, pass"),
    ("blitz", 7, (1, 3), 2, 1, 2.04412, 2.02510, "too good to redouble, pass"),
    ("blitz", 5, (2, 4), 1, -1, 0.89278, 0.81847, "never double, take (dead cube)"),
    ("blitz", 7, (3, 3), 2, 0, 2.68440, None, "no double possible"),
    ("start", 0, (0, 0), 1, -1, 0.08426, -0.19134, "no double, take"),
    ("start", 0, (0, 0), 2, 1, 0.24433, -0.19134, "no redouble, take"),
    ("start", 7, (0, 0), 1, -1, 0.09266, -0.19422, "no double, take"),
    ("start", 7, (2, 4), 1, -1, 0.00724, -0.54016, "no double, take"),
    ("start", 7, (4, 2), 1, -1, 0.17589, 0.02612, "no double, take"),
    ("start", 7, (1, 3), 2, 1, 0.15420, -0.60958, "no redouble, take"),
    ("start", 7, (5, 2), 1, -1, 0.20553, 0.10586, "no double, take"),
    ("start", 5, (3, 4), 1, -1, -0.69093, -0.91407, "never double, take (dead cube)"),
    ("start", 7, (3, 3), 2, 0, -0.15225, None, "no double possible"),
    ("holding", 0, (0, 0), 1, -1, 0.54609, 0.60831, "double, take"),
    ("holding", 0, (0, 0), 2, 1, 0.64415, 0.60831, "no redouble, take"),
    ("holding", 7, (0, 0), 1, -1, 0.59146, 0.61717, "double, take"),
    ("holding", 7, (2, 4), 1, -1, 0.50887, 0.37660, "no double, take"),
    ("holding", 7, (4, 2), 1, -1, 0.65469, 0.75385, "double, take"),
    ("holding", 7, (1, 3), 2, 1, 0.54250, 0.18785, "no redouble, take"),
    ("holding", 7, (5, 2), 1, -1, 0.69119, 0.81443, "double, take"),
    ("holding", 5, (2, 4), 1, -1, 0.18386, -0.25810, "never double, take (dead cube)"),
]


@pytest.mark.parametrize(("name", "length", "score", "cube", "owner", "nd", "dt", "action"), REF_ROWS)
def test_agrees_with_gnubg_0ply_cube_analysis(name: str, length: int, score: tuple[int, int], cube: int,
                                              owner: int, nd: float, dt: float | None, action: str) -> None:
    opp, me = score
    post = length > 0 and length - 1 in score
    cube_owner = None if owner == -1 else (1 if owner == 1 else 0)
    s = MatchState(length=length, score=(opp, me), cube=cube, cube_owner=cube_owner, jacoby=length == 0,
                   post_crawford=post)
    d = cube_decision(REF_PROBS[name], s, 1, cube_life=REF_X[name])
    assert d.nd == pytest.approx(nd, abs=1e-4)
    if dt is None:
        assert d.dt is None
    else:
        assert d.dt == pytest.approx(dt, abs=1e-4)
        assert d.dp == pytest.approx(1.0)
    assert d.action == action


# ---------------------------------------------------------------------- properties
probabilities = st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0),
                          st.floats(0.0, 1.0), st.floats(0.0, 1.0)).map(
    lambda t: Probabilities(t[0], t[0] * t[1], t[0] * t[1] * t[2], (1 - t[0]) * t[3],
                                (1 - t[0]) * t[3] * t[4]))


@given(probabilities, st.floats(0.0, 1.0))
def test_money_centred_cube_is_zero_sum(pr: Probabilities, x: float) -> None:
    mine = cubeful_value(pr, MatchState(), 0, cube_life=x)
    theirs = cubeful_value(pr.flip(), MatchState(), 1, cube_life=x)
    assert mine == pytest.approx(-theirs, abs=1e-9)
    owned = cubeful_value(pr, MatchState(cube=2, cube_owner=0), 0, cube_life=x)
    their_side = cubeful_value(pr.flip(), MatchState(cube=2, cube_owner=0), 1, cube_life=x)
    assert owned == pytest.approx(-their_side, abs=1e-9)


@given(probabilities, st.integers(2, 11), st.integers(2, 11), st.sampled_from([None, 0, 1]),
       st.sampled_from([1, 2, 4]))
def test_match_values_are_complementary(pr: Probabilities, a: int, b: int, owner: int | None,
                                        cube: int) -> None:
    s = MatchState(length=11, score=(11 - a, 11 - b), cube=cube, cube_owner=owner)
    mine = cubeful_value(pr, s, 0, cube_life=X)
    theirs = cubeful_value(pr.flip(), s, 1, cube_life=X)
    assert mine + theirs == pytest.approx(1.0, abs=1e-9)
    assert 0.0 <= mine <= 1.0


@given(probabilities, st.sampled_from([0, 7]))
def test_decision_is_consistent(pr: Probabilities, length: int) -> None:
    s = MatchState(length=length, score=(2, 3) if length else (0, 0))
    d = cube_decision(pr, s, 0, cube_life=X)
    assert d.dt is not None and d.dp is not None
    # a pass worth exactly no double (nothing left to win by playing on) is a double, as gnubg
    cash_tie = d.dt > d.dp and d.dp == d.nd
    assert d.double == (min(d.dt, d.dp) > d.nd or cash_tie)
    assert d.take == (d.dt <= d.dp)
    assert d.best >= d.nd and d.best >= min(d.dt, d.dp)
    assert d.take_point is not None and 0.0 <= d.take_point <= 1.0


@given(st.floats(0.02, 0.97), st.floats(0.0, 0.5), st.floats(0.0, 0.5))
def test_nd_increases_with_winning_chances(p: float, g: float, lg: float) -> None:
    def nd(w: float) -> float:
        return cubeful_value(Probabilities(w, w * g, 0.0, (1 - w) * lg, 0.0), MatchState(length=7),
                             0, cube_life=X)
    assert nd(p + 0.02) >= nd(p) - 1e-12


# ---------------------------------------------------------------------- small pieces
def test_cube_life_classes() -> None:
    assert cube_life_of(Position.start()) == 0.68
    blitz = Position.from_points({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 8: 2}, {19: 2, 17: 3, 13: 5, 12: 3},
                                 opponent_bar=2)
    assert cube_life_of(blitz) == 0.68
    assert cube_life_of(Position.from_points({6: 5, 5: 5, 4: 5}, {19: 5, 20: 5, 21: 5})) == 0.6
    race = Position.from_points({10: 5, 8: 5, 4: 5}, {13: 5, 17: 5, 21: 5})
    assert cube_life_of(race) == pytest.approx(0.55 + 0.00125 * race.pips()[0])
    long_race = Position.from_points({12: 8, 10: 7}, {13: 8, 15: 7})
    assert cube_life_of(long_race) == 0.7


def test_probabilities_are_checked() -> None:
    assert Probabilities.of([0.5, 0.1, 0.0, 0.1, 0.0]).lose == 0.5
    with pytest.raises(ValueError):
        Probabilities.of([0.5, 0.6, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        Probabilities.of(Probabilities(0.5, 0.1, 0.0, 0.1, float("nan")))
    with pytest.raises(ValueError):
        Probabilities.clamped(0.5, float("nan"), 0.0, 0.0, 0.0)
    # the cube model takes the engine's chances as they are, in Python floats, without a draw
    got = Probabilities.of(Probabilities(np.float32(0.6), 0.2, 0.0, 0.1, 0.0, draw=0.0))
    assert type(got.win) is float and got == Probabilities(float(np.float32(0.6)), 0.2, 0.0, 0.1, 0.0)
    assert GameProbabilities is Probabilities  # the older name of the same type
    with pytest.raises(ValueError):
        Probabilities.of([0.5, 0.1])
    arr = np.array([0.7, 0.2, 0.0, 0.1, 0.0], dtype=np.float32)
    assert Probabilities.of(arr).win == pytest.approx(0.7)
    assert Probabilities.of([0.5, 0.51, 0.0, 0.0, 0.0], clamp=True).win_gammon == 0.5
    d = analyze_cube(Position.start(), MatchState(), 0, lambda _: [0.6, 0.61, 0.0, -0.001, 0.0])
    assert d.probabilities == Probabilities(0.6, 0.6, 0.0, 0.0, 0.0)
    money = gammon_values(MatchState(), 0)
    assert money.me_gammon == 0.5 and money.opp_backgammon == 0.5
