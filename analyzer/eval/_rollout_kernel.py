"""Compiled rollout trials (numba): greedy 0-ply play, truncation, bear-off stops, variance reduction.

One *trial* plays a game out from a start board with a given dice sequence: the first two rolls
are chosen by the caller (stratified), the later ones come from numba's Mersenne Twister seeded
with the trial's own seed, so a trial is a pure function of (start board, rolls, seed, weights).
Every play is the best 0-ply play of the roll (as in :mod:`analyzer.train.selfplay`, with the
bear-off databases used where they apply). The trial stops

* when the game is over (the exact result),
* on reaching a bear-off database position (its 0-ply value: exact in the two-sided database),
* after ``truncate`` plies when ``truncate > 0`` (the 0-ply evaluation), or
* at :data:`MAX_TRIAL_PLIES` (the 0-ply evaluation; never reached in practice).

With variance reduction each ply's *luck* -- the value after the best play of the roll thrown
minus the mean over the 21 rolls of the value after each roll's best play, all at 0-ply -- is
summed and subtracted from the trial's result, per outcome, as gnubg does.

Results are 6-outcome vectors (win single/gammon/backgammon, lose single/gammon/backgammon) from
the *reference* side's view: the side on roll of the start board when ``side0 == 0``, its
opponent when ``side0 == 1`` (rolling out a play's result, the opponent is on roll).

>>> import numpy as np
>>> from analyzer.rules.kernel import Workspace
>>> from analyzer.core.position import Position
>>> from analyzer.eval.net import NetSet
>>> nets = NetSet.initial(hidden=4, race_hidden=4, seed=0)
>>> z = np.zeros((1, 1), np.float32)
>>> ev = (nets.kernel_args(), False, z, z, z, nets.prune_args(), False)  # Engine.evaluator_args, no bear-off
>>> b = np.frombuffer(Position.from_points({1: 1}, {24: 1}).board, np.int8).copy()
>>> out = np.zeros(6)
>>> cf = np.zeros(1)
>>> vt, may = np.zeros((2, 1, 6)), np.zeros((2, 2, 1), np.bool_)  # match tables (unused in money play)
>>> run_trial(b, 0, 5, 5, 1, 0, False, True, 1.0, 0, True, False, vt, may, False, 0, ev, Workspace(1024).args(),
...           out, cf)
1
>>> out.tolist()  # the side on roll bears off its last checker with any roll: a single win
[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
>>> cf.tolist()  # ND and DT are equal (1.0) for a sure single win: no double, one point
[1.0]
>>> v = np.zeros(4)
>>> money_cube(np.array([0.7, 0.0, 0.0, 0.3, 0.0, 0.0]), 0.68, 0, v)
>>> [round(float(t), 3) for t in v]  # as analyzer.eval.cube.cube_decision: 0.581, 0.596, 1.0
[0.581, 0.596, 1.0, 0.596]
"""

from __future__ import annotations

import numpy as np

from analyzer.core.jit import njit
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval._cube_kernel import cube_life, cube_values
from analyzer.eval.bearoff import bearoff_class
from analyzer.eval.engine import best_reply, eval0, new_scratch
from analyzer.eval.net import NOUT, equity6, swap_outcomes
from analyzer.rules.kernel import flip_into

MAX_TRIAL_PLIES = 2000
Arr = np.ndarray  # numba ignores annotations; this names the array arguments for mypy


jitcache.refresh()
jitcache.refresh_module(__file__, ("eval/_cube_kernel.py",))


@njit
def _to_reference(src: Arr, side: int, dst: Arr) -> None:
    """Copy a mover's-view distribution into the reference view (swapped when ``side`` is 1)."""
    for i in range(NOUT):
        dst[i] = src[i] if side == 0 else src[(i + 3) % 6]


@njit
def money_cube(p: Arr, x: float, owner: int, out: Arr) -> None:
    """Money cube values of the side on roll (per unit of the current cube) from his outcome
    distribution ``p`` (6) and cube life ``x``: ``out`` = (no double, double/take, double/pass,
    value with the best cube action). ``owner``: 0 centred, 1 he owns the cube, 2 the opponent does
    (then only ``out[0]`` and ``out[3]`` mean anything).

    The live-cube model of :mod:`analyzer.eval.cube` with an unlimited cube: the cash points of
    both sides are the same at every cube level, so they solve two linear equations.
    """
    w = p[0] + p[1] + p[2]
    lo = p[3] + p[4] + p[5]
    big_w = (p[0] + 2.0 * p[1] + 3.0 * p[2]) / w if w > 1e-9 else 1.0
    big_l = (p[3] + 2.0 * p[4] + 3.0 * p[5]) / lo if lo > 1e-9 else 1.0
    a = 1.5 / (big_w + 1.0)
    b = (big_l - 0.5) / (1.0 + big_l)
    cp = a / (1.0 - b * (1.0 - a))  # my cash point
    q = cp * b  # the opponent's cash point, on my winning-chance scale
    dead = w * big_w - lo * big_l
    # live values: me owning, the opponent owning, centred
    live_me = -big_l + (1.0 + big_l) * w / cp if w <= cp else 1.0 + (big_w - 1.0) * (w - cp) / (1.0 - cp)
    live_opp = -big_l + (big_l - 1.0) * w / q if w <= q else -1.0 + (big_w + 1.0) * (w - q) / (1.0 - q)
    if w <= q:
        live_c = live_opp
    elif w <= cp:
        live_c = -1.0 + 2.0 * (w - q) / (cp - q)
    else:
        live_c = live_me
    live = live_c if owner == 0 else (live_me if owner == 1 else live_opp)
    nd = x * live + (1.0 - x) * dead
    dt = 2.0 * (x * live_opp + (1.0 - x) * dead)
    out[0] = nd
    out[1] = dt
    out[2] = 1.0
    out[3] = nd if owner == 2 else max(nd, min(dt, 1.0))


@njit
def _after_value(cand: Arr, bestp: Arr, tmp: Arr, oppv: Arr, cv: Arr, opp_owner: int) -> float:
    """Money cube value per unit cube, for the side that just played, of the afterstate ``cand``
    whose outcome distribution (his view) is ``bestp``: minus the opponent's value before his roll
    (cube owned as ``opp_owner`` says, from the opponent's side), or the result of a finished game."""
    if cand[26] >= 15:
        return equity6(bestp)
    flip_into(cand, tmp)
    swap_outcomes(bestp, oppv)
    money_cube(oppv, cube_life(tmp), opp_owner, cv)
    return float(-cv[3])


@njit
def _may_redouble(owner_rel: int, level: int, vt: Arr, crawford: bool, max_level: int) -> bool:
    """Match play: may the side on roll double (access, no Crawford game, room in the tables and the limit)?"""
    return owner_rel != 2 and not crawford and level + 1 <= max_level and level + 1 < vt.shape[1]


@njit
def match_cube(p: Arr, x: float, side: int, level: int, owner_rel: int, vt: Arr, may: Arr, crawford: bool,
               max_level: int, out: Arr) -> None:
    """Match cube values of ``side`` (0 reference, 1 the other) on roll, in his MWC, from his outcome
    distribution ``p``: ``out`` = (no double, double/take, double/pass, value with the best cube
    action) with the cube at ``level`` owned as ``owner_rel`` says (0 centred, 1 him, 2 the
    opponent); Janowski's model on the MET (:func:`analyzer.eval._cube_kernel.cube_values`)."""
    cube_values(p, x, vt[side], may[side], level, owner_rel, False, crawford, out)
    if _may_redouble(owner_rel, level, vt, crawford, max_level):
        out[3] = max(out[0], min(out[1], out[2]))
    else:
        out[3] = out[0]


@njit
def _after_value_match(cand: Arr, bestp: Arr, tmp: Arr, oppv: Arr, cv: Arr, mover: int, level: int,
                       opp_owner: int, vt: Arr, may: Arr, crawford: bool, max_level: int) -> float:
    """Match: MWC, for ``mover`` who just played, of the afterstate ``cand`` (outcome distribution
    ``bestp``, his view): one minus the opponent's :func:`match_cube` value before his roll, or the
    MWC of the finished game."""
    if cand[26] >= 15:
        v = 0.0
        for i in range(NOUT):
            v += bestp[i] * vt[mover, level, i]
        return v
    flip_into(cand, tmp)
    swap_outcomes(bestp, oppv)
    match_cube(oppv, cube_life(tmp), 1 - mover, level, opp_owner, vt, may, crawford, max_level, cv)
    return float(1.0 - cv[3])


@njit
def _cube_owner_for(owner: int, side: int) -> int:
    """Owner code (0 centred, 1 reference side, 2 the other) seen by the side on roll ``side``."""
    if owner == 0:
        return 0
    return 1 if (owner == 1) == (side == 0) else 2


@njit
def _match_result(ref: Arr, vt: Arr, level: int) -> float:
    """The reference side's MWC of a finished game (``ref``: its outcome distribution) at ``level``."""
    v = 0.0
    for i in range(NOUT):
        v += ref[i] * vt[0, level, i]
    return v


@njit
def run_trial(start: Arr, side0: int, r1: int, r2: int, seed: int, truncate: int, vr: bool,
              cube_play: bool, cube0: float, owner0: int, double_first: bool,
              match: bool, vt: Arr, may: Arr, crawford: bool, max_level: int,
              ev: tuple, ws: tuple, out: Arr, cf: Arr) -> int:  # type: ignore[type-arg]
    """Play one trial from ``start`` (see the module docstring) and write its (luck-corrected)
    result into ``out`` (6, reference view). ``r1``/``r2`` are the first two rolls as indices
    0..35 (``6 * (die1 - 1) + die2 - 1``); ``truncate`` <= 0 plays to the end. ``ev``: the
    evaluator (:meth:`analyzer.eval.engine.Engine.evaluator_args`, without pruning: every play is
    evaluated), ``ws``: one set of move buffers (:meth:`analyzer.rules.kernel.Workspace.args`).
    Returns the plies played, -1 on buffer overflow.

    With ``cube_play`` a cube game runs alongside: cube ``cube0`` owned by ``owner0`` (0
    centred, 1 the reference side, 2 the other), each side on roll with access doubling and
    answering by the cube model on the 0-ply evaluation (``double_first`` false: no double
    before the first roll). Money (``match`` false): :func:`money_cube`, and ``cf[0]`` receives the
    reference side's points (a pass ends the cube game; the cubeless game is still played out); at
    a stop, the cube model's value times the cube. Match (``match``): :func:`match_cube` with the
    tables ``vt``/``may`` of :func:`analyzer.eval.cube.cube_tables` (reference side first), the
    cube as a level (``cube0`` 1 or 2: level 0 or 1), no cube in the ``crawford`` game, doubles up
    to ``max_level``; ``cf[0]`` receives the reference side's MWC.
    With ``vr`` the cube game's luck is subtracted too: per roll, the cube value after the best
    play (the opponent's cube value before his roll) minus its mean over the rolls.
    """
    np.random.seed(seed)
    board = start.copy()
    sc = new_scratch(ev[0])
    tmp, pa = sc[3], sc[4]
    pool = ws[0]
    bestp = np.zeros(NOUT, np.float32)
    mean = np.zeros(NOUT, np.float64)
    luck = np.zeros(NOUT, np.float64)
    ref = np.zeros(NOUT, np.float64)
    side = side0
    t = 0
    cube = cube0
    level = 0 if cube0 < 1.5 else 1
    owner = owner0
    live = cube_play
    cf[0] = np.nan
    cv = np.zeros(4, np.float64)
    oppv = np.zeros(NOUT, np.float32)
    row_of = np.zeros(1, np.int64)
    cmean = 0.0
    cluck = 0.0
    while True:
        over = F.classify(board) == F.CLASS_OVER
        stop = over or t >= MAX_TRIAL_PLIES or (0 < truncate <= t)
        if not stop and ev[1] and bearoff_class(board) != 0:
            stop = True
        if stop:
            eval0(board, ev, sc, pa)
            _to_reference(pa, side, ref)
            if live:
                if over:
                    cf[0] = _match_result(ref, vt, level) if match else cube * equity6(ref)
                elif match:
                    match_cube(pa, cube_life(board), side, level, _cube_owner_for(owner, side), vt, may, crawford,
                               max_level, cv)
                    cf[0] = cv[3] if side == 0 else 1.0 - cv[3]
                else:
                    money_cube(pa, cube_life(board), _cube_owner_for(owner, side), cv)
                    cf[0] = cube * cv[3] if side == 0 else -cube * cv[3]
            break
        if live and (t > 0 or double_first):
            mine = _cube_owner_for(owner, side)
            if match:
                if _may_redouble(mine, level, vt, crawford, max_level):
                    eval0(board, ev, sc, pa)
                    match_cube(pa, cube_life(board), side, level, mine, vt, may, crawford, max_level, cv)
                    if min(cv[1], cv[2]) > cv[0]:  # double
                        if cv[1] > cv[2]:  # pass: the doubler wins the cube's points
                            cf[0] = vt[0, level, 0] if side == 0 else vt[0, level, 3]
                            live = False
                        else:
                            level += 1
                            owner = 2 if side == 0 else 1
            elif mine != 2:
                eval0(board, ev, sc, pa)
                money_cube(pa, cube_life(board), mine, cv)
                if min(cv[1], cv[2]) > cv[0]:  # double
                    if cv[1] > cv[2]:  # pass
                        cf[0] = cube if side == 0 else -cube
                        live = False
                    else:
                        cube *= 2.0
                        owner = 2 if side == 0 else 1
        if t == 0:
            d1, d2 = r1 // 6 + 1, r1 % 6 + 1
        elif t == 1:
            d1, d2 = r2 // 6 + 1, r2 % 6 + 1
        else:
            d1, d2 = np.random.randint(1, 7), np.random.randint(1, 7)
        hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
        if vr:
            cmean = 0.0
            for i in range(NOUT):
                mean[i] = 0.0
            for a in range(1, 7):
                for c in range(1, a + 1):
                    if a == hi and c == lo:
                        continue
                    row_of[0] = best_reply(board, a, c, ev, ws, sc, bestp)
                    if row_of[0] < 0:
                        return -1
                    wt = 1.0 if a == c else 2.0
                    for i in range(NOUT):
                        mean[i] += wt * bestp[i]
                    if live:
                        opp_owner = _cube_owner_for(owner, 1 - side)
                        if match:
                            cmean += wt * _after_value_match(pool[row_of[0]], bestp, tmp, oppv, cv, side, level,
                                                             opp_owner, vt, may, crawford, max_level)
                        else:
                            cmean += wt * _after_value(pool[row_of[0]], bestp, tmp, oppv, cv, opp_owner)
        row = best_reply(board, hi, lo, ev, ws, sc, bestp)
        if row < 0:
            return -1
        if vr:
            wt = 1.0 if hi == lo else 2.0
            for i in range(NOUT):
                mean[i] = (mean[i] + wt * bestp[i]) / 36.0
            for i in range(NOUT):
                j = i if side == 0 else (i + 3) % 6
                luck[j] += bestp[i] - mean[i]
            if live:
                opp_owner = _cube_owner_for(owner, 1 - side)
                if match:
                    v = _after_value_match(pool[row], bestp, tmp, oppv, cv, side, level, opp_owner, vt, may,
                                           crawford, max_level)
                    cmean = (cmean + wt * v) / 36.0
                    cluck += (v - cmean) if side == 0 else -(v - cmean)
                else:
                    v = _after_value(pool[row], bestp, tmp, oppv, cv, opp_owner)
                    cmean = (cmean + wt * v) / 36.0
                    cluck += cube * (v - cmean) if side == 0 else -cube * (v - cmean)
        chosen = pool[row]
        t += 1
        if chosen[26] >= 15:
            for i in range(NOUT):
                pa[i] = 0.0
            pa[F.game_over_outcome(chosen)] = 1.0
            _to_reference(pa, side, ref)
            if live:
                cf[0] = _match_result(ref, vt, level) if match else cube * equity6(ref)
            break
        flip_into(chosen, board)
        side = 1 - side
    for i in range(NOUT):
        out[i] = ref[i] - luck[i]
    if cube_play:
        cf[0] -= cluck
    return t


@njit
def run_trials(starts: Arr, side0: int, rolls1: Arr, rolls2: Arr, seeds: Arr, truncate: int, vr: bool,
               cube_play: bool, cubes: Arr, owners: Arr, double_first: bool,
               match: bool, vt: Arr, may: Arr, crawford: bool, max_level: int,
               ev: tuple, ws: tuple, out: Arr, plies: Arr, cf: Arr) -> int:  # type: ignore[type-arg]
    """:func:`run_trial` for every trial ``i`` (rolls ``rolls1[i]``, ``rolls2[i]``, seed
    ``seeds[i]``) and every start board ``k`` (same dice for all, cube ``cubes[k]`` owned by
    ``owners[k]``): ``out[i, k]`` gets the result, ``plies[i, k]`` the plies played, ``cf[i, k]``
    the cube game's points. Returns -1 on buffer overflow, else 0."""
    for i in range(seeds.shape[0]):
        for k in range(starts.shape[0]):
            n = run_trial(starts[k], side0, int(rolls1[i]), int(rolls2[i]), int(seeds[i]), truncate, vr,
                          cube_play, float(cubes[k]), int(owners[k]), double_first, match, vt, may, crawford,
                          max_level, ev, ws, out[i, k], cf[i, k:k + 1])
            if n < 0:
                return -1
            plies[i, k] = n
    return 0
