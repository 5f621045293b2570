"""Compiled cube kernels (numba): Janowski's cubeful value on tables, and the n-ply cubeful search.

:mod:`analyzer.eval.cube` holds the cube model in plain Python; this module runs the same model
on arrays so that it can be used thousands of times per decision (at the leaves of an n-ply
search, and at every cube decision inside a match-play rollout).

**Tables.** The value of an outcome and the cube access depend on the score, not on the cube
position in the game, so one call prepares them once (:func:`analyzer.eval.cube.cube_tables`).
Cube *levels* ``j`` stand for the cube ``c0 * 2**j`` (``c0``: the cube of the game's state when the
tables were made). ``vt[X, j, m - 1]`` is the value to side ``X`` (0: the reference player ``A``,
1: his opponent ``B``) of winning ``m * c0 * 2**j`` points (money: the points; match: the MWC),
``vt[X, j, 3 + m - 1]`` of losing them. ``may[X, k, j]`` says whether, seen by ``X``, side ``k``
(0: ``X``, 1: his opponent) would redouble a cube of level ``j`` in the live-cube model (money: up to
24 doublings; match: not once he needs no more than the cube; never in the Crawford game or past a
cube limit). The last level has no cube access for either side.

**Janowski.** :func:`cash_chain` computes, for one set of probabilities, the cash points of both
sides at every level from the top down (a cash point at level ``j`` is where the taker of level
``j + 1`` is indifferent), and :func:`janowski` the cubeful value ``x * live + (1 - x) * dead`` for
a cube at level ``s`` owned by the side on roll, his opponent or nobody. The arithmetic is that of
:class:`analyzer.eval.cube_model.CubeModel` step by step, so the values are the same to the last bit.

**The search.** :func:`build_tree` lays out the game tree breadth first: node ``(d, i)`` at depth
``d`` has the children ``(d + 1, 21 i + r)``, one per roll ``r``, reached by the best 0-ply play of
that roll (the engine's rule: every play evaluated at 0-ply, in contact positions only the 5 best
by the pruning net; so the cubeless part of the search is the engine's n-ply evaluation). A play
that ends the game makes the child a finished node; its descendants are unused. The leaves (depth
``ply``) get their 0-ply probabilities and cube life. :func:`cube_backup` then values every node
for every cube state (level ``s``, owner: centred, ``A`` or ``B``), bottom up, in ``A``'s units.

>>> from analyzer.core.match import MatchState
>>> from analyzer.eval.cube import cube_tables
>>> vt, may = cube_tables(MatchState(), 0)
>>> out = np.zeros(3)
>>> cube_values(np.array([0.7, 0, 0, 0.3, 0, 0]), 0.68, vt[0], may[0], 0, 0, False, False, out)
>>> [round(float(v), 3) for v in out]  # points (ND, DT, DP), as cube_decision gives them
[0.581, 0.596, 1.0]
>>> tree_size(2)  # the root, 21 nodes after one roll, 441 after two
463
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from analyzer.core.jit import as_bool, as_int64, njit
from analyzer.core.layout import NSLOTS
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.bearoff import bearoff_class
from analyzer.eval.engine import ROLL_D1, ROLL_D2, best_reply, eval0, level, new_scratch
from analyzer.eval.net import NOUT
from analyzer.rules.kernel import flip_into

Arr = np.ndarray  # numba ignores annotations; this names the array arguments for mypy
EPS = 1e-12  # as analyzer.eval.cube_model.EPS
OWN_CENTRE, OWN_A, OWN_B = 0, 1, 2
ST_LIVE, ST_OVER, ST_UNUSED = 0, 1, 2


jitcache.refresh()
jitcache.refresh_module(__file__)


# ---------------------------------------------------------------------- probabilities, cube life
@njit
def probs5(o: Arr, out: Arr) -> None:
    """Five clamped probabilities (win, wg, wbg, lg, lbg) from a 6-outcome distribution ``o``, as
    ``Probabilities.of(Probabilities.from_outcomes(o), clamp=True)`` computes them."""
    v = np.empty(6, np.float64)
    s = 0.0
    for i in range(6):
        v[i] = max(0.0, float(o[i]))
        s += v[i]
    for i in range(6):
        v[i] = v[i] / s
    win = v[0] + v[1] + v[2]
    wg = v[1] + v[2]
    wbg = v[2]
    lg = v[4] + v[5]
    lbg = v[5]
    w = min(max(win, 0.0), 1.0)
    g = min(max(wg, 0.0), w)
    lgc = min(max(lg, 0.0), 1.0 - w)
    out[0] = w
    out[1] = g
    out[2] = min(max(wbg, 0.0), g)
    out[3] = lgc
    out[4] = min(max(lbg, 0.0), lgc)


@njit
def cube_life(b: Arr) -> float:
    """Janowski's cube life of board ``b`` with gnubg's defaults (as :func:`analyzer.eval.cube.cube_life_of`)."""
    if F.classify(b) != F.CLASS_RACE:
        return 0.68
    if bearoff_class(b) != 0:
        return 0.6
    pips = 0
    for p in range(1, 25):
        if b[p] > 0:
            pips += p * b[p]
    return min(max(0.55 + 0.00125 * pips, 0.6), 0.7)


# ---------------------------------------------------------------------- Janowski on tables
@njit
def _ends(p: Arr, vx: Arr, j: int, singles: bool) -> tuple[float, float]:
    """(value of a loss, value of a win) at level ``j``, averaged over the gammon fractions."""
    if singles:
        return float(vx[j, 3]), float(vx[j, 0])
    w = p[0]
    win = ((w - p[1]) * vx[j, 0] + (p[1] - p[2]) * vx[j, 1] + p[2] * vx[j, 2]) / w if w > EPS else vx[j, 0]
    lo = 1.0 - w
    lose = ((lo - p[3]) * vx[j, 3] + (p[3] - p[4]) * vx[j, 4] + p[4] * vx[j, 5]) / lo if lo > EPS else vx[j, 3]
    return float(lose), float(win)


@njit
def _solve(pp: Arr, pv: Arr, k: int, target: float) -> float:
    """Where the increasing broken line (``k`` points) reaches ``target`` in (0, 1); NaN if nowhere."""
    if target <= pv[0] or target >= pv[k - 1]:
        return np.nan
    for i in range(k - 1):
        v0 = pv[i]
        v1 = pv[i + 1]
        if v0 <= target <= v1 and v1 > v0:
            return float(pp[i] + (pp[i + 1] - pp[i]) * (target - v0) / (v1 - v0))
    return np.nan


@njit
def _interp(pp: Arr, pv: Arr, k: int, p: float) -> float:
    for i in range(k - 1):
        p0 = pp[i]
        p1 = pp[i + 1]
        if p <= p1 or p1 >= 1.0:
            if p1 - p0 <= EPS:
                return float(pv[i + 1])
            return float(pv[i] + (pv[i + 1] - pv[i]) * (p - p0) / (p1 - p0))
    return float(pv[k - 1])


@njit
def _line(p: Arr, vx: Arr, j: int, singles: bool, theirs: float, mine: float, pp: Arr, pv: Arr) -> int:
    """The live-cube broken line at level ``j`` with the given cash points (NaN: none)."""
    lose, win = _ends(p, vx, j, singles)
    pp[0] = 0.0
    pv[0] = lose
    k = 1
    if not np.isnan(theirs):
        pp[k] = theirs
        pv[k] = vx[j, 3]
        k += 1
    if not np.isnan(mine):
        pp[k] = mine
        pv[k] = vx[j, 0]
        k += 1
    pp[k] = 1.0
    pv[k] = win
    return k + 1


@njit
def cash_chain(p: Arr, vx: Arr, mayx: Arr, mine: Arr, theirs: Arr) -> None:
    """Cash points of the side on roll (``mine``) and of his opponent (``theirs``, on the side on
    roll's winning-chance scale) at every level, NaN where the side has no (live) cube access.

    ``p``: five probabilities of the side on roll; ``vx``/``mayx``: his tables (``vt[X]``, ``may[X]``).
    """
    top = vx.shape[0] - 1
    pp = np.empty(4, np.float64)
    pv = np.empty(4, np.float64)
    for j in range(top, -1, -1):
        mine[j] = np.nan
        theirs[j] = np.nan
        if j == top:
            continue
        if mayx[0, j]:  # the opponent takes 2c and owns it: his live line at level j + 1
            k = _line(p, vx, j + 1, as_bool(False), theirs[j + 1], np.nan, pp, pv)
            mine[j] = _solve(pp, pv, k, vx[j, 0])
        if mayx[1, j]:
            k = _line(p, vx, j + 1, as_bool(False), np.nan, mine[j + 1], pp, pv)
            theirs[j] = _solve(pp, pv, k, vx[j, 3])


@njit
def janowski(p: Arr, x: float, vx: Arr, mine: Arr, theirs: Arr, s: int, owner: int, singles: bool,
             crawford: bool) -> float:
    """Cubeful value (not doubling now) for the side on roll with the cube at level ``s`` owned by
    ``owner`` (0 centred, 1 the side on roll, 2 his opponent); ``mine``/``theirs`` from
    :func:`cash_chain`. ``singles``: gammons count single (Jacoby, centred cube). In the Crawford
    game the cube is dead: the expected result."""
    if crawford:
        lose, win = _ends(p, vx, s, as_bool(False))
        return float(p[0] * win + (1.0 - p[0]) * lose)
    th = theirs[s] if owner != 1 else np.nan
    mi = mine[s] if owner != 2 else np.nan
    if not np.isnan(th) and not np.isnan(mi) and th >= mi:
        th = np.nan
        mi = np.nan
    pp = np.empty(4, np.float64)
    pv = np.empty(4, np.float64)
    k = _line(p, vx, s, singles, th, mi, pp, pv)
    live = _interp(pp, pv, k, p[0])
    lose, win = _ends(p, vx, s, singles)
    dead = p[0] * win + (1.0 - p[0]) * lose
    return float(x * live + (1.0 - x) * dead)


@njit
def cube_values(o: Arr, x: float, vx: Arr, mayx: Arr, s: int, owner: int, singles: bool, crawford: bool,
                out: Arr) -> None:
    """Janowski values of the side on roll from his 6-outcome distribution ``o``: ``out`` = (no
    double, double/take: the opponent owns level ``s + 1``, double/pass), in his units."""
    p = np.empty(5, np.float64)
    probs5(o, p)
    n = vx.shape[0]
    mine = np.empty(n, np.float64)
    theirs = np.empty(n, np.float64)
    cash_chain(p, vx, mayx, mine, theirs)
    out[0] = janowski(p, x, vx, mine, theirs, s, owner, singles, crawford)
    out[1] = janowski(p, x, vx, mine, theirs, s + 1, as_int64(2), as_bool(False), crawford) if s + 1 < n else np.nan
    out[2] = vx[s, 0]


# ---------------------------------------------------------------------- the search tree
@njit
def tree_size(ply: int) -> int:
    """Nodes of a full 21-ary tree of depth ``ply`` (the root included)."""
    n = 0
    size = 1
    for _ in range(ply + 1):
        n += size
        size *= 21
    return n


@njit
def build_tree(root: Arr, ply: int, ev: tuple, ws: tuple,  # type: ignore[type-arg]
               boards: Arr, status: Arr, lost: Arr, probs: Arr, life: Arr) -> int:
    """Fill the search tree of ``root`` (see the module docstring): ``boards`` (positions before
    the roll, side on roll's view), ``status`` (0 live, 1 the game ended on the play leading here,
    2 unused), ``lost`` (for a finished node, the side on roll's loss: 0 single, 1 gammon, 2
    backgammon), and for live leaves their 0-ply outcome distribution ``probs`` and cube life
    ``life``. ``ev``: the engine's evaluator (:meth:`analyzer.eval.engine.Engine.evaluator_args`),
    ``ws``: one set of move buffers (:meth:`analyzer.rules.kernel.Workspace.args`). Returns 0, or
    -1 when the move buffers overflow."""
    sc = new_scratch(ev[0])
    bestp = np.zeros(NOUT, np.float32)
    for i in range(NSLOTS):
        boards[0, i] = root[i]
    status[0] = ST_LIVE
    off = 0
    size = 1
    for _ in range(ply):
        nxt = off + size
        for i in range(size):
            r = 0
            for d1 in range(1, 7):
                for d2 in range(d1, 7):
                    if _expand(off + i, nxt + 21 * i + r, d1, d2, ev, ws, sc, bestp, boards, status, lost) < 0:
                        return -1
                    r += 1
        off = nxt
        size *= 21
    for i in range(size):
        _leaf(off + i, ev, sc, boards, status, probs, life)
    return 0


@njit
def _expand(node: int, child: int, d1: int, d2: int, ev: tuple, ws: tuple, sc: tuple,  # type: ignore[type-arg]
            bestp: Arr, boards: Arr, status: Arr, lost: Arr) -> int:
    """Child ``child`` of tree node ``node``: reached by the best 0-ply play of (d1, d2), a finished
    node when that play ends the game, unused below a node that is not live. Returns -1 when the move
    buffers ``ws`` overflow, else 0."""
    if status[node] != ST_LIVE:
        status[child] = ST_UNUSED
        return 0
    row = best_reply(boards[node], d1, d2, ev, ws, sc, bestp)
    if row < 0:
        return -1
    chosen = ws[0][row]
    if chosen[26] >= 15:
        status[child] = ST_OVER
        lost[child] = F.game_over_outcome(chosen)
    else:
        status[child] = ST_LIVE
        flip_into(chosen, boards[child])
    return 0


@njit
def _leaf(node: int, ev: tuple, sc: tuple, boards: Arr, status: Arr, probs: Arr,  # type: ignore[type-arg]
          life: Arr) -> None:
    """A live leaf's 0-ply outcome distribution and cube life."""
    if status[node] == ST_LIVE:
        pa = sc[4]
        eval0(boards[node], ev, sc, pa)
        for k in range(NOUT):
            probs[node, k] = pa[k]
        life[node] = cube_life(boards[node])


@numba.njit(cache=True, parallel=True)
def build_tree_parallel(root: Arr, ply: int, ev: tuple, wss: tuple,  # type: ignore[type-arg]
                        boards: Arr, status: Arr, lost: Arr, probs: Arr, life: Arr) -> int:
    """:func:`build_tree` with the work of each depth shared among threads: the (node, roll) pairs
    of a depth, then the leaves, dealt out in turn (pair ``j`` to thread ``j % threads``). Every
    child depends on its parent alone, so the tree is :func:`build_tree`'s to the last bit whatever
    the number of threads. ``wss``: one set of move buffers per thread along a leading axis
    (:class:`analyzer.eval.engine._LevelWorkspace` with one level per thread). Returns 0, or -1 when
    the move buffers overflow."""
    nt = wss[0].shape[0]
    # numba cannot hand a tuple holding tuples of arrays to the threads: take ``ev`` apart
    W, use_db, dist, first, win2, P, use_prune = ev
    for i in range(NSLOTS):
        boards[0, i] = root[i]
    status[0] = ST_LIVE
    failed = np.zeros(nt, np.int64)
    off = 0
    size = 1
    for _ in range(ply):
        nxt = off + size
        for t in prange(nt):
            evt = (W, use_db, dist, first, win2, P, use_prune)
            ws = level(wss, as_int64(t))
            sc = new_scratch(W)
            bestp = np.zeros(NOUT, np.float32)
            for j in range(t, 21 * size, nt):
                r = j % 21
                if _expand(off + j // 21, nxt + j, ROLL_D1[r], ROLL_D2[r], evt, ws, sc, bestp, boards, status,
                           lost) < 0:
                    failed[t] = 1
                    break
        for t in range(nt):
            if failed[t]:
                return -1
        off = nxt
        size *= 21
    for t in prange(nt):
        evt = (W, use_db, dist, first, win2, P, use_prune)
        sc = new_scratch(W)
        for i in range(t, size, nt):
            _leaf(off + i, evt, sc, boards, status, probs, life)
    return 0


@njit
def cubeless_backup(ply: int, status: Arr, lost: Arr, probs: Arr, out: Arr) -> None:
    """Mean outcome distribution of the root (its side on roll's view): leaves' 0-ply values,
    finished nodes' results, 21-roll means in between (``out``: 6)."""
    n = status.shape[0]
    cl = np.zeros((n, NOUT), np.float64)
    off = tree_size(ply) - 21 ** ply
    size = 21 ** ply
    for d in range(ply, -1, -1):
        for i in range(size):
            node = off + i
            if status[node] == ST_UNUSED:
                continue
            if status[node] == ST_OVER:
                cl[node, 3 + lost[node]] = 1.0
            elif d == ply:
                for k in range(NOUT):
                    cl[node, k] = probs[node, k]
            else:
                child0 = off + size + 21 * i
                r = 0
                for d1 in range(1, 7):
                    for d2 in range(d1, 7):
                        wt = 1.0 if d1 == d2 else 2.0
                        for k in range(NOUT):
                            cl[node, k] += wt * cl[child0 + r, (k + 3) % 6]
                        r += 1
                for k in range(NOUT):
                    cl[node, k] /= 36.0
        if d > 0:
            size //= 21
            off -= size
    for k in range(NOUT):
        out[k] = cl[0, k]


@njit
def cube_backup(ply: int, status: Arr, lost: Arr, probs: Arr, life: Arr, vt: Arr, may: Arr, nstates: int,
                money: bool, jacoby: bool, beavers: bool, crawford: bool, max_level: int, nd: Arr,
                val: Arr) -> None:
    """Cubeful values of every node for every cube state, in ``A``'s units (``A`` is on roll at
    even depths): ``nd[node, s, o]`` with no double now, ``val[node, s, o]`` with the best cube
    action of the side on roll and the best answer. ``s``: level 0..``nstates - 1``; ``o``: 0
    centred, 1 ``A`` owns, 2 ``B`` owns. ``max_level``: the highest level a double may reach (cube
    limit). Leaves: Janowski's value (:func:`janowski`); finished nodes: the result; inner nodes:
    the mean over the 21 rolls of the children's ``val``. A double is offered when the side on roll
    has access and ``min(take, pass)`` beats no double for him; the taker passes when passing is
    better for him, and beavers (money with beavers) when beavering beats taking."""
    top = vt.shape[1]
    mine = np.empty(top, np.float64)
    theirs = np.empty(top, np.float64)
    p = np.empty(5, np.float64)
    off = tree_size(ply) - 21 ** ply
    size = 21 ** ply
    for d in range(ply, -1, -1):
        x_side = d % 2  # 0: A on roll here, 1: B
        for i in range(size):
            node = off + i
            st = status[node]
            if st == ST_UNUSED:
                continue
            if st == ST_OVER:
                m = lost[node]
                for s in range(nstates):
                    for o in range(3):
                        mm = 0 if (money and jacoby and o == OWN_CENTRE) else m
                        nd[node, s, o] = vt[0, s, 3 + mm] if x_side == 0 else vt[0, s, mm]
                        val[node, s, o] = nd[node, s, o]
                continue
            if d == ply:
                probs5(probs[node], p)
                cash_chain(p, vt[x_side], may[x_side], mine, theirs)
                for s in range(nstates):
                    for o in range(3):
                        rel = 0 if o == OWN_CENTRE else (1 if o == x_side + 1 else 2)
                        singles = money and jacoby and o == OWN_CENTRE
                        v = janowski(p, life[node], vt[x_side], mine, theirs, s, rel, singles, crawford)
                        if x_side == 1:
                            v = -v if money else 1.0 - v
                        nd[node, s, o] = v
            else:
                child0 = off + size + 21 * i
                for s in range(nstates):
                    for o in range(3):
                        acc = 0.0
                        r = 0
                        for d1 in range(1, 7):
                            for d2 in range(d1, 7):
                                wt = 1.0 if d1 == d2 else 2.0
                                acc += wt * val[child0 + r, s, o]
                                r += 1
                        nd[node, s, o] = acc / 36.0
            taker = 2 - x_side  # owner code of the side not on roll
            for s in range(nstates):
                for o in range(3):
                    v = nd[node, s, o]
                    access = o == OWN_CENTRE or o == x_side + 1
                    if crawford or not access or s + 1 > max_level or s + 1 >= nstates:
                        val[node, s, o] = v
                        continue
                    dt = nd[node, s + 1, taker]
                    dp = vt[0, s, 0] if x_side == 0 else vt[0, s, 3]
                    if money and beavers and s + 2 <= max_level and s + 2 < nstates:
                        bv = nd[node, s + 2, taker]
                        # the taker is the favourite and a beaver is better for him than a take
                        if (x_side == 0 and dt < 0.0 and bv < dt) or (x_side == 1 and dt > 0.0 and bv > dt):
                            dt = bv
                    if x_side == 0:
                        val[node, s, o] = max(v, min(dt, dp))
                    else:
                        val[node, s, o] = min(v, max(dt, dp))
        if d > 0:
            size //= 21
            off -= size
