"""The standard-backgammon evaluator: shipped nets, bear-off databases, n-ply lookahead.

Ply numbering follows gnubg: 0-ply is the raw evaluation (net, or bear-off database in a
home-board race, or the exact result of a finished game); n-ply averages over the 21 rolls of
the side on roll, each played as the 0-ply evaluation prefers and the position reached then
evaluated at (n-1)-ply. When ranking plays, every candidate is first evaluated at 0-ply and a
move filter (by default gnubg's analysis filter: up to 16 plays within 0.32 of the best) picks
those that are evaluated again at the requested ply.

>>> from analyzer.core.position import Position
>>> eng = Engine()
>>> p = eng.evaluate(Position.start())
>>> 0.3 < p.win < 0.7 and p.win_gammon <= p.win
True
>>> plays = eng.rank_plays(Position.start(), (3, 1))
>>> plays[0].play
'8/5 6/5'
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias, cast

import numpy as np
from numba import get_num_threads, njit, prange, typeof
from numpy.typing import NDArray

from analyzer._resources import data_path
from analyzer.core.jit import as_int64
from analyzer.core.layout import NSLOTS, VAR_STANDARD
from analyzer.core.position import Position
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.bearoff import bearoff_class, race_probs_board, two_sided_win_board
from analyzer.eval.net import EVAL_INTS, NOUT, NetSet, equity6, eval_class_into, forward_one, swap_outcomes
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import (
    ANALYSIS_FILTER,
    PLAY_FILTER,
    CachedEvaluations,
    CubeSearch,
    EvalCache,
    EvaluatorInfo,
    MoveFilter,
    RankedPlay,
)
from analyzer.rules.base import PlayListing, check_dice, work_buffers
from analyzer.rules.kernel import LISTING_WIDTH, fill_listing, flip_into, full_hash, generate
from analyzer.rules.standard import Standard

DEFAULT_NETS = data_path("nets", "standard.npz")
MAX_PLY = 3
LEVELS = MAX_PLY + 1
CAPACITY = 16384
PRUNE_KEEP = 5

__all__ = ["ANALYSIS_FILTER", "MAX_PLY", "PLAY_FILTER", "Engine", "EvalArgs", "GenBuffers", "MoveFilter", "NetArgs",
           "RankedPlay", "Scratch", "bearoff_arrays", "best_reply", "equity_of", "eval0", "eval_many",
           "eval_many_parallel", "eval_parallel", "eval_plied", "flip_many", "level", "new_scratch"]

jitcache.refresh()


# ---------------------------------------------------------------------------------- kernels
# The kernels pass their arrays in plain tuples (numba types a tuple of arrays like a struct; the
# compiled code and its cache are keyed on these tuple types, so they stay tuples), named by the
# aliases below: ``W`` (NetArgs), ``ev`` (EvalArgs), ``ws`` (GenBuffers) and ``sc`` (Scratch).
NetArgs: TypeAlias = tuple[Any, ...]
"""``W``: the nets' weights as :meth:`NetSet.kernel_args` gives them, four float32 arrays per net
(hidden weights, hidden bias, output weights, output bias) for the contact, crashed and race nets
in that order (``W[0]``, ``W[4]``, ``W[8]``: the hidden weights)."""

EvalArgs: TypeAlias = tuple[Any, ...]
"""``ev``: the 0-ply evaluator, ``(W, use_db, dist, first, win2, P, use_prune)``: the nets' weights
(:data:`NetArgs`), the bear-off databases (:func:`bearoff_arrays`, used when ``use_db``) and the
pruning net (:meth:`NetSet.prune_args`, four arrays, used when ``use_prune``);
:meth:`Engine.evaluator_args`."""

GenBuffers: TypeAlias = tuple[Any, ...]
"""``ws``: the 12 move-generation buffers of :func:`analyzer.rules.kernel.generate`, in its order
(the pool of boards first, the result rows last); one set (:meth:`analyzer.rules.kernel.Workspace.args`)
or one per search depth (and thread) along leading axes (:class:`_LevelWorkspace`, see :func:`level`)."""

Scratch: TypeAlias = tuple[Any, ...]
"""``sc``: scratch buffers of one thread, ``(xc, xr, hid, tmp, pa, pb)``: the contact and race inputs,
the hidden layer, a board and two outcome distributions (:func:`new_scratch`)."""

# Rolls in the order of every n-ply loop: (1, 1), (1, 2), ..., (1, 6), (2, 2), ..., (6, 6).
ROLL_D1 = np.array([d1 for d1 in range(1, 7) for d2 in range(d1, 7)], np.int64)
ROLL_D2 = np.array([d2 for d1 in range(1, 7) for d2 in range(d1, 7)], np.int64)
ROLL_WEIGHT = np.array([1.0 if d1 == d2 else 2.0 for d1 in range(1, 7) for d2 in range(d1, 7)], np.float64)
NROLLS = 21


@njit(cache=True)
def new_scratch(W: NetArgs) -> Scratch:
    """Scratch buffers ``(xc, xr, hid, tmp, pa, pb)`` for evaluating with the weights ``W``: the
    contact and race inputs, the hidden layer, a board and two outcome distributions.

    >>> from analyzer.eval.net import NetSet
    >>> sc = new_scratch(NetSet.initial(hidden=4, race_hidden=3, seed=0).kernel_args())
    >>> [a.shape[0] for a in sc] == [F.N_CONTACT_EXT, F.N_RACE, 4, NSLOTS, NOUT, NOUT]
    True
    """
    nh = max(W[0].shape[1], W[4].shape[1], W[8].shape[1])
    return (np.zeros(F.N_CONTACT_EXT, np.float32), np.zeros(F.N_RACE, np.float32), np.zeros(nh, np.float32),
            np.zeros(NSLOTS, np.int8), np.zeros(NOUT, np.float32), np.zeros(NOUT, np.float32))


@njit(cache=True)
def level(ws: GenBuffers, i: int) -> GenBuffers:
    """The workspace ``ws`` at index ``i`` of its leading axis (a search depth, or a thread)."""
    return (ws[0][i], ws[1][i], ws[2][i], ws[3][i], ws[4][i], ws[5][i], ws[6][i], ws[7][i], ws[8][i], ws[9][i],
            ws[10][i], ws[11][i])


@njit(cache=True)
def _eval0(b: np.ndarray, W: NetArgs, use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray,
           xc: np.ndarray, xr: np.ndarray, hid: np.ndarray, out: np.ndarray) -> None:
    _eval0_into(b, W, use_db, dist, first, win2, xc, xr, hid, out, np.empty(EVAL_INTS, np.int64))


@njit(cache=True)
def _eval0_into(b: np.ndarray, W: NetArgs, use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray,
                xc: np.ndarray, xr: np.ndarray, hid: np.ndarray, out: np.ndarray, iw: np.ndarray) -> None:
    """:func:`_eval0` with the integer work space of :func:`analyzer.eval.net.eval_board_into` given."""
    cls = F.classify(b)
    if use_db and cls == F.CLASS_RACE:
        k = bearoff_class(b)
        if k == 2 and win2.shape[0] > 1:  # a 1 x 1 dummy: no exact table, the one-sided DB below
            w = two_sided_win_board(win2, b)
            for i in range(NOUT):
                out[i] = 0.0
            out[0] = w
            out[3] = 1.0 - w
            return
        if k >= 1:
            c = np.zeros(5, np.float64)
            race_probs_board(dist, first, b, c)
            out[0] = c[0] - c[1]
            out[1] = c[1] - c[2]
            out[2] = c[2]
            out[3] = 1.0 - c[0] - c[3]
            out[4] = c[3] - c[4]
            out[5] = c[4]
            return
    eval_class_into(b, cls, W, xc, xr, hid, out, iw)


@njit(cache=True)
def eval0(b: np.ndarray, ev: EvalArgs, sc: Scratch, out: np.ndarray) -> None:
    """0-ply outcome distribution of board ``b`` for its side on roll. Reads only ``ev[:5]`` (nets and
    databases) and ``sc[:3]`` (so ``out`` may be its ``pa`` or ``pb``, and shorter tuples do:
    :mod:`analyzer.eval.variants.model` passes ``(S, use_db, dist, first, win2)`` and ``(x, xr, hid)``)."""
    _eval0(b, ev[0], ev[1], ev[2], ev[3], ev[4], sc[0], sc[1], sc[2], out)


@njit(cache=True)
def _after_play_into(cand: np.ndarray, W: NetArgs, use_db: bool, dist: np.ndarray, first: np.ndarray,
                     win2: np.ndarray, xc: np.ndarray, xr: np.ndarray, hid: np.ndarray, tmp: np.ndarray,
                     pa: np.ndarray, pb: np.ndarray, iw: np.ndarray) -> float:
    """0-ply outcome distribution (into ``pb``, the mover's view) and equity of the position
    ``cand`` reached by a play, still seen from the side that moved; exact once the game is over.
    (Flat arguments: the hot path takes nothing out of tuples; ``iw``: the integer work space of
    :func:`analyzer.eval.net.eval_board_into`.)"""
    if cand[26] >= 15:
        o = F.game_over_outcome(cand)
        for i in range(NOUT):
            pb[i] = 0.0
        pb[o] = 1.0
    else:
        flip_into(cand, tmp)
        _eval0_into(tmp, W, use_db, dist, first, win2, xc, xr, hid, pa, iw)
        swap_outcomes(pa, pb)
    return equity6(pb)


@njit(cache=True)
def _generate(b: np.ndarray, d1: int, d2: int, ws: GenBuffers) -> int:
    return int(generate(b, d1, d2, VAR_STANDARD, 0, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7], ws[8],
                        ws[9], ws[10], ws[11]))


@njit(cache=True)
def best_reply(b: np.ndarray, d1: int, d2: int, ev: EvalArgs, ws: GenBuffers, sc: Scratch,
               bestp: np.ndarray) -> int:
    """The 0-ply best play of roll (d1, d2) from ``b`` with the (one-level) workspace ``ws``:
    returns its pool row (-1 on overflow) and leaves its distribution (mover's side) in
    ``bestp``. With pruning on, in contact positions with more than ``PRUNE_KEEP`` plays only
    the ``PRUNE_KEEP`` best by the pruning net are evaluated fully."""
    n = _generate(b, d1, d2, ws)
    if n < 0:
        return -1
    pool, results = ws[0], ws[11]
    W, use_db, dist, first, win2, P, use_prune = ev
    xc, xr, hid, tmp, pa, pb = sc
    pruned = use_prune and n > PRUNE_KEEP and F.classify(b) != F.CLASS_RACE
    nk = n
    order = results[:0]
    if pruned:
        # rank the plays with the cheap pruning net, evaluate only the best PRUNE_KEEP fully
        xp = np.zeros(F.N_RAW, np.float32)
        hp = np.zeros(P[0].shape[1], np.float32)
        score = np.empty(n, np.float64)
        for k in range(n):
            cand = pool[results[k]]
            if cand[26] >= 15:
                score[k] = 1e9
            else:
                flip_into(cand, tmp)
                F.encode_raw(tmp, xp)
                forward_one(xp, P[0], P[1], P[2], P[3], hp, pa)
                score[k] = -equity6(pa)
        order = np.argsort(-score)
        nk = PRUNE_KEEP
    best = -1e30
    best_row = int(results[0])
    iw = np.empty(EVAL_INTS, np.int64)
    for kk in range(nk):
        row = results[order[kk]] if pruned else results[kk]
        e = _after_play_into(pool[row], W, use_db, dist, first, win2, xc, xr, hid, tmp, pa, pb, iw)
        if e > best:
            best = e
            best_row = int(row)
            for i in range(NOUT):
                bestp[i] = pb[i]
    return best_row


@njit(cache=True)
def eval_plied(b: np.ndarray, ply: int, ev: EvalArgs, ws: GenBuffers, sc: Scratch,
               out: np.ndarray) -> int:
    """``ply``-ply outcome distribution of ``b`` (side on roll) into ``out``; ``ws`` has one set of
    buffers per search depth (at least ``ply``). Returns -1 on buffer overflow.

    n-ply is the mean over the 21 rolls of the 0-ply best play's result evaluated at (n-1)-ply
    (exact when the play ends the game). The search runs on an explicit stack, depth ``k``
    searching ``boards[k]`` with the buffers ``level(ws, k)``: numba's cache mishandles
    recursive functions."""
    if ply <= 0 or F.classify(b) == F.CLASS_OVER:
        eval0(b, ev, sc, out)
        return 0
    boards = np.empty((ply, NSLOTS), np.int8)
    acc = np.zeros((ply, NOUT), np.float64)  # per depth: the weighted sum over the rolls done
    nxt = np.zeros(ply, np.int64)  # per depth: the next roll
    bestp = np.zeros(NOUT, np.float32)
    sub = np.zeros(NOUT, np.float32)
    for i in range(NSLOTS):
        boards[0, i] = b[i]
    k = 0
    wk = level(ws, as_int64(0))  # the buffers of depth k
    while True:
        r = nxt[k]
        if r == NROLLS:  # depth k done: its value, seen from its mover
            if k == 0:
                for i in range(NOUT):
                    out[i] = acc[0, i] / 36.0
                return 0
            for i in range(NOUT):
                sub[i] = acc[k, i] / 36.0
            swap_outcomes(sub, bestp)  # back to the view of the side that played into it
            k -= 1
            wk = level(ws, k)
        else:
            row = best_reply(boards[k], ROLL_D1[r], ROLL_D2[r], ev, wk, sc, bestp)
            if row < 0:
                return -1
            chosen = wk[0][row]
            if k + 1 < ply and chosen[26] < 15:  # search the position reached one level deeper
                flip_into(chosen, boards[k + 1])
                k += 1
                wk = level(ws, k)
                nxt[k] = 0
                for i in range(NOUT):
                    acc[k, i] = 0.0
                continue
        r = nxt[k]
        for i in range(NOUT):
            acc[k, i] += ROLL_WEIGHT[r] * bestp[i]
        nxt[k] = r + 1


@njit(cache=True)
def _eval_range(boards: np.ndarray, lo: int, hi: int, ply: int, ev: EvalArgs, ws: GenBuffers,
                out: np.ndarray) -> int:
    sc = new_scratch(ev[0])
    if ply <= 0:  # the tuples taken apart once, not per board
        W, use_db, dist, first, win2, _, _ = ev
        xc, xr, hid = sc[0], sc[1], sc[2]
        iw = np.empty(EVAL_INTS, np.int64)
        for i in range(lo, hi):
            _eval0_into(boards[i], W, use_db, dist, first, win2, xc, xr, hid, out[i], iw)
        return 0
    for i in range(lo, hi):
        if eval_plied(boards[i], ply, ev, ws, sc, out[i]) < 0:
            return -1
    return 0


@njit(cache=True)
def _eval0_many(boards: np.ndarray, W: NetArgs, use_db: bool, dist: np.ndarray, first: np.ndarray,
                win2: np.ndarray, out: np.ndarray) -> None:
    """0-ply outcome distributions of ``boards`` (each for its own side on roll): ``eval_many`` at
    0-ply, called with only what 0-ply reads."""
    sc = new_scratch(W)
    iw = np.empty(EVAL_INTS, np.int64)
    for i in range(boards.shape[0]):
        _eval0_into(boards[i], W, use_db, dist, first, win2, sc[0], sc[1], sc[2], out[i], iw)


@njit(cache=True)
def eval_many(boards: np.ndarray, ply: int, ev: EvalArgs, ws: GenBuffers, out: np.ndarray) -> int:
    """:func:`eval_plied` of every board (each for its own side on roll)."""
    return int(_eval_range(boards, as_int64(0), boards.shape[0], ply, ev, ws, out))


@njit(cache=True, parallel=True)
def eval_many_parallel(boards: np.ndarray, ply: int, ev: EvalArgs, ws: GenBuffers,
                       out: np.ndarray) -> int:
    """:func:`eval_many` split over threads; the workspace arrays carry a leading thread index."""
    n = boards.shape[0]
    nt = ws[0].shape[0]
    step = (n + nt - 1) // nt
    status = np.zeros(nt, np.int64)
    # numba cannot hand a tuple holding tuples of arrays to the threads: take ``ev`` apart
    W, use_db, dist, first, win2, P, use_prune = ev
    for t in prange(nt):
        evt = (W, use_db, dist, first, win2, P, use_prune)
        status[t] = _eval_range(boards, t * step, min(n, t * step + step), ply, evt, level(ws, as_int64(t)), out)
    for t in range(nt):
        if status[t] < 0:
            return -1
    return 0


@njit(cache=True, parallel=True)
def eval_rolls_parallel(boards: np.ndarray, ply: int, ev: EvalArgs, ws: GenBuffers, out: np.ndarray) -> int:
    """:func:`eval_many` at ``ply`` >= 1 split over threads by (board, roll): pair ``j`` (board
    ``j // 21``, roll ``j % 21``) to thread ``j % threads``, so one board's search is shared too. Each
    roll's best play is valued as :func:`eval_plied` values it and a board's rolls are summed in
    the same order, so the results are :func:`eval_many`'s to the last bit. The workspace arrays
    carry a leading thread index, then one set of buffers per depth."""
    n = boards.shape[0]
    nt = ws[0].shape[0]
    vals = np.zeros((n, NROLLS, NOUT), np.float32)
    status = np.zeros(nt, np.int64)
    # numba cannot hand a tuple holding tuples of arrays to the threads: take ``ev`` apart
    W, use_db, dist, first, win2, P, use_prune = ev
    for t in prange(nt):
        evt = (W, use_db, dist, first, win2, P, use_prune)
        wt = level(ws, as_int64(t))
        w0 = level(wt, as_int64(0))
        sc = new_scratch(W)
        bestp = np.zeros(NOUT, np.float32)
        sub = np.zeros(NOUT, np.float32)
        child = np.empty(NSLOTS, np.int8)
        for j in range(t, n * NROLLS, nt):
            i = j // NROLLS
            r = j % NROLLS
            if F.classify(boards[i]) == F.CLASS_OVER:
                continue
            row = best_reply(boards[i], ROLL_D1[r], ROLL_D2[r], evt, w0, sc, bestp)
            if row < 0:
                status[t] = -1
                break
            chosen = w0[0][row]
            if ply > 1 and chosen[26] < 15:  # the position reached, one ply less deep
                flip_into(chosen, child)
                if eval_plied(child, ply - 1, evt, wt, sc, sub) < 0:
                    status[t] = -1
                    break
                swap_outcomes(sub, bestp)  # back to the view of the side that played into it
            for k in range(NOUT):
                vals[i, r, k] = bestp[k]
    for t in range(nt):
        if status[t] < 0:
            return -1
    sc = new_scratch(W)
    acc = np.zeros(NOUT, np.float64)
    for i in range(n):
        if F.classify(boards[i]) == F.CLASS_OVER:
            eval0(boards[i], ev, sc, out[i])
            continue
        for k in range(NOUT):
            acc[k] = 0.0
        for r in range(NROLLS):
            for k in range(NOUT):
                acc[k] += ROLL_WEIGHT[r] * vals[i, r, k]
        for k in range(NOUT):
            out[i, k] = acc[k] / 36.0
    return 0


@njit(cache=True)
def flip_many(boards: np.ndarray, out: np.ndarray) -> None:
    """Flip every board (hand the turn to the other side)."""
    for i in range(boards.shape[0]):
        flip_into(boards[i], out[i])


# ---------------------------------------------------------------------------------- 0-ply cache
# The engine's 0-ply evaluations live in a compiled table, so that the ranking kernel below looks them
# up without coming back to Python: open addressing, the whole board compared on a hit (so a cached
# value is the value itself). A board's hash is the Zobrist hash of the position before the turn
# passed (the board flipped; :func:`~analyzer.rules.kernel.full_hash`): the move generator has it
# already for every play's result. An empty slot holds hash 0 (a board hashing to 0 is filed under 1).
# ``meta`` holds the count of entries and the most the engine keeps (its ``cache_size``): at that count
# the table starts again empty. Python grows it (:class:`_Table0`) when it is half full.
T0_START = 4096


@njit(cache=True)
def _t0_find(keys: np.ndarray, hashes: np.ndarray, b: np.ndarray, h: np.uint64) -> int:
    """The slot holding board ``b`` (hash ``h``), or ``-1 - s`` for the empty slot ``s`` where it would go."""
    mask = hashes.shape[0] - 1
    s = np.int64(h & np.uint64(mask))
    while True:
        hs = hashes[s]
        if hs == 0:
            return int(-1 - s)
        if hs == h:
            same = True
            for i in range(NSLOTS):
                if keys[s, i] != b[i]:
                    same = False
                    break
            if same:
                return int(s)
        s = (s + 1) & mask


@njit(cache=True)
def _t0_get(keys: np.ndarray, vals: np.ndarray, hashes: np.ndarray, b: np.ndarray, h: np.uint64,
            out: np.ndarray) -> tuple[int, np.uint64]:
    """Look board ``b`` up under the table's hash ``h`` (a board hashing to 0 is filed under 1): on a hit
    its distribution into ``out``. Returns :func:`_t0_find`'s answer and the hash filed."""
    if h == 0:
        h = np.uint64(1)
    s = _t0_find(keys, hashes, b, h)
    if s >= 0:
        for i in range(NOUT):
            out[i] = vals[s, i]
    return s, h


@njit(cache=True)
def _t0_put(keys: np.ndarray, vals: np.ndarray, hashes: np.ndarray, meta: np.ndarray, b: np.ndarray, h: np.uint64,
            s: int, val: np.ndarray) -> None:
    """Keep ``val`` for board ``b`` (hash ``h``, missing: ``s`` is :func:`_t0_find`'s answer), unless the
    engine keeps nothing (``meta[1] == 0``) or the table is too full until it grows."""
    if meta[1] <= 0 or 4 * (meta[0] + 1) > 3 * hashes.shape[0]:
        return
    if meta[0] >= meta[1]:  # as many as the engine keeps: start again
        hashes[:] = 0
        meta[0] = 0
        s = _t0_find(keys, hashes, b, h)
    s = -1 - s
    for i in range(NSLOTS):
        keys[s, i] = b[i]
    for i in range(NOUT):
        vals[s, i] = val[i]
    hashes[s] = h
    meta[0] += 1


@njit(cache=True)
def _t0_lookup(boards: np.ndarray, W: NetArgs, use_db: bool, dist: np.ndarray, first: np.ndarray,
               win2: np.ndarray, keys: np.ndarray, vals: np.ndarray, hashes: np.ndarray, meta: np.ndarray,
               out: np.ndarray) -> bool:
    """The 0-ply outcome distribution of every board into ``out``: from the table when it holds it, else
    evaluated (:func:`_eval0`) and kept. True when the table should grow."""
    sc = new_scratch(W)
    iw = np.empty(EVAL_INTS, np.int64)
    tmp = sc[3]
    for k in range(boards.shape[0]):
        b = boards[k]
        flip_into(b, tmp)
        s, h = _t0_get(keys, vals, hashes, b, full_hash(tmp), out[k])
        if s < 0:
            _eval0_into(b, W, use_db, dist, first, win2, sc[0], sc[1], sc[2], out[k], iw)
            _t0_put(keys, vals, hashes, meta, b, h, s, out[k])
    return bool(2 * meta[0] > hashes.shape[0])


@njit(cache=True)
def _t0_rehash(keys: np.ndarray, vals: np.ndarray, hashes: np.ndarray, nkeys: np.ndarray, nvals: np.ndarray,
               nhashes: np.ndarray) -> None:
    for s in range(hashes.shape[0]):
        if hashes[s] != 0:
            t = -1 - _t0_find(nkeys, nhashes, keys[s], hashes[s])
            nkeys[t] = keys[s]
            nvals[t] = vals[s]
            nhashes[t] = hashes[s]


class _Table0:
    """The engine's compiled 0-ply cache, keeping up to ``size`` boards: ``args``, the evaluator
    ``prefix`` (``W, use_db, dist, first, win2``) and the table (``keys``, ``vals``, ``hashes``, ``meta``),
    as :func:`_rank0` and :func:`_t0_lookup` take them."""

    def __init__(self, size: int, prefix: tuple[Any, ...]) -> None:
        self.meta = np.array([0, max(0, size)], np.int64)
        self._prefix = prefix
        self._alloc(T0_START)

    def _alloc(self, cap: int) -> None:
        self.keys = np.zeros((cap, NSLOTS), np.int8)
        self.vals = np.zeros((cap, NOUT), np.float32)
        self.hashes = np.zeros(cap, np.uint64)
        self.args = (*self._prefix, self.keys, self.vals, self.hashes, self.meta)

    @property
    def size(self) -> int:
        return int(self.meta[1])

    @size.setter
    def size(self, size: int) -> None:
        self.meta[1] = max(0, size)
        if self.meta[0] > self.meta[1]:
            self.clear()

    def __len__(self) -> int:
        return int(self.meta[0])

    def grow(self) -> None:
        """Double the slots (while half of them cannot hold ``size`` boards)."""
        if self.hashes.shape[0] >= 2 * self.meta[1]:
            return
        keys, vals, hashes = self.keys, self.vals, self.hashes
        self._alloc(2 * hashes.shape[0])
        _t0_rehash(keys, vals, hashes, self.keys, self.vals, self.hashes)

    def clear(self) -> None:
        """Forget every board (and give back the memory)."""
        self.meta[0] = 0
        self._alloc(T0_START)


class _Caches(EvalCache):
    """The engine's evaluation caches: the deeper plies' (an :class:`EvalCache`) and the 0-ply table
    ``t0`` (:class:`_Table0`), both keeping up to ``size`` evaluations and cleared together."""

    def __init__(self, size: int, t0: _Table0) -> None:
        self.t0 = t0
        super().__init__(NOUT, size)

    @property
    def size(self) -> int:
        return self.t0.size

    @size.setter
    def size(self, size: int) -> None:
        self.t0.size = size

    def clear(self) -> None:
        super().clear()
        self.t0.clear()


@njit(cache=True)
def _rank0(b0: np.ndarray, d1: int, d2: int, opts: int, ws: GenBuffers, W: NetArgs, use_db: bool,
           dist: np.ndarray, first: np.ndarray, win2: np.ndarray, keys: np.ndarray, vals: np.ndarray,
           hashes: np.ndarray, meta: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                          bool, bool, bool]:
    """The 0-ply ranking of every play of ``(d1, d2)`` from ``b0`` in one call: the listing
    (:func:`~analyzer.rules.kernel.fill_listing`), the 0-ply evaluations of the results (opponent on
    roll) through the table, and :func:`_rank_kernel`. Returns ``(n, block, p, eq, order, tied, ok,
    grow)``: ``eq`` (2 x n) holds :func:`_rank_kernel`'s ``eq0`` and ``eqs``; ``grow``: the table
    should grow; ``n`` is -1 when the move generation buffers are too small."""
    # the variant as an int64, as the play matcher and the luck pass give it from Python: one compiled
    # move generator for all three (a literal 0 here compiled a copy of it and its callees)
    n = generate(b0, d1, d2, as_int64(VAR_STANDARD), opts, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7],
                 ws[8], ws[9], ws[10], ws[11])
    m = max(n, 0)
    blk = np.empty((m, LISTING_WIDTH), np.int8)
    phash, results = ws[1], ws[11]
    fill_listing(m, ws[0], ws[2], ws[3], ws[4], ws[5], results, blk)
    raw = np.empty((m, NOUT), np.float32)
    xc = xr = hid = np.zeros(0, np.float32)  # the scratch of the evaluations: made at the first miss
    iw = np.zeros(0, np.int64)
    for k in range(m):
        b = blk[k, NSLOTS: 2 * NSLOTS]
        # phash: full_hash of the result before it was flipped, the table's hash of b
        s, h = _t0_get(keys, vals, hashes, b, phash[results[k]], raw[k])
        if s >= 0:
            continue
        if xc.shape[0] == 0:
            xc = np.zeros(F.N_CONTACT_EXT, np.float32)
            xr = np.zeros(F.N_RACE, np.float32)
            hid = np.zeros(max(W[0].shape[1], W[4].shape[1], W[8].shape[1]), np.float32)
            iw = np.empty(EVAL_INTS, np.int64)
        _eval0_into(b, W, use_db, dist, first, win2, xc, xr, hid, raw[k], iw)
        _t0_put(keys, vals, hashes, meta, b, h, s, raw[k])
    p, eq0, eqs, order, tied, ok = _rank_kernel(raw)
    eq = np.empty((2, m), np.float64)
    eq[0] = eq0
    eq[1] = eqs
    return n, blk, p, eq, order, tied, ok, bool(2 * meta[0] > hashes.shape[0])


def entry_point(dispatcher: Any, args: tuple[Any, ...]) -> Callable[..., Any]:
    """The compiled code of the kernel ``dispatcher`` for the types of ``args`` (from numba's cache, or
    compiled now), to be called directly: without the dispatcher's look-up of every argument's type
    on each call (microseconds for tuples of arrays), so only with arguments of these same types
    (arrays of the same dtypes, dimensions and layouts, read-only or not alike: numba lays both
    out the same; ints for ints).

    >>> f = entry_point(flip_many, (np.zeros((1, NSLOTS), np.int8), np.zeros((1, NSLOTS), np.int8)))
    >>> b = np.frombuffer(Position.start().board, np.int8)[None, :]
    >>> out = np.zeros_like(b); f(b.copy(), out); out.tobytes() == Position.start().flip().board
    True
    """
    if not hasattr(dispatcher, "compile"):  # NUMBA_DISABLE_JIT: a plain function
        return cast(Callable[..., Any], dispatcher)
    return cast(Callable[..., Any], dispatcher.compile(tuple(cast(Any, typeof)(a) for a in args)))


class _LevelWorkspace:
    """Move-generation buffers, one set per recursion level (and per thread when ``threads``)."""

    def __init__(self, capacity: int = CAPACITY, levels: int = LEVELS, threads: int = 0) -> None:
        tsize = 1 << (2 * capacity - 1).bit_length()
        lead: tuple[int, ...] = (threads, levels) if threads else (levels,)
        self.arrays: tuple[NDArray[np.generic], ...] = (
            np.zeros((*lead, capacity, NSLOTS), np.int8),
            np.zeros((*lead, capacity), np.uint64),
            np.zeros((*lead, capacity), np.int32),
            np.zeros((*lead, capacity), np.int8),
            np.zeros((*lead, capacity), np.int8),
            np.zeros((*lead, capacity), np.int8),
            np.zeros((*lead, capacity), np.int8),
            np.zeros((*lead, capacity), np.bool_),
            np.zeros((*lead, tsize), np.int64),
            np.zeros((*lead, tsize), np.int64),
            np.zeros((*lead, 1), np.int64),
            np.zeros((*lead, capacity), np.int64),
        )


def bearoff_arrays(use_bearoff: bool = True,
                   two_sided: bool = True) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The bear-off database arrays of the kernels' evaluator, ``(dist, first, win2)``: the
    one-sided distributions and first-move table and the two-sided winning chances, or 1 x 1
    dummies without the databases (``two_sided=False``: a dummy for the two-sided table alone,
    so its races come from the one-sided convolution).

    >>> [a.shape for a in bearoff_arrays(False)]
    [(1, 1), (1, 1), (1, 1)]
    """
    if use_bearoff:
        from analyzer.eval.bearoff import BearoffDB

        one = BearoffDB.one_sided()
        win2 = BearoffDB.two_sided().win if two_sided else np.zeros((1, 1), np.float32)
        return one.dist, one.first, win2
    z = np.zeros((1, 1), np.float32)
    return z, z, z


# ---------------------------------------------------------------------------------- engine
class Engine(CachedEvaluations):
    """Cubeless evaluation and play ranking for standard backgammon.

    ``nets`` defaults to the shipped ``data/nets/standard.npz``; ``use_bearoff`` looks up the
    bear-off databases (built into the cache on first use) for races with every checker home;
    ``two_sided=False`` leaves out the exact two-sided table, so those races come from the
    one-sided database's convolution (for benchmarks of the race evaluation).
    Results are cached by (position, ply): up to ``cache_size`` 0-ply entries (a compiled table) and as
    many deeper ones. ``threads`` caps the threads of a batched evaluation (:meth:`evaluate_boards`,
    which n-ply ranking uses; default: numba's thread count): 1 where several engines share the
    cores, as the workers of ``bgreview batch`` do. Results never depend on it.

    Its capabilities (:class:`analyzer.eval.protocol.Evaluator`): standard backgammon, with the cube
    (``cubeful``), variance-reduced and truncatable rollouts, search up to :data:`MAX_PLY`.
    """

    variant = "standard"
    cubeful = True
    variance_reduction = True
    max_ply = MAX_PLY

    def __init__(
        self,
        nets: NetSet | None = None,
        *,
        nets_path: Path | str | None = None,
        use_bearoff: bool = True,
        two_sided: bool = True,
        prune: bool = True,
        cache_size: int = 200_000,
        threads: int | None = None,
    ) -> None:
        if nets is None:
            nets = NetSet.load(nets_path or DEFAULT_NETS)
        self.nets = nets
        self._W = nets.kernel_args()
        self._P = nets.prune_args()
        self.use_prune = prune and nets.prune is not None
        self.use_bearoff = use_bearoff
        self._db = bearoff_arrays(use_bearoff, two_sided)
        self._ws = _LevelWorkspace()
        self.threads = max(1, int(get_num_threads() if threads is None else min(threads, get_num_threads())))
        self._pws: _LevelWorkspace | None = None
        self._rules = Standard()
        self._t0 = _Table0(cache_size, (self._W, self.use_bearoff, *self._db))
        self._cache = _Caches(cache_size, self._t0)
        # the compiled code of _rank0 and _t0_lookup for this engine's arguments (entry_point), found at first use
        self._entries: dict[Any, Callable[..., Any]] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_entries"] = {}  # compiled code: found again at first use
        return state

    # ----------------------------------------------------------------- raw arrays
    def evaluator_args(self, *, prune: bool = True) -> EvalArgs:
        """The 0-ply evaluator of the compiled kernels (``ev``, see the kernels section above):
        the nets' weights, the bear-off databases and the pruning net (off when ``prune`` is
        false or the engine does not prune).

        >>> ev = Engine(use_bearoff=False).evaluator_args(prune=False)
        >>> len(ev), ev[1], ev[6]
        (7, False, False)
        """
        return (self._W, self.use_bearoff, *self._db, self._P, prune and self.use_prune)

    @property
    def cube(self) -> CubeSearch:
        """The cube is valued by the n-ply cubeful search over this engine's kernels
        (:func:`analyzer.eval.cube_search.cube_decision_nply`): its :meth:`evaluator_args` and threads."""
        return self

    def describe(self) -> EvaluatorInfo:
        """What a review records of this engine: its nets' version and feature version, and whether it
        reads the bear-off databases (:attr:`use_bearoff`)."""
        return EvaluatorInfo.of_nets(type(self).__name__, self.nets.meta, bool(self.use_bearoff))

    def rollout_args(self) -> tuple[Any, ...]:
        """What the cubeful rollout kernel (:func:`analyzer.eval.rollout.rollout`) takes: the nets'
        weights, whether it reads the bear-off databases, and the pruning net's weights (``None``
        when the engine does not prune)."""
        return (self.nets.kernel_args(), self.use_bearoff, self.nets.prune_args() if self.use_prune else None)

    def evaluate_boards(self, boards: NDArray[np.int8], ply: int = 0) -> NDArray[np.float32]:
        """Outcome distributions (n x 6: win single/gammon/backgammon, lose ...) of ``boards``
        (n x 64, each for its own side on roll) at ``ply``, uncached."""
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}")
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        out = np.zeros((boards.shape[0], NOUT), np.float32)
        if self.threads > 1 and ply >= 1:  # every (board, roll) a task: one board's search is shared too
            # one compiled kernel for every deep evaluation on threads: a first run compiles it alone
            # (each entry point links and optimises its callees again: about 13 CPU-s each)
            if self._pws is None:
                self._pws = _LevelWorkspace(threads=self.threads)
            r = cast(Any, eval_rolls_parallel)(boards, ply, self.evaluator_args(), self._pws.arrays, out)
        elif self.threads > 1 and boards.shape[0] >= 4000:  # a large 0-ply batch
            if self._pws is None:
                self._pws = _LevelWorkspace(threads=self.threads)
            # board i to thread i % threads (each thread takes a contiguous part): a ranking's plays come
            # ordered, and neighbours cost alike, so the threads get even shares of the work
            n, nt = boards.shape[0], self.threads
            order = np.concatenate([np.arange(t, n, nt) for t in range(nt)])
            part = np.zeros_like(out)
            r = cast(Any, eval_many_parallel)(np.ascontiguousarray(boards[order]), ply, self.evaluator_args(),
                                              self._pws.arrays, part)
            out[order] = part
        elif ply == 0:  # the nets and databases alone: less for the call to hand over than eval_many's
            _eval0_many(boards, self._W, self.use_bearoff, *self._db, out)
            return out
        else:
            r = cast(Any, eval_many)(boards, ply, self.evaluator_args(), self._ws.arrays, out)
        if r < 0:
            raise RuntimeError("move generation buffers overflowed")
        return out

    def _cached(self, boards: NDArray[np.int8], ply: int) -> NDArray[np.float32]:
        if ply:
            return self._cache.lookup(boards, ply, self.evaluate_boards)
        out = np.zeros((boards.shape[0], NOUT), np.float32)
        args = (np.ascontiguousarray(boards, dtype=np.int8), *self._t0.args, out)
        f = self._entries.get(_t0_lookup)
        if f is None:
            f = self._entries[_t0_lookup] = entry_point(_t0_lookup, args)
        if f(*args):
            self._t0.grow()
        return out

    # ----------------------------------------------------------------- positions
    def evaluate(self, pos: Position, ply: int = 0) -> Probabilities:
        """Cubeless probabilities of ``pos`` for its side on roll (before the roll) at ``ply``.

        >>> from analyzer.core.position import Position
        >>> Engine().evaluate(Position.from_notation("P | O 19:15 | off P15")).win_gammon
        1.0
        """
        self._check(pos)
        b = np.frombuffer(pos.board, dtype=np.int8)[None, :]
        return Probabilities.from_outcomes(self._cached(b, ply)[0].tolist())

    def rank_plays(
        self, pos: Position, dice: tuple[int, int], ply: int = 0, move_filter: MoveFilter = ANALYSIS_FILTER
    ) -> list[RankedPlay]:
        """Every legal play of ``dice`` in ``pos``, best first.

        Plays kept by ``move_filter`` after the 0-ply pass are evaluated at ``ply`` and listed
        first; the rest keep their 0-ply values. Ties in equity keep the order of
        :meth:`~analyzer.rules.base.Variant.legal_plays`. The plays' texts, positions and
        probabilities are made only when read (:class:`RankedPlay`).
        """
        self._check(pos)
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}")
        d1, d2 = check_dice(dice)
        board = np.frombuffer(pos.board, np.int8)
        ws = work_buffers()
        while True:
            args = (board, d1, d2, self._rules.options, ws.args(), *self._t0.args)
            f = self._entries.get(_rank0)
            if f is None:
                f = self._entries[_rank0] = entry_point(_rank0, args)
            n, blk, p0, eq, order, tied, ok, grow = f(*args)
            if n >= 0:
                break
            ws.resize(ws.capacity * 4)
        if grow:
            self._t0.grow()
        if not ok:
            raise ValueError("outcome probabilities sum to zero")
        listing = PlayListing("standard", blk)
        eqs = eq[1].tolist()
        ranked = _ties_broken(order.tolist(), eq[0], order, listing) if tied else order.tolist()
        listed = RankedPlay.listed
        if ply == 0:
            return [listed(listing, i, eqs[i], p0, i, 0) for i in ranked]
        eq0 = eq[0]
        best = eq0[ranked[0]]
        deep = [i for i in ranked[: move_filter.count] if eq0[i] >= best - move_filter.threshold]
        pd, _, deq, _ = _ranked(self._cached(listing.flipped[deep], ply))
        out = [listed(listing, i, deq[j], pd, j, ply) for j, i in enumerate(deep)]
        out.sort(key=lambda r: -r.equity)
        chosen = set(deep)
        out.extend(listed(listing, i, eqs[i], p0, i, 0) for i in ranked if i not in chosen)
        return out

    def best_play(
        self, pos: Position, dice: tuple[int, int], ply: int = 0, move_filter: MoveFilter = PLAY_FILTER
    ) -> RankedPlay:
        """The play ``rank_plays`` puts first (with gnubg's play filter by default)."""
        return self.rank_plays(pos, dice, ply, move_filter)[0]

    @staticmethod
    def _check(pos: Position) -> None:
        if not pos.spec.has_cube:
            raise ValueError(f"the evaluator handles standard positions, not {pos.variant}")


_EQUITY_WEIGHTS = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])


@njit(cache=True)
def rank_equity(p: np.ndarray) -> float:
    """The equity a ranking sorts plays by, of a mover's-view distribution ``p`` (float32): ``p @
    _EQUITY_WEIGHTS`` as numpy's product adds it up (for the layout the ranking always gave it), the
    products exact, then ((0 + 2) + (1 + 3)) + (4 + 5). :func:`_rank_kernel` and the rollouts' 1-ply
    player (:func:`analyzer.eval._rollout_kernel.player_choice`) both call it, so that they order plays
    alike, ties included.

    >>> round(rank_equity(np.array([0.5, 0.2, 0.0, 0.3, 0.0, 0.0], np.float32)), 6)
    0.6
    """
    c0 = float(p[0]) * _EQUITY_WEIGHTS[0]
    c1 = float(p[1]) * _EQUITY_WEIGHTS[1]
    c2 = float(p[2]) * _EQUITY_WEIGHTS[2]
    c3 = float(p[3]) * _EQUITY_WEIGHTS[3]
    c4 = float(p[4]) * _EQUITY_WEIGHTS[4]
    c5 = float(p[5]) * _EQUITY_WEIGHTS[5]
    return float(((c0 + c2) + (c1 + c3)) + (c4 + c5))


@njit(cache=True)
def _rank_kernel(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool, bool]:
    n = raw.shape[0]
    p = np.empty((n, NOUT), np.float32)
    eq0 = np.empty(n, np.float64)
    eqs = np.empty(n, np.float64)
    v = np.empty(NOUT, np.float64)
    ok = True
    for r in range(n):
        for k in range(3):  # back to the mover's side
            p[r, k] = raw[r, k + 3]
            p[r, k + 3] = raw[r, k]
        eq0[r] = rank_equity(p[r])
        # Probabilities.from_outcomes(p[r]).equity: max(0.0, x) keeps 0.0 unless x > 0.0 (NaN too),
        # the sum in order, then its equity's arithmetic in its order
        s = 0.0
        for k in range(NOUT):
            x = float(p[r, k])
            v[k] = x if x > 0.0 else 0.0
            s += v[k]
        if s <= 0.0:
            ok = False
            continue
        v0, v1, v2, v4, v5 = v[0] / s, v[1] / s, v[2] / s, v[4] / s, v[5] / s
        win = v0 + v1 + v2
        wg = v1 + v2
        lg = v4 + v5
        eqs[r] = 2.0 * win - 1.0 + 0.0 + wg + v2 - lg - v5
    order = np.argsort(-eq0, kind="mergesort")  # stable
    tied = False
    for k in range(n - 1):
        if eq0[order[k]] == eq0[order[k + 1]]:
            tied = True
            break
    return p, eq0, eqs, order, tied, ok


def _ranked(raw: NDArray[np.float32], listing: PlayListing | None = None
            ) -> tuple[NDArray[np.float32], NDArray[np.float64], list[float], list[int]]:
    """From the outcome distributions ``raw`` (n x 6) of the positions after each play of ``listing``
    (the opponent on roll): the mover's distributions, their equities ``p @ _EQUITY_WEIGHTS`` (numpy's
    product, whose order of additions its memory layout picks: the ranking's, as it always was), the
    equities of :meth:`Probabilities.from_outcomes` (bit for bit: the same arithmetic, compiled) and
    the plays best first, plays of equal equity in the order of
    :meth:`~analyzer.rules.base.Variant.legal_plays` (their texts are made only for such ties).

    >>> lst = Standard().listing(Position.start(), (1, 1))
    >>> raw = np.full((len(lst), 6), 1 / 6, np.float32)
    >>> p, eq0, eqs, order = _ranked(raw, lst)
    >>> order == lst.order(), eqs[0] == Probabilities.from_outcomes(p[0].tolist()).equity
    (True, True)
    """
    p, eq0, eqs, order, tied, ok = _rank_kernel(raw)
    if not ok:
        raise ValueError("outcome probabilities sum to zero")
    ranked: list[int] = order.tolist()
    if tied and listing is not None:
        ranked = _ties_broken(ranked, eq0, order, listing)
    return p, eq0, cast(list[float], eqs.tolist()), ranked


def _ties_broken(ranked: list[int], eq0: NDArray[np.float64], order: NDArray[np.int64],
                 listing: PlayListing) -> list[int]:
    """``ranked`` (the plays by ``eq0``, best first, from ``order``) with each run of equal equities
    sorted by the listing's order (:meth:`PlayListing.sort_key`)."""
    s = eq0[order]
    i, n = 0, len(ranked)
    while i < n:
        j = i + 1
        while j < n and s[j] == s[i]:
            j += 1
        if j - i > 1:
            ranked[i:j] = sorted(ranked[i:j], key=listing.sort_key)
        i = j
    return ranked


def eval_parallel(engine: Engine, boards: NDArray[np.int8], ply: int = 0) -> NDArray[np.float32]:
    """Evaluate ``boards`` split over the numba threads (benchmarks; :meth:`Engine.evaluate_boards`
    does this by itself for large enough work)."""
    if engine._pws is None:
        engine._pws = _LevelWorkspace(threads=engine.threads)
    out = np.zeros((boards.shape[0], NOUT), np.float32)
    cast(Any, eval_many_parallel)(np.ascontiguousarray(boards), ply, engine.evaluator_args(), engine._pws.arrays, out)
    return out


def equity_of(p: NDArray[np.float32]) -> float:
    """Cubeless equity of a 6-outcome distribution."""
    return float(equity6(p))
