"""Rollouts of Dutch backgammon and Mahbusa positions: a position before its roll, or every
candidate play of a roll, played out to the end by the engine's 0-ply player.

Called through the one entry point :func:`analyzer.eval.rollout.rollout`, which hands an engine
without a cube (``cubeful`` false: :class:`~analyzer.eval.variants.engine.VariantEngine`) here.

The variants have no cube, so a rollout is cubeless and its equity is expected points of one
game (single 1, mars or mother win 2, the Mahbusa double-mother draw 0), for the side on roll in
the given position (the side that plays the candidates when dice are given).

Dice: the first two rolls of the trials are those of the standard rollouts
(:func:`analyzer.eval.trials.trial_dice`: seeded random Latin squares, so every 36 trials see each
first roll once, every 1,296 trials each pair of first two rolls once, and any number of trials is
an unbiased sample); later rolls come from a generator seeded by ``seed``, the pair and the block
of 1,296 trials. Every candidate is played with the same dice in the same trial (common random numbers), so
the differences between candidates are measured far more precisely than the equities themselves
(``diff_se``). There is no variance reduction (the luck adjustment would cost about 21 times more
work per move than it saves in trials for these nets) and no truncation: every game is played
out (a game longer than ``max_plies`` plies is dropped and counted).

>>> from analyzer.core.position import Position
>>> from analyzer.eval.trials import RolloutSettings
>>> from analyzer.eval.variants.engine import engine_for
>>> quick = RolloutSettings(trials=36, workers=1, max_plays=2)
>>> r = rollout_cubeless(engine_for("dutch"), Position.start("dutch"), quick, dice=(6, 5))
>>> [c.play is not None for c in r.candidates], r.trials
([True, True], 36)
>>> abs(r.best.probabilities.win + r.best.probabilities.lose - 1.0) < 1e-9
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from analyzer.core.ids import encode_key
from analyzer.core.position import Position
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import Evaluator
from analyzer.eval.trials import Z95, ProgressFn, RolloutSettings, close_pool, trial_dice
from analyzer.eval.variants import workers as vw
from analyzer.eval.variants.engine import SWAP
from analyzer.eval.variants.play import MAX_PLIES, POINTS_OF, rollout_kernel
from analyzer.rules import find_variant
from analyzer.rules.kernel import Workspace

__all__ = ["MAX_TRIALS", "VariantRolloutCandidate", "VariantRolloutResult"]

MAX_TRIALS = 10_000_000
_ROUND = 324  # trials per round when stopping at a target standard error (9 x 36)
_SWAP = np.array(SWAP, np.int64)  # an outcome index seen from the other side


@dataclass(frozen=True, slots=True)
class VariantRolloutCandidate:
    """The rollout of one start: a play's result (``play`` its text) or the position itself
    (``play`` None), valued for the side on roll in the rolled-out position.

    ``probabilities`` are the outcome frequencies (``win_gammon``/``lose_gammon`` the 2-point
    results: mars, mother win), ``probabilities_se`` the standard errors of (win, win_gammon,
    lose_gammon, draw); ``equity`` the mean points with ``equity_se`` and the 95% interval ``equity_ci``;
    ``diff``/``diff_se`` the difference from the best candidate and its standard error over the
    same dice (0 for the best); ``games`` the games counted (``dropped`` reached ``max_plies``).
    """

    play: str | None
    result: Position
    probabilities: Probabilities
    probabilities_se: tuple[float, float, float, float]
    equity: float
    equity_se: float
    equity_ci: tuple[float, float]
    diff: float
    diff_se: float
    games: int
    dropped: int

    @property
    def value(self) -> float:
        """The value a review ranks it by: its mean points (the variants have no cube)."""
        return self.equity

    @property
    def paired_se(self) -> tuple[float, ...]:
        """No paired standard errors against each other candidate (``diff_se`` is against the best)."""
        return ()

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        p = self.probabilities
        return {"play": self.play, "position": encode_key(self.result), "win": p.win, "win_gammon": p.win_gammon,
                "lose": p.lose, "lose_gammon": p.lose_gammon, "draw": p.draw,
                **{f"{n}_se": v for n, v in zip(("win", "win_gammon", "lose_gammon", "draw"), self.probabilities_se,
                                                 strict=True)},
                "equity": self.equity, "equity_se": self.equity_se, "equity_ci": list(self.equity_ci),
                "diff": self.diff, "diff_se": self.diff_se, "games": self.games, "dropped": self.dropped}


@dataclass(frozen=True, slots=True)
class VariantRolloutResult:
    """What the rollout of a variant engine (:func:`analyzer.eval.rollout.rollout`) returns:
    ``candidates`` best first (one entry, the position, without dice), the trials played (fewer
    than asked when ``stopped_early`` at ``target_se``), the seed and the fingerprint of the net
    that played."""

    variant: str
    position: Position
    dice: tuple[int, int] | None
    candidates: tuple[VariantRolloutCandidate, ...]
    trials: int
    trials_requested: int
    stopped_early: bool
    seed: int
    target_se: float | None
    net: str

    @property
    def best(self) -> VariantRolloutCandidate:
        return self.candidates[0]

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON (``cube`` is None: the variants have no cube)."""
        return {"variant": self.variant, "position": encode_key(self.position),
                "dice": None if self.dice is None else list(self.dice), "trials": self.trials,
                "trials_requested": self.trials_requested, "stopped_early": self.stopped_early,
                "seed": self.seed, "target_se": self.target_se, "net": self.net, "cubeless": True,
                "variance_reduction": False, "truncate": None, "race_stop": False, "cube": None,
                "candidates": [c.as_dict() for c in self.candidates]}


# ------------------------------------------------------------------------------ trials
# The trials run with this process's engine arrays and buffers (:mod:`analyzer.eval.variants.workers`).
_Task = tuple[NDArray[np.int8], int, int, int, int, int]
"""Trials ``lo .. hi - 1`` of one start: (board, seed, base seed of the kernel, max_plies, lo, hi)."""


def _kernel_args(board: NDArray[np.int8], base: int, t: int, max_plies: int,
                 one: NDArray[np.int64]) -> tuple[Any, ...]:
    """The arguments of :func:`~analyzer.eval.variants.play.rollout_kernel` for trial ``t`` of
    ``board`` (one trial, its outcome into ``one``), with this process's engine arrays."""
    job = vw.STATE
    ws: Workspace = job["ws"]
    return (board, job["code"], job["opts"], job["W"], *job["ctx"], tuple(ws.args()), base, t, 1, max_plies, one)


def _compile_for_workers(board: NDArray[np.int8], max_plies: int) -> None:
    """Compile (or load from numba's cache) the rollout kernel here, for the argument types the
    workers give it, before they are forked: each inherits it instead of loading it again."""
    kernel = cast(Any, rollout_kernel)
    if not hasattr(kernel, "compile"):  # NUMBA_DISABLE_JIT: a plain function, nothing to compile
        return
    from numba import typeof

    args = _kernel_args(board, 0, 0, max_plies, np.zeros(1, np.int64))
    kernel.compile(tuple(cast(Any, typeof)(a) for a in args))


def _run(task: _Task) -> NDArray[np.int64]:
    """Outcome indices (mover's view of the start, -1 dropped) of trials ``lo .. hi - 1`` of the
    task's start, with this process's engine."""
    board, seed, base, max_plies, lo, hi = task
    out = np.full(hi - lo, -1, np.int64)
    one = np.zeros(1, np.int64)
    r1, r2, _ = trial_dice(seed, lo, hi - lo)
    for k in range(hi - lo):
        t = int(r1[k] + 36 * r2[k])  # the kernel's trial index: its first two rolls
        cast(Any, rollout_kernel)(*_kernel_args(board, base + 1296 * ((lo + k) // 1296), t, max_plies, one))
        out[k] = one[0]
    return out


def _stats(outs: NDArray[np.int64]) -> tuple[Probabilities, tuple[float, float, float, float], float, float,
                                              NDArray[np.float64], int]:
    """Frequencies, their SEs, mean points, its SE, the per-trial points (NaN for dropped
    games) and the number of games counted, from outcome indices of the reference side."""
    ok = outs >= 0
    n = int(ok.sum())
    pts = np.full(outs.shape[0], np.nan)
    pts[ok] = POINTS_OF[outs[ok]]
    if n == 0:
        nan = float("nan")
        return Probabilities(nan, nan, 0.0, nan, 0.0, 0.0), (nan, nan, nan, nan), nan, nan, pts, 0
    o = outs[ok]
    freq = np.bincount(o, minlength=5)[:5] / n
    ind = [np.isin(o, [0, 1]), o == 1, o == 3, o == 4]
    ses = tuple(float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0 for x in ind)
    probs = Probabilities(float(freq[0] + freq[1]), float(freq[1]), 0.0, float(freq[3]), 0.0, float(freq[4]))
    v = pts[ok]
    se = float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    return probs, cast(tuple[float, float, float, float], ses), float(v.mean()), se, pts, n


def rollout_cubeless(engine: Evaluator, pos: Position, settings: RolloutSettings, *,
                     dice: tuple[int, int] | None = None,
                     plays: Sequence[str] | Sequence[tuple[str, Position]] | None = None,
                     progress: ProgressFn | None = None) -> VariantRolloutResult:
    """Roll ``pos`` (a Dutch or Mahbusa position, its side on roll) out with the net of ``engine``
    (an engine without a cube: its ``rollout_args`` are the played-out kernel's arguments):
    before the roll without ``dice``; with ``dice``, the plays the 0-ply pass ranks best (at most
    ``settings.max_plays``, within ``settings.threshold`` points of the best) after that roll, or
    exactly the ``plays`` given: their texts, or (text, resulting position seen from the mover),
    e.g. an analysis's candidates and the played play.

    ``settings.target_se`` stops, after a multiple of 324 trials, once every candidate's equity
    standard error is below it. ``settings.workers`` > 1 plays the trials in that many processes
    (same results as one), kept for the next rollout of the same engine (a review's confirmation
    rolls out many: :func:`~analyzer.eval.trials.worker_pool`); ``settings.max_plies`` (default
    :data:`MAX_PLIES`) drops longer games.
    ``progress(done, trials)`` is called after each round. The settings of the standard rollouts
    (truncation, variance reduction, the cube) do not apply. Raises :class:`ValueError` for a
    standard position, a finished game, dice that are not a roll, or trials outside
    1..:data:`MAX_TRIALS`.

    >>> from analyzer.eval.variants.engine import engine_for
    >>> s = RolloutSettings(trials=72, seed=3, workers=1)
    >>> r = rollout_cubeless(engine_for("mahbusa"), Position.start("mahbusa"), s)
    >>> r.best.play is None and r.best.games == 72 and r.dice is None
    True
    >>> r.as_dict()["cube"] is None
    True
    """
    trials, seed, workers, target_se = settings.trials, settings.seed, settings.workers, settings.target_se
    max_plays, threshold = settings.max_plays, settings.threshold
    max_plies = MAX_PLIES if settings.max_plies is None else settings.max_plies
    if pos.variant != engine.variant:
        raise ValueError(f"the {engine.variant} rollout was given a {pos.variant} position")
    if not 1 <= trials <= MAX_TRIALS:
        raise ValueError(f"trials must be 1..{MAX_TRIALS}")
    if target_se is not None and not target_se > 0:
        raise ValueError("target_se must be > 0")
    if max_plays < 1:
        raise ValueError("max_plays must be >= 1")
    rules = find_variant(engine.variant)
    if rules.outcome(pos) is not None:
        raise ValueError("the game is over: nothing to roll out")
    names: list[str | None]
    if dice is None:
        names, results = [None], [pos]
    else:
        if not all(1 <= d <= 6 for d in dice) or len(dice) != 2:
            raise ValueError(f"dice must be two numbers 1..6, got {dice}")
        if plays is None:
            ranked = engine.rank_plays(pos, dice, 0)
            best = ranked[0].equity
            chosen = [(r.play, r.result) for r in ranked[:max_plays] if r.equity >= best - threshold]
        else:
            legal_plays = rules.legal_plays(pos, dice)
            legal = {p.result for p in legal_plays}
            first: dict[Position, tuple[str, Position]] = {}
            for text, result in _named(plays, legal_plays, dice):
                first.setdefault(result, (text, result))  # one per result, its first name
            chosen = list(first.values())
            for text, result in chosen:
                if result not in legal:
                    raise ValueError(f"{text!r} is not a legal play of {dice[0]}{dice[1]}")
            if not chosen:
                raise ValueError("no plays to roll out")
        names = [text for text, _ in chosen]
        results = [result for _, result in chosen]
    flipped = dice is not None  # after a play the opponent is on roll: the trials start from its side
    starts = [r.flip() for r in results] if flipped else results
    boards = np.stack([np.frombuffer(s.board, np.int8).copy() for s in starts])
    code, options, weights, ctx, net = engine.rollout_args()
    engine_args = (code, options, weights, ctx)
    key = vw.engine_key(engine_args)
    base = (seed * 1_000_003) % (2**31)
    outs = [np.zeros(0, np.int64) for _ in starts]
    played = 0
    stopped = False
    vw.init_worker(engine_args, key)  # here: the trials of a lone process, or what the forked workers inherit
    pool: ProcessPoolExecutor | None = None
    if workers > 1 and trials * len(starts) >= 72:  # the workers kept from the last rollout of this engine
        pool = vw.pool(workers, engine_args, key, prepare=lambda: _compile_for_workers(boards[0], max_plies))
    try:
        while played < trials:
            step = trials - played if target_se is None else min(_ROUND, trials - played)
            parts = _tasks(len(starts), played, played + step, workers if pool is not None else 1)
            tasks = [(boards[j], seed, base, max_plies, lo, hi) for j, lo, hi in parts]
            chunks = list(pool.map(_run, tasks)) if pool is not None else [_run(t) for t in tasks]
            for (j, _, _), res in zip(parts, chunks, strict=True):
                outs[j] = np.concatenate([outs[j], _reference(res, flipped)])
            played += step
            if progress is not None:
                progress(played, trials)
            if target_se is not None and played < trials:
                ses = [_stats(o)[3] for o in outs]
                if all(s < target_se for s in ses):
                    stopped = True
                    break
    except BaseException:
        if pool is not None:  # interrupted or a worker lost: the workers go with the tasks queued
            close_pool()
        raise
    stats = [_stats(o) for o in outs]
    order = sorted(range(len(stats)), key=lambda j: -stats[j][2] if not math.isnan(stats[j][2]) else math.inf)
    best_pts = stats[order[0]][4]
    cands = []
    for j in order:
        probs, pses, eq, se, pts, n = stats[j]
        both = ~np.isnan(pts) & ~np.isnan(best_pts)
        d = pts[both] - best_pts[both]
        diff = float(d.mean()) if len(d) else float("nan")
        dse = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0
        cands.append(VariantRolloutCandidate(names[j], results[j], probs, pses,
                                             eq, se, (eq - Z95 * se, eq + Z95 * se), diff, dse, n,
                                             int(len(pts) - n)))
    return VariantRolloutResult(engine.variant, pos, dice, tuple(cands), played, trials, stopped, seed, target_se,
                                net)


def _named(plays: Sequence[str] | Sequence[tuple[str, Position]], legal: Sequence[Any],
           dice: tuple[int, int]) -> list[tuple[str, Position]]:
    """Named plays as (text, result) pairs: a text is looked up among the ``legal`` plays (spaces
    ignored). Raises :class:`ValueError` for a text that is no legal play of ``dice``."""
    by_text = {p.text.replace(" ", ""): p.result for p in legal}
    out: list[tuple[str, Position]] = []
    for p in plays:
        if isinstance(p, str):
            result = by_text.get(p.replace(" ", ""))
            if result is None:
                raise ValueError(f"{p!r} is not a legal play of {dice[0]}{dice[1]}")
            out.append((p, result))
        else:
            out.append(p)
    return out


def _reference(outs: NDArray[np.int64], flipped: bool) -> NDArray[np.int64]:
    """Outcome indices seen from the reference side (the side that played the candidate)."""
    if not flipped:
        return outs
    res = outs.copy()
    ok = outs >= 0
    res[ok] = _SWAP[outs[ok]]
    return res


def _tasks(starts: int, lo: int, hi: int, parts: int) -> list[tuple[int, int, int]]:
    """Split trials ``lo .. hi - 1`` of every start into about ``parts`` chunks each."""
    size = max(1, math.ceil((hi - lo) / parts))
    return [(j, a, min(a + size, hi)) for j in range(starts) for a in range(lo, hi, size)]
