"""Compiled rollout trials (numba): greedy 0-ply play, truncation, bear-off stops, variance reduction.

One *trial* plays a game out from a start board with a given dice sequence: the first two rolls
are chosen by the caller (stratified), the later ones come from numba's Mersenne Twister seeded
with the trial's own seed, so a trial is a pure function of (start board, rolls, seed, weights).
Every play is the best 0-ply play of the roll (as in :mod:`analyzer.eval.selfplay`, with the
bear-off databases used where they apply), or with a 1-ply player (``player_ply`` 1 in
:func:`run_group`) the best by a 1-ply search of the 0-ply pass's best few (:func:`player_choice`).
The trial stops

* when the game is over (the exact result),
* on reaching a bear-off database position (its 0-ply value: exact in the two-sided database),
* after ``truncate`` plies when ``truncate > 0`` (the 0-ply evaluation),
* with ``race_stop``, where a game that started with contact becomes a race (the race net's 0-ply
  evaluation, and the cube model's value there for the cube games), or
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
from analyzer.core.layout import NSLOTS
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval._cube_kernel import cube_life, cube_values
from analyzer.eval.bearoff import bearoff_class
from analyzer.eval.engine import (
    NROLLS,
    PRUNE_KEEP,
    ROLL_D1,
    ROLL_D2,
    ROLL_WEIGHT,
    _after_play_into,
    _generate,
    best_reply,
    eval0,
    new_scratch,
    rank_equity,
)
from analyzer.eval.net import EVAL_INTS, NOUT, equity6, forward_into, swap_outcomes
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
def _slots(bits: int) -> tuple:  # type: ignore[type-arg]
    size = 1 << bits
    return (np.zeros((size, NSLOTS), np.int8), np.zeros((size, NOUT), np.float32), np.zeros(size, np.bool_),
            np.zeros(size, np.uint64))


@njit
def new_cache(bits: int, early_bits: int = -1) -> tuple:  # type: ignore[type-arg]
    """An evaluation cache: ``(main, early)``, each direct mapped, ``(boards, values, full, hashes)``
    of ``2 ** bits`` and ``2 ** early_bits`` slots (``early_bits`` < 0: ``bits``).

    A slot holds an afterstate (a play's result, still seen from the side that moved) and its
    0-ply outcome distribution for that side, exactly as :func:`analyzer.eval.engine.best_reply`
    computes it; a hit compares the whole board, so a cached value is the value itself and
    results do not depend on what the cache held. One per worker: ``early`` serves the first
    :func:`_early_plies` plies of every trial, which repeat from trial to trial (the start's rolls;
    with variance reduction also the 21 rolls after each first roll), ``main`` the later plies,
    whose plays repeat only within a ply (the rolls of variance reduction reaching the same
    position): it stays small, in the processor's cache, and never evicts the early plies' values.
    Only with one evaluator.
    """
    return (_slots(bits), _slots(bits if early_bits < 0 else early_bits))


@njit
def _early_plies(vr: bool) -> int:
    """The plies of a trial served by the early cache: those whose positions and rolls recur across
    trials. The first roll is stratified over 36 trials, so the first ply's 21 (board, roll) pairs
    recur; every pair of first two rolls comes once in 1,296 trials, so the second ply's 441 pairs
    (21 boards after the first roll, 21 rolls) come about three times each (with variance reduction
    the 21 rolls of the second ply are met for each first roll anyway)."""
    return 2


@njit
def _value_cached(cand: Arr, h: np.uint64, W: tuple, use_db: bool, dist: Arr, first: Arr,  # type: ignore[type-arg]
                  win2: Arr, xc: Arr, xr: Arr, hid: Arr, tmp: Arr, pa: Arr, pb: Arr, cb: Arr, cv: Arr,
                  full: Arr, ch: Arr, iw: Arr) -> float:
    """:func:`analyzer.eval.engine._after_play_into` of the play result ``cand`` (pool hash ``h``):
    its distribution (mover's view) in ``pb`` and its equity, from the cache ``(cb, cv, full, ch)``
    (``ch``: the slots' hashes, compared before the boards) when it holds it. (Flat arguments, as
    ``_after_play_into``'s: the hot path takes nothing out of tuples; ``iw``: the evaluation's integer space.)"""
    if cand[26] >= 15:
        return float(_after_play_into(cand, W, use_db, dist, first, win2, xc, xr, hid, tmp, pa, pb, iw))
    slot = int(h & np.uint64(cb.shape[0] - 1))
    key = cb[slot]
    val = cv[slot]
    hit = full[slot] and ch[slot] == h
    if hit:
        for i in range(NSLOTS):
            if key[i] != cand[i]:
                hit = False
                break
    if hit:
        for i in range(NOUT):
            pb[i] = val[i]
        return float(equity6(pb))
    e = _after_play_into(cand, W, use_db, dist, first, win2, xc, xr, hid, tmp, pa, pb, iw)
    for i in range(NSLOTS):
        key[i] = cand[i]
    for i in range(NOUT):
        val[i] = pb[i]
    full[slot] = True
    ch[slot] = h
    return float(e)


@njit
def _prune_order(b: Arr, n: int, ev: tuple, ws: tuple, sc: tuple, xp: Arr, hp: Arr,  # type: ignore[type-arg]
                 iw: Arr) -> Arr:
    """The order in which :func:`analyzer.eval.engine.best_reply` with pruning ranks the ``n``
    plays of the last generation by the pruning net ``ev[5]`` (it evaluates the first
    ``PRUNE_KEEP`` fully), or an empty array where it does not prune (a race, few plays)."""
    if n <= PRUNE_KEEP or F.classify(b) == F.CLASS_RACE:
        return np.empty(0, np.int64)
    pool, results = ws[0], ws[11]
    P = ev[5]
    tmp, pa = sc[3], sc[4]
    score = np.empty(n, np.float64)
    for k in range(n):
        cand = pool[results[k]]
        if cand[26] >= 15:
            score[k] = 1e9
        else:
            flip_into(cand, tmp)
            F.encode_raw(tmp, xp)
            forward_into(xp, P[0], P[1], P[2], P[3], hp, pa, iw)
            score[k] = -equity6(pa)
    return np.argsort(-score)


@njit
def _best_cached(b: Arr, d1: int, d2: int, ev: tuple, ws: tuple, sc: tuple,  # type: ignore[type-arg]
                 cache: tuple, bestp: Arr, mode: int, xp: Arr, hp: Arr,  # type: ignore[type-arg]
                 lbest: Arr, iw: Arr) -> tuple[int, int]:
    """The 0-ply best play of (d1, d2) from ``b``: :func:`analyzer.eval.engine.best_reply`
    without pruning (every play evaluated in the generator's order, the first of equal equities
    kept). Returns its pool row (-1 on overflow) and ``bestp`` its distribution (mover's view).

    ``mode`` 0: as ``best_reply``; 3: each play's value looked up in ``cache`` (one part of
    :func:`new_cache`) before it is evaluated (the 21 rolls of variance reduction: results repeat
    within a ply, and the trials' first plies repeat from trial to trial; one roll of a later ply
    does not pay for the look-ups); 1: the choice of
    ``best_reply`` *with* pruning (by the pruning net ``ev[5]``) instead, through the cache; 2:
    both, the pruned choice as the second row with its distribution in ``lbest`` (the fully
    evaluated best is among the plays evaluated anyway)."""
    if ev[6]:
        r = best_reply(b, d1, d2, ev, ws, sc, bestp)
        return r, r
    n = _generate(b, d1, d2, ws)
    if n < 0:
        return -1, -1
    pool, phash, results = ws[0], ws[1], ws[11]
    W, use_db, dist, first, win2 = ev[0], ev[1], ev[2], ev[3], ev[4]
    xc, xr, hid, tmp, pa, pb = sc
    cb, cv, full, ch = cache
    if mode == 0:  # every play, no pruning, no cache, nothing kept: best_reply's loop
        best = -1e30
        best_row = int(results[0])
        for kk in range(n):
            row = int(results[kk])
            e = _after_play_into(pool[row], W, use_db, dist, first, win2, xc, xr, hid, tmp, pa, pb, iw)
            if e > best:
                best = e
                best_row = row
                for i in range(NOUT):
                    bestp[i] = pb[i]
        for i in range(NOUT):
            lbest[i] = bestp[i]
        return best_row, best_row
    order = _prune_order(b, n, ev, ws, sc, xp, hp, iw) if mode != 3 else np.empty(0, np.int64)
    if mode == 1 and order.shape[0] > 0:
        best = -1e30
        best_row = int(results[0])
        for kk in range(PRUNE_KEEP):
            row = int(results[order[kk]])
            e = _value_cached(pool[row], phash[row], W, use_db, dist, first, win2, xc, xr, hid, tmp, pa, pb,
                              cb, cv, full, ch, iw)
            if e > best:
                best = e
                best_row = row
                for i in range(NOUT):
                    bestp[i] = pb[i]
        return best_row, best_row
    keep = mode == 2 and order.shape[0] > 0
    eqs = np.empty(n if keep else 0, np.float64)
    dists = np.empty((n if keep else 0, NOUT), np.float32)
    best = -1e30
    best_row = int(results[0])
    for kk in range(n):
        row = int(results[kk])
        e = _value_cached(pool[row], phash[row], W, use_db, dist, first, win2, xc, xr, hid, tmp, pa, pb,
                              cb, cv, full, ch, iw)
        if keep:
            eqs[kk] = e
            for i in range(NOUT):
                dists[kk, i] = pb[i]
        if e > best:
            best = e
            best_row = row
            for i in range(NOUT):
                bestp[i] = pb[i]
    if not keep:
        for i in range(NOUT):
            lbest[i] = bestp[i]
        return best_row, best_row
    lb = -1e30
    lrow = int(results[0])
    for kk in range(PRUNE_KEEP):
        k = order[kk]
        if eqs[k] > lb:
            lb = eqs[k]
            lrow = int(results[k])
            for i in range(NOUT):
                lbest[i] = dists[k, i]
    return best_row, lrow


@njit
def player_choice(b: Arr, d1: int, d2: int, ev: tuple, ws: tuple, sc: tuple,  # type: ignore[type-arg]
                  cache: tuple, count: int, threshold: float, prune: bool,  # type: ignore[type-arg]
                  pick: Arr, bestp: Arr, xp: Arr, hp: Arr, iw: Arr) -> int:
    """The play of a 1-ply player with (d1, d2) from ``b``: the plays ranked at 0-ply (their values
    through ``cache``, one part of :func:`new_cache`), the best ``count`` within ``threshold`` of the
    best (a move filter, :class:`analyzer.eval.protocol.MoveFilter`) valued at 1-ply, as
    :func:`analyzer.eval.engine.eval_plied` values the position each leads to: the mean over the 21
    rolls of the opponent's 0-ply best reply (``prune``: chosen as :func:`analyzer.eval.engine.best_reply`
    with pruning chooses, by the pruning net ``ev[5]``, the best ``PRUNE_KEEP`` evaluated fully; the
    replies' values through ``cache`` too). The best by 1-ply equity is played, the first of equal
    ones in the 0-ply order (:meth:`analyzer.eval.engine.Engine.rank_plays` at 1-ply with that filter).
    Its result (mover's view) goes into ``pick``, its 0-ply distribution into ``bestp``. Returns the
    number of plays, -1 on buffer overflow. ``ws``'s pool is reused by the replies: ``pick`` is a copy."""
    n = _generate(b, d1, d2, ws)
    if n < 0:
        return -1
    pool, phash, results = ws[0], ws[1], ws[11]
    W, use_db, dist, first, win2 = ev[0], ev[1], ev[2], ev[3], ev[4]
    xc, xr, hid, tmp, pa, pb = sc
    cb, cv, full, ch = cache
    eqs = np.empty(n, np.float64)
    dists = np.empty((n, NOUT), np.float32)
    for k in range(n):
        row = int(results[k])
        eqs[k] = _value_cached(pool[row], phash[row], W, use_db, dist, first, win2, xc, xr, hid, tmp, pa, pb,
                               cb, cv, full, ch, iw)
        for i in range(NOUT):
            dists[k, i] = pb[i]
    order = np.argsort(-eqs, kind="mergesort")  # stable: equal values keep the generator's order
    top = eqs[order[0]]
    m = 0
    while m < min(count, n) and eqs[order[m]] >= top - threshold:
        m += 1
    m = max(m, 1)
    cands = np.empty((m, NSLOTS), np.int8)
    cd = np.empty((m, NOUT), np.float32)
    for j in range(m):
        k = order[j]
        for i in range(NSLOTS):
            cands[j, i] = pool[results[k], i]
        for i in range(NOUT):
            cd[j, i] = dists[k, i]
    bj = 0
    if m > 1:
        opp = np.empty(NSLOTS, np.int8)
        acc = np.zeros(NOUT, np.float64)
        val = np.zeros(NOUT, np.float32)
        mover = np.zeros(NOUT, np.float32)
        rb = np.zeros(NOUT, np.float32)
        spare = np.zeros(NOUT, np.float32)
        mode = 1 if prune else 3
        best = -1e30
        for j in range(m):
            if cands[j, 26] >= 15:  # the play ends the game: its exact result
                e = rank_equity(cd[j])
            else:
                flip_into(cands[j], opp)
                for i in range(NOUT):
                    acc[i] = 0.0
                for r in range(NROLLS):
                    row = _best_cached(opp, ROLL_D1[r], ROLL_D2[r], ev, ws, sc, cache, rb, mode, xp, hp, spare,
                                       iw)[0]
                    if row < 0:
                        return -1
                    for i in range(NOUT):
                        acc[i] += ROLL_WEIGHT[r] * rb[i]
                for i in range(NOUT):
                    val[i] = acc[i] / 36.0
                swap_outcomes(val, mover)
                e = rank_equity(mover)
            if e > best:
                best = e
                bj = j
    for i in range(NSLOTS):
        pick[i] = cands[bj, i]
    for i in range(NOUT):
        bestp[i] = cd[bj, i]
    return n


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
    reference side's points (a pass ends the cube game; once every cube game has ended so, the trial
    ends and its cubeless result is the 0-ply evaluation of that board, as at a truncation); at
    a stop, the cube model's value times the cube. Match (``match``): :func:`match_cube` with the
    tables ``vt``/``may`` of :func:`analyzer.eval.cube.cube_tables` (reference side first), the
    cube as a level (``cube0`` 1 or 2: level 0 or 1), no cube in the ``crawford`` game, doubles up
    to ``max_level``; ``cf[0]`` receives the reference side's MWC.
    With ``vr`` the cube game's luck is subtracted too: per roll, the cube value after the best
    play (the opponent's cube value before his roll) minus its mean over the rolls.

    (:func:`run_group` with one cube game and a fresh one-slot cache.)
    """
    return run_group(start, side0, r1, r2, seed, truncate, False, vr, cube_play, np.array([cube0]),
                     np.array([owner0], np.int64), double_first, match, vt, may, crawford, max_level, ev, ws,
                     new_cache(0), False, 0, 0, 0.0, False, out, cf, np.zeros((1, NOUT)), np.zeros(1, np.int64))


@njit
def run_group(start: Arr, side0: int, r1: int, r2: int, seed: int, truncate: int, race_stop: bool, vr: bool,
              cube_play: bool, cubes: Arr, owners: Arr, double_first: bool,
              match: bool, vt: Arr, may: Arr, crawford: bool, max_level: int,
              ev: tuple, ws: tuple, cache: tuple, luck_prune: bool,  # type: ignore[type-arg]
              player_ply: int, player_count: int, player_threshold: float, player_prune: bool,
              out: Arr, cf: Arr, gout: Arr, gn: Arr) -> int:
    """:func:`run_trial` with ``m`` cube games on the same board (cube ``cubes[g]`` owned by
    ``owners[g]``, points or MWC into ``cf[g]``): the checker play is cubeless, so the games of
    one start and one dice sequence share every board, play and evaluation, and the board is
    played once for all of them (No double and Double/take of a position before the roll).
    ``cache``: :func:`new_cache`. Each cube game's numbers are those :func:`run_trial` gives it
    alone, bit for bit: its cube result in ``cf[g]``, and in ``gout[g]`` (``m`` x 6) and ``gn[g]``
    the cubeless result and the plies of its trial played alone (a game that ends by a pass while
    others play on has its trial end there, valued by that board's 0-ply evaluation, as alone).
    ``out`` gets the board's result played to its end (the last game's); the return value its plies.

    ``race_stop``: the trial stops where a start with contact has become a race (a start that is a race
    already plays on), valued as at a truncation.

    ``luck_prune`` (with ``vr``): the luck of a roll is measured with the play that
    :func:`analyzer.eval.engine.best_reply` *with* pruning chooses for each of the 21 rolls (the
    pruning net ``ev[5]`` ranks the plays, the best ``PRUNE_KEEP`` are evaluated), as gnubg's
    rollouts do; the plays made are still the fully evaluated best. The luck stays exactly
    unbiased (the roll thrown is valued like the 21 of the mean) and differs only where pruning
    misses the best play; a ply's luck then costs about a quarter of the net evaluations.

    ``player_ply`` 1: every play is the 1-ply player's (:func:`player_choice` with the move filter
    ``player_count`` plays within ``player_threshold``, the replies pruned when ``player_prune``);
    0: the 0-ply best. Everything else stays 0-ply: the luck of variance reduction (the 0-ply best
    plays of the 21 rolls, still unbiased: it does not depend on the play made), the cube decisions,
    the values at a stop."""
    m = cubes.shape[0]
    np.random.seed(seed)
    board = start.copy()
    sc = new_scratch(ev[0])
    tmp, pa = sc[3], sc[4]
    pool = ws[0]
    bestp = np.zeros(NOUT, np.float32)
    here = np.zeros(NOUT, np.float32)  # the 0-ply distribution of ``board`` (valid when ``known``)
    known = False
    mean = np.zeros(NOUT, np.float64)
    luck = np.zeros(NOUT, np.float64)
    ref = np.zeros(NOUT, np.float64)
    side = side0
    t = 0
    cube = np.zeros(m, np.float64)
    level = np.zeros(m, np.int64)
    owner = np.zeros(m, np.int64)
    live = np.zeros(m, np.bool_)
    cmean = np.zeros(m, np.float64)
    cluck = np.zeros(m, np.float64)
    ended = np.zeros(m, np.bool_)  # the cube games whose trial, played alone, ended by their pass
    for g in range(m):
        cube[g] = cubes[g]
        level[g] = 0 if cubes[g] < 1.5 else 1
        owner[g] = owners[g]
        live[g] = cube_play
        cf[g] = np.nan
    cv = np.zeros(4, np.float64)
    oppv = np.zeros(NOUT, np.float32)
    xp = np.zeros(F.N_RAW, np.float32)
    hp = np.zeros(ev[5][0].shape[1], np.float32)
    lbest = np.zeros(NOUT, np.float32)  # the roll thrown: the distribution after the play its luck is measured with
    iw = np.empty(EVAL_INTS, np.int64)  # the evaluations' integer work space
    pick = np.zeros(NSLOTS, np.int8)  # the 1-ply player's play (the pool is reused by its search)
    mode_mean = 1 if luck_prune else 3
    mode_thrown = (2 if luck_prune else 3) if vr else 0
    main, early = cache
    n_early = _early_plies(vr)
    to_race = race_stop and F.classify(board) != F.CLASS_RACE
    while True:
        cls = F.classify(board)
        over = cls == F.CLASS_OVER
        stop = over or t >= MAX_TRIAL_PLIES or (0 < truncate <= t) or (to_race and cls == F.CLASS_RACE)
        if not stop and ev[1] and bearoff_class(board) != 0:
            stop = True
        if stop:
            if known:
                for i in range(NOUT):
                    pa[i] = here[i]
            else:
                eval0(board, ev, sc, pa)
            _to_reference(pa, side, ref)
            for g in range(m):
                if live[g]:
                    if over:
                        cf[g] = _match_result(ref, vt, level[g]) if match else cube[g] * equity6(ref)
                    elif match:
                        match_cube(pa, cube_life(board), side, level[g], _cube_owner_for(owner[g], side), vt, may,
                                   crawford, max_level, cv)
                        cf[g] = cv[3] if side == 0 else 1.0 - cv[3]
                    else:
                        money_cube(pa, cube_life(board), _cube_owner_for(owner[g], side), cv)
                        cf[g] = cube[g] * cv[3] if side == 0 else -cube[g] * cv[3]
            break
        if t > 0 or double_first:
            for g in range(m):
                if not live[g]:
                    continue
                mine = _cube_owner_for(owner[g], side)
                if match:
                    if not _may_redouble(mine, level[g], vt, crawford, max_level):
                        continue
                elif mine == 2:
                    continue
                if not known:
                    eval0(board, ev, sc, here)
                    known = True
                if match:
                    match_cube(here, cube_life(board), side, level[g], mine, vt, may, crawford, max_level, cv)
                    if min(cv[1], cv[2]) > cv[0]:  # double
                        if cv[1] > cv[2]:  # pass: the doubler wins the cube's points
                            cf[g] = vt[0, level[g], 0] if side == 0 else vt[0, level[g], 3]
                            live[g] = False
                            _ended_here(here, side, luck, t, g, gout, gn, ended)
                        else:
                            level[g] += 1
                            owner[g] = 2 if side == 0 else 1
                else:
                    money_cube(here, cube_life(board), mine, cv)
                    if min(cv[1], cv[2]) > cv[0]:  # double
                        if cv[1] > cv[2]:  # pass
                            cf[g] = cube[g] if side == 0 else -cube[g]
                            live[g] = False
                            _ended_here(here, side, luck, t, g, gout, gn, ended)
                        else:
                            cube[g] *= 2.0
                            owner[g] = 2 if side == 0 else 1
            if cube_play and not live.any():
                # every cube game has ended by a pass: the trial ends here too (as gnubg's cubeful
                # trials do), its cubeless part valued by the 0-ply evaluation of this board, which
                # the cube decision has just made (``known``)
                _to_reference(here, side, ref)
                break
        if t == 0:
            d1, d2 = r1 // 6 + 1, r1 % 6 + 1
        elif t == 1:
            d1, d2 = r2 // 6 + 1, r2 % 6 + 1
        else:
            d1, d2 = np.random.randint(1, 7), np.random.randint(1, 7)
        hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
        cache_t = early if t < n_early else main
        if vr:
            for g in range(m):
                cmean[g] = 0.0
            for i in range(NOUT):
                mean[i] = 0.0
            for a in range(1, 7):
                for c in range(1, a + 1):
                    if a == hi and c == lo:
                        continue
                    r = _best_cached(board, a, c, ev, ws, sc, cache_t, bestp, mode_mean, xp, hp, lbest, iw)[0]
                    if r < 0:
                        return -1
                    wt = 1.0 if a == c else 2.0
                    for i in range(NOUT):
                        mean[i] += wt * bestp[i]
                    for g in range(m):
                        if live[g]:
                            opp_owner = _cube_owner_for(owner[g], 1 - side)
                            if match:
                                cmean[g] += wt * _after_value_match(pool[r], bestp, tmp, oppv, cv, side, level[g],
                                                                    opp_owner, vt, may, crawford, max_level)
                            else:
                                cmean[g] += wt * _after_value(pool[r], bestp, tmp, oppv, cv, opp_owner)
        row, lrow = 0, 0
        if vr or player_ply == 0:  # the 0-ply best: played, or (variance reduction) the luck's measure
            row, lrow = _best_cached(board, hi, lo, ev, ws, sc, cache_t, bestp,
                                     mode_thrown if mode_thrown != 0 or t >= n_early else 3, xp, hp, lbest, iw)
            if row < 0:
                return -1
        if vr:
            wt = 1.0 if hi == lo else 2.0
            for i in range(NOUT):
                mean[i] = (mean[i] + wt * lbest[i]) / 36.0
            for i in range(NOUT):
                j = i if side == 0 else (i + 3) % 6
                luck[j] += lbest[i] - mean[i]
            for g in range(m):
                if live[g]:
                    opp_owner = _cube_owner_for(owner[g], 1 - side)
                    if match:
                        v = _after_value_match(pool[lrow], lbest, tmp, oppv, cv, side, level[g], opp_owner, vt,
                                               may, crawford, max_level)
                        cmean[g] = (cmean[g] + wt * v) / 36.0
                        cluck[g] += (v - cmean[g]) if side == 0 else -(v - cmean[g])
                    else:
                        v = _after_value(pool[lrow], lbest, tmp, oppv, cv, opp_owner)
                        cmean[g] = (cmean[g] + wt * v) / 36.0
                        cluck[g] += cube[g] * (v - cmean[g]) if side == 0 else -cube[g] * (v - cmean[g])
        if player_ply > 0:  # after the luck: the search reuses the pool that holds the 0-ply plays
            if player_choice(board, hi, lo, ev, ws, sc, cache_t, player_count, player_threshold, player_prune,
                             pick, bestp, xp, hp, iw) < 0:
                return -1
            chosen = pick
        else:
            chosen = pool[row]
        t += 1
        if chosen[26] >= 15:
            for i in range(NOUT):
                pa[i] = 0.0
            pa[F.game_over_outcome(chosen)] = 1.0
            _to_reference(pa, side, ref)
            for g in range(m):
                if live[g]:
                    cf[g] = _match_result(ref, vt, level[g]) if match else cube[g] * equity6(ref)
            break
        flip_into(chosen, board)
        swap_outcomes(bestp, here)  # the next board's 0-ply value: the chosen play's, seen by its opponent
        known = True
        side = 1 - side
    for i in range(NOUT):
        out[i] = ref[i] - luck[i]
    for g in range(m):
        if not ended[g]:
            gn[g] = t
            for i in range(NOUT):
                gout[g, i] = out[i]
    if cube_play:
        for g in range(m):
            cf[g] -= cluck[g]
    return t


@njit
def _ended_here(here: Arr, side: int, luck: Arr, t: int, g: int, gout: Arr, gn: Arr, ended: Arr) -> None:
    """Cube game ``g`` has ended by a pass at ply ``t``: played alone, its trial would end here, valued
    by this board's 0-ply evaluation ``here`` less the luck so far (:func:`run_group`)."""
    ref = np.zeros(NOUT, np.float64)
    _to_reference(here, side, ref)
    for i in range(NOUT):
        gout[g, i] = ref[i] - luck[i]
    gn[g] = t
    ended[g] = True


@njit
def run_trials(starts: Arr, side0: int, rolls1: Arr, rolls2: Arr, seeds: Arr, truncate: int, race_stop: bool, vr: bool,
               cube_play: bool, cubes: Arr, owners: Arr, double_first: bool,
               match: bool, vt: Arr, may: Arr, crawford: bool, max_level: int,
               ev: tuple, ws: tuple, cache: tuple, luck_prune: bool,  # type: ignore[type-arg]
               player_ply: int, player_count: int, player_threshold: float, player_prune: bool, out: Arr,
               plies: Arr, cf: Arr) -> int:
    """:func:`run_trial` for every trial ``i`` (rolls ``rolls1[i]``, ``rolls2[i]``, seed
    ``seeds[i]``) and every start board ``k`` (same dice for all, cube ``cubes[k]`` owned by
    ``owners[k]``): ``out[i, k]`` gets the result, ``plies[i, k]`` the plies played, ``cf[i, k]``
    the cube game's points. Equal start boards are played once (:func:`run_group`); ``cache``:
    :func:`new_cache`; ``luck_prune`` and the ``player_*`` arguments: see :func:`run_group`. Returns -1
    on buffer overflow, else 0."""
    k_n = starts.shape[0]
    lead = np.arange(k_n)  # the first start with the same board
    for k in range(k_n):
        for j in range(k):
            if lead[j] == j and (starts[j] == starts[k]).all():
                lead[k] = j
                break
    gcf = np.zeros(k_n, np.float64)  # a group's results (its first len(members) entries), reused
    gout = np.zeros((k_n, NOUT), np.float64)
    gn = np.zeros(k_n, np.int64)
    for i in range(seeds.shape[0]):
        for k in range(k_n):
            if lead[k] != k:
                continue
            members = np.nonzero(lead == k)[0]
            m = members.shape[0]
            n = run_group(starts[k], side0, int(rolls1[i]), int(rolls2[i]), int(seeds[i]), truncate, race_stop, vr,
                          cube_play, cubes[members].astype(np.float64), owners[members].astype(np.int64),
                          double_first, match, vt, may, crawford, max_level, ev, ws, cache, luck_prune, player_ply,
                          player_count, player_threshold, player_prune, out[i, k], gcf[:m], gout[:m], gn[:m])
            if n < 0:
                return -1
            for g in range(members.shape[0]):
                kk = members[g]
                plies[i, kk] = gn[g]
                cf[i, kk] = gcf[g]
                for o in range(NOUT):
                    out[i, kk, o] = gout[g, o]
    return 0
