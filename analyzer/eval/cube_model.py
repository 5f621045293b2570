"""Janowski's cube-life model: cubeful values from cubeless probabilities, at any score.

The model itself, with no match equity table and no position: the cubeful value of a game interpolates
between a dead cube and a perfectly efficient live cube (``cubeful = x * live + (1 - x) * dead``, ``x`` the
cube life), with the cash points of the live game found level by level (:class:`CubeModel`). The value of
each game result (``ValueFn``) and who may still double (``MayDouble``) are given by the caller:
:mod:`analyzer.eval.cube` builds them for money and match play (from a match equity table), and
:func:`even_game_mwc` for the computed table of :mod:`analyzer.eval.met`. The model is described in the
docstring of :mod:`analyzer.eval.cube`; its compiled twin is :mod:`analyzer.eval._cube_kernel`.

>>> m = CubeModel(Probabilities(0.7, 0.0, 0.0, 0.0, 0.0), float, lambda side, c: c < 1024)  # money
>>> round(m.cubeful("centre", 1, 0.68), 3)
0.581
"""

from __future__ import annotations

from collections.abc import Callable

from analyzer.eval.probabilities import Probabilities
from analyzer.eval.probabilities import ProbabilitiesLike as ProbabilitiesLike

EPS = 1e-12


# ---------------------------------------------------------------------- probabilities
GameProbabilities = Probabilities
"""The cubeless chances the model takes: :class:`~analyzer.eval.probabilities.Probabilities` (its
:meth:`~analyzer.eval.probabilities.Probabilities.of` checks them); the older name, kept for importers."""


# ---------------------------------------------------------------------- the live-cube model
Points = tuple[tuple[float, float], ...]
ValueFn = Callable[[int], float]
"""Value, to the side on roll, of the game ending with him winning ``k`` points (``k < 0``: losing)."""
MayDouble = Callable[[int, int], bool]
"""``may_double(side, cube)``: would ``side`` (0 = on roll, 1 = opponent) owning ``cube`` double it?"""


def interp(points: Points, p: float) -> float:
    """The piecewise-linear function through ``points`` at ``p``.

    >>> interp(((0.0, -1.0), (1.0, 1.0)), 0.25)
    -0.5
    """
    for (p0, v0), (p1, v1) in zip(points, points[1:], strict=False):
        if p <= p1 or p1 >= 1.0:
            if p1 - p0 <= EPS:
                return v1
            return v0 + (v1 - v0) * (p - p0) / (p1 - p0)
    return points[-1][1]


def solve(points: Points, target: float) -> float | None:
    """The ``p`` in (0, 1) where the increasing piecewise-linear function reaches ``target``.

    >>> solve(((0.0, -1.0), (1.0, 1.0)), 0.5)
    0.75
    """
    if target <= points[0][1] or target >= points[-1][1]:
        return None
    for (p0, v0), (p1, v1) in zip(points, points[1:], strict=False):
        if v0 <= target <= v1 and v1 > v0:
            return p0 + (p1 - p0) * (target - v0) / (v1 - v0)
    return None


class CubeModel:
    """Live and dead cube values for one set of probabilities at one score."""

    def __init__(self, probs: Probabilities, value: ValueFn, may_double: MayDouble) -> None:
        self.probs = probs
        self.value = value
        self.may_double = may_double
        self._memo: dict[tuple[str, int], Points] = {}

    # conditional values of a win and of a loss at cube c
    def ends(self, c: int, singles_only: bool = False) -> tuple[float, float]:
        v = self.value
        if singles_only:
            return v(-c), v(c)
        pr = self.probs
        w, lo = pr.win, pr.lose
        if w > EPS:
            win = ((w - pr.win_gammon) * v(c) + (pr.win_gammon - pr.win_backgammon) * v(2 * c)
                   + pr.win_backgammon * v(3 * c)) / w
        else:
            win = v(c)
        if lo > EPS:
            lose = ((lo - pr.lose_gammon) * v(-c) + (pr.lose_gammon - pr.lose_backgammon) * v(-2 * c)
                    + pr.lose_backgammon * v(-3 * c)) / lo
        else:
            lose = v(-c)
        return lose, win

    def dead(self, c: int, singles_only: bool = False) -> float:
        lose, win = self.ends(c, singles_only)
        return self.probs.win * win + self.probs.lose * lose

    def cash_mine(self, c: int) -> float | None:
        """My cash point with cube ``c`` (the opponent would then own ``2c``)."""
        if not self.may_double(0, c):
            return None
        return solve(self.live("opp", 2 * c), self.value(c))

    def cash_theirs(self, c: int) -> float | None:
        """The opponent's cash point with cube ``c``, on my winning-chance scale."""
        if not self.may_double(1, c):
            return None
        return solve(self.live("me", 2 * c), self.value(-c))

    def live(self, owner: str, c: int, singles_only: bool = False) -> Points:
        """Live-cube value as points ``(p, value)`` with cube ``c`` owned by ``owner``
        (``"me"``, ``"opp"`` or ``"centre"``)."""
        key = (owner + ("/1" if singles_only else ""), c)
        got = self._memo.get(key)
        if got is not None:
            return got
        lose, win = self.ends(c, singles_only)
        pts: list[tuple[float, float]] = [(0.0, lose)]
        theirs = self.cash_theirs(c) if owner in ("opp", "centre") else None
        mine = self.cash_mine(c) if owner in ("me", "centre") else None
        if theirs is not None and mine is not None and theirs >= mine:
            theirs = mine = None  # degenerate window: the cube gives no leverage
        if theirs is not None:
            pts.append((theirs, self.value(-c)))
        if mine is not None:
            pts.append((mine, self.value(c)))
        pts.append((1.0, win))
        out = tuple(pts)
        self._memo[key] = out
        return out

    def cubeful(self, owner: str, c: int, x: float, singles_only: bool = False) -> float:
        live = interp(self.live(owner, c, singles_only), self.probs.win)
        return x * live + (1.0 - x) * self.dead(c, singles_only)


def even_game_mwc(probs: ProbabilitiesLike, away_me: int, away_opp: int,
                  lookup: Callable[[int, int], float], cube_life: float) -> float:
    """MWC at ``away_me``/``away_opp`` (neither 1-away) with a centred cube, where ``lookup``
    gives the MWC of the scores after the game; used to build :func:`analyzer.eval.met.computed_met`.

    >>> def after(a: int, b: int) -> float:
    ...     return 1.0 if a <= 0 else 0.0 if b <= 0 else 0.5
    >>> even_game_mwc([0.5, 0.1, 0, 0.1, 0], 2, 2, after, 0.68)
    0.5
    """
    aways = (away_me, away_opp)

    def value(k: int) -> float:
        return lookup(away_me - k, away_opp) if k >= 0 else lookup(away_me, away_opp + k)

    model = CubeModel(Probabilities.of(probs), value, lambda side, c: aways[side] > c)
    return model.cubeful("centre", 1, cube_life)
