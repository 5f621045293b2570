"""Playing Dutch and Mahbusa games with the variant nets: compiled self-play and duels.

:func:`play_game` is the self-play of TD training: greedy 0-ply players (optionally with Gaussian
noise on the equities), dice from numba's generator seeded per game, so a game is a pure function
of its seed and the weights. The opener re-rolls in both variants, so the first roll is an
ordinary roll (doubles included).

:func:`duel` plays two players -- ``"heuristic"`` (the yardstick of
:mod:`analyzer.eval.heuristic`), ``"random"`` or a :class:`~analyzer.eval.variants.model.VariantNet`
-- with duplicate dice (each dice sequence twice, sides swapped) and returns A's points.

>>> from analyzer.eval.variants.model import VariantNet
>>> net = VariantNet.initial("dutch", hidden=8, seed=0)
>>> pts = duel("dutch", net, "random", pairs=1, seed=3)
>>> pts.shape, all(abs(int(p)) <= 2 for p in pts)
((2,), True)
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

from analyzer.core.layout import NSLOTS
from analyzer.core.position import Position
from analyzer.eval import features as F
from analyzer.eval.variants import features as V
from analyzer.eval.variants.model import (
    NMAX,
    RaceContext,
    VariantNet,
    after_play,
    race_context,
    variant_code_name,
)
from analyzer.rules import find_variant
from analyzer.rules.kernel import Workspace, flip_into, generate

MAX_PLIES = 1200
POINTS_OF = np.array([1, 2, -1, -2, 0], np.int64)


@njit(cache=True)
def choose(b: np.ndarray, d1: int, d2: int, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
           use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple, x: np.ndarray,  # type: ignore[type-arg]
           xr: np.ndarray, hid: np.ndarray, p6: np.ndarray, tmp: np.ndarray, pa: np.ndarray, pb: np.ndarray,
           noise: float, best_p: np.ndarray) -> int:
    """The pool row (in ``ws``) of the play with the best 0-ply equity (plus ``noise`` times a
    standard normal when there is a choice); ``best_p`` gets its outcome vector (mover's view)."""
    n = generate(b, d1, d2, variant, opts, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7], ws[8],
                 ws[9], ws[10], ws[11])
    if n < 0:
        return -1
    pool = ws[0]
    results = ws[11]
    best = -1e30
    best_row = results[0]
    for k in range(n):
        row = results[k]
        e = after_play(pool[row], variant, W, S, use_db, dist, first, win2, x, xr, hid, p6, tmp, pa, pb)
        if noise > 0.0 and n > 1:
            e += noise * np.random.standard_normal()
        if e > best:
            best = e
            best_row = row
            for i in range(NMAX):
                best_p[i] = pb[i]
    return int(best_row)


@njit(cache=True)
def play_game(seed: int, start: np.ndarray, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
              use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple,  # type: ignore[type-arg]
              noise: float, states: np.ndarray, nextp: np.ndarray) -> tuple[int, int]:
    """Self-play one game from ``start``; returns (positions recorded, outcome index).

    ``states[t]`` is the t-th position before its roll (its mover's view) and ``nextp[t]`` the
    outcome vector of the play chosen there, from the same side. The outcome (``V.WIN1`` ..
    ``V.DRAW``) is from the view of the side that made the last play. Returns outcome -1 when
    the game hit ``states``' length, -2 on buffer overflow.
    """
    np.random.seed(seed)
    board = start.copy()
    x = np.zeros(max(V.N_DUTCH, V.N_MAHBUSA), np.float32)
    xr = np.zeros(F.N_RACE, np.float32)
    hid = np.zeros(max(W[0].shape[1], S[8].shape[1]), np.float32)
    p6 = np.zeros(6, np.float32)
    tmp = np.zeros(NSLOTS, np.int8)
    pa = np.zeros(NMAX, np.float32)
    pb = np.zeros(NMAX, np.float32)
    maxt = states.shape[0]
    for t in range(maxt):
        for i in range(NSLOTS):
            states[t, i] = board[i]
        d1 = np.random.randint(1, 7)
        d2 = np.random.randint(1, 7)
        row = choose(board, d1, d2, variant, opts, W, S, use_db, dist, first, win2, ws, x, xr, hid, p6, tmp,
                     pa, pb, noise, nextp[t])
        if row < 0:
            return t, -2
        chosen = ws[0][row]
        o = V.outcome_of(chosen)
        if o >= 0:
            return t + 1, o
        flip_into(chosen, board)
    return maxt, -1


class GameBuffers:
    """Work buffers for one thread of self-play."""

    def __init__(self, max_plies: int = MAX_PLIES) -> None:
        self.ws = Workspace(8192)
        self.states = np.zeros((max_plies, NSLOTS), np.int8)
        self.nextp = np.zeros((max_plies, NMAX), np.float32)


def play_seeded(vn: VariantNet, seed: int, noise: float, buf: GameBuffers, ctx: RaceContext | None = None,
                start: NDArray[np.int8] | None = None) -> tuple[int, int]:
    """One self-play game into ``buf``; returns (positions, outcome) as :func:`play_game`."""
    ctx = ctx or race_context()
    s = np.frombuffer(Position.start(vn.variant).board, np.int8).copy() if start is None else start
    t, o = cast(Any, play_game)(seed, s, vn.code, 0, vn.kernel_args(), *ctx.args(), tuple(buf.ws.args()), noise,
                                buf.states, buf.nextp)
    return int(t), int(o)


class _NetChooser:
    """A net player for :func:`duel`: the result board of its 0-ply best play."""

    def __init__(self, vn: VariantNet, ctx: RaceContext) -> None:
        self.vn = vn
        self.W = vn.kernel_args()
        self.ctx = ctx
        self.ws = Workspace(8192)
        self.x = np.zeros(max(V.N_DUTCH, V.N_MAHBUSA), np.float32)
        self.xr = np.zeros(F.N_RACE, np.float32)
        self.hid = np.zeros(max(vn.net.hidden, ctx.S[8].shape[1]), np.float32)
        self.p6 = np.zeros(6, np.float32)
        self.tmp = np.zeros(NSLOTS, np.int8)
        self.pa = np.zeros(NMAX, np.float32)
        self.pb = np.zeros(NMAX, np.float32)
        self.bp = np.zeros(NMAX, np.float32)

    def __call__(self, board: NDArray[np.int8], dice: tuple[int, int]) -> NDArray[np.int8]:
        while True:
            row = int(cast(Any, choose)(board, dice[0], dice[1], self.vn.code, 0, self.W, *self.ctx.args(),
                                        tuple(self.ws.args()), self.x, self.xr, self.hid, self.p6, self.tmp,
                                        self.pa, self.pb, 0.0, self.bp))
            if row >= 0:
                return cast(NDArray[np.int8], self.ws.pool[row].copy())
            self.ws.resize(self.ws.capacity * 4)


def _chooser(player: VariantNet | str, variant: str, seed: int, ctx: RaceContext | None) -> Any:
    rules = find_variant(variant)
    if isinstance(player, VariantNet):
        if player.variant != rules.name:
            raise ValueError(f"a {player.variant} net cannot play {rules.name}")
        return _NetChooser(player, ctx or race_context())
    if player == "heuristic":
        from analyzer.eval.heuristic import score_results

        def heur(board: NDArray[np.int8], dice: tuple[int, int]) -> NDArray[np.int8]:
            boards = rules.legal_results(Position(board.tobytes(), rules.name), dice)
            return cast(NDArray[np.int8], boards[int(np.argmax(score_results(boards, rules)))])

        return heur
    if player == "random":
        rng = random.Random(seed)

        def rand(board: NDArray[np.int8], dice: tuple[int, int]) -> NDArray[np.int8]:
            boards = rules.legal_results(Position(board.tobytes(), rules.name), dice)
            return cast(NDArray[np.int8], boards[rng.randrange(len(boards))])

        return rand
    raise ValueError(f"unknown player {player!r} (a VariantNet, 'heuristic' or 'random')")


def play_duel_game(variant: str, players: list[Any], rolls: list[tuple[int, int]], rng: random.Random,
                   max_plies: int = MAX_PLIES) -> tuple[int, int, int]:
    """One game, ``players[0]`` opening, dice from ``rolls`` (extended from ``rng`` as needed):
    (points for players[0], outcome index from players[0]'s view or -1 unfinished, plies)."""
    board = np.frombuffer(Position.start(variant).board, np.int8).copy()
    nxt = np.zeros(NSLOTS, np.int8)
    side = 0
    for ply in range(max_plies):
        if ply == len(rolls):
            rolls.append((rng.randint(1, 6), rng.randint(1, 6)))
        chosen = players[side](board, rolls[ply])
        o = int(V.outcome_of(chosen))
        if o >= 0:
            if side == 1:
                o = (2, 3, 0, 1, 4)[o]
            return int(POINTS_OF[o]), o, ply + 1
        flip_into(chosen, nxt)
        board, nxt = nxt, board
        side = 1 - side
    return 0, -1, max_plies


def duel(variant: str, a: VariantNet | str, b: VariantNet | str, pairs: int, seed: int = 1,
         ctx: RaceContext | None = None, max_plies: int = MAX_PLIES) -> NDArray[np.int64]:
    """Duplicate-dice cubeless duel of A against B: ``2 * pairs`` games, A's points per game
    (games ``2i`` and ``2i + 1`` share one dice sequence, A opening the first)."""
    variant = find_variant(variant).name
    pa = _chooser(a, variant, seed * 2 + 1, ctx)
    pb = _chooser(b, variant, seed * 2 + 2, ctx)
    master = random.Random(seed)
    pts = np.zeros(2 * pairs, np.int64)
    for i in range(pairs):
        rng = random.Random(master.getrandbits(64))
        rolls: list[tuple[int, int]] = []
        p1, _, _ = play_duel_game(variant, [pa, pb], rolls, rng, max_plies)
        p2, _, _ = play_duel_game(variant, [pb, pa], rolls, rng, max_plies)
        pts[2 * i] = p1
        pts[2 * i + 1] = -p2
    return pts


def ppg_and_se(pts: NDArray[np.int64]) -> tuple[float, float]:
    """Mean points per game and its standard error over the duplicate pairs.

    >>> ppg_and_se(np.array([2, 0, 1, 1]))
    (1.0, 0.0)
    """
    pair = pts.reshape(-1, 2).mean(axis=1)
    n = len(pair)
    se = float(pair.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return float(pts.mean()), se


__all__ = ["GameBuffers", "choose", "duel", "play_duel_game", "play_game", "play_seeded", "ppg_and_se", "rollout",
           "variant_code_name"]


@njit(cache=True)
def rollout_kernel(board: np.ndarray, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
                   use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple,  # type: ignore[type-arg]
                   seed: int, trial0: int, ntrials: int, max_plies: int, out: np.ndarray) -> None:
    """Trials ``trial0 .. trial0 + ntrials - 1`` of a cubeless rollout of ``board`` (its side on
    roll) by the 0-ply net player: ``out[i]`` gets the outcome index from the root mover's view
    (-1 if a game hit ``max_plies``). Trial t's first roll is the (t mod 36)-th ordered roll
    (stratified), later rolls come from numba's generator seeded with ``seed + t``."""
    x = np.zeros(max(V.N_DUTCH, V.N_MAHBUSA), np.float32)
    xr = np.zeros(F.N_RACE, np.float32)
    hid = np.zeros(max(W[0].shape[1], S[8].shape[1]), np.float32)
    p6 = np.zeros(6, np.float32)
    tmp = np.zeros(NSLOTS, np.int8)
    pa = np.zeros(NMAX, np.float32)
    pb = np.zeros(NMAX, np.float32)
    bp = np.zeros(NMAX, np.float32)
    b = np.zeros(NSLOTS, np.int8)
    swap = np.array([2, 3, 0, 1, 4])
    for i in range(ntrials):
        t = trial0 + i
        np.random.seed(seed + t)
        for j in range(NSLOTS):
            b[j] = board[j]
        res = -1
        o0 = V.outcome_of(b)
        if o0 >= 0:
            out[i] = o0
            continue
        for ply in range(max_plies):
            if ply == 0:
                d1 = (t % 36) // 6 + 1
                d2 = t % 6 + 1
            else:
                d1 = np.random.randint(1, 7)
                d2 = np.random.randint(1, 7)
            row = choose(b, d1, d2, variant, opts, W, S, use_db, dist, first, win2, ws, x, xr, hid, p6, tmp,
                         pa, pb, 0.0, bp)
            if row < 0:
                break
            chosen = ws[0][row]
            o = V.outcome_of(chosen)
            if o >= 0:
                res = o if ply % 2 == 0 else swap[o]
                break
            flip_into(chosen, b)
        out[i] = res


def rollout(vn: VariantNet, pos: Position, trials: int = 1296, seed: int = 1, ctx: RaceContext | None = None,
            max_plies: int = MAX_PLIES) -> tuple[float, float, NDArray[np.int64]]:
    """Cubeless rollout of ``pos`` by the net's 0-ply player: (mean points for the side on roll,
    its standard error, counts of each outcome index ``V.WIN1 .. V.DRAW``). Games that reach
    ``max_plies`` are dropped.

    >>> from analyzer.eval.variants.model import VariantNet
    >>> vn = VariantNet.initial("mahbusa", hidden=8, seed=0)
    >>> mean, se, counts = rollout(vn, Position.start("mahbusa"), trials=36)
    >>> int(counts.sum()) <= 36 and -2.0 <= mean <= 2.0
    True
    """
    ctx = ctx or race_context()
    ws = Workspace(8192)
    out = np.full(trials, -1, np.int64)
    board = np.frombuffer(pos.board, np.int8).copy()
    cast(Any, rollout_kernel)(board, vn.code, find_variant(vn.variant).options, vn.kernel_args(), *ctx.args(),
                              tuple(ws.args()), seed, 0, trials, max_plies, out)
    done = out[out >= 0]
    counts = np.bincount(done, minlength=5)[:5].astype(np.int64)
    pts = POINTS_OF[done].astype(np.float64)
    if len(pts) == 0:
        return float("nan"), float("nan"), counts
    # stratified by first roll: the spread of the per-roll means gives the error of the weighted mean
    se = float(pts.std(ddof=1) / np.sqrt(len(pts))) if len(pts) > 1 else float("nan")
    return float(pts.mean()), se, counts
