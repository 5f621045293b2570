"""Cubeful equities and cube decisions from cubeless probabilities (Janowski's cube-life model).

The evaluator gives *cubeless* probabilities for the side on roll: win, win gammon, win
backgammon, lose gammon, lose backgammon (gammons include backgammons). This module turns them
into cubeful values and cube actions.

**The model.** Following Janowski ("Take-points in money games", 1993), the cubeful value is
an interpolation between two idealised games::

    cubeful = x * live + (1 - x) * dead

* *dead*: the cube never moves again; the value is the expected result at the current cube.
* *live*: the cube is perfectly efficient. The winning chance ``p`` moves continuously, every
  double arrives exactly at the opponent's take point, so the value is linear in ``p`` between
  the points where someone cashes. Below and above those points the game is played on for
  gammons ("too good"), again linearly, to the ends ``p = 0`` (lose) and ``p = 1`` (win), where
  a win or loss is worth its average over the gammon/backgammon fractions of the position.
* ``x`` is the *cube life*: gnubg's values are 0.68 in contact and crashed positions,
  ``0.55 + 0.00125 * pips`` clamped to [0.6, 0.7] in races and 0.6 in one-sided bearoffs
  (:func:`cube_life_of`).

The cash points of the live game are found level by level: my cash point at cube ``c`` is where
my opponent, taking a cube of ``2c`` that he then owns, is indifferent between taking and
passing; his cube at ``2c`` has its own cash point from the ``4c`` level, and so on until the
cube is dead (money: a cube limit or a depth where nothing changes any more). With the money
scale the model reproduces Janowski's take point ``(L - 1/2) / (W + L + x/2)``; for match
play the same construction runs on match-winning chances, which brings in dead cubes (a player
who needs no more than the cube value never redoubles), automatic redoubles, the Crawford game
(no cube) and the post-Crawford leader's dead cube and free drop.

**n-ply.** :mod:`analyzer.eval.cube_search` evaluates cubefully to a depth of plies the way gnubg
does: the model above only at the leaves (with the outcome values and cube access of
:func:`cube_tables`), a cube decision of the side on roll at every node in between, and
:func:`decision_of_values` for the decision from the root's values.

>>> p = Probabilities(0.7, 0.0, 0.0, 0.0, 0.0)
>>> d = cube_decision(p, MatchState(), 0, cube_life=0.68)
>>> d.action, round(d.nd, 3), round(d.dt, 3), d.dp
('double, take', 0.581, 0.596, 1.0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.match import MatchState, can_double
from analyzer.core.position import Position
from analyzer.eval.cube_model import CubeModel, MayDouble, ValueFn, interp
from analyzer.eval.cube_model import ProbabilitiesLike as ProbabilitiesLike
from analyzer.eval.cube_model import even_game_mwc as even_game_mwc
from analyzer.eval.met import MatchEquityTable, met_by_name, mwc_to_emg, outcome_mwc
from analyzer.eval.probabilities import Probabilities

CONTACT_CUBE_LIFE = 0.68
CRASHED_CUBE_LIFE = 0.68
ONE_SIDED_BEAROFF_CUBE_LIFE = 0.6
RACE_CUBE_LIFE_BASE = 0.55
RACE_CUBE_LIFE_PER_PIP = 0.00125
RACE_CUBE_LIFE_MIN = 0.6
RACE_CUBE_LIFE_MAX = 0.7

CUBE_LIFE_CONSTANTS = np.array([CONTACT_CUBE_LIFE, ONE_SIDED_BEAROFF_CUBE_LIFE, RACE_CUBE_LIFE_BASE,
                                RACE_CUBE_LIFE_PER_PIP, RACE_CUBE_LIFE_MIN, RACE_CUBE_LIFE_MAX])
"""The constants of :func:`cube_life_of` as the compiled kernels take them."""

_MONEY_LEVELS = 24  # doublings followed in money play before the cube is taken as dead


# ---------------------------------------------------------------------- cube life
def cube_life_of(position: Position) -> float:
    """Janowski's cube life ``x`` for ``position`` with gnubg's default values.

    Contact (and crashed) 0.68; a race ``0.55 + 0.00125 * pips`` of the side on roll, clamped
    to [0.6, 0.7]; 0.6 when both sides are bearing off (one-sided bearoff).

    >>> cube_life_of(Position.start())
    0.68
    >>> cube_life_of(Position.from_points({6: 15}, {19: 15}))
    0.6
    >>> cube_life_of(Position.from_points({12: 5, 8: 5, 6: 5}, {13: 5, 17: 5, 19: 5}))
    0.7
    >>> round(cube_life_of(Position.from_points({8: 5, 6: 5, 4: 5}, {21: 15})), 4)
    0.6625
    """
    if not position.spec.has_cube:
        return CONTACT_CUBE_LIFE
    points = np.frombuffer(position.board, dtype=np.int8)[1:25]  # > 0 the mover's, < 0 the opponent's
    mine, theirs = np.flatnonzero(points > 0), np.flatnonzero(points < 0)
    bar = position.mover_bar
    my_back = 25 if bar else int(mine[-1]) + 1 if mine.size else 0
    opp_back = 0 if position.opponent_bar else int(theirs[0]) + 1 if theirs.size else 25
    if my_back >= opp_back:
        return CONTACT_CUBE_LIFE
    if my_back <= 6 and opp_back >= 19:
        return ONE_SIDED_BEAROFF_CUBE_LIFE
    pips = int(np.dot(mine + 1, points[mine].astype(np.int64))) + 25 * bar
    x = RACE_CUBE_LIFE_BASE + RACE_CUBE_LIFE_PER_PIP * pips
    return min(max(x, RACE_CUBE_LIFE_MIN), RACE_CUBE_LIFE_MAX)


def _money_may_double(state: MatchState) -> MayDouble:
    top = state.cube << _MONEY_LEVELS

    def may(side: int, c: int) -> bool:
        if state.cube_limit is not None and 2 * c > state.cube_limit:
            return False
        return c < top

    return may


def _match_may_double(state: MatchState, player: int) -> MayDouble:
    aways = (state.away(player), state.away(1 - player))

    def may(side: int, c: int) -> bool:
        if state.crawford:
            return False
        if state.cube_limit is not None and 2 * c > state.cube_limit:
            return False
        return aways[side] > c  # a player who needs no more than c points has a dead cube

    return may


def _model(probs: ProbabilitiesLike, state: MatchState, player: int,
           met: MatchEquityTable | None) -> CubeModel:
    pr = Probabilities.of(probs)
    if state.is_money:
        return CubeModel(pr, float, _money_may_double(state))
    table = met if met is not None else met_by_name()
    return CubeModel(pr, outcome_mwc(table, state, player), _match_may_double(state, player))


def _owner(state: MatchState, player: int) -> str:
    if state.cube_owner is None:
        return "centre"
    return "me" if state.cube_owner == player else "opp"


# ---------------------------------------------------------------------- public values
def cubeful_value(probs: ProbabilitiesLike, state: MatchState, player: int, *, cube_life: float,
                  met: MatchEquityTable | None = None) -> float:
    """Cubeful value for ``player`` on roll (before rolling), not doubling now.

    Money: equity in points (cube value included). Match: match-winning chance.

    >>> p = [0.6, 0.0, 0.0, 0.0, 0.0]
    >>> round(cubeful_value(p, MatchState(cube=2, cube_owner=1), 0, cube_life=0.0), 3)
    0.4
    >>> s = MatchState(length=5, score=(3, 0), cube=2, cube_owner=0)
    >>> cubeful_value(p, s, 0, cube_life=1.0) == cubeful_value(p, s, 0, cube_life=0.0)
    True
    """
    model = _model(probs, state, player, met)
    c = state.cube
    if state.crawford:
        return model.dead(c)
    return model.cubeful(_owner(state, player), c, cube_life, singles_only=state.jacoby_active)


def cubeful_emg(probs: ProbabilitiesLike, state: MatchState, player: int, *, cube_life: float,
                met: MatchEquityTable | None = None) -> float:
    """:func:`cubeful_value` normalised: money equity per unit of the current cube, or EMG.

    >>> round(cubeful_emg([0.6, 0, 0, 0, 0], MatchState(cube=2, cube_owner=1), 0, cube_life=0.0), 3)
    0.2
    """
    v = cubeful_value(probs, state, player, cube_life=cube_life, met=met)
    if state.is_money:
        return v / state.cube
    return mwc_to_emg(met if met is not None else met_by_name(), state, player, v)


def cubeful_after_many(raw: NDArray[np.floating[Any]], boards: NDArray[np.int8], rows: NDArray[np.intp],
                       state: MatchState, player: int, met: MatchEquityTable | None = None) -> NDArray[np.float64]:
    """``player``'s cubeful EMG after each of his plays ``rows`` (standard positions): ``boards[r]`` is
    the position after the play seen by his opponent, now on roll, ``raw[r]`` the opponent's 0-ply
    outcome distribution there (the evaluator's six outputs for ``boards[r]``).

    The same numbers, bit for bit, as :func:`analyzer.analysis.decisions.equity_after` gives one at a
    time (``-cubeful_emg`` of the flipped chances at the opponent's cube life), in one compiled call
    (:mod:`analyzer.eval._after_kernel`).

    >>> from analyzer.core.position import flip_boards
    >>> from analyzer.eval.probabilities import Probabilities
    >>> mover = [0.4, 0.1, 0.0, 0.4, 0.1, 0.0]
    >>> after = Position.start()  # as if a play had led to it
    >>> board = flip_boards(np.frombuffer(after.board, np.int8)[None, :])
    >>> s = MatchState(length=5, score=(2, 3))
    >>> raw = np.array([mover[3:] + mover[:3]])  # the opponent's view
    >>> one = -cubeful_emg(Probabilities.of(Probabilities.from_outcomes(mover).flip(), clamp=True), s, 1,
    ...                    cube_life=cube_life_of(after.flip()))
    >>> float(cubeful_after_many(raw, board, np.array([0]), s, 0)[0]) == one
    True
    """
    from analyzer.eval import _after_kernel as K

    side = 1 - player  # the opponent is on roll after the play
    table = None if state.is_money else (met if met is not None else met_by_name())
    vt, may = cube_tables(state, side, met=table)
    owner = 0 if state.cube_owner is None else (1 if state.cube_owner == side else 2)
    values = np.zeros(len(rows), np.float64)
    K.after_values(np.ascontiguousarray(raw, dtype=np.float64), np.ascontiguousarray(boards, dtype=np.int8),
                   np.ascontiguousarray(rows, dtype=np.int64), vt[0], may[0], owner, state.jacoby_active,
                   state.crawford, CUBE_LIFE_CONSTANTS, values)
    if table is None:
        return -(values / state.cube)
    win, lose = outcome_mwc(table, state, side)(state.cube), outcome_mwc(table, state, side)(-state.cube)
    if win <= lose:
        raise ValueError("winning and losing the cube give the same MWC: no normalisation")
    return -((2.0 * values - win - lose) / (win - lose))


@dataclass(frozen=True, slots=True)
class GammonValues:
    """Gammon and backgammon values for both sides at one score and cube.

    A side's gammon value is what winning a gammon instead of a single game adds, divided by
    the difference between winning and losing a single game (money: 0.5); likewise for a
    backgammon instead of a gammon.
    """

    me_gammon: float
    me_backgammon: float
    opp_gammon: float
    opp_backgammon: float


def gammon_values(state: MatchState, player: int, cube: int | None = None,
                  met: MatchEquityTable | None = None) -> GammonValues:
    """Gammon values for ``player`` and his opponent at ``cube`` (default: the state's cube).

    >>> gammon_values(MatchState(), 0)
    GammonValues(me_gammon=0.5, me_backgammon=0.5, opp_gammon=0.5, opp_backgammon=0.5)
    >>> gammon_values(MatchState(length=7, score=(6, 0), post_crawford=True), 1).opp_gammon
    0.0
    """
    c = state.cube if cube is None else cube
    if state.is_money:
        if state.jacoby_active and cube is None:
            return GammonValues(0.0, 0.0, 0.0, 0.0)
        return GammonValues(0.5, 0.5, 0.5, 0.5)
    v = outcome_mwc(met if met is not None else met_by_name(), state, player)
    span = v(c) - v(-c)
    if span <= 0:
        return GammonValues(0.0, 0.0, 0.0, 0.0)
    return GammonValues((v(2 * c) - v(c)) / span, (v(3 * c) - v(2 * c)) / span,
                        (v(-c) - v(-2 * c)) / span, (v(-2 * c) - v(-3 * c)) / span)


# ---------------------------------------------------------------------- cube decisions
@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The cube decision of ``player`` on roll, before rolling.

    ``nd``, ``dt``, ``dp``: cubeful equities of No double, Double/take and Double/pass for the
    doubler, normalised (money: per unit of the current cube; match: EMG at the current cube),
    so ``dp`` is 1.0. ``dt`` already includes a beaver when the taker should beaver. The
    ``*_mwc`` fields hold the match-winning chances (``None`` in money play). When the doubler
    has no access to the cube (``available`` false: Crawford game, opponent owns the cube, cube
    limit) only ``nd`` is set and ``action`` is ``"no double possible"``. A legal double of a
    dead cube (e.g. by a post-Crawford leader) is valued like any other.

    Taker's view: ``taker_take`` and ``taker_pass`` are his normalised equities (``-dt``,
    ``-dp``); ``take_point`` is the lowest cubeless winning chance with which he can take, in
    this model with the position's gammon fractions. ``gammons`` holds the gammon values at the
    current cube (``me`` = doubler).
    """

    player: int
    cube: int
    redouble: bool
    available: bool
    cube_life: float
    probabilities: Probabilities
    nd: float
    dt: float | None
    dp: float | None
    nd_mwc: float | None
    dt_mwc: float | None
    dp_mwc: float | None
    action: str
    double: bool
    take: bool
    beaver: bool
    too_good: bool
    take_point: float | None
    gammons: GammonValues

    @property
    def best(self) -> float:
        """The doubler's normalised equity with correct cube play on both sides."""
        if not self.available or self.dt is None or self.dp is None:
            return self.nd
        return max(self.nd, min(self.dt, self.dp))

    @property
    def taker_take(self) -> float | None:
        """The taker's normalised equity after taking (or beavering)."""
        return None if self.dt is None else -self.dt

    @property
    def taker_pass(self) -> float | None:
        """The taker's normalised equity after passing (-1)."""
        return None if self.dp is None else -self.dp

    @property
    def taker_take_mwc(self) -> float | None:
        """The taker's MWC after taking (match play)."""
        return None if self.dt_mwc is None else 1.0 - self.dt_mwc

    @property
    def taker_pass_mwc(self) -> float | None:
        """The taker's MWC after passing (match play)."""
        return None if self.dp_mwc is None else 1.0 - self.dp_mwc


def _action(redouble: bool, nd: float, dt: float, dp: float, beaver: bool) -> tuple[str, bool, bool, bool]:
    """(action, double, take, too good). Ties: a take equal to no double is no double; a pass
    equal to no double (nothing left to gain by playing on, e.g. a sure single win) is a double,
    as gnubg decides."""
    word = "redouble" if redouble else "double"
    take = dt <= dp
    answer = ("beaver" if beaver else "take") if take else "pass"
    if nd > dp or (take and nd >= dt):
        if nd > dp:
            return f"too good to {word}, {answer}", False, take, True
        return f"no {word}, {answer}", False, take, False
    return f"{word}, {answer}", True, take, False


def cube_decision(probs: ProbabilitiesLike, state: MatchState, player: int, *, cube_life: float,
                  met: MatchEquityTable | None = None) -> CubeDecision:
    """The cube decision of ``player`` (on roll, before rolling) with cubeless ``probs``.

    The action uses gnubg's wording in lower case: ``no double, take``, ``double, take``,
    ``double, pass``, ``too good to double, pass``, ``too good to double, take``,
    ``no redouble, take``, ``redouble, take``, ``redouble, pass``, ``never double, take (dead
    cube)`` (a legal double that can gain nothing, e.g. by the post-Crawford leader), ... and
    ``beaver`` instead of ``take`` in money play with beavers when the taker should beaver.

    >>> d = cube_decision([0.9, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
    >>> d.action, d.double, d.take
    ('double, pass', True, False)
    >>> cube_decision([0.9, 0.0, 0.0, 0.0, 0.0], MatchState(length=5, score=(4, 2), crawford=True),
    ...               1, cube_life=0.68).action
    'no double possible'
    """
    pr = Probabilities.of(probs)
    table = None if state.is_money else (met if met is not None else met_by_name())
    model = _model(pr, state, player, table)
    c = state.cube
    nd_v = cubeful_value(pr, state, player, cube_life=cube_life, met=table)
    if not can_double(state, player):
        return _decision(pr, state, player, cube_life, table, model, nd_v, None, None, False)

    def after_take(cube: int) -> float:
        return model.cubeful("opp", cube, cube_life)

    dt_v = after_take(2 * c)
    beaver = False
    if (state.is_money and state.beavers and dt_v < 0.0
            and (state.cube_limit is None or 4 * c <= state.cube_limit)):
        bv = after_take(4 * c)
        if bv < dt_v:
            dt_v, beaver = bv, True
    return _decision(pr, state, player, cube_life, table, model, nd_v, dt_v, model.value(c), beaver)


def _decision(pr: Probabilities, state: MatchState, player: int, cube_life: float,
              table: MatchEquityTable | None, model: CubeModel, nd_v: float, dt_v: float | None,
              dp_v: float | None, beaver: bool) -> CubeDecision:
    """The :class:`CubeDecision` from the doubler's values (money points or MWC) of No double,
    Double/take (``None``: no access to the cube) and Double/pass."""
    c = state.cube
    redouble = _owner(state, player) == "me"
    gammons = gammon_values(state, player, met=table)

    def norm(v: float) -> float:
        if table is None:
            return v / c
        return mwc_to_emg(table, state, player, v)

    if dt_v is None or dp_v is None:
        return CubeDecision(player, c, redouble, False, cube_life, pr, norm(nd_v), None, None,
                            None if table is None else nd_v, None, None, "no double possible",
                            False, False, False, False, None, gammons)
    nd, dt, dp = norm(nd_v), norm(dt_v), norm(dp_v)
    action, double, take, too_good = _action(redouble, nd, dt, dp, beaver)
    if not double and not too_good and not model.may_double(0, c):
        action = f"never {action.removeprefix('no ')} (dead cube)"
    tp = _take_point(model, 2 * c, cube_life, dp_v)
    return CubeDecision(player, c, redouble, True, cube_life, pr, nd, dt, dp,
                        None if table is None else nd_v, None if table is None else dt_v,
                        None if table is None else dp_v, action, double, take, beaver and take,
                        too_good, tp, gammons)


def decision_of_values(probs: Probabilities, state: MatchState, player: int, *, cube_life: float,
                       met: MatchEquityTable | None, nd: float, dt: float | None, dp: float | None,
                       beaver: bool) -> CubeDecision:
    """The cube decision of ``player`` on roll from his values (money: points, cube included;
    match: MWC) of No double, Double/take (``None``: no access to the cube; with a beaver when
    ``beaver``) and Double/pass, found elsewhere (the n-ply search of
    :mod:`analyzer.eval.cube_search`); ``probs`` give the take point and the gammon values the
    model adds, ``met`` is ``None`` in money play.

    >>> p = Probabilities(0.7, 0.0, 0.0, 0.0, 0.0)
    >>> d = cube_decision(p, MatchState(), 0, cube_life=0.68)
    >>> decision_of_values(p, MatchState(), 0, cube_life=0.68, met=None, nd=d.nd, dt=d.dt, dp=d.dp,
    ...                    beaver=False) == d
    True
    """
    table = None if state.is_money else (met if met is not None else met_by_name())
    return _decision(probs, state, player, cube_life, table, _model(probs, state, player, table), nd, dt, dp, beaver)


def _take_point(model: CubeModel, cube: int, x: float, pass_value: float) -> float | None:
    """Taker's minimum winning chance: where Double/take equals Double/pass, the position's
    conditional gammon fractions held fixed (the model is increasing in ``p``)."""
    lose, win = model.ends(cube)
    live = model.live("opp", cube)

    def dt(p: float) -> float:
        return x * interp(live, p) + (1.0 - x) * (p * win + (1.0 - p) * lose)

    lo, hi = 0.0, 1.0
    if dt(hi) <= pass_value:
        return 0.0
    if dt(lo) >= pass_value:
        return 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if dt(mid) < pass_value:
            lo = mid
        else:
            hi = mid
    return 1.0 - 0.5 * (lo + hi)


Evaluate = Callable[[Position], ProbabilitiesLike]
"""Anything giving the cubeless probabilities of a position for its side on roll."""


def analyze_cube(position: Position, state: MatchState, player: int, evaluate: Evaluate, *,
                 met: MatchEquityTable | None = None, cube_life: float | None = None) -> CubeDecision:
    """Cube decision for ``player`` on roll in ``position`` (seen from him), probabilities from
    ``evaluate`` (made consistent with :meth:`~analyzer.eval.probabilities.Probabilities.clamped`)
    and the cube life from the position class unless given.

    >>> d = analyze_cube(Position.start(), MatchState(), 0, lambda pos: [0.5, 0.14, 0.01, 0.13, 0.01])
    >>> d.action, d.cube_life
    ('no double, take', 0.68)
    """
    x = cube_life_of(position) if cube_life is None else cube_life
    probs = Probabilities.of(evaluate(position), clamp=True)
    return cube_decision(probs, state, player, cube_life=x, met=met)


# ---------------------------------------------------------------------- tables for the compiled kernels
def cube_tables(state: MatchState, player: int, *, met: MatchEquityTable | None = None,
                levels: int = 0) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Outcome values and cube access for the compiled cube kernels (:mod:`analyzer.eval._cube_kernel`).

    ``vt[X, j]`` holds the values to ``X`` (0: ``player``, 1: his opponent) of winning 1, 2, 3 times
    the cube ``state.cube * 2**j`` and of losing as much (money: points; match: MWC);
    ``may[X, k, j]`` whether, seen by ``X``, side ``k`` (0: ``X``) has a live cube at that level in
    Janowski's model. At least ``levels`` levels; the last has no cube access.

    >>> vt, may = cube_tables(MatchState(), 0)
    >>> vt.shape, vt[0, 1].tolist(), bool(may[0, 0, 23]), bool(may[0, 0, 24])
    ((2, 25, 6), [2.0, 4.0, 6.0, -2.0, -4.0, -6.0], True, False)
    >>> vt, may = cube_tables(MatchState(length=5, score=(3, 1)), 0)
    >>> vt.shape[1], may[0, :, 0].tolist(), may[1, :, 1].tolist()
    (3, [True, True], [True, False])
    """
    c0 = state.cube
    if state.is_money:
        values: list[ValueFn] = [float, float]
        mays = [_money_may_double(state), _money_may_double(state)]
        top = _MONEY_LEVELS
    else:
        table = met if met is not None else met_by_name()
        values = [outcome_mwc(table, state, player), outcome_mwc(table, state, 1 - player)]
        mays = [_match_may_double(state, player), _match_may_double(state, 1 - player)]
        top = 0
        while mays[0](0, c0 << top) or mays[0](1, c0 << top):
            top += 1
    n = max(top, levels - 1) + 1
    vt = np.zeros((2, n, 6), np.float64)
    may = np.zeros((2, 2, n), np.bool_)
    for x in range(2):
        for j in range(n):
            cube = c0 << j
            for m in range(3):
                vt[x, j, m] = values[x]((m + 1) * cube)
                vt[x, j, 3 + m] = values[x](-(m + 1) * cube)
            may[x, 0, j] = j < n - 1 and mays[x](0, cube)
            may[x, 1, j] = j < n - 1 and mays[x](1, cube)
    return vt, may
