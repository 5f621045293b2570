"""Net inputs and game classes for Dutch backgammon and Mahbusa (compiled, numba).

Every function reads a 64-slot board (:mod:`analyzer.core.layout`) seen from the side on roll.

Classes (:func:`classify`):

* ``CLASS_OVER``: the game has ended (15 borne off, or the Mahbusa special end flag);
* ``CLASS_RACE``: a pure race the standard race evaluation handles with the variant's scoring:
  no checker in any reserve or on a bar, no pin, and every mover checker past every opponent
  checker (no contact can happen again, so the game is a standard race without backgammons);
* ``CLASS_CONTACT``: everything else, evaluated by the variant's own net.

Dutch inputs (``N_DUTCH``): the standard contact encoding of :func:`analyzer.eval.features.encode_contact`
(the 4-unit points of both sides, bar, and the hand-made features), then ``DUTCH_SIDE`` units per
side (mover first): reserve size (thresholds 1, 2, 3, the excess, the fraction of 15), the hitting
lock (1 once the side may hit), pips counting reserve and bar checkers as 25, the distance of the
side's lowest checker to its home board while still locked, the side's blots on its points 1..6
(where fresh opponent checkers enter) when the opponent may hit and has checkers to enter, the
standard shot count gated by the opponent's lock, and the checkers entered so far.

Mahbusa inputs (``N_MAHBUSA``), ``MAHBUSA_SIDE`` per side (mover first, each side in its own
numbering): 4 units per point of the side's free stack (a lone checker that pins counts as a made
point, not a blot), 1 unit per point where a checker of the side is pinned, checkers off in three
buckets, pips (pinned checkers included), the count and pip weight of pinned checkers, the number
of opponent checkers the side pins, the mother (gone / alone and free / pinned / two or more /
fraction still at the start), the opponent's rolls that pin the lone mother, the opponent's rolls
that pin any blot, home points, the longest block, the longest block in the 12 points ahead of
the opponent's back checker, whether the side may bear off now, checkers not yet past the
opponent's back checker, and the side's back checker.

>>> import numpy as np
>>> from analyzer.core.position import Position
>>> b = np.frombuffer(Position.start("dutch").board, dtype=np.int8)
>>> int(classify(b, VAR_DUTCH)) == CLASS_CONTACT
True
>>> x = np.zeros(N_DUTCH, np.float32)
>>> encode_dutch(b, x)
>>> float(x[DUTCH_BASE + D_RES_FRAC]), float(x[DUTCH_BASE + DUTCH_SIDE + D_RES_FRAC])
(1.0, 1.0)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from analyzer.core.layout import (
    GAME_END,
    MOVER_BAR,
    MOVER_CAN_HIT,
    MOVER_OFF,
    MOVER_RES,
    OPP_BAR,
    OPP_CAN_HIT,
    OPP_OFF,
    OPP_RES,
    PIN0,
    VAR_DUTCH,
    VAR_MAHBUSA,
)
from analyzer.eval import features as F
from analyzer.eval import jitcache

__all__ = [
    "CLASS_CONTACT", "CLASS_OVER", "CLASS_RACE", "DRAW", "DUTCH_BASE", "DUTCH_SIDE", "LOSE1", "LOSE2",
    "MAHBUSA_SIDE", "N_DUTCH", "N_MAHBUSA", "VAR_DUTCH", "VAR_MAHBUSA", "WIN1", "WIN2", "classify",
    "encode", "encode_dutch", "encode_mahbusa", "n_inputs", "n_outcomes", "outcome_of",
]

FEATURE_VERSION = 1

CLASS_OVER = 0
CLASS_RACE = 1
CLASS_CONTACT = 3

# Outcome indices of the variant nets (the side on roll's view). Dutch uses the first four,
# Mahbusa all five.
WIN1 = 0
WIN2 = 1
LOSE1 = 2
LOSE2 = 3
DRAW = 4

# Dutch side block
D_RES1 = 0
D_RES2 = 1
D_RES3 = 2
D_RES_EXCESS = 3
D_RES_FRAC = 4
D_CAN_HIT = 5
D_PIPS = 6
D_LOCK_DIST = 7
D_ENTRY_BLOTS = 8
D_SHOTS = 9
D_ENTERED = 10
DUTCH_SIDE = 11
DUTCH_BASE = F.N_CONTACT
N_DUTCH = F.N_CONTACT + 2 * DUTCH_SIDE

# Mahbusa side block
M_POINTS = 0  # 96 units
M_PINNED = 96  # 24 units
M_OFF1 = 120
M_OFF2 = 121
M_OFF3 = 122
M_PIPS = 123
M_NPINNED = 124
M_PINNED_PIPS = 125
M_PINNING = 126
M_MOTHER_GONE = 127
M_MOTHER_ALONE = 128
M_MOTHER_PINNED = 129
M_START_TWO = 130
M_START_FRAC = 131
M_MOTHER_SHOTS = 132
M_SHOTS = 133
M_HOME_POINTS = 134
M_PRIME = 135
M_PRIME_AHEAD = 136
M_CAN_BEAR = 137
M_BEHIND = 138
M_BACK = 139
MAHBUSA_SIDE = 140
N_MAHBUSA = 2 * MAHBUSA_SIDE


def n_inputs(variant: int) -> int:
    """Net inputs of a variant code.

    >>> n_inputs(VAR_MAHBUSA)
    280
    """
    return N_DUTCH if variant == VAR_DUTCH else N_MAHBUSA


def n_outcomes(variant: int) -> int:
    """Exclusive outcomes of a variant's net: Dutch 4 (win 1/2, lose 1/2), Mahbusa 5 (+ draw).

    >>> n_outcomes(VAR_DUTCH), n_outcomes(VAR_MAHBUSA)
    (4, 5)
    """
    return 4 if variant == VAR_DUTCH else 5


jitcache.refresh_module(__file__)


@njit(cache=True)
def outcome_of(b: np.ndarray) -> int:
    """The outcome index of a finished board from its mover's view (``WIN1`` .. ``DRAW``), -1 if
    the game goes on. Works for any variant without backgammons (Dutch, Mahbusa)."""
    if b[GAME_END] != 0:
        opp_mother = b[PIN0 + 1] == 1
        own_mother = b[PIN0 + 24] == -1
        if opp_mother and own_mother:
            return DRAW
        if opp_mother:
            return WIN2
        if own_mother:
            return LOSE2
    if b[MOVER_OFF] >= 15:
        return WIN2 if b[OPP_OFF] == 0 else WIN1
    if b[OPP_OFF] >= 15:
        return LOSE2 if b[MOVER_OFF] == 0 else LOSE1
    return -1


@njit(cache=True)
def classify(b: np.ndarray, variant: int) -> int:
    """``CLASS_OVER``, ``CLASS_RACE`` or ``CLASS_CONTACT`` (see the module docstring)."""
    if outcome_of(b) >= 0:
        return CLASS_OVER
    if b[MOVER_BAR] > 0 or b[OPP_BAR] > 0 or b[MOVER_RES] > 0 or b[OPP_RES] > 0:
        return CLASS_CONTACT
    if variant == VAR_MAHBUSA:
        for p in range(1, 25):
            if b[PIN0 + p] != 0:
                return CLASS_CONTACT
    my_back = 0
    for p in range(24, 0, -1):
        if b[p] > 0:
            my_back = p
            break
    opp_back = 25
    for p in range(1, 25):
        if b[p] < 0:
            opp_back = p
            break
    return CLASS_RACE if my_back < opp_back else CLASS_CONTACT


# ---------------------------------------------------------------------------------------- Dutch
@njit(cache=True)
def _dutch_side(b: np.ndarray, out: np.ndarray, k: int, me_sign: int, xc_block: int) -> None:
    if me_sign > 0:
        res, bar, off, can, opp_can, opp_res, opp_bar = (int(b[MOVER_RES]), int(b[MOVER_BAR]), int(b[MOVER_OFF]),
                                                         int(b[MOVER_CAN_HIT]), int(b[OPP_CAN_HIT]),
                                                         int(b[OPP_RES]), int(b[OPP_BAR]))
    else:
        res, bar, off, can, opp_can, opp_res, opp_bar = (int(b[OPP_RES]), int(b[OPP_BAR]), int(b[OPP_OFF]),
                                                         int(b[OPP_CAN_HIT]), int(b[MOVER_CAN_HIT]),
                                                         int(b[MOVER_RES]), int(b[MOVER_BAR]))
    if res >= 1:
        out[k + D_RES1] = 1.0
    if res >= 2:
        out[k + D_RES2] = 1.0
    if res >= 3:
        out[k + D_RES3] = 1.0
    if res > 3:
        out[k + D_RES_EXCESS] = (res - 3) / 4.0
    out[k + D_RES_FRAC] = res / 15.0
    out[k + D_CAN_HIT] = 1.0 if can else 0.0
    pips = 25 * (res + bar)
    lowest = 25
    entry_blots = 0
    for p in range(1, 25):  # p in the side's own numbering
        v = int(b[p]) * me_sign if me_sign > 0 else -int(b[25 - p])
        if v > 0:
            pips += p * v
            if p < lowest:
                lowest = p
            if p <= 6 and v == 1:
                entry_blots += 1
    out[k + D_PIPS] = pips / 250.0
    if not can:
        out[k + D_LOCK_DIST] = (lowest - 6) / 19.0 if lowest > 6 else 0.0
    if opp_can and (opp_res + opp_bar) > 0:
        out[k + D_ENTRY_BLOTS] = entry_blots / 3.0
    if opp_can:
        out[k + D_SHOTS] = out[xc_block + F.HAND_OFFSET + F.F_HIT_ROLLS]
    out[k + D_ENTERED] = (15 - res - off) / 15.0


@njit(cache=True)
def encode_dutch(b: np.ndarray, out: np.ndarray) -> None:
    """Write the ``N_DUTCH`` inputs of Dutch board ``b`` into ``out``."""
    F.encode_contact(b, out[:F.N_CONTACT])
    for i in range(F.N_CONTACT, N_DUTCH):
        out[i] = 0.0
    _dutch_side(b, out, DUTCH_BASE, 1, 0)
    _dutch_side(b, out, DUTCH_BASE + DUTCH_SIDE, -1, F.SIDE_INPUTS)


# ---------------------------------------------------------------------------------------- Mahbusa
@njit(cache=True)
def _mahbusa_sides(b: np.ndarray, top: np.ndarray, pinned: np.ndarray, pinning: np.ndarray) -> None:
    """Split a Mahbusa board into per-side arrays ``[side, point]`` (side 0 the mover, each side in
    its own numbering): free stack size, own checker pinned there, opponent checker pinned under
    the side's stack there."""
    for p in range(1, 25):
        v = int(b[p])
        pin = int(b[PIN0 + p])
        q = 25 - p
        top[0, p] = v if v > 0 else 0
        top[1, q] = -v if v < 0 else 0
        pinned[0, p] = 1 if pin == -1 else 0
        pinning[0, p] = 1 if pin == 1 else 0
        pinned[1, q] = 1 if pin == 1 else 0
        pinning[1, q] = 1 if pin == -1 else 0


@njit(cache=True)
def _closed(top: np.ndarray, pinning: np.ndarray, s: int, p: int) -> bool:
    """Whether side ``s``'s point ``p`` (its numbering) is closed to the other side."""
    return bool(top[s, p] >= 2 or (top[s, p] >= 1 and pinning[s, p] == 1))


@njit(cache=True)
def _closed_run(top: np.ndarray, pinning: np.ndarray, s: int, lo: int, hi: int) -> int:
    """The longest run of side ``s``'s closed points among ``lo .. hi - 1`` (its numbering)."""
    best = 0
    run = 0
    for p in range(lo, hi):
        if _closed(top, pinning, s, p):
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@njit(cache=True)
def _reach(top: np.ndarray, pinning: np.ndarray, s: int, target: int, d1: int, d2: int) -> bool:
    """Can side ``s`` land on its point ``target`` with the roll (d1, d2)? (Open intermediate
    points, free checkers only; bear-off limits ignored.)"""
    o = 1 - s
    for src in range(target + 1, 25):
        if top[s, src] <= 0:
            continue
        dist = src - target
        if d1 == d2:
            for m in range(1, 5):
                if m * d1 == dist:
                    ok = True
                    for j in range(1, m):
                        if _closed(top, pinning, o, 25 - (src - j * d1)):
                            ok = False
                            break
                    if ok:
                        return True
        else:
            if dist in (d1, d2):
                return True
            if dist == d1 + d2 and (not _closed(top, pinning, o, 25 - (src - d1))
                                    or not _closed(top, pinning, o, 25 - (src - d2))):
                return True
    return False


@njit(cache=True)
def _shots(top: np.ndarray, pinning: np.ndarray, s: int, targets: np.ndarray, nt: int) -> int:
    """Rolls (of 36) with which side ``s`` can land on one of its points ``targets[:nt]``."""
    if nt == 0:
        return 0
    count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            for i in range(nt):
                if _reach(top, pinning, s, targets[i], d1, d2):
                    count += 1
                    break
    return count


@njit(cache=True)
def _mahbusa_side(top: np.ndarray, pinned: np.ndarray, pinning: np.ndarray, off: int, s: int,
                  out: np.ndarray, k: int, targets: np.ndarray) -> None:
    o = 1 - s
    for p in range(1, 25):
        n = top[s, p]
        u = k + M_POINTS + 4 * (p - 1)
        if n == 1 and pinning[s, p] == 0:
            out[u] = 1.0
        if n >= 2 or (n == 1 and pinning[s, p] == 1):
            out[u + 1] = 1.0
        if n >= 3:
            out[u + 2] = 1.0
        if n > 3:
            out[u + 3] = (n - 3) * 0.5
        if pinned[s, p]:
            out[k + M_PINNED + p - 1] = 1.0
    out[k + M_OFF1] = min(off, 5) / 5.0
    out[k + M_OFF2] = min(max(off - 5, 0), 5) / 5.0
    out[k + M_OFF3] = min(max(off - 10, 0), 5) / 5.0
    pips = 0
    npinned = 0
    ppips = 0
    npinning = 0
    back = 0
    for p in range(1, 25):
        c = top[s, p] + pinned[s, p]
        pips += p * c
        if pinned[s, p]:
            npinned += 1
            ppips += p
        npinning += pinning[s, p]
        if c > 0:
            back = p
    out[k + M_PIPS] = pips / 360.0
    out[k + M_NPINNED] = npinned / 3.0
    out[k + M_PINNED_PIPS] = ppips / 48.0
    out[k + M_PINNING] = npinning / 3.0
    start = top[s, 24] + pinned[s, 24]
    if start == 0:
        out[k + M_MOTHER_GONE] = 1.0
    elif pinned[s, 24]:
        out[k + M_MOTHER_PINNED] = 1.0
    elif start == 1:
        out[k + M_MOTHER_ALONE] = 1.0
        targets[0] = 1  # the opponent's point 1 is our 24
        out[k + M_MOTHER_SHOTS] = _shots(top, pinning, o, targets, 1) / 36.0
    else:
        out[k + M_START_TWO] = 1.0
    out[k + M_START_FRAC] = top[s, 24] / 15.0
    nt = 0
    for p in range(1, 25):
        if top[s, p] == 1 and pinning[s, p] == 0:
            targets[nt] = 25 - p
            nt += 1
    out[k + M_SHOTS] = _shots(top, pinning, o, targets, nt) / 36.0
    home = 0
    for p in range(1, 7):
        if _closed(top, pinning, s, p):
            home += 1
    out[k + M_HOME_POINTS] = home / 6.0
    out[k + M_PRIME] = _closed_run(top, pinning, s, 1, 25) / 6.0
    # the opponent's back checker (highest point in its numbering) in our numbering
    ob = 0
    for q in range(24, 0, -1):
        if top[o, q] + pinned[o, q] > 0:
            ob = 25 - q
            break
    ahead = 0
    if ob > 0:
        ahead = _closed_run(top, pinning, s, ob + 1, min(ob + 13, 25))
        behind = 0
        for p in range(ob + 1, 25):
            behind += top[s, p] + pinned[s, p]
        out[k + M_BEHIND] = behind / 15.0
    out[k + M_PRIME_AHEAD] = ahead / 6.0
    can = npinned == 0
    for p in range(7, 25):
        if top[s, p] > 0:
            can = False
            break
    out[k + M_CAN_BEAR] = 1.0 if can else 0.0
    out[k + M_BACK] = back / 24.0


@njit(cache=True)
def encode_mahbusa(b: np.ndarray, out: np.ndarray) -> None:
    """Write the ``N_MAHBUSA`` inputs of Mahbusa board ``b`` into ``out``."""
    top = np.zeros((2, 26), np.int64)
    pinned = np.zeros((2, 26), np.int64)
    pinning = np.zeros((2, 26), np.int64)
    targets = np.zeros(26, np.int64)
    _mahbusa_sides(b, top, pinned, pinning)
    for i in range(N_MAHBUSA):
        out[i] = 0.0
    _mahbusa_side(top, pinned, pinning, int(b[MOVER_OFF]), 0, out, 0, targets)
    _mahbusa_side(top, pinned, pinning, int(b[OPP_OFF]), 1, out, MAHBUSA_SIDE, targets)


@njit(cache=True)
def encode(b: np.ndarray, variant: int, out: np.ndarray) -> None:
    """The variant's inputs of ``b`` (``out`` at least :func:`n_inputs` long)."""
    if variant == VAR_DUTCH:
        encode_dutch(b, out)
    else:
        encode_mahbusa(b, out)
