"""Neural-net inputs for standard backgammon, computed by compiled (numba) kernels.

Every function reads a 64-slot board (:mod:`analyzer.core.layout`) seen from the side on roll
and writes float32 inputs. Positions fall into classes (evaluator note §1.2):

* ``CLASS_OVER``: a side has borne off all 15 checkers (exact outcome, no net);
* ``CLASS_RACE``: no contact is left (every checker of the mover is past every checker of the
  opponent), handled by the race net (or the bear-off databases);
* ``CLASS_CRASHED``: contact, but one side has at most ``CRASHED_LIMIT`` checkers still in play
  once heavy stacks on its 1- and 2-points are discounted;
* ``CLASS_CONTACT``: everything else.

Contact and crashed positions share one encoding of ``N_CONTACT`` inputs: for each side (the
mover first, each side in its own point numbering) 4 units per point for the 24 points (n == 1,
n == 2, n >= 3, (n - 3) / 2 for n > 3), 4 cumulative units for the bar, then ``N_HAND`` features
of our own design (pips, checkers off in three buckets, back checker, anchors, home points,
primes, escape rolls of the back checker, rolls that hit a blot, chances of staying on the bar,
timing, crossovers, checkers still in contact, pips to break contact). The race encoding
(``N_RACE`` inputs) keeps points 1..23, a one-hot count of checkers off, pips and crossovers.

The extended contact encoding (``N_CONTACT_EXT`` inputs, :func:`encode_contact_ext`) appends
``N_EXTRA`` more units per side after both sides' blocks: the mean pips lost to a hit on the
opponent's next roll, the containment of the opponent's blockade (1 - fewest escaping rolls from
any of the side's points 15..24, and from those at or below its back checker), the mobility of
its checkers on points 13..25 (their escaping rolls, summed), and the spread of its checkers
(standard deviation of their pip positions). A net's first-layer size says which encoding it
reads (:func:`encode_contact_for`): v1 nets (v0.4 and earlier) read the first ``N_CONTACT``
inputs, which both encodings share; the shipped v0.5 nets read all ``N_CONTACT_EXT``.

>>> import numpy as np
>>> from analyzer.core.position import Position
>>> b = np.frombuffer(Position.start().board, dtype=np.int8)
>>> int(classify(b)) == CLASS_CONTACT
True
>>> x = np.zeros(N_CONTACT, np.float32)
>>> encode_contact(b, x)
>>> float(x[HAND_OFFSET + F_PIPS]) == float(x[SIDE_INPUTS + HAND_OFFSET + F_PIPS])
True
>>> y = np.zeros(N_CONTACT_EXT, np.float32)
>>> encode_contact_ext(b, y)
>>> bool((y[:N_CONTACT] == x).all()), float(y[EXTRA_OFFSET + X_CONTAIN]) > 0.0
(True, True)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from analyzer.core.jit import as_int64
from analyzer.eval.bits import highest_bit, lowest_bit, popcount

CLASS_OVER = 0
CLASS_RACE = 1
CLASS_CRASHED = 2
CLASS_CONTACT = 3
CLASS_NAMES = ("over", "race", "crashed", "contact")

CRASHED_LIMIT = 6

# Hand-made features, per side (index into the block after the 100 raw units).
F_PIPS = 0
F_OFF1 = 1
F_OFF2 = 2
F_OFF3 = 3
F_BACK = 4
F_BACK_COUNT = 5
F_ANCHORS = 6
F_FWD_ANCHOR = 7
F_HOME_POINTS = 8
F_PRIME = 9
F_ESCAPES = 10
F_HIT_ROLLS = 11
F_BLOTS = 12
F_DANCE = 13
F_TIMING = 14
F_CROSSOVERS = 15
F_IN_CONTACT = 16
F_CONTACT_PIPS = 17
F_PRIME_AHEAD = 18
F_DOUBLE_HITS = 19
F_ON_BAR = 20
N_HAND = 21

HAND_OFFSET = 100
SIDE_INPUTS = HAND_OFFSET + N_HAND
N_CONTACT = 2 * SIDE_INPUTS

RACE_SIDE = 23 * 4 + 15 + 2
N_RACE = 2 * RACE_SIDE

N_RAW = 200

# The extended contact encoding: N_EXTRA units per side after the two sides' blocks.
X_PIP_LOSS = 0
X_CONTAIN = 1
X_BACK_CONTAIN = 2
X_MOBILITY = 3
X_SPREAD = 4
N_EXTRA = 5
EXTRA_OFFSET = N_CONTACT
N_CONTACT_EXT = N_CONTACT + 2 * N_EXTRA
ENCODE_INTS = 3 * 26
"""The integer work space of :func:`encode_contact_into` and :func:`encode_race_into` (both sides'
checker counts and the points reached)."""

FEATURE_VERSION = 2


@njit(cache=True)
def sides(b: np.ndarray, me: np.ndarray, them: np.ndarray) -> None:
    """Split a board into the two sides' counts, each in its own numbering.

    ``me[p]`` / ``them[p]`` for p in 1..24 are checkers on the side's point p, index 25 its bar,
    index 0 its checkers borne off.
    """
    for p in range(1, 25):
        v = b[p]
        me[p] = v if v > 0 else 0
        w = b[25 - p]
        them[p] = -w if w < 0 else 0
    me[25] = b[25]
    them[25] = b[0]
    me[0] = b[26]
    them[0] = b[27]


@njit(cache=True)
def classify(b: np.ndarray) -> int:
    """The class of a board (``CLASS_OVER``, ``CLASS_RACE``, ``CLASS_CRASHED``, ``CLASS_CONTACT``)."""
    if b[26] >= 15 or b[27] >= 15:
        return CLASS_OVER
    # mover's back checker (highest point), opponent's back checker (lowest point, mover numbering)
    my_back = 0
    if b[25] > 0:
        my_back = 25
    else:
        for p in range(24, 0, -1):
            if b[p] > 0:
                my_back = p
                break
    opp_back = 25
    if b[0] > 0:
        opp_back = 0
    else:
        for p in range(1, 25):
            if b[p] < 0:
                opp_back = p
                break
    if my_back < opp_back:
        return CLASS_RACE
    # crashed test, for each side
    for side in range(2):
        n = 0
        n1 = 0
        n2 = 0
        for p in range(1, 25):
            v = b[p] if side == 0 else -b[25 - p]
            if v > 0:
                n += v
                if p == 1:
                    n1 = v
                elif p == 2:
                    n2 = v
        n += b[25] if side == 0 else b[0]
        if n1 > 2:
            n -= n1 - 2
        if n2 > 2:
            n -= n2 - 2
        if n <= CRASHED_LIMIT:
            return CLASS_CRASHED
    return CLASS_CONTACT


@njit(cache=True)
def _point_units(out: np.ndarray, k: int, n: int) -> None:
    """The 4 units of ``n`` (>= 0) checkers on a point at ``out[k:]``: n == 1, n == 2, n >= 3,
    (n - 3) / 2 for n > 3; all four written, without a branch (the counts are unpredictable)."""
    out[k] = 1.0 if n == 1 else 0.0
    out[k + 1] = 1.0 if n == 2 else 0.0
    out[k + 2] = 1.0 if n >= 3 else 0.0
    out[k + 3] = max(n - 3, 0) * 0.5


@njit(cache=True)
def _escapes(me: np.ndarray, them: np.ndarray, p: int) -> int:
    """Rolls (of 36) that carry a checker of ``me`` on point ``p`` (25 = bar) past the opponent's
    points in the 12 pips ahead of it (opponent's points: ``them`` >= 2 seen from ``me``)."""
    lowest = 0
    lo = p - 12
    if lo < 1:
        lo = 1
    for q in range(lo, p):
        if them[25 - q] >= 2:
            lowest = q
            break
    if lowest == 0:
        return 36
    total = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1 if d1 == d2 else 2
            ok = False
            if d1 == d2:
                pos = p
                for _k in range(4):
                    pos -= d1
                    if pos < lowest:
                        ok = True
                        break
                    if them[25 - pos] >= 2:
                        break
            else:
                for order in range(2):
                    a = d1 if order == 0 else d2
                    c = d2 if order == 0 else d1
                    q1 = p - a
                    if q1 < lowest:
                        ok = True
                        break
                    if them[25 - q1] >= 2:
                        continue
                    if q1 - c < lowest:
                        ok = True
                        break
            if ok:
                total += w
    return total


@njit(cache=True)
def _escape_table() -> np.ndarray:
    """Escaping rolls of :func:`_escapes` for every pattern of the opponent's points among the 12
    points below a checker, computed once at import: bit ``j`` of the index set means the point
    ``12 - j`` pips ahead is made (bit ``j`` is the point ``p - 12 + j`` for a checker on ``p``, so
    the index is a window of a bitmask of the board, see :func:`_extra_features`)."""
    table = np.zeros(1 << 12, np.int64)
    me = np.zeros(26, np.int64)
    them = np.zeros(26, np.int64)
    for w in range(1 << 12):
        them[:] = 0
        for j in range(12):
            if w >> j & 1:
                them[25 - (1 + j)] = 2  # a checker on 13: bit j is our point 1 + j
        table[w] = _escapes(me, them, 13)
    return table


ESCAPES_BY_WINDOW = _escape_table()


@njit(cache=True)
def _walk(me: np.ndarray, reach: np.ndarray, start: int, d: int, steps: int) -> None:
    """Mark in ``reach`` the points a checker on ``start`` lands on moving ``d`` pips at a time,
    at most ``steps`` times, up to a point of ``me`` with two or more checkers or past 24.

    >>> me, reach = np.zeros(26, np.int8), np.zeros(26, np.int8)
    >>> me[9] = 2
    >>> _walk(me, reach, 0, 3, 4)
    >>> [int(p) for p in np.flatnonzero(reach)]
    [3, 6]
    """
    pos = start
    for _k in range(steps):
        pos += d
        if pos > 24 or me[pos] >= 2:
            return
        reach[pos] = 1


@njit(cache=True)
def _hit_rolls_reference(me: np.ndarray, them: np.ndarray, reach: np.ndarray) -> tuple[int, int]:
    """Straightforward version of :func:`_hit_stats` (marks every point each checker reaches);
    kept as the reference the fast version is tested against.

    Rolls (of 36) with which ``them`` hits at least one blot of ``me``, and rolls that hit two.

    ``them``'s checkers are mapped into ``me``'s numbering (their point q is our point 25 - q;
    their bar is our point 0); our points with two or more checkers block them. Checkers on
    their bar must come in first (handled approximately for two or more on the bar).
    """
    top = 0  # our highest blot: their checkers at or above it cannot hit anything
    for p in range(24, 0, -1):
        if me[p] == 1:
            top = p
            break
    if top == 0:
        return 0, 0
    bar = them[25]
    one = 0
    two = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1 if d1 == d2 else 2
            for i in range(top + 1):
                reach[i] = 0
            steps_max = 4 if d1 == d2 else 2
            for r in range(0, top):
                cnt = bar if r == 0 else them[25 - r]
                if cnt <= 0:
                    continue
                if bar > 0 and r != 0:
                    # another checker may move only once the bar checker is in
                    if bar > 1:
                        continue
                    if d1 == d2:
                        if me[d1] >= 2:
                            continue
                        smax = 3
                    else:
                        smax = 1
                    # the other die (non-doubles): entry with one die, this checker with the other
                    if d1 == d2:
                        _walk(me, reach, r, d1, smax)
                    else:
                        if me[d1] < 2 and r + d2 <= 24 and me[r + d2] < 2:
                            reach[r + d2] = 1
                        if me[d2] < 2 and r + d1 <= 24 and me[r + d1] < 2:
                            reach[r + d1] = 1
                    continue
                smax = steps_max
                if r == 0 and bar > 1:
                    smax = 1 if d1 != d2 else 5 - bar
                    if smax < 1:
                        smax = 1
                if d1 == d2:
                    _walk(me, reach, r, d1, smax)
                else:
                    for order in range(2):
                        a = d1 if order == 0 else d2
                        c = d2 if order == 0 else d1
                        q1 = r + a
                        if q1 > 24 or me[q1] >= 2:
                            continue
                        reach[q1] = 1
                        if smax >= 2:
                            q2 = q1 + c
                            if q2 <= 24 and me[q2] < 2:
                                reach[q2] = 1
            hits = 0
            for p in range(1, top + 1):
                if me[p] == 1 and reach[p] != 0:
                    hits += 1
            if hits >= 1:
                one += w
            if hits >= 2:
                two += w
    return one, two


@njit(cache=True)
def _their(them: np.ndarray, x: int) -> int:
    """Opponent checkers on our point ``x`` (1..24)."""
    return int(them[25 - x])


@njit(cache=True)
def _reach_blot(me: np.ndarray, them: np.ndarray, bar: int, p: int, d1: int, d2: int) -> bool:
    """Can ``them`` hit our blot on point ``p`` with the roll (d1, d2)? (Rules of :func:`_hit_stats`.)"""
    if d1 != d2:
        if bar >= 2:
            return p in (d1, d2)
        if bar == 1:
            if p in (d1, d2):
                return True
            if p == d1 + d2 and (me[d1] < 2 or me[d2] < 2):
                return True
            r = p - d2
            if r >= 1 and me[d1] < 2 and _their(them, r) > 0:
                return True
            r = p - d1
            return r >= 1 and me[d2] < 2 and _their(them, r) > 0
        r = p - d1
        if r >= 1 and _their(them, r) > 0:
            return True
        r = p - d2
        if r >= 1 and _their(them, r) > 0:
            return True
        r = p - d1 - d2
        return r >= 1 and _their(them, r) > 0 and (me[r + d1] < 2 or me[r + d2] < 2)
    d = d1
    if bar >= 1:
        smax = 4 if bar == 1 else max(1, 5 - bar)
        for k in range(1, smax + 1):
            if p == k * d:
                ok = True
                for j in range(1, k):
                    if me[j * d] >= 2:
                        ok = False
                        break
                if ok:
                    return True
        if bar > 1 or me[d] >= 2:
            return False
        smax = 3
    else:
        smax = 4
    for k in range(1, smax + 1):
        r = p - k * d
        if r < 1:
            break
        if _their(them, r) > 0:
            ok = True
            for j in range(1, k):
                if me[r + j * d] >= 2:
                    ok = False
                    break
            if ok:
                return True
    return False


@njit(cache=True)
def _walk_mask(src: int, d: int, steps: int, blocked: int) -> int:
    """Points (bits) reached by checkers on the points ``src`` (bits) moving ``d`` pips at a time, at
    most ``steps`` times, through points not in ``blocked`` (the landing point itself may be anything).

    >>> bin(_walk_mask(1 << 3, 2, 3, 1 << 5))  # from 3 by twos: 5 (blocked, but landed on), no further
    '0b100000'
    """
    reached = 0
    x = src
    for _k in range(steps):
        x <<= d
        reached |= x
        x &= ~blocked
    return reached


@njit(cache=True)
def _hit_stats(me: np.ndarray, them: np.ndarray, reach: np.ndarray) -> tuple[int, int, int]:
    """Rolls (of 36) with which ``them`` hits at least one blot of ``me``, rolls that hit two, and
    the pips ``me`` loses over the 36 rolls when ``them`` hits its most advanced hittable blot
    (a blot on point p sent back loses 25 - p pips).

    ``them``'s checkers are mapped into ``me``'s numbering (their point q is our point 25 - q;
    their bar is our point 0); our points with two or more checkers block them. Checkers on
    their bar must come in first (handled approximately for two or more on the bar). ``reach``
    is unused (kept for the callers' signature). (:func:`_hit_masks` of the board's masks.)
    """
    blots = 0
    blocked = 0
    theirs = 0
    for p in range(1, 25):
        n = me[p]
        blots |= (1 if n == 1 else 0) << p
        blocked |= (1 if n >= 2 else 0) << p
        theirs |= (1 if them[25 - p] > 0 else 0) << p
    return _hit_masks(blots, blocked, theirs, int(them[25]))


@njit(cache=True)
def _hit_masks(blots: int, blocked: int, theirs: int, bar: int) -> tuple[int, int, int]:
    """:func:`_hit_stats` of the points as bitmasks (bit ``p``: our point ``p``): our blots, our
    points of two or more, the points holding their checkers; ``bar``: their checkers on the bar.

    Every roll's hittable points are computed at once: the rules of :func:`_reach_blot`, which
    :func:`_hit_rolls_reference` and the tests check.
    """
    if blots == 0:
        return 0, 0, 0
    one = 0
    two = 0
    loss = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1 if d1 == d2 else 2
            if d1 != d2:
                b1 = blocked >> d1 & 1
                b2 = blocked >> d2 & 1
                if bar >= 2:
                    h = (1 << d1) | (1 << d2)
                elif bar == 1:
                    h = (1 << d1) | (1 << d2)
                    if b1 == 0 or b2 == 0:
                        h |= 1 << (d1 + d2)
                    if b1 == 0:
                        h |= theirs << d2
                    if b2 == 0:
                        h |= theirs << d1
                else:
                    both = (blocked >> d1) & (blocked >> d2)
                    h = (theirs << d1) | (theirs << d2) | ((theirs & ~both) << (d1 + d2))
            else:
                d = d1
                if bar >= 1:
                    # as_int64: one compiled _walk_mask, not one more per literal constant
                    h = _walk_mask(as_int64(1), d, 4 if bar == 1 else max(1, 5 - bar), blocked)
                    if bar == 1 and (blocked >> d & 1) == 0:
                        h |= _walk_mask(theirs, d, as_int64(3), blocked)
                else:
                    h = _walk_mask(theirs, d, as_int64(4), blocked)
            hit = h & blots
            if hit != 0:
                one += w
                loss += w * (25 - lowest_bit(hit))  # the most advanced blot hit: the lowest point
                if hit & (hit - 1) != 0:
                    two += w
    return one, two, loss

@njit(cache=True)
def _extra_features(me: np.ndarray, out: np.ndarray, x: int, loss: int, back: int, blocks: int, spread_n: int,
                    spread_s1: int, spread_s2: int) -> None:
    """Write the ``N_EXTRA`` extended units of side ``me`` at ``out[x:]`` (``loss``: the pips lost
    of :func:`_hit_stats`; ``back``: the side's back checker, 25 on the bar; ``blocks``: bit
    ``12 + q`` set when the opponent holds our point ``q``; the checkers on points 1..25, the sum
    of their points and of their squares)."""
    out[x + X_PIP_LOSS] = loss / (36.0 * 24.0)
    # the escapes from p are indexed by bits p..p+11 of blocks
    fewest = 36
    fewest_back = 36
    for p in range(15, 25):
        e = ESCAPES_BY_WINDOW[(blocks >> p) & 0xFFF]
        fewest = min(fewest, e)
        if p <= back:
            fewest_back = min(fewest_back, e)
    mob = 0
    for p in range(13, 26):
        mob += me[p] * ESCAPES_BY_WINDOW[(blocks >> p) & 0xFFF]
    out[x + X_CONTAIN] = 1.0 - fewest / 36.0
    out[x + X_BACK_CONTAIN] = 1.0 - fewest_back / 36.0
    out[x + X_MOBILITY] = mob / 180.0
    if spread_n > 0:
        m = float(spread_s1) / spread_n
        v = float(spread_s2) / spread_n - m * m
        out[x + X_SPREAD] = math.sqrt(v if v > 0.0 else 0.0) / 12.0


@njit(cache=True)
def _longest_run(m: int) -> int:
    """The longest run of consecutive set bits of ``m``.

    >>> _longest_run(0b1110111101)
    4
    """
    n = 0
    while m != 0:
        m &= m << 1
        n += 1
    return n


HOME = 0x7E  # bits 1..6
FWD_ZONE = 0x1FFE000  # bits 13..24
ANCHOR_ZONE = 0x1F80000  # bits 19..24


@njit(cache=True)
def _side_features(me: np.ndarray, them: np.ndarray, out: np.ndarray, k: int, x: int) -> None:
    """Write the raw units and the hand-made features of side ``me`` at ``out[k:]``, and with
    ``x`` >= 0 its extended units at ``out[x:]`` (``out`` zeroed before).

    One pass over the points writes the raw units (:func:`_point_units`, without a branch) and
    gathers the sums and the points as bitmasks (bit ``p``: our point ``p``); the features are counts
    of bits, the lowest and highest, runs of them, windows of the escape table.
    """
    nb = me[25]
    kb = k + 96
    out[kb] = 1.0 if nb >= 1 else 0.0  # the bar's units are cumulative
    out[kb + 1] = 1.0 if nb >= 2 else 0.0
    out[kb + 2] = 1.0 if nb >= 3 else 0.0
    out[kb + 3] = max(nb - 3, 0) * 0.5
    h = k + HAND_OFFSET
    pips = 25 * nb
    sq = 625 * nb
    count = nb
    nback = nb
    timing = nb * (25 - 6)
    cross = nb * ((25 - 1) // 6)
    occupied = 0  # our points holding a checker
    made = 0  # our points of two or more
    blot = 0  # our points of one
    theirs = 0  # our points holding their checkers
    held = 0  # our points they hold (two or more)
    for p in range(1, 25):
        n = me[p]
        _point_units(out, k + 4 * (p - 1), n)
        pips += p * n
        sq += p * p * n
        count += n
        timing += n * max(p - 6, 0)
        cross += n * ((p - 1) // 6)
        if p >= 19:
            nback += n
        occupied |= (1 if n > 0 else 0) << p
        made |= (1 if n >= 2 else 0) << p
        blot |= (1 if n == 1 else 0) << p
        t = them[25 - p]
        theirs |= (1 if t > 0 else 0) << p
        held |= (1 if t >= 2 else 0) << p
    back = 25 if nb > 0 else max(highest_bit(occupied), 0)  # the bar, else the highest point held
    fwd = made & FWD_ZONE  # the most advanced anchor from the 13-point up
    out[h + F_PIPS] = pips / 167.0
    off = me[0]
    out[h + F_OFF1] = min(off, 5) / 5.0
    out[h + F_OFF2] = min(max(off - 5, 0), 5) / 5.0
    out[h + F_OFF3] = min(max(off - 10, 0), 5) / 5.0
    out[h + F_BACK] = back / 24.0
    out[h + F_BACK_COUNT] = nback / 5.0
    out[h + F_ANCHORS] = popcount(made & ANCHOR_ZONE) / 3.0
    out[h + F_FWD_ANCHOR] = (lowest_bit(fwd) - 12) / 12.0 if fwd != 0 else 0.0
    out[h + F_HOME_POINTS] = popcount(made & HOME) / 6.0
    out[h + F_PRIME] = _longest_run(made) / 6.0
    out[h + F_BLOTS] = popcount(blot) / 5.0
    out[h + F_TIMING] = timing / 100.0
    out[h + F_CROSSOVERS] = cross / 30.0
    # their back checker in our numbering (their bar = our 0, else their highest point: our lowest)
    tb = 0 if them[25] > 0 else (lowest_bit(theirs) if theirs != 0 else -1)
    # our points in the 12 pips ahead of it
    ahead = _longest_run(made & (0xFFF << (tb + 1))) if tb >= 0 else 0
    out[h + F_PRIME_AHEAD] = ahead / 6.0
    blocks = held << 12
    out[h + F_ESCAPES] = (ESCAPES_BY_WINDOW[(blocks >> back) & 0xFFF] / 36.0) if back > 0 else 1.0
    one, two, loss = _hit_masks(blot, made, theirs, int(them[25]))
    out[h + F_HIT_ROLLS] = one / 36.0
    out[h + F_DOUBLE_HITS] = two / 36.0
    out[h + F_DANCE] = (popcount(held & ANCHOR_ZONE) / 6.0) ** 2  # their home points, in our numbering
    # checkers that still have to pass an opponent checker
    if tb >= 0:
        inc = 0
        cp = 0
        for p in range(tb + 1, 26):
            n = me[p]
            inc += n
            cp += n * (p - tb)
        out[h + F_IN_CONTACT] = inc / 15.0
        out[h + F_CONTACT_PIPS] = cp / 152.0
    out[h + F_ON_BAR] = 1.0 if nb > 0 else 0.0
    if x >= 0:
        _extra_features(me, out, x, loss, back, blocks, count, pips, sq)

@njit(cache=True)
def _encode_contact(b: np.ndarray, out: np.ndarray, n: int) -> None:
    """The first ``n`` contact inputs of ``b`` (``N_CONTACT`` or ``N_CONTACT_EXT``) into ``out``."""
    encode_contact_into(b, out, n, np.empty(ENCODE_INTS, np.int64))


@njit(cache=True)
def encode_contact_into(b: np.ndarray, out: np.ndarray, n: int, iw: np.ndarray) -> None:
    """:func:`_encode_contact` with its integer work space ``iw`` given (at least
    :data:`ENCODE_INTS` int64): nothing allocated, for the hot loops that keep one."""
    me = iw[0:26]
    them = iw[26:52]
    sides(b, me, them)
    for i in range(n):
        out[i] = 0.0
    ext = n >= N_CONTACT_EXT
    # the offsets as int64 (as_int64): one compiled _side_features for both sides, not one per constant
    _side_features(me, them, out, as_int64(0), EXTRA_OFFSET if ext else -1)
    _side_features(them, me, out, as_int64(SIDE_INPUTS), EXTRA_OFFSET + N_EXTRA if ext else -1)


@njit(cache=True)
def encode_race_into(b: np.ndarray, out: np.ndarray, iw: np.ndarray) -> None:
    """:func:`encode_race` with its integer work space ``iw`` given (at least :data:`ENCODE_INTS` int64)."""
    me = iw[0:26]
    them = iw[26:52]
    sides(b, me, them)
    for i in range(N_RACE):
        out[i] = 0.0
    _race_side(me, out, as_int64(0))  # one compiled _race_side for both sides (as_int64)
    _race_side(them, out, as_int64(RACE_SIDE))


@njit(cache=True)
def encode_contact(b: np.ndarray, out: np.ndarray) -> None:
    """Write the ``N_CONTACT`` contact/crashed inputs of board ``b`` into ``out``."""
    _encode_contact(b, out, N_CONTACT)


@njit(cache=True)
def encode_contact_ext(b: np.ndarray, out: np.ndarray) -> None:
    """Write the ``N_CONTACT_EXT`` extended contact/crashed inputs of board ``b`` into ``out``
    (the ``N_CONTACT`` inputs of :func:`encode_contact`, then both sides' extended units)."""
    _encode_contact(b, out, N_CONTACT_EXT)


@njit(cache=True)
def encode_contact_for(b: np.ndarray, out: np.ndarray, n_inputs: int) -> None:
    """The contact encoding a net with ``n_inputs`` inputs reads: the extended one when it has
    more than ``N_CONTACT`` (``out`` holds at least ``N_CONTACT_EXT`` entries then)."""
    _encode_contact(b, out, N_CONTACT_EXT if n_inputs > N_CONTACT else N_CONTACT)


@njit(cache=True)
def encode_raw(b: np.ndarray, out: np.ndarray) -> None:
    """Write the ``N_RAW`` raw inputs (the 4-unit point and bar encoding of both sides, no
    hand-made features) of board ``b`` into ``out``: the cheap inputs of the pruning net."""
    for i in range(N_RAW):
        out[i] = 0.0
    for p in range(1, 25):
        v = b[p]
        if v > 0:
            _point_units(out, 4 * (p - 1), v)
        w = b[25 - p]
        if w < 0:
            _point_units(out, 100 + 4 * (p - 1), -w)
    for side in range(2):
        nb = b[25] if side == 0 else b[0]
        kb = 96 + 100 * side
        if nb >= 1:
            out[kb] = 1.0
        if nb >= 2:
            out[kb + 1] = 1.0
        if nb >= 3:
            out[kb + 2] = 1.0
        if nb > 3:
            out[kb + 3] = (nb - 3) * 0.5


@njit(cache=True)
def _race_side(me: np.ndarray, out: np.ndarray, k: int) -> None:
    for p in range(1, 24):
        _point_units(out, k + 4 * (p - 1), me[p])
    off = me[0]
    if off < 15:
        out[k + 92 + off] = 1.0
    pips = 0
    cross = 0
    for p in range(1, 25):
        pips += p * me[p]
        cross += me[p] * ((p - 1) // 6)
    out[k + 107] = pips / 100.0
    out[k + 108] = cross / 10.0


@njit(cache=True)
def encode_race(b: np.ndarray, out: np.ndarray) -> None:
    """Write the ``N_RACE`` race inputs of board ``b`` (a race position) into ``out``."""
    encode_race_into(b, out, np.empty(ENCODE_INTS, np.int64))


@njit(cache=True)
def game_over_outcome(b: np.ndarray) -> int:
    """For a finished board, the outcome index (0..5) from the side on roll's view; -1 if not over.

    Indices: 0 win single, 1 win gammon, 2 win backgammon, 3 lose single, 4 lose gammon,
    5 lose backgammon.
    """
    if b[26] >= 15:
        if b[27] > 0:
            return 0
        if b[0] > 0:
            return 2
        for p in range(1, 7):
            if b[p] < 0:
                return 2
        return 1
    if b[27] >= 15:
        if b[26] > 0:
            return 3
        if b[25] > 0:
            return 5
        for p in range(19, 25):
            if b[p] > 0:
                return 5
        return 4
    return -1


@njit(cache=True)
def encode_batch(boards: np.ndarray, classes: np.ndarray, contact_out: np.ndarray, race_out: np.ndarray,
                 rows: np.ndarray) -> None:
    """Classify and encode many boards.

    ``classes[i]`` receives the class of ``boards[i]``; contact and crashed boards are encoded
    in ``contact_out`` (the extended encoding when it has ``N_CONTACT_EXT`` columns), race boards
    in ``race_out``, at row ``rows[i]`` (a running index within
    each encoding; -1 for finished boards).
    """
    nc = 0
    nr = 0
    for i in range(boards.shape[0]):
        c = classify(boards[i])
        classes[i] = c
        if c == CLASS_RACE:
            encode_race(boards[i], race_out[nr])
            rows[i] = nr
            nr += 1
        elif c == CLASS_OVER:
            rows[i] = -1
        else:
            encode_contact_for(boards[i], contact_out[nc], contact_out.shape[1])
            rows[i] = nc
            nc += 1
