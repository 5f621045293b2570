"""Compiled self-play and duels for standard backgammon (numba).

A game is played by greedy 0-ply players: every distinct legal result of the roll is evaluated
by the nets (from the opponent's side, then swapped) and the best equity is played, optionally
with Gaussian noise on the equities (exploration). :func:`play_game` records, for each position
before the roll, the outcome distribution of the chosen afterstate from the mover's side: the
TD(0) target of that position. Dice come from numba's generator seeded per game, so a game is a
pure function of its seed and the weights.

>>> from analyzer.eval.net import NetSet
>>> nets = NetSet.initial(hidden=8, seed=0)
>>> buf = GameBuffers()
>>> t, outcome = play_seeded(nets, 7, 0.0, buf)
>>> t > 10 and 0 <= outcome <= 2
True
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

from analyzer.core.layout import NSLOTS, VAR_STANDARD
from analyzer.core.position import Position
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.net import NOUT, NetSet, equity6, eval_board, swap_outcomes
from analyzer.rules.kernel import Workspace, flip_into, generate

MAX_PLIES = 600
START_BOARD = np.frombuffer(Position.start().board, dtype=np.int8).copy()

PLAYER_NET = 0
PLAYER_HEURISTIC = 1

jitcache.refresh()
jitcache.refresh_module(__file__)


def game_seed(run_seed: int, index: int) -> int:
    """The dice seed of game ``index`` of a run (fits numba's 32-bit seed).

    >>> game_seed(1, 0), game_seed(1, 1)
    (1012348, 1020267)
    """
    return (run_seed * 1_000_003 + index * 7919 + 12345) % (2**32 - 1)


@njit(cache=True)
def heuristic_score(cand: np.ndarray, xc: np.ndarray) -> float:
    """A fixed hand-weighted evaluation of an afterstate (mover's side): the training baseline.

    Pip lead, shots given, home points, primes, anchors, checkers off; nothing learned.
    """
    if cand[26] >= 15:
        return 1000.0
    F.encode_contact(cand, xc)
    me = F.HAND_OFFSET
    them = F.SIDE_INPUTS + F.HAND_OFFSET
    s = 2.0 * (xc[them + F.F_PIPS] - xc[me + F.F_PIPS])
    s += 0.4 * (xc[me + F.F_OFF1] + xc[me + F.F_OFF2] + xc[me + F.F_OFF3])
    if F.classify(cand) != F.CLASS_RACE:
        s -= 0.8 * xc[me + F.F_HIT_ROLLS]
        s += 0.35 * xc[me + F.F_HOME_POINTS] + 0.25 * xc[me + F.F_PRIME] + 0.1 * xc[me + F.F_ANCHORS]
        s += 0.3 * xc[them + F.F_DANCE] * xc[them + F.F_ON_BAR]
        s -= 0.1 * xc[me + F.F_BLOTS]
    return float(s)


@njit(cache=True)
def choose(board: np.ndarray, d1: int, d2: int, W: tuple, kind: int, noise: float,  # type: ignore[type-arg]
           pool: np.ndarray, phash: np.ndarray, parent: np.ndarray, hfrom: np.ndarray, hto: np.ndarray,
           hhit: np.ndarray, ptag: np.ndarray, pterm: np.ndarray, table: np.ndarray, tstamp: np.ndarray,
           stampbox: np.ndarray, results: np.ndarray, tmp: np.ndarray, xc: np.ndarray, xr: np.ndarray,
           hid: np.ndarray, pa: np.ndarray, pb: np.ndarray, best_p: np.ndarray) -> int:
    """Pick a play for ``board`` and roll; returns its pool row (-1 on buffer overflow).

    For net players ``best_p`` receives the chosen afterstate's outcome distribution from the
    mover's side.
    """
    n = generate(board, d1, d2, VAR_STANDARD, 0, pool, phash, parent, hfrom, hto, hhit, ptag, pterm,
                 table, tstamp, stampbox, results)
    if n < 0:
        return -1
    best = -1e30
    best_row = results[0]
    for k in range(n):
        row = results[k]
        cand = pool[row]
        if kind == PLAYER_HEURISTIC:
            e = heuristic_score(cand, xc)
        else:
            if cand[26] >= 15:
                o = F.game_over_outcome(cand)
                for i in range(NOUT):
                    pb[i] = 0.0
                pb[o] = 1.0
            else:
                flip_into(cand, tmp)
                eval_board(tmp, W, xc, xr, hid, pa)
                swap_outcomes(pa, pb)
            e = equity6(pb)
        if noise > 0.0 and n > 1:
            e += noise * np.random.standard_normal()
        if e > best:
            best = e
            best_row = row
            if kind != PLAYER_HEURISTIC:
                for i in range(NOUT):
                    best_p[i] = pb[i]
    return int(best_row)


@njit(cache=True)
def _roll() -> tuple[int, int]:
    return np.random.randint(1, 7), np.random.randint(1, 7)


@njit(cache=True)
def _opening() -> tuple[int, int]:
    while True:
        a, b = _roll()
        if a != b:
            return a, b


@njit(cache=True)
def duel_dice(seed: int, dice: np.ndarray) -> None:
    """Fill ``dice`` (n x 2) with the roll sequence of duel seed ``seed``: numba's generator seeded
    with it, an opening roll (no doubles), then plain rolls."""
    np.random.seed(seed)
    a, b = _opening()
    dice[0, 0] = a
    dice[0, 1] = b
    for t in range(1, dice.shape[0]):
        a, b = _roll()
        dice[t, 0] = a
        dice[t, 1] = b


@njit(cache=True)
def duel_scratch(WA: tuple, WB: tuple) -> tuple[np.ndarray, ...]:  # type: ignore[type-arg]
    """Zeroed work buffers for games between the nets ``WA`` and ``WB`` (:meth:`NetSet.kernel_args`):
    a board ``tmp``, contact and race inputs ``xc``, ``xr``, hidden units ``hid`` (the largest
    hidden size of both) and three outcome distributions ``pa``, ``pb``, ``bp``."""
    nh = 1
    for WW in (WA, WB):
        nh = max(nh, WW[0].shape[1], WW[4].shape[1], WW[8].shape[1])
    return (np.zeros(NSLOTS, np.int8), np.zeros(F.N_CONTACT_EXT, np.float32), np.zeros(F.N_RACE, np.float32),
            np.zeros(nh, np.float32), np.zeros(NOUT, np.float32), np.zeros(NOUT, np.float32),
            np.zeros(NOUT, np.float32))


@njit(cache=True)
def play_game(seed: int, start: np.ndarray, W: tuple, noise: float,  # type: ignore[type-arg]
              pool: np.ndarray, phash: np.ndarray, parent: np.ndarray, hfrom: np.ndarray, hto: np.ndarray,
              hhit: np.ndarray, ptag: np.ndarray, pterm: np.ndarray, table: np.ndarray, tstamp: np.ndarray,
              stampbox: np.ndarray, results: np.ndarray,
              states: np.ndarray, nextp: np.ndarray) -> tuple[int, int]:
    """Self-play one game from ``start``; returns (positions recorded, final outcome 0..2).

    ``states[t]`` is the t-th position before its roll (side on roll's view) and ``nextp[t]``
    the outcome distribution of the afterstate played, from that side. The side that made the
    last play won; the outcome (0 single, 1 gammon, 2 backgammon) is from its side. Returns
    outcome -1 when the game hit ``states``' length, -2 on buffer overflow.
    """
    np.random.seed(seed)
    board = start.copy()
    tmp = np.zeros(NSLOTS, np.int8)
    xc = np.zeros(F.N_CONTACT_EXT, np.float32)
    xr = np.zeros(F.N_RACE, np.float32)
    nh = max(W[0].shape[1], W[4].shape[1], W[8].shape[1])
    hid = np.zeros(nh, np.float32)
    pa = np.zeros(NOUT, np.float32)
    pb = np.zeros(NOUT, np.float32)
    maxt = states.shape[0]
    for t in range(maxt):
        for i in range(NSLOTS):
            states[t, i] = board[i]
        if t == 0:
            d1, d2 = _opening()
        else:
            d1, d2 = _roll()
        row = choose(board, d1, d2, W, PLAYER_NET, noise, pool, phash, parent, hfrom, hto, hhit, ptag,
                     pterm, table, tstamp, stampbox, results, tmp, xc, xr, hid, pa, pb, nextp[t])
        if row < 0:
            return t, -2
        chosen = pool[row]
        if chosen[26] >= 15:
            return t + 1, F.game_over_outcome(chosen)
        flip_into(chosen, board)
    return maxt, -1


@njit(cache=True)
def duel_game(dice: np.ndarray, first: int, WA: tuple, kindA: int, WB: tuple, kindB: int,  # type: ignore[type-arg]
              pool: np.ndarray, phash: np.ndarray, parent: np.ndarray, hfrom: np.ndarray, hto: np.ndarray,
              hhit: np.ndarray, ptag: np.ndarray, pterm: np.ndarray, table: np.ndarray, tstamp: np.ndarray,
              stampbox: np.ndarray, results: np.ndarray) -> int:
    """Play one cubeless game between A and B with the given roll sequence.

    ``first`` = 0: A moves first. Returns the points won by A (+-1, 2, 3); 0 if the rolls ran out.
    """
    board = START_BOARD.copy()
    tmp, xc, xr, hid, pa, pb, bp = duel_scratch(WA, WB)
    side = first
    for t in range(dice.shape[0]):
        d1 = dice[t, 0]
        d2 = dice[t, 1]
        if side == 0:
            row = choose(board, d1, d2, WA, kindA, 0.0, pool, phash, parent, hfrom, hto, hhit, ptag,
                         pterm, table, tstamp, stampbox, results, tmp, xc, xr, hid, pa, pb, bp)
        else:
            row = choose(board, d1, d2, WB, kindB, 0.0, pool, phash, parent, hfrom, hto, hhit, ptag,
                         pterm, table, tstamp, stampbox, results, tmp, xc, xr, hid, pa, pb, bp)
        if row < 0:
            return 0
        chosen = pool[row]
        if chosen[26] >= 15:
            pts = F.game_over_outcome(chosen) + 1
            return pts if side == 0 else -pts
        flip_into(chosen, board)
        side = 1 - side
    return 0


@njit(cache=True)
def duel_many(seeds: np.ndarray, WA: tuple, kindA: int, WB: tuple, kindB: int,  # type: ignore[type-arg]
              pool: np.ndarray, phash: np.ndarray, parent: np.ndarray, hfrom: np.ndarray, hto: np.ndarray,
              hhit: np.ndarray, ptag: np.ndarray, pterm: np.ndarray, table: np.ndarray, tstamp: np.ndarray,
              stampbox: np.ndarray, results: np.ndarray, points: np.ndarray) -> None:
    """Duplicate-dice duel: each seed's roll sequence is played twice with A first, then B first.

    ``points[2 * i]`` and ``points[2 * i + 1]`` receive A's points of the two games.
    """
    dice = np.zeros((MAX_PLIES, 2), np.int64)
    for i in range(seeds.shape[0]):
        duel_dice(seeds[i], dice)
        for g in range(2):
            points[2 * i + g] = duel_game(dice, g, WA, kindA, WB, kindB, pool, phash, parent, hfrom, hto,
                                          hhit, ptag, pterm, table, tstamp, stampbox, results)


class GameBuffers:
    """Work buffers for one thread of self-play."""

    def __init__(self, max_plies: int = MAX_PLIES) -> None:
        self.ws = Workspace(8192)
        self.states = np.zeros((max_plies, NSLOTS), np.int8)
        self.nextp = np.zeros((max_plies, NOUT), np.float32)


def play_seeded(nets: NetSet, seed: int, noise: float, buf: GameBuffers,
                start: NDArray[np.int8] | None = None) -> tuple[int, int]:
    """Play one self-play game into ``buf``; returns (positions, outcome) as :func:`play_game`."""
    s = START_BOARD if start is None else start
    t, o = cast(Any, play_game)(seed, s, nets.kernel_args(), noise, *buf.ws.args(), buf.states, buf.nextp)
    return int(t), int(o)


def duel(a: NetSet | None, b: NetSet | None, seeds: NDArray[np.int64]) -> NDArray[np.int64]:
    """Duplicate-dice cubeless duel of A against B (``None`` = the heuristic baseline).

    Returns A's points per game (two games per seed).
    """
    dummy = NetSet.initial(hidden=1, race_hidden=1, seed=0)
    wa = (a or dummy).kernel_args()
    wb = (b or dummy).kernel_args()
    ka = PLAYER_NET if a is not None else PLAYER_HEURISTIC
    kb = PLAYER_NET if b is not None else PLAYER_HEURISTIC
    ws = Workspace(8192)
    pts = np.zeros(2 * len(seeds), np.int64)
    cast(Any, duel_many)(np.asarray(seeds, np.int64), wa, ka, wb, kb, *ws.args(), pts)
    return pts
