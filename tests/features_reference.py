"""The input encoder's contact encoding as it was before issue 30's speed work (branchy loops,
one pass per feature), kept as the reference the compiled encoder is checked against bit for bit
(tests/test_eval.py). The hit statistics are the encoder's own (:func:`analyzer.eval.features._hit_stats`,
which tests/test_eval.py checks against its straightforward reference and a worked example)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from analyzer.eval import features as F


@njit(cache=True)
def _point_units_reference(out: np.ndarray, k: int, n: int) -> None:
    if n == 1:
        out[k] = 1.0
    elif n == 2:
        out[k + 1] = 1.0
    elif n >= 3:
        out[k + 2] = 1.0
        if n > 3:
            out[k + 3] = (n - 3) * 0.5


@njit(cache=True)
def _extra_reference(me: np.ndarray, them: np.ndarray, out: np.ndarray, x: int, loss: int, back: int) -> None:
    """Write the ``F.N_EXTRA`` extended units of side ``me`` at ``out[x:]`` (``loss``: the pips lost
    of :func:`_hit_stats`; ``back``: the side's back checker, 25 on the bar)."""
    out[x + F.X_PIP_LOSS] = loss / (36.0 * 24.0)
    # bit 12 + q: the opponent holds our point q; the escapes from p are indexed by bits p..p+11
    blocks = 0
    for q in range(1, 25):
        if them[25 - q] >= 2:
            blocks |= 1 << (q + 12)
    fewest = 36
    fewest_back = 36
    for p in range(15, 25):
        e = F.ESCAPES_BY_WINDOW[(blocks >> p) & 0xFFF]
        if e < fewest:
            fewest = e
        if p <= back and e < fewest_back:
            fewest_back = e
    mob = 0
    for p in range(13, 26):
        if me[p] > 0:
            mob += me[p] * F.ESCAPES_BY_WINDOW[(blocks >> p) & 0xFFF]
    out[x + F.X_CONTAIN] = 1.0 - fewest / 36.0
    out[x + F.X_BACK_CONTAIN] = 1.0 - fewest_back / 36.0
    out[x + F.X_MOBILITY] = mob / 180.0
    n = 0
    s1 = 0.0
    s2 = 0.0
    for p in range(1, 26):
        c = me[p]
        n += c
        s1 += c * p
        s2 += c * p * p
    if n > 0:
        m = s1 / n
        v = s2 / n - m * m
        out[x + F.X_SPREAD] = math.sqrt(v if v > 0.0 else 0.0) / 12.0


@njit(cache=True)
def _side_reference(me: np.ndarray, them: np.ndarray, out: np.ndarray, k: int, reach: np.ndarray, x: int) -> None:
    """Write the raw units and the hand-made features of side ``me`` at ``out[k:]``, and with
    ``x`` >= 0 its extended units at ``out[x:]``."""
    nb = me[25]
    kb = k + 96
    if nb >= 1:
        out[kb] = 1.0
    if nb >= 2:
        out[kb + 1] = 1.0
    if nb >= 3:
        out[kb + 2] = 1.0
    if nb > 3:
        out[kb + 3] = (nb - 3) * 0.5
    h = k + F.HAND_OFFSET
    # one pass over the points: the raw units and the counts of the features below
    pips = 25 * nb
    back = 25 if nb > 0 else 0  # the back checker: the bar, else the highest point held
    nback = nb
    anchors = 0
    fwd = 0
    home = 0
    best = 0
    run = 0
    blots = 0
    timing = 0
    cross = 0
    for p in range(1, 25):
        n = me[p]
        _point_units_reference(out, k + 4 * (p - 1), n)
        pips += p * n
        if n > 0:
            if nb == 0:
                back = p
            if p >= 7:
                timing += n * (p - 6)
                cross += n * ((p - 1) // 6)
        if n == 1:
            blots += 1
        if p >= 19:
            nback += n
        if n >= 2:
            if p >= 19:
                anchors += 1
            if p >= 13 and fwd == 0:
                fwd = p
            if p <= 6:
                home += 1
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    if nb > 0:
        timing += nb * (25 - 6)
        cross += nb * ((25 - 1) // 6)
    out[h + F.F_PIPS] = pips / 167.0
    off = me[0]
    out[h + F.F_OFF1] = min(off, 5) / 5.0
    out[h + F.F_OFF2] = min(max(off - 5, 0), 5) / 5.0
    out[h + F.F_OFF3] = min(max(off - 10, 0), 5) / 5.0
    out[h + F.F_BACK] = back / 24.0
    out[h + F.F_BACK_COUNT] = nback / 5.0
    out[h + F.F_ANCHORS] = anchors / 3.0
    out[h + F.F_FWD_ANCHOR] = (fwd - 12) / 12.0 if fwd > 0 else 0.0
    out[h + F.F_HOME_POINTS] = home / 6.0
    out[h + F.F_PRIME] = best / 6.0
    out[h + F.F_BLOTS] = blots / 5.0
    out[h + F.F_TIMING] = timing / 100.0
    out[h + F.F_CROSSOVERS] = cross / 30.0
    # their back checker in our numbering (their bar = our 0); our points in the 12 pips ahead of it
    tb = -1
    if them[25] > 0:
        tb = 0
    else:
        for q in range(24, 0, -1):
            if them[q] > 0:
                tb = 25 - q
                break
    ahead = 0
    if tb >= 0:
        run = 0
        for p in range(tb + 1, min(tb + 13, 25)):
            if me[p] >= 2:
                run += 1
                if run > ahead:
                    ahead = run
            else:
                run = 0
    out[h + F.F_PRIME_AHEAD] = ahead / 6.0
    out[h + F.F_ESCAPES] = (F._escapes(me, them, back) / 36.0) if back > 0 else 1.0
    one, two, loss = F._hit_stats(me, them, reach)
    out[h + F.F_HIT_ROLLS] = one / 36.0
    out[h + F.F_DOUBLE_HITS] = two / 36.0
    closed = 0
    for q in range(1, 7):
        if them[q] >= 2:
            closed += 1
    out[h + F.F_DANCE] = (closed / 6.0) ** 2
    # checkers that still have to pass an opponent checker
    if tb >= 0:
        inc = 0
        cp = 0
        for p in range(tb + 1, 26):
            n = me[p]
            if n > 0:
                inc += n
                cp += n * (p - tb)
        out[h + F.F_IN_CONTACT] = inc / 15.0
        out[h + F.F_CONTACT_PIPS] = cp / 152.0
    out[h + F.F_ON_BAR] = 1.0 if me[25] > 0 else 0.0
    if x >= 0:
        _extra_reference(me, them, out, x, loss, back)


@njit(cache=True)
def encode_contact_reference(b: np.ndarray, out: np.ndarray, n: int, iw: np.ndarray) -> None:
    """:func:`_encode_contact` with its integer work space ``iw`` given (at least
    :data:`ENCODE_INTS` int64): nothing allocated, for the hot loops that keep one."""
    me = iw[0:26]
    them = iw[26:52]
    reach = iw[52:78]
    F.sides(b, me, them)
    for i in range(26):
        reach[i] = 0
    for i in range(n):
        out[i] = 0.0
    ext = n >= F.N_CONTACT_EXT
    _side_reference(me, them, out, 0, reach, F.EXTRA_OFFSET if ext else -1)
    _side_reference(them, me, out, F.SIDE_INPUTS, reach, F.EXTRA_OFFSET + F.N_EXTRA if ext else -1)
