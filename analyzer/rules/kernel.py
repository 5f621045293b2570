"""Compiled move generation shared by every variant (numba, ``cache=True``).

The generator follows ``docs/rules.md`` §0.3: it enumerates single-die steps level by level, keeps
the distinct states reached after each number of dice (Zobrist hashing), applies the
"as many dice as possible" and "the larger die" rules, and treats a game-ending special step
(Mahbusa mother win or draw) as a complete play. Because each level is a set of *states*, all
orders of the same steps collapse, and rules that depend on order (the Dutch unlock in mid-turn,
the Mahbusa state check) are handled exactly: a state reached by any legal order is kept.
In standard backgammon no step enables a step from a higher point, so steps are generated only
in falling-source order (second step of a non-double, every step of a double); Dutch and
Mahbusa keep every order, as their lock and state rules depend on it.

Work buffers live in a :class:`Workspace` so that no call allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from analyzer.core.jit import as_int64
from analyzer.core.layout import (
    GAME_END,
    MOVER_BAR,
    MOVER_CAN_HIT,
    MOVER_OFF,
    MOVER_RES,
    NSLOTS,
    OPP_BAR,
    OPT_DUTCH_ENTER_ALL_FIRST,
    OPT_DUTCH_TURN_START,
    OPT_DUTCH_UNLOCK_CURRENT,
    OPT_MAHBUSA_ON_PIN,
    PIN0,
    VAR_DUTCH,
    VAR_MAHBUSA,
    VAR_STANDARD,
)

_rng = np.random.default_rng(0xB6_2026)
ZOBRIST = _rng.integers(1, 2**62, size=(NSLOTS, 64), dtype=np.int64).astype(np.uint64)
TAG_SALT = _rng.integers(1, 2**62, size=16, dtype=np.int64).astype(np.uint64)
TERMINAL_TAG = 15
HASHED_SLOTS = GAME_END + 1
RESERVE_SRC = 26  # step source code for an entry from the Dutch reserve

Arr = np.ndarray  # numba ignores annotations; this names the array arguments for mypy


@njit(cache=True)
def full_hash(b: np.ndarray) -> np.uint64:
    h = np.uint64(0)
    for i in range(HASHED_SLOTS):
        h ^= ZOBRIST[i, b[i] + 32]
    return h


@njit(cache=True)
def _can_hit(b: np.ndarray, variant: int, opts: int) -> bool:
    if variant != VAR_DUTCH:
        return True
    if opts & OPT_DUTCH_UNLOCK_CURRENT:
        for p in range(1, 7):  # noqa: SIM110 - numba compiles plain loops best
            if b[p] > 0:
                return True
        return False
    return bool(b[MOVER_CAN_HIT] != 0)


@njit(cache=True)
def _all_home(b: np.ndarray, variant: int) -> bool:
    if b[MOVER_BAR] > 0:
        return False
    if variant == VAR_DUTCH and b[MOVER_RES] > 0:
        return False
    for p in range(7, 25):
        if b[p] > 0:
            return False
    if variant == VAR_MAHBUSA:
        for p in range(1, 25):
            if b[PIN0 + p] == -1:
                return False
    return True


@njit(cache=True)
def _dest(b: np.ndarray, src: int, d: int, variant: int, opts: int, home: bool) -> int:
    """Destination of moving from ``src`` by ``d``: 1..24, 0 for off, -1 if illegal."""
    dst = 25 - d if src >= 25 else src - d
    if dst <= 0:
        if not home:
            return -1
        if dst == 0:
            return 0
        for p in range(src + 1, 25):
            if b[p] > 0:
                return -1
        return 0
    v = b[dst]
    if v >= 0:
        return dst
    if v == -1:
        if variant == VAR_STANDARD:
            return dst
        if variant == VAR_DUTCH:
            return dst if _can_hit(b, variant, opts) else -1
        if b[PIN0 + dst] == -1:
            return -1
        return dst
    return -1


@njit(cache=True)
def _set(b: np.ndarray, h: np.uint64, i: int, v: int) -> np.uint64:
    h ^= ZOBRIST[i, b[i] + 32] ^ ZOBRIST[i, v + 32]
    b[i] = v
    return h


@njit(cache=True)
def _apply(b: np.ndarray, h: np.uint64, src: int, dst: int, variant: int, opts: int) -> tuple[np.uint64, int]:
    """Apply one step in place; returns the new hash and 0, 1 (hit) or 2 (pin)."""
    if src == 25:
        h = _set(b, h, MOVER_BAR, b[MOVER_BAR] - 1)
    elif src == RESERVE_SRC:
        h = _set(b, h, MOVER_RES, b[MOVER_RES] - 1)
    else:
        nv = b[src] - 1
        if variant == VAR_MAHBUSA and nv == 0 and b[PIN0 + src] == 1:
            h = _set(b, h, src, -1)
            h = _set(b, h, PIN0 + src, 0)
        else:
            h = _set(b, h, src, nv)
    hit = 0
    if dst == 0:
        h = _set(b, h, MOVER_OFF, b[MOVER_OFF] + 1)
    else:
        v = b[dst]
        if v == -1:
            if variant == VAR_MAHBUSA:
                h = _set(b, h, dst, 1)
                h = _set(b, h, PIN0 + dst, 1)
                hit = 2
            else:
                h = _set(b, h, dst, 1)
                h = _set(b, h, OPP_BAR, b[OPP_BAR] + 1)
                hit = 1
        else:
            h = _set(b, h, dst, v + 1)
        if (variant == VAR_DUTCH and dst <= 6 and not (opts & OPT_DUTCH_UNLOCK_CURRENT)
                and b[MOVER_CAN_HIT] == 0):
            h = _set(b, h, MOVER_CAN_HIT, 1)
    if variant == VAR_MAHBUSA:
        check = True
        if opts & OPT_MAHBUSA_ON_PIN:
            check = hit == 2 and dst == 1
        if check and b[PIN0 + 1] == 1 and (b[PIN0 + 24] == -1 or b[24] <= 0):
            h = _set(b, h, GAME_END, 1)
    return h, hit


@njit(cache=True)
def _insert(pool: Arr, phash: Arr, ptag: Arr, table: Arr, tstamp: Arr, stamp: int, mask: int, n: int,
            h: np.uint64, tag: int) -> bool:
    """Register pool row ``n`` (hash ``h``) in set ``tag``; False if an equal row is there.

    The open-addressing table is ``tstamp`` alone: an entry is ``stamp << 32 | row``, valid only
    when its stamp is the current call's, so no clearing is needed between calls and each
    probe touches one array. ``table`` is no longer read (kept so callers' argument lists
    stay the same).
    """
    key = h ^ TAG_SALT[tag]
    slot = np.int64(key & np.uint64(mask))
    mark = stamp << 32
    while True:
        e = tstamp[slot]
        if (e >> 32) != stamp:
            tstamp[slot] = mark | n
            return True
        j = e & 0xFFFFFFFF
        if phash[j] == h and ptag[j] == tag:
            same = True
            for i in range(HASHED_SLOTS):
                if pool[j, i] != pool[n, i]:
                    same = False
                    break
            if same:
                return False
        slot = (slot + 1) & mask


@njit(cache=True)
def _expand(parent_idx: int, d: int, tag: int, variant: int, opts: int, board_at_start: bool,
            max_src: int, pool: Arr, phash: Arr, parent: Arr, hfrom: Arr, hto: Arr, hhit: Arr,
            ptag: Arr, pterm: Arr, table: Arr, tstamp: Arr, stamp: int, mask: int, n: int,
            cap: int) -> int:
    """Add every state one step of ``d`` away from pool row ``parent_idx``; returns new n or -1.

    Sources are tried in a fixed order: the bar alone when it holds a checker, otherwise the
    Dutch reserve and then points 24..1. The all-home test that bear-offs need is made once,
    and only when the die can reach off from the lowest occupied point. Sources above
    ``max_src`` are skipped (see the doubles path of :func:`generate`).
    """
    b = pool[parent_idx]
    h0 = phash[parent_idx]
    from_bar = b[MOVER_BAR] > 0
    if from_bar:
        src_hi, src_lo = 25, 25
    else:
        src_hi, src_lo = 24, 1
        if variant == VAR_DUTCH:
            if b[MOVER_RES] > 0:
                src_hi = RESERVE_SRC
                if opts & OPT_DUTCH_ENTER_ALL_FIRST:
                    src_lo = RESERVE_SRC
            if (opts & OPT_DUTCH_TURN_START) and not board_at_start:
                src_lo = RESERVE_SRC
            if src_lo > src_hi:
                return n
    home = False
    if src_hi <= 24:
        for p in range(1, 7):
            if b[p] > 0:
                if d >= p:
                    home = _all_home(b, variant)
                break
    if src_hi > max_src:
        src_hi = max_src
    for src in range(src_hi, src_lo - 1, -1):
        if src <= 24:
            if b[src] <= 0:
                continue
        elif src == 25 and not from_bar:
            continue
        dst = _dest(b, src, d, variant, opts, home)
        if dst < 0:
            continue
        if n >= cap:
            return -1
        row = pool[n]
        for i in range(NSLOTS):
            row[i] = b[i]
        h, hit = _apply(row, h0, src, dst, variant, opts)
        term = row[GAME_END] != 0
        t = TERMINAL_TAG if term else tag
        phash[n] = h
        ptag[n] = t
        if _insert(pool, phash, ptag, table, tstamp, stamp, mask, n, h, t):
            parent[n] = parent_idx
            hfrom[n] = src
            hto[n] = dst
            hhit[n] = hit
            pterm[n] = term
            n += 1
    return n


@njit(cache=True)
def generate(b0: Arr, d1: int, d2: int, variant: int, opts: int, pool: Arr, phash: Arr, parent: Arr,
             hfrom: Arr, hto: Arr, hhit: Arr, ptag: Arr, pterm: Arr, table: Arr, tstamp: Arr,
             stampbox: Arr, results: Arr) -> int:
    """Fill ``results`` with the pool rows of the distinct legal results; returns their count.

    Returns -1 when the work buffers are too small (the caller grows them and retries).
    """
    cap = pool.shape[0]
    mask = tstamp.shape[0] - 1
    stampbox[0] += 1
    if stampbox[0] >= 2**31:  # stamps share an int64 with a row index: start again at 1
        tstamp[:] = 0
        stampbox[0] = 1
    stamp = stampbox[0]
    for i in range(NSLOTS):
        pool[0, i] = b0[i]
    phash[0] = full_hash(pool[0])
    parent[0] = -1
    ptag[0] = 0
    pterm[0] = 0
    hfrom[0] = 0
    hto[0] = 0
    hhit[0] = 0
    n = as_int64(1)  # int64 from the start, not the literal 1 (see _expand's calls below)
    # Dutch turn_start: a checker entered before this turn (on the board or hit onto the bar).
    board_at_start = b0[MOVER_BAR] > 0
    for p in range(1, 25):
        if b0[p] > 0:
            board_at_start = True
            break
    if b0[GAME_END] != 0 or b0[MOVER_OFF] >= 15:
        results[0] = 0
        return 1
    nres = 0
    if d1 == d2:
        lo, hi = 0, 1
        deepest_lo, deepest_hi = 0, 1
        for k in range(1, 5):
            start = n
            for i in range(lo, hi):
                if pterm[i]:
                    continue
                # Standard doubles: the steps of a play commute once sorted by falling source
                # (a step never enables one from a higher point), so only that order is
                # generated. The sources of a state's steps are fixed by the state, so the last
                # step of the stored path (hfrom) is the lowest whichever path found it first.
                limit = as_int64(26)
                if variant == VAR_STANDARD and k > 1:
                    limit = as_int64(hfrom[i])
                n = _expand(i, d1, k, variant, opts, board_at_start, limit, pool, phash, parent, hfrom,
                            hto, hhit, ptag, pterm, table, tstamp, stamp, mask, n, cap)
                if n < 0:
                    return -1
            lo, hi = start, n
            has_live = False
            for i in range(lo, hi):
                if not pterm[i]:
                    has_live = True
                    break
            if has_live:
                deepest_lo, deepest_hi = lo, hi
            if not has_live:
                break
        any_term = False
        for i in range(1, n):
            if pterm[i]:
                any_term = True
                results[nres] = i
                nres += 1
        if any_term:
            for i in range(1, n):
                if not pterm[i] and ptag[i] == 4:
                    results[nres] = i
                    nres += 1
        else:
            for i in range(deepest_lo, deepest_hi):
                if not pterm[i]:
                    results[nres] = i
                    nres += 1
        return nres
    big, small = (d1, d2) if d1 > d2 else (d2, d1)
    # constants go to _expand as int64: numba compiles a function called with a literal constant once
    # more for each constant it gets (here each a copy of _expand and its callees, in every kernel
    # that generates plays), with the same results
    n = _expand(as_int64(0), big, as_int64(1), variant, opts, board_at_start, as_int64(26), pool, phash, parent,
                hfrom, hto, hhit, ptag, pterm, table, tstamp, stamp, mask, n, cap)
    if n < 0:
        return -1
    mid = n
    n = _expand(as_int64(0), small, as_int64(2), variant, opts, board_at_start, as_int64(26), pool, phash, parent,
                hfrom, hto, hhit, ptag, pterm, table, tstamp, stamp, mask, n, cap)
    if n < 0:
        return -1
    l1_end = n
    for i in range(1, l1_end):
        if pterm[i]:
            continue
        d = small if i < mid else big
        # Standard: as for doubles, a second step from a higher point than the first commutes
        # with it, and the swapped order is generated from the other die's level-1 states.
        limit = as_int64(hfrom[i] if variant == VAR_STANDARD else 26)
        n = _expand(i, d, as_int64(3), variant, opts, board_at_start, limit, pool, phash, parent, hfrom, hto,
                    hhit, ptag, pterm, table, tstamp, stamp, mask, n, cap)
        if n < 0:
            return -1
    for i in range(1, n):
        if pterm[i] or i >= l1_end:
            results[nres] = i
            nres += 1
    if nres > 0:
        return nres
    for i in range(1, mid):
        results[nres] = i
        nres += 1
    if nres > 0:
        return nres
    for i in range(mid, l1_end):
        results[nres] = i
        nres += 1
    if nres > 0:
        return nres
    results[0] = 0
    return 1


@njit(cache=True)
def extract_hops(idx: int, parent: Arr, hfrom: Arr, hto: Arr, hhit: Arr, out: Arr) -> int:
    """Write the hops (from, to, hit) leading to pool row ``idx`` into ``out``; returns the count."""
    k = 0
    j = idx
    while parent[j] >= 0:
        k += 1
        j = parent[j]
    m = k
    j = idx
    while parent[j] >= 0:
        k -= 1
        out[k, 0] = hfrom[j]
        out[k, 1] = hto[j]
        out[k, 2] = hhit[j]
        j = parent[j]
    return m


LISTING_WIDTH = 2 * NSLOTS + 13
"""Columns of a row of a listing block (:func:`fill_listing`): the result (``NSLOTS``, still seen from
the mover), the same flipped (``NSLOTS``, the opponent on roll), the hops (4 x 3: from, to, hit, in
play order, zero beyond the play's) and their count."""


@njit(cache=True)
def fill_listing(n: int, pool: Arr, parent: Arr, hfrom: Arr, hto: Arr, hhit: Arr, results: Arr, blk: Arr) -> None:
    """Copy the ``n`` legal results of the last :func:`generate` (in generation order) into the rows of
    ``blk`` (at least n x :data:`LISTING_WIDTH` int8), with their flipped boards and their hops."""
    tmp = np.zeros((8, 3), np.int64)
    h0 = 2 * NSLOTS
    for k in range(n):
        idx = results[k]
        row = blk[k]
        for i in range(NSLOTS):
            row[i] = pool[idx, i]
        flip_into(row[:NSLOTS], row[NSLOTS:h0])
        c = extract_hops(idx, parent, hfrom, hto, hhit, tmp)
        for j in range(4):
            for i in range(3):
                row[h0 + 3 * j + i] = tmp[j, i] if j < c else 0
        row[h0 + 12] = c


@njit(cache=True)
def list_results(b0: Arr, d1: int, d2: int, variant: int, opts: int, pool: Arr, phash: Arr, parent: Arr,
                 hfrom: Arr, hto: Arr, hhit: Arr, ptag: Arr, pterm: Arr, table: Arr, tstamp: Arr,
                 stampbox: Arr, results: Arr) -> tuple[int, Arr]:
    """:func:`generate`, then the legal results copied out in generation order with the hops of
    each: ``(n, block)``, the block n x :data:`LISTING_WIDTH` (:func:`fill_listing`); ``n`` is -1 (and
    the block empty) when the work buffers are too small."""
    n = generate(b0, d1, d2, variant, opts, pool, phash, parent, hfrom, hto, hhit, ptag, pterm, table, tstamp,
                 stampbox, results)
    blk = np.empty((max(n, 0), LISTING_WIDTH), np.int8)
    fill_listing(n, pool, parent, hfrom, hto, hhit, results, blk)
    return n, blk


@njit(cache=True)
def list_rolls(b0: Arr, d1s: Arr, d2s: Arr, variant: int, opts: int, pool: Arr, phash: Arr, parent: Arr,
               hfrom: Arr, hto: Arr, hhit: Arr, ptag: Arr, pterm: Arr, table: Arr, tstamp: Arr,
               stampbox: Arr, results: Arr) -> tuple[int, Arr, Arr, Arr]:
    """The legal results of every roll ``(d1s[r], d2s[r])`` from ``b0``, each roll's in generation
    order, one roll after the other: ``(status, boards (n x 64 int8, still seen from the mover),
    flipped (the same, the opponent on roll), starts)``: roll ``r``'s rows are
    ``starts[r]:starts[r + 1]``. ``status`` is -1 (the arrays empty) when the work buffers are too
    small."""
    nr = d1s.shape[0]
    starts = np.zeros(nr + 1, np.int64)
    cap = 512
    boards = np.empty((cap, NSLOTS), np.int8)
    total = 0
    for r in range(nr):
        n = generate(b0, d1s[r], d2s[r], variant, opts, pool, phash, parent, hfrom, hto, hhit, ptag, pterm, table,
                     tstamp, stampbox, results)
        if n < 0:
            return -1, boards[:0], boards[:0], starts
        if total + n > cap:
            while total + n > cap:
                cap *= 2
            grown = np.empty((cap, NSLOTS), np.int8)
            grown[:total] = boards[:total]
            boards = grown
        for k in range(n):
            idx = results[k]
            for i in range(NSLOTS):
                boards[total + k, i] = pool[idx, i]
        total += n
        starts[r + 1] = total
    out = boards[:total].copy()
    flipped = np.empty((total, NSLOTS), np.int8)
    for k in range(total):
        flip_into(out[k], flipped[k])
    return 0, out, flipped, starts


@njit(cache=True)
def count_batch(boards: Arr, dice: Arr, variant: int, opts: int, pool: Arr, phash: Arr, parent: Arr,
                hfrom: Arr, hto: Arr, hhit: Arr, ptag: Arr, pterm: Arr, table: Arr, tstamp: Arr,
                stampbox: Arr, results: Arr) -> int:
    """Total number of distinct results over every board x every roll (benchmarks)."""
    total = 0
    for i in range(boards.shape[0]):
        for j in range(dice.shape[0]):
            r = generate(boards[i], dice[j, 0], dice[j, 1], variant, opts, pool, phash, parent, hfrom,
                         hto, hhit, ptag, pterm, table, tstamp, stampbox, results)
            if r < 0:
                return -1
            total += r
    return total


@njit(cache=True)
def flip_into(src: Arr, dst: Arr) -> None:
    """Write the flipped position of ``src`` (the other side on roll) into ``dst``."""
    for i in range(NSLOTS):
        dst[i] = 0
    for p in range(1, 25):
        dst[p] = -src[25 - p]
        dst[PIN0 + p] = -src[PIN0 + 25 - p]
    dst[0] = src[25]
    dst[25] = src[0]
    dst[26] = src[27]
    dst[27] = src[26]
    dst[28] = src[29]
    dst[29] = src[28]
    dst[30] = src[31]
    dst[31] = src[30]
    dst[GAME_END] = src[GAME_END]


class Workspace:
    """Reusable work buffers for :func:`generate` (not thread-safe: one per thread)."""

    def __init__(self, capacity: int = 8192) -> None:
        self.resize(capacity)

    def resize(self, capacity: int) -> None:
        self.capacity = capacity
        self.pool = np.zeros((capacity, NSLOTS), np.int8)
        self.phash = np.zeros(capacity, np.uint64)
        self.parent = np.zeros(capacity, np.int32)
        self.hfrom = np.zeros(capacity, np.int8)
        self.hto = np.zeros(capacity, np.int8)
        self.hhit = np.zeros(capacity, np.int8)
        self.ptag = np.zeros(capacity, np.int8)
        self.pterm = np.zeros(capacity, np.bool_)
        tsize = 1 << (2 * capacity - 1).bit_length()
        self.table = np.zeros(tsize, np.int64)
        self.tstamp = np.zeros(tsize, np.int64)
        self.stampbox = np.zeros(1, np.int64)
        self.results = np.zeros(capacity, np.int64)
        self.hops = np.zeros((8, 3), np.int64)
        self._args = (self.pool, self.phash, self.parent, self.hfrom, self.hto, self.hhit, self.ptag,
                      self.pterm, self.table, self.tstamp, self.stampbox, self.results)

    def args(self) -> tuple[np.ndarray, ...]:
        """The 12 buffers in :func:`generate`'s order (the same tuple until :meth:`resize`)."""
        return self._args

    def list_results(self, board: np.ndarray, d1: int, d2: int, variant: int, opts: int) -> np.ndarray:
        """Run :func:`list_results`, growing the buffers when needed: the listing block (n x
        :data:`LISTING_WIDTH`: each result, the same flipped, its hops and their count), in
        generation order."""
        while True:
            n, blk = list_results(board, d1, d2, variant, opts, *self._args)
            if n >= 0:
                return blk
            self.resize(self.capacity * 4)

    def list_rolls(self, board: np.ndarray, d1s: np.ndarray, d2s: np.ndarray, variant: int,
                   opts: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run :func:`list_rolls`, growing the buffers when needed: the results of every roll (n x 64),
        the same flipped and where each roll's rows start."""
        while True:
            status, boards, flipped, starts = list_rolls(board, d1s, d2s, variant, opts, *self._args)
            if status >= 0:
                return boards, flipped, starts
            self.resize(self.capacity * 4)

    def generate(self, board: np.ndarray, d1: int, d2: int, variant: int, opts: int) -> int:
        """Run :func:`generate`, growing the buffers when needed; returns the result count."""
        while True:
            n = int(generate(board, d1, d2, variant, opts, *self._args))
            if n >= 0:
                return n
            self.resize(self.capacity * 4)
