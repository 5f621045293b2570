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

from typing import Any, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

from analyzer.core.layout import (
    MOVER_BAR,
    MOVER_CAN_HIT,
    MOVER_RES,
    NSLOTS,
    OPP_BAR,
    OPP_CAN_HIT,
    OPP_RES,
    PIN0,
    VAR_DUTCH,
    VAR_MAHBUSA,
)
from analyzer.core.position import Position
from analyzer.eval import jitcache
from analyzer.eval.variants import features as V
from analyzer.eval.variants.model import (
    NMAX,
    RaceContext,
    VariantNet,
    choose,
    race_context,
    scratch,
    variant_code_name,
)
from analyzer.rules import find_variant
from analyzer.rules.kernel import Workspace, flip_into, generate

MAX_PLIES = 1200
POINTS_OF = np.array([1, 2, -1, -2, 0], np.int64)

jitcache.refresh_module(__file__, ("eval/variants/features.py", "eval/variants/model.py"))


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
    x, xr, hid, p6, tmp, pa, pb, _ = scratch(max(W[0].shape[1], S[8].shape[1]))
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


PLAYER_NET = 0
PLAYER_HEURISTIC = 1
PLAYER_RANDOM = 2

# The weights of analyzer.eval.heuristic (the yardstick), repeated for the compiled port below.
H_PIP, H_BLOT, H_BLOT_LOSS, H_HOME_POINT, H_PRIME = 1.0, 2.0, 0.3, 2.0, 1.5
H_PIN, H_PIN_DIST, H_MOTHER, H_RESERVE, H_UNLOCK, H_WIN = 4.0, 0.5, 30.0, 1.0, 5.0, 1000.0


@njit(cache=True)
def heuristic_score(a: np.ndarray, variant: int) -> float:
    """:func:`analyzer.eval.heuristic.score_results` of one result board (Dutch or Mahbusa),
    compiled: the same terms and weights (tests check the two agree)."""
    o = V.outcome_of(a)
    if o >= 0:
        return float(H_WIN * POINTS_OF[o])
    own_all = np.zeros(25, np.int64)
    opp_all = np.zeros(25, np.int64)
    opp_free = np.zeros(25, np.int64)
    own_pips = 25 * (int(a[MOVER_BAR]) + int(a[MOVER_RES]))
    opp_pips = 25 * (int(a[OPP_BAR]) + int(a[OPP_RES]))
    own_high = 0
    opp_low = 25
    for p in range(1, 25):
        v = int(a[p])
        pin = int(a[PIN0 + p])
        own_all[p] = (v if v > 0 else 0) + (1 if pin == -1 else 0)
        opp_free[p] = -v if v < 0 else 0
        opp_all[p] = opp_free[p] + (1 if pin == 1 else 0)
        own_pips += p * own_all[p]
        opp_pips += (25 - p) * opp_all[p]
        if own_all[p] > 0:
            own_high = p
        if opp_all[p] > 0 and p < opp_low:
            opp_low = p
    if int(a[MOVER_BAR]) + int(a[MOVER_RES]) > 0:
        own_high = 25
    enters = int(a[OPP_BAR]) + int(a[OPP_RES]) > 0
    if enters:
        opp_low = 0
    score = H_PIP * (opp_pips - own_pips)
    mahbusa = variant == VAR_MAHBUSA
    can_hit = variant != VAR_DUTCH or a[OPP_CAN_HIT] > 0
    best = 0
    run = 0
    home = 0
    mother_exposed = False
    for p in range(1, 25):
        v = int(a[p])
        pin = int(a[PIN0 + p])
        shooter = enters and p <= 6
        for d in range(1, 7):
            if p - d >= 1 and opp_free[p - d] > 0:
                shooter = True
        if v == 1 and pin != 1 and shooter and can_hit:
            score -= H_BLOT + H_BLOT_LOSS * (p if mahbusa else 25 - p)
            if p == 24:
                mother_exposed = True
        made = v >= 2 or (v >= 1 and pin == 1)
        if made:
            run += 1
            if run > best:
                best = run
            if p <= 6:
                home += 1
        else:
            run = 0
    if own_high > opp_low:
        score += H_HOME_POINT * home + H_PRIME * max(best - 1, 0)
    if mahbusa:
        for p in range(1, 25):
            pin = int(a[PIN0 + p])
            if pin == 1:
                score += H_PIN + H_PIN_DIST * (25 - p)
            elif pin == -1:
                score -= H_PIN + H_PIN_DIST * p
        if own_all[24] == 1 and a[PIN0 + 24] == 0 and mother_exposed:
            score -= H_MOTHER
        if a[PIN0 + 24] == -1:
            score -= 2 * H_MOTHER
        if a[PIN0 + 1] == 1:
            score += H_MOTHER
    elif variant == VAR_DUTCH:
        score -= H_RESERVE * a[MOVER_RES]
        if a[MOVER_CAN_HIT] > 0:
            score += H_UNLOCK
    return score


@njit(cache=True)
def pick(b: np.ndarray, d1: int, d2: int, kind: int, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
         use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple, x: np.ndarray,  # type: ignore[type-arg]
         xr: np.ndarray, hid: np.ndarray, p6: np.ndarray, tmp: np.ndarray, pa: np.ndarray, pb: np.ndarray,
         bp: np.ndarray) -> int:
    """The pool row of the play chosen by a net (0-ply), the heuristic, or a random player."""
    if kind == PLAYER_NET:
        return choose(b, d1, d2, variant, opts, W, S, use_db, dist, first, win2, ws, x, xr, hid, p6, tmp, pa,
                      pb, 0.0, bp)
    n = generate(b, d1, d2, variant, opts, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7], ws[8],
                 ws[9], ws[10], ws[11])
    if n < 0:
        return -1
    results = ws[11]
    if kind == PLAYER_RANDOM:
        return int(results[np.random.randint(0, n)])
    best = -1e30
    best_row = results[0]
    for k in range(n):
        e = heuristic_score(ws[0][results[k]], variant)
        if e > best:
            best = e
            best_row = results[k]
    return int(best_row)


@njit(cache=True)
def duel_kernel(seeds: np.ndarray, variant: int, opts: int, kind_a: int, WA: tuple, kind_b: int,  # type: ignore[type-arg]
                WB: tuple, S: tuple, use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray,  # type: ignore[type-arg]
                ws: tuple, max_plies: int, start: np.ndarray, points: np.ndarray,  # type: ignore[type-arg]
                outcomes: np.ndarray) -> None:
    """Duplicate-dice games: the rolls of pair i come from numba's generator seeded with
    ``seeds[i]``; game 2i has A opening, 2i + 1 B opening. ``points`` gets A's points and
    ``outcomes`` the outcome index from A's view (-1: the game reached ``max_plies``)."""
    x, xr, hid, p6, tmp, pa, pb, bp = scratch(max(WA[0].shape[1], WB[0].shape[1], S[8].shape[1]))
    b = np.zeros(NSLOTS, np.int8)
    dice = np.zeros((max_plies, 2), np.int64)
    swap = np.array([2, 3, 0, 1, 4])
    for i in range(seeds.shape[0]):
        np.random.seed(seeds[i])
        for t in range(max_plies):
            dice[t, 0] = np.random.randint(1, 7)
            dice[t, 1] = np.random.randint(1, 7)
        for g in range(2):
            for j in range(NSLOTS):
                b[j] = start[j]
            side = g  # 0: A to play
            res = -1
            for t in range(max_plies):
                if side == 0:
                    row = pick(b, dice[t, 0], dice[t, 1], kind_a, variant, opts, WA, S, use_db, dist, first, win2,
                               ws, x, xr, hid, p6, tmp, pa, pb, bp)
                else:
                    row = pick(b, dice[t, 0], dice[t, 1], kind_b, variant, opts, WB, S, use_db, dist, first, win2,
                               ws, x, xr, hid, p6, tmp, pa, pb, bp)
                if row < 0:
                    break
                chosen = ws[0][row]
                o = V.outcome_of(chosen)
                if o >= 0:
                    res = o if side == 0 else swap[o]
                    break
                flip_into(chosen, b)
                side = 1 - side
            outcomes[2 * i + g] = res
            points[2 * i + g] = POINTS_OF[res] if res >= 0 else 0


def _player(p: VariantNet | str, variant: str) -> tuple[int, tuple[Any, ...]]:
    if isinstance(p, VariantNet):
        if p.variant != variant:
            raise ValueError(f"a {p.variant} net cannot play {variant}")
        return PLAYER_NET, p.kernel_args()
    dummy = VariantNet.initial(variant, hidden=1).kernel_args()
    if p == "heuristic":
        return PLAYER_HEURISTIC, dummy
    if p == "random":
        return PLAYER_RANDOM, dummy
    raise ValueError(f"unknown player {p!r} (a VariantNet, 'heuristic' or 'random')")


def duel_outcomes(variant: str, a: VariantNet | str, b: VariantNet | str, pairs: int, seed: int = 1,
                  ctx: RaceContext | None = None,
                  max_plies: int = MAX_PLIES) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """:func:`duel`, with the outcome index of every game from A's view (-1 unfinished)."""
    rules = find_variant(variant)
    ka, wa = _player(a, rules.name)
    kb, wb = _player(b, rules.name)
    ctx = ctx or race_context()
    ws = Workspace(8192)
    seeds = np.random.default_rng(seed).integers(0, 2**31 - 1, size=pairs).astype(np.int64)
    pts = np.zeros(2 * pairs, np.int64)
    outs = np.zeros(2 * pairs, np.int64)
    start = np.frombuffer(rules.start().board, np.int8).copy()
    cast(Any, duel_kernel)(seeds, rules.code, rules.options, ka, wa, kb, wb, *ctx.args(), tuple(ws.args()),
                           max_plies, start, pts, outs)
    return pts, outs


def duel(variant: str, a: VariantNet | str, b: VariantNet | str, pairs: int, seed: int = 1,
         ctx: RaceContext | None = None, max_plies: int = MAX_PLIES) -> NDArray[np.int64]:
    """Duplicate-dice cubeless duel of A against B: ``2 * pairs`` games, A's points per game
    (games ``2i`` and ``2i + 1`` share one dice sequence, A opening the first). Players: a
    :class:`VariantNet` (0-ply), ``"heuristic"`` (the compiled yardstick) or ``"random"``."""
    return duel_outcomes(variant, a, b, pairs, seed, ctx, max_plies)[0]


def ppg_and_se(pts: NDArray[np.int64]) -> tuple[float, float]:
    """Mean points per game and its standard error over the duplicate pairs.

    >>> ppg_and_se(np.array([2, 0, 1, 1]))
    (1.0, 0.0)
    """
    pair = pts.reshape(-1, 2).mean(axis=1)
    n = len(pair)
    se = float(pair.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return float(pts.mean()), se


__all__ = ["GameBuffers", "choose", "duel", "duel_outcomes", "heuristic_score", "play_game", "play_seeded",
           "net_rollout", "ppg_and_se", "variant_code_name"]


@njit(cache=True)
def rollout_kernel(board: np.ndarray, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
                   use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple,  # type: ignore[type-arg]
                   seed: int, trial0: int, ntrials: int, max_plies: int, out: np.ndarray) -> None:
    """Trials ``trial0 .. trial0 + ntrials - 1`` of a cubeless rollout of ``board`` (its side on
    roll) by the 0-ply net player: ``out[i]`` gets the outcome index from the root mover's view
    (-1 if a game hit ``max_plies``). Trial t's first roll is the (t mod 36)-th ordered roll and its
    second the (t div 36 mod 36)-th (so 1,296 trials cover every pair of opening rolls once), later
    rolls come from numba's generator seeded with ``seed + t``."""
    x, xr, hid, p6, tmp, pa, pb, bp = scratch(max(W[0].shape[1], S[8].shape[1]))
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
            elif ply == 1:
                d1 = (t // 36 % 36) // 6 + 1
                d2 = t // 36 % 6 + 1
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


def net_rollout(vn: VariantNet, pos: Position, trials: int = 1296, seed: int = 1, ctx: RaceContext | None = None,
                max_plies: int = MAX_PLIES, latin: int | None = None) -> tuple[float, float, NDArray[np.int64]]:
    """Cubeless rollout of ``pos`` by a bare net's 0-ply player (no engine: the training labels and
    the consistency checks of a net): (mean points for the side on roll, its standard error, counts
    of each outcome index ``V.WIN1 .. V.DRAW``). Games that reach ``max_plies`` are dropped.

    Trial t's first two rolls are the t-th pair of :func:`rollout_kernel` (1,296 trials: every
    pair once). For shorter rollouts give ``latin`` (0..35): trial i then throws first roll
    ``i mod 36`` and second roll ``(i mod 36 + i div 36 + latin) mod 36``, so every 36 trials
    see each first and each second roll once (without it the first 36 trials would all reply
    with the same second roll); ``latin`` allows at most 1,296 trials. For any number of trials
    with unbiased pairs, of an engine, see :func:`analyzer.eval.rollout.rollout`.

    >>> from analyzer.eval.variants.model import VariantNet
    >>> vn = VariantNet.initial("mahbusa", hidden=8, seed=0)
    >>> mean, se, counts = net_rollout(vn, Position.start("mahbusa"), trials=36)
    >>> int(counts.sum()) <= 36 and -2.0 <= mean <= 2.0
    True
    """
    if latin is not None and trials > 1296:
        raise ValueError("latin stratifies at most 1,296 trials (more would repeat games)")
    ctx = ctx or race_context()
    ws = Workspace(8192)
    out = np.full(trials, -1, np.int64)
    board = np.frombuffer(pos.board, np.int8).copy()
    args = (board, vn.code, find_variant(vn.variant).options, vn.kernel_args(), *ctx.args(), tuple(ws.args()), seed)
    if latin is None:
        cast(Any, rollout_kernel)(*args, 0, trials, max_plies, out)
    else:
        one = np.zeros(1, np.int64)
        for i in range(trials):
            first = i % 36
            cast(Any, rollout_kernel)(*args, first + 36 * ((first + i // 36 + latin) % 36), 1, max_plies, one)
            out[i] = one[0]
    done = out[out >= 0]
    counts = np.bincount(done, minlength=5)[:5].astype(np.int64)
    pts = POINTS_OF[done].astype(np.float64)
    if len(pts) == 0:
        return float("nan"), float("nan"), counts
    # stratified by the first two rolls: the plain standard error slightly overstates the true one
    se = float(pts.std(ddof=1) / np.sqrt(len(pts))) if len(pts) > 1 else float("nan")
    return float(pts.mean()), se, counts

