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
>>> W = NetSet.initial(hidden=4, race_hidden=4, seed=0).kernel_args()
>>> z = np.zeros((1, 1), np.float32)
>>> b = np.frombuffer(Position.from_points({1: 1}, {24: 1}).board, np.int8).copy()
>>> out = np.zeros(6)
>>> run_trial(b, 0, 5, 5, 1, 0, False, W, False, z, z, z, *Workspace(1024).args(), out)
1
>>> out.tolist()  # the side on roll bears off its last checker with any roll: a single win
[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from analyzer.core.jit import njit
from analyzer.core.layout import NSLOTS, VAR_STANDARD
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.bearoff import bearoff_class
from analyzer.eval.engine import eval0
from analyzer.eval.net import NOUT, equity6, swap_outcomes
from analyzer.rules.kernel import flip_into, generate

MAX_TRIAL_PLIES = 2000
Arr = np.ndarray  # numba ignores annotations; this names the array arguments for mypy


def _refresh_own_cache() -> bool:
    """Delete this module's cached kernels when a module they call has changed.

    numba checks a cached function against its own file only; these kernels call the move
    generator, the inputs, the nets and the bear-off lookups (the sources listed in
    :data:`analyzer.eval.jitcache.SOURCES`), so a stamp of those sources is kept beside the cache.
    """
    here = Path(__file__).resolve()
    root = here.parents[1]
    h = hashlib.sha256()
    for rel in (*jitcache.SOURCES, "eval/_rollout_kernel.py"):
        p = root / rel
        h.update(rel.encode())
        if p.exists():
            h.update(p.read_bytes())
    digest = h.hexdigest()[:16]
    cache = here.parent / "__pycache__"
    stamp = cache / "rollout-deps.stamp"
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    removed = False
    if cache.is_dir():
        for f in cache.glob(here.stem + ".*.nb[ic]"):
            try:
                f.unlink()
                removed = True
            except OSError:
                pass
    try:
        cache.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return removed


jitcache.refresh()
_refresh_own_cache()


@njit
def best_play(b: Arr, d1: int, d2: int, W: tuple, use_db: bool,  # type: ignore[type-arg]
              dist: Arr, first: Arr, win2: Arr,
              pool: Arr, phash: Arr, parent: Arr, hfrom: Arr, hto: Arr, hhit: Arr, ptag: Arr,
              pterm: Arr, table: Arr, tstamp: Arr, stampbox: Arr, results: Arr,
              tmp: Arr, xc: Arr, xr: Arr, hid: Arr, pa: Arr, pb: Arr, bestp: Arr) -> int:
    """The 0-ply best play of roll (d1, d2) from ``b``: returns its pool row (-1 when the buffers
    overflow) and leaves the outcome distribution after it (mover's view) in ``bestp``."""
    n = generate(b, d1, d2, VAR_STANDARD, 0, pool, phash, parent, hfrom, hto, hhit, ptag, pterm,
                 table, tstamp, stampbox, results)
    if n < 0:
        return -1
    best = -1e30
    best_row = int(results[0])
    for k in range(n):
        row = results[k]
        cand = pool[row]
        if cand[26] >= 15:
            o = F.game_over_outcome(cand)
            for i in range(NOUT):
                pb[i] = 0.0
            pb[o] = 1.0
        else:
            flip_into(cand, tmp)
            eval0(tmp, W, use_db, dist, first, win2, xc, xr, hid, pa)
            swap_outcomes(pa, pb)
        e = equity6(pb)
        if e > best:
            best = e
            best_row = int(row)
            for i in range(NOUT):
                bestp[i] = pb[i]
    return best_row


@njit
def _to_reference(src: Arr, side: int, dst: Arr) -> None:
    """Copy a mover's-view distribution into the reference view (swapped when ``side`` is 1)."""
    for i in range(NOUT):
        dst[i] = src[i] if side == 0 else src[(i + 3) % 6]


@njit
def run_trial(start: Arr, side0: int, r1: int, r2: int, seed: int, truncate: int, vr: bool,
              W: tuple, use_db: bool, dist: Arr, first: Arr, win2: Arr,  # type: ignore[type-arg]
              pool: Arr, phash: Arr, parent: Arr, hfrom: Arr, hto: Arr, hhit: Arr, ptag: Arr,
              pterm: Arr, table: Arr, tstamp: Arr, stampbox: Arr, results: Arr, out: Arr) -> int:
    """Play one trial from ``start`` (see the module docstring) and write its (luck-corrected)
    result into ``out`` (6, reference view). ``r1``/``r2`` are the first two rolls as indices
    0..35 (``6 * (die1 - 1) + die2 - 1``); ``truncate`` <= 0 plays to the end. Returns the plies
    played, -1 on buffer overflow."""
    np.random.seed(seed)
    board = start.copy()
    tmp = np.zeros(NSLOTS, np.int8)
    xc = np.zeros(F.N_CONTACT, np.float32)
    xr = np.zeros(F.N_RACE, np.float32)
    nh = max(W[0].shape[1], W[4].shape[1], W[8].shape[1])
    hid = np.zeros(nh, np.float32)
    pa = np.zeros(NOUT, np.float32)
    pb = np.zeros(NOUT, np.float32)
    bestp = np.zeros(NOUT, np.float32)
    mean = np.zeros(NOUT, np.float64)
    luck = np.zeros(NOUT, np.float64)
    ref = np.zeros(NOUT, np.float64)
    side = side0
    t = 0
    while True:
        over = F.classify(board) == F.CLASS_OVER
        stop = over or t >= MAX_TRIAL_PLIES or (0 < truncate <= t)
        if not stop and use_db and bearoff_class(board) != 0:
            stop = True
        if stop:
            eval0(board, W, use_db, dist, first, win2, xc, xr, hid, pa)
            _to_reference(pa, side, ref)
            break
        if t == 0:
            d1, d2 = r1 // 6 + 1, r1 % 6 + 1
        elif t == 1:
            d1, d2 = r2 // 6 + 1, r2 % 6 + 1
        else:
            d1, d2 = np.random.randint(1, 7), np.random.randint(1, 7)
        hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
        if vr:
            for i in range(NOUT):
                mean[i] = 0.0
            for a in range(1, 7):
                for c in range(1, a + 1):
                    if a == hi and c == lo:
                        continue
                    if best_play(board, a, c, W, use_db, dist, first, win2, pool, phash, parent, hfrom,
                                 hto, hhit, ptag, pterm, table, tstamp, stampbox, results, tmp, xc, xr,
                                 hid, pa, pb, bestp) < 0:
                        return -1
                    wt = 1.0 if a == c else 2.0
                    for i in range(NOUT):
                        mean[i] += wt * bestp[i]
        row = best_play(board, hi, lo, W, use_db, dist, first, win2, pool, phash, parent, hfrom, hto,
                        hhit, ptag, pterm, table, tstamp, stampbox, results, tmp, xc, xr, hid, pa, pb,
                        bestp)
        if row < 0:
            return -1
        if vr:
            wt = 1.0 if hi == lo else 2.0
            for i in range(NOUT):
                mean[i] = (mean[i] + wt * bestp[i]) / 36.0
            for i in range(NOUT):
                j = i if side == 0 else (i + 3) % 6
                luck[j] += bestp[i] - mean[i]
        chosen = pool[row]
        t += 1
        if chosen[26] >= 15:
            for i in range(NOUT):
                pa[i] = 0.0
            pa[F.game_over_outcome(chosen)] = 1.0
            _to_reference(pa, side, ref)
            break
        flip_into(chosen, board)
        side = 1 - side
    for i in range(NOUT):
        out[i] = ref[i] - luck[i]
    return t


@njit
def run_trials(starts: Arr, side0: int, rolls1: Arr, rolls2: Arr, seeds: Arr, truncate: int, vr: bool,
               W: tuple, use_db: bool, dist: Arr, first: Arr, win2: Arr,  # type: ignore[type-arg]
               pool: Arr, phash: Arr, parent: Arr, hfrom: Arr, hto: Arr, hhit: Arr, ptag: Arr,
               pterm: Arr, table: Arr, tstamp: Arr, stampbox: Arr, results: Arr, out: Arr,
               plies: Arr) -> int:
    """:func:`run_trial` for every trial ``i`` (rolls ``rolls1[i]``, ``rolls2[i]``, seed
    ``seeds[i]``) and every start board ``k`` (same dice for all): ``out[i, k]`` gets the result,
    ``plies[i, k]`` the plies played. Returns -1 on buffer overflow, else 0."""
    for i in range(seeds.shape[0]):
        for k in range(starts.shape[0]):
            n = run_trial(starts[k], side0, int(rolls1[i]), int(rolls2[i]), int(seeds[i]), truncate, vr,
                          W, use_db, dist, first, win2, pool, phash, parent, hfrom, hto, hhit, ptag, pterm,
                          table, tstamp, stampbox, results, out[i, k])
            if n < 0:
                return -1
            plies[i, k] = n
    return 0
