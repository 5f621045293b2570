"""Compiled kernels that index bear-off positions, generate bear-off plays and build the databases.

A *side* is the 6 counts of one player's checkers on his home points 1..6 (point 1 first). Up to
15 checkers fit; the rest are off. Sides are numbered with the combinatorial number system: write
the side as a string of 15 checker marks and 6 separators (``c1`` marks, a separator, ``c2`` marks,
a separator, ...; the checkers that are off come last). With ``q_k`` the 0-based place of the
k-th separator, the index is ``sum C(q_k, k)`` for k = 1..6. The empty side is 0, and the sides
with at most ``n`` checkers are exactly the indices below ``C(n + 6, 6)``: the 924 sides of the
two-sided database are the first 924 of the 54,264 one-sided ones.

Plays follow ``docs/rules.md`` §0.3 for a side whose checkers are all home: a die ``d`` bears
off a checker from point ``d``, moves a checker from a higher point ``s`` to ``s - d``, or bears
off from the highest point when that point is below ``d``. Such a die is always playable while a
checker is left, so a play uses every die unless the last checker leaves first; the
"as many dice as possible" and "larger die" rules never remove a result.

Everything here is deterministic: ties between plays of equal value go to the lowest index.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NPOINTS = 6
MAX_CHECKERS = 15
N_ONE_SIDED = 54264  # C(21, 6)
N_TWO_SIDED = 924  # C(12, 6)
MAX_ROLLS = 32  # rolls-distribution length: index k = P(exactly k rolls)


def _binomials() -> np.ndarray:
    t = np.zeros((MAX_CHECKERS + NPOINTS + 1, NPOINTS + 1), dtype=np.int64)
    for n in range(t.shape[0]):
        t[n, 0] = 1
        for k in range(1, min(n, NPOINTS) + 1):
            t[n, k] = t[n - 1, k - 1] + (t[n - 1, k] if k <= n - 1 else 0)
    return t


BINOM = _binomials()

# The 21 distinct rolls and their weights out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1.0 / 36.0 if a == b else 2.0 / 36.0 for a, b in ROLLS], dtype=np.float64)


@njit(cache=True)
def side_index(c: np.ndarray) -> int:
    """Index of the side with counts ``c[0..5]`` on points 1..6 (sum at most 15)."""
    idx = 0
    q = -1
    for k in range(NPOINTS):
        q += c[k] + 1
        idx += BINOM[q, k + 1]
    return idx


@njit(cache=True)
def mover_index(board: np.ndarray) -> int:
    """Index of the mover's side in a 64-slot board (slots 1..6 hold the mover's home points)."""
    idx = 0
    q = -1
    for k in range(NPOINTS):
        v = board[k + 1]
        q += (v if v > 0 else 0) + 1
        idx += BINOM[q, k + 1]
    return idx


@njit(cache=True)
def opponent_index(board: np.ndarray) -> int:
    """Index of the opponent's side in a 64-slot board (his point p is the mover's slot 25 - p)."""
    idx = 0
    q = -1
    for k in range(NPOINTS):
        v = board[24 - k]
        q += (-v if v < 0 else 0) + 1
        idx += BINOM[q, k + 1]
    return idx


@njit(cache=True)
def side_counts(idx: int, out: np.ndarray) -> None:
    """Inverse of :func:`side_index`: write the 6 counts of side ``idx`` into ``out``."""
    # Recover the separator places q_6 > ... > q_1 greedily, then the counts between them.
    rem = idx
    q = np.zeros(NPOINTS, dtype=np.int64)
    top = MAX_CHECKERS + NPOINTS - 1
    for k in range(NPOINTS, 0, -1):
        x = top
        while BINOM[x, k] > rem:
            x -= 1
        q[k - 1] = x
        rem -= BINOM[x, k]
        top = x - 1
    prev = -1
    for k in range(NPOINTS):
        out[k] = q[k] - prev - 1
        prev = q[k]


@njit(cache=True)
def _step_ok(c: np.ndarray, s: int, d: int) -> bool:
    # c is indexed by point (c[1..6]); checks the one-die step from point s with die d.
    if c[s] == 0:
        return False
    if s >= d:
        return True
    for p in range(s + 1, NPOINTS + 1):  # noqa: SIM110 (a loop compiles; all(...) does not)
        if c[p] > 0:
            return False
    return True


@njit(cache=True)
def _step(c: np.ndarray, s: int, d: int, sign: int) -> None:
    # sign = +1 applies the step, -1 undoes it; returns the checker count change via c[0].
    c[s] -= sign
    if s > d:
        c[s - d] += sign
    else:
        c[0] += sign  # c[0] counts the checkers borne off during the play


@njit(cache=True)
def _empty(c: np.ndarray) -> bool:
    for p in range(1, NPOINTS + 1):  # noqa: SIM110
        if c[p] > 0:
            return False
    return True


@njit(cache=True)
def _idx_of(c: np.ndarray) -> int:
    idx = 0
    q = -1
    for k in range(NPOINTS):
        q += c[k + 1] + 1
        idx += BINOM[q, k + 1]
    return idx


@njit(cache=True)
def bearoff_results(counts: np.ndarray, d1: int, d2: int, out: np.ndarray) -> int:
    """Write the side indices reached by every legal play of ``d1-d2`` into ``out``; return how many.

    ``counts`` are the 6 counts on points 1..6 (not all zero). Results can repeat; ``out`` needs
    room for 128 entries (at most 2 x 36 plays of a non-double, 126 ordered plays of a double).
    """
    c = np.zeros(NPOINTS + 1, dtype=np.int64)
    for p in range(NPOINTS):
        c[p + 1] = counts[p]
    n = 0
    if d1 != d2:
        for order in range(2):
            a = d1 if order == 0 else d2
            b = d2 if order == 0 else d1
            for s1 in range(1, NPOINTS + 1):
                if not _step_ok(c, s1, a):
                    continue
                _step(c, s1, a, 1)
                if _empty(c):
                    out[n] = 0
                    n += 1
                else:
                    for s2 in range(1, NPOINTS + 1):
                        if _step_ok(c, s2, b):
                            _step(c, s2, b, 1)
                            out[n] = _idx_of(c)
                            n += 1
                            _step(c, s2, b, -1)
                _step(c, s1, a, -1)
        return n
    # Doubles: steps taken from non-increasing source points reach every result (a step from a
    # higher point never depends on an earlier step from a lower one).
    d = d1
    for s1 in range(NPOINTS, 0, -1):
        if not _step_ok(c, s1, d):
            continue
        _step(c, s1, d, 1)
        if _empty(c):
            out[n] = 0
            n += 1
            _step(c, s1, d, -1)
            continue
        for s2 in range(s1, 0, -1):
            if not _step_ok(c, s2, d):
                continue
            _step(c, s2, d, 1)
            if _empty(c):
                out[n] = 0
                n += 1
                _step(c, s2, d, -1)
                continue
            for s3 in range(s2, 0, -1):
                if not _step_ok(c, s3, d):
                    continue
                _step(c, s3, d, 1)
                if _empty(c):
                    out[n] = 0
                    n += 1
                    _step(c, s3, d, -1)
                    continue
                for s4 in range(s3, 0, -1):
                    if _step_ok(c, s4, d):
                        _step(c, s4, d, 1)
                        out[n] = _idx_of(c)
                        n += 1
                        _step(c, s4, d, -1)
                _step(c, s3, d, -1)
            _step(c, s2, d, -1)
        _step(c, s1, d, -1)
    return n


@njit(cache=True)
def all_sides(nmax: int) -> np.ndarray:
    """The counts of every side with at most ``nmax`` checkers, row ``i`` being side ``i``."""
    total = BINOM[nmax + NPOINTS, NPOINTS]
    out = np.zeros((total, NPOINTS), dtype=np.int8)
    c = np.zeros(NPOINTS, dtype=np.int64)
    for i in range(total):
        side_counts(i, c)
        for k in range(NPOINTS):
            out[i, k] = c[k]
    return out


@njit(cache=True)
def _pips(sides: np.ndarray) -> np.ndarray:
    n = sides.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        t = 0
        for k in range(NPOINTS):
            t += (k + 1) * sides[i, k]
        out[i] = t
    return out


@njit(cache=True)
def build_one_sided(sides: np.ndarray, order: np.ndarray, lo: int, hi: int,
                    dist: np.ndarray, mean: np.ndarray, first: np.ndarray, fmean: np.ndarray) -> None:
    """Fill rows ``order[lo:hi]`` of the one-sided tables (earlier rows of ``order`` must be done).

    ``dist[i, k]`` is P(side i needs exactly k rolls to bear off every checker) when each roll is
    played to minimise the mean number of rolls, ``mean[i]`` that mean. ``first``/``fmean`` are
    the same for bearing off at least one checker (played to minimise that mean).
    """
    buf = np.zeros(128, dtype=np.int64)
    nk = dist.shape[1]
    for j in range(lo, hi):
        i = order[j]
        for k in range(nk):
            dist[i, k] = 0.0
            first[i, k] = 0.0
        if i == 0:
            dist[0, 0] = 1.0
            first[0, 0] = 1.0
            mean[0] = 0.0
            fmean[0] = 0.0
            continue
        nch = 0
        for k in range(NPOINTS):
            nch += sides[i, k]
        for r in range(ROLLS.shape[0]):
            w = ROLL_WEIGHTS[r]
            n = bearoff_results(sides[i], ROLLS[r, 0], ROLLS[r, 1], buf)
            best = -1
            fbest = -1
            off_now = False
            for t in range(n):
                x = buf[t]
                if best < 0 or mean[x] < mean[best] or (mean[x] == mean[best] and x < best):
                    best = x
                if x < i:  # a side with fewer checkers always has a lower index
                    cnt = 0
                    for k in range(NPOINTS):
                        cnt += sides[x, k]
                    if cnt < nch:
                        off_now = True
                if fbest < 0 or fmean[x] < fmean[fbest] or (fmean[x] == fmean[fbest] and x < fbest):
                    fbest = x
            for k in range(1, nk):
                dist[i, k] += w * dist[best, k - 1]
            if off_now:
                first[i, 1] += w
            else:
                for k in range(1, nk):
                    first[i, k] += w * first[fbest, k - 1]
        m = 0.0
        fm = 0.0
        for k in range(nk):
            m += k * dist[i, k]
            fm += k * first[i, k]
        mean[i] = m
        fmean[i] = fm


@njit(cache=True)
def successor_lists(sides: np.ndarray, nsides: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct play results of each of the first ``nsides`` sides for each of the 21 rolls.

    Returns ``(start, succ)``: the results of side ``i`` and roll ``r`` are
    ``succ[start[i * 21 + r] : start[i * 21 + r + 1]]``, sorted (empty side ``0`` gets none).
    """
    nr = ROLLS.shape[0]
    start = np.zeros(nsides * nr + 1, dtype=np.int64)
    cap = nsides * nr * 8 + 16
    succ = np.zeros(cap, dtype=np.int32)
    buf = np.zeros(128, dtype=np.int64)
    m = 0
    for i in range(nsides):
        for r in range(nr):
            start[i * nr + r] = m
            if i == 0:
                continue
            n = bearoff_results(sides[i], ROLLS[r, 0], ROLLS[r, 1], buf)
            u = np.unique(buf[:n])
            if m + u.shape[0] > succ.shape[0]:
                bigger = np.zeros(succ.shape[0] * 2 + u.shape[0], dtype=np.int32)
                bigger[:m] = succ[:m]
                succ = bigger
            for t in range(u.shape[0]):
                succ[m] = u[t]
                m += 1
    start[nsides * nr] = m
    return start, succ[:m].copy()


@njit(cache=True)
def build_two_sided(order_x: np.ndarray, order_y: np.ndarray, lo: int, hi: int,
                    start: np.ndarray, succ: np.ndarray,
                    win: np.ndarray, cube: np.ndarray) -> None:
    """Fill pairs ``lo..hi-1`` of the pair order (every pair with a lower pip total must be done).

    ``win[x, y]`` is the cubeless chance that the side on roll, holding side ``x`` against the
    opponent's side ``y``, wins with both sides maximising their chances. ``cube[s, x, y]`` is the
    money equity per unit of cube value with the cube centred (s = 0), owned by the side on roll
    (s = 1) or owned by the opponent (s = 2); no gammons are possible. The side on roll decides to
    double before rolling; a doubled side takes or passes to minimise its loss.
    """
    nr = ROLLS.shape[0]
    for j in range(lo, hi):
        x = order_x[j]
        y = order_y[j]
        if x == 0:
            win[x, y] = 1.0
            cube[0, x, y] = 1.0
            cube[1, x, y] = 1.0
            cube[2, x, y] = 1.0
            continue
        if y == 0:
            win[x, y] = 0.0
            cube[0, x, y] = -1.0
            cube[1, x, y] = -1.0
            cube[2, x, y] = -1.0
            continue
        p = 0.0
        nd_c = 0.0
        nd_o = 0.0
        nd_u = 0.0
        for r in range(nr):
            w = ROLL_WEIGHTS[r]
            a = start[x * nr + r]
            b = start[x * nr + r + 1]
            bp = -1.0
            bc = -2.0
            bo = -2.0
            bu = -2.0
            for t in range(a, b):
                z = succ[t]
                v = 1.0 - win[y, z]
                if v > bp:
                    bp = v
                v = -cube[0, y, z]
                if v > bc:
                    bc = v
                v = -cube[2, y, z]  # we own it: the opponent faces a cube he cannot turn
                if v > bo:
                    bo = v
                v = -cube[1, y, z]  # he owns it
                if v > bu:
                    bu = v
            p += w * bp
            nd_c += w * bc
            nd_o += w * bo
            nd_u += w * bu
        # Clamp the rounding of the roll sums (exact values lie in [0, 1] and [-1, 1]).
        win[x, y] = min(max(p, 0.0), 1.0)
        nd_c = min(max(nd_c, -1.0), 1.0)
        nd_o = min(max(nd_o, -1.0), 1.0)
        nd_u = min(max(nd_u, -1.0), 1.0)
        dt = 2.0 * nd_u
        if dt > 1.0:
            dt = 1.0
        cube[0, x, y] = nd_c if nd_c >= dt else dt
        cube[1, x, y] = nd_o if nd_o >= dt else dt
        cube[2, x, y] = nd_u


@njit(cache=True)
def race_probs(dist: np.ndarray, first: np.ndarray, x: int, y: int,
               x_full: bool, y_full: bool, out: np.ndarray) -> None:
    """Cubeless race chances of side ``x`` (on roll) against side ``y`` from one-sided tables.

    ``out`` gets (win, win gammon, win backgammon, lose gammon, lose backgammon). ``x_full`` /
    ``y_full`` say whether that side still has all 15 checkers (only then can it be gammoned).
    The side on roll wins when it needs no more rolls than the opponent.
    """
    nk = dist.shape[1]
    win = 0.0
    wg = 0.0
    lg = 0.0
    # tail_y = P(N_y >= k), ftail_y = P(F_y >= k), updated as k grows.
    tail_y = 1.0
    ftail_y = 1.0
    ftail_x = 1.0  # P(F_x >= k + 1) after the update below
    for k in range(nk):
        px = dist[x, k]
        win += px * tail_y
        if y_full:
            wg += px * ftail_y
        tail_y -= dist[y, k]
        ftail_y -= first[y, k]
        ftail_x -= first[x, k]
        if x_full:
            lg += dist[y, k] * ftail_x
    if win > 1.0:
        win = 1.0
    if win < 0.0:
        win = 0.0
    if wg > win:
        wg = win
    if wg < 0.0:
        wg = 0.0
    if lg > 1.0 - win:
        lg = 1.0 - win
    if lg < 0.0:
        lg = 0.0
    out[0] = win
    out[1] = wg
    out[2] = 0.0
    out[3] = lg
    out[4] = 0.0


@njit(cache=True)
def pips_of(sides: np.ndarray) -> np.ndarray:
    """Pip count of every side row."""
    return _pips(sides)
