"""Compiled cubeful values after many plays at once (numba), for the luck of a roll.

The luck of one roll values the best plays of all 21 rolls cubefully: about 84 calls of the cube model
per decision, which in Python cost most of a 0-ply review. :func:`after_values` runs the same steps on
arrays, one call per decision: the opponent's outcome distribution turned into the five clamped
probabilities exactly as ``Probabilities.of(Probabilities.from_outcomes(mover).flip(), clamp=True)``
does, the cube life of :func:`analyzer.eval.cube.cube_life_of`, and Janowski's value of
:mod:`analyzer.eval._cube_kernel` (itself the twin of :class:`analyzer.eval.cube_model.CubeModel`),
each operation in the same order, so every value equals the Python one to the last bit.
:func:`analyzer.eval.cube.cubeful_after_many` is the typed entry point.

>>> from analyzer.core.match import MatchState
>>> from analyzer.core.position import Position
>>> from analyzer.eval.cube import CUBE_LIFE_CONSTANTS, cube_life_of, cube_tables, cubeful_value
>>> from analyzer.eval.probabilities import Probabilities
>>> vt, may = cube_tables(MatchState(), 0)
>>> raw = np.array([[0.5, 0.1, 0.0, 0.3, 0.1, 0.0]])  # the side on roll's view, after the other's play
>>> board = np.zeros((1, 64), np.int8); board[0, 6] = 15; board[0, 19] = -15
>>> out = np.zeros(1)
>>> after_values(raw, board, np.array([0]), vt[0], may[0], 0, False, False, CUBE_LIFE_CONSTANTS, out)
>>> p = Probabilities.of(Probabilities.from_outcomes(raw[0, [3, 4, 5, 0, 1, 2]].tolist()).flip(), clamp=True)
>>> float(out[0]) == cubeful_value(p, MatchState(jacoby=False), 0, cube_life=cube_life_of(Position(board[0].tobytes())))
True
"""

from __future__ import annotations

import numpy as np

from analyzer.core.jit import as_int64, njit
from analyzer.core.layout import MOVER_BAR, OPP_BAR
from analyzer.eval import jitcache
from analyzer.eval._cube_kernel import cash_chain, janowski

Arr = np.ndarray  # numba ignores annotations; this names the array arguments for mypy

jitcache.refresh()
jitcache.refresh_module(__file__, ("eval/_cube_kernel.py",))


@njit
def life_of(b: Arr, life: Arr) -> float:
    """Janowski's cube life of the standard board ``b`` for its side on roll, as
    :func:`analyzer.eval.cube.cube_life_of` computes it (``life``: its constants,
    :data:`analyzer.eval.cube.CUBE_LIFE_CONSTANTS`)."""
    my_back = 0
    opp_back = 25
    if b[MOVER_BAR] != 0:
        my_back = 25
    else:
        for p in range(24, 0, -1):
            if b[p] > 0:
                my_back = p
                break
    if b[OPP_BAR] != 0:
        opp_back = 0
    else:
        for p in range(1, 25):
            if b[p] < 0:
                opp_back = p
                break
    if my_back >= opp_back:
        return float(life[0])
    if my_back <= 6 and opp_back >= 19:
        return float(life[1])
    pips = 0
    for p in range(1, 25):
        if b[p] > 0:
            pips += p * b[p]
    x = life[2] + life[3] * pips
    lo = life[4]
    hi = life[5]
    y = lo if lo > x else x  # Python's max(x, lo): the first unless the second is larger
    return float(hi if hi < y else y)


@njit
def _clamp(x: float, lo: float, hi: float) -> float:
    """Python's ``min(max(x, lo), hi)``, with its choice on ties."""
    y = lo if lo > x else x
    return hi if hi < y else y


@njit
def probabilities_after(o: Arr, p: Arr) -> None:
    """The side on roll's five clamped probabilities ``p`` from his own 6-outcome distribution ``o``
    (the net's output on his board), computed as the mover of the play before sees them and then
    flipped: ``Probabilities.of(Probabilities.from_outcomes(o[[3, 4, 5, 0, 1, 2]]).flip(), clamp=True)``."""
    v = np.empty(6, np.float64)
    s = 0.0
    for j in range(6):
        x = float(o[(j + 3) % 6])
        v[j] = x if x > 0.0 else 0.0  # Python's max(0.0, x)
        s += v[j]
    for j in range(6):
        v[j] = v[j] / s
    win = v[0] + v[1] + v[2]  # the mover's chances
    wg = v[1] + v[2]
    wbg = v[2]
    lg = v[4] + v[5]
    lbg = v[5]
    w = _clamp(1.0 - win - 0.0, 0.0, 1.0)  # flipped: the side on roll wins when the mover loses
    g = _clamp(lg, 0.0, w)
    lgc = _clamp(wg, 0.0, 1.0 - w)
    p[0] = w
    p[1] = g
    p[2] = _clamp(lbg, 0.0, g)
    p[3] = lgc
    p[4] = _clamp(wbg, 0.0, lgc)


@njit
def after_values(raw: Arr, boards: Arr, idx: Arr, vx: Arr, mayx: Arr, owner: int, singles: bool,
                 crawford: bool, life: Arr, out: Arr) -> None:
    """``out[k]``: the cubeful value (not doubling now; money: points, match: MWC) for the side on roll
    of board ``boards[idx[k]]`` with outcome distribution ``raw[idx[k]]`` (his view), the cube at the
    tables' first level owned by ``owner`` (0 centred, 1 him, 2 his opponent); ``vx``/``mayx``: his
    tables (:func:`analyzer.eval.cube.cube_tables` with him as the player, index 0)."""
    n = vx.shape[0]
    p = np.empty(5, np.float64)
    mine = np.empty(n, np.float64)
    theirs = np.empty(n, np.float64)
    for k in range(idx.shape[0]):
        i = idx[k]
        probabilities_after(raw[i], p)
        x = life_of(boards[i], life)
        cash_chain(p, vx, mayx, mine, theirs)
        out[k] = janowski(p, x, vx, mine, theirs, as_int64(0), owner, singles, crawford)
