"""Rollouts: play a position out many times at 0-ply and average the results.

:func:`rollout` is the one entry point, for any engine (:class:`analyzer.eval.protocol.Evaluator`),
asked with a :class:`~analyzer.eval.trials.RolloutSettings`: the standard engine's rollouts are
below; Dutch and Mahbusa engines (no cube, no variance reduction, every game played out) are
rolled out by :mod:`analyzer.eval.variants.rollout`.

A rollout plays ``trials`` games from a position *before the roll* (``dice=None``) or, with
``dice``, from the result of each candidate play of that roll (every candidate gets the *same*
dice sequences, so their differences are measured with far less noise than their values).
Each play is the best 0-ply play (with ``player_ply`` 1, the best of a 1-ply search); games stop
at the end, at a bear-off database position, after ``truncate`` plies (then the 0-ply evaluation)
or, with ``race_stop``, where a game that began with contact has become a race (then the race net's
0-ply evaluation and, for cube games, the cube model's value there). See
:mod:`analyzer.eval._rollout_kernel`.

* **Variance reduction** (on by default): the luck of every roll (the 0-ply value after the best
  play of the roll thrown minus the mean over all 21 rolls) is subtracted from each trial, per
  outcome -- gnubg's scheme. It costs about 21 times the move generation per ply but shrinks the
  standard error several times over.
  With ``luck_prune`` the 21 rolls are played by the pruned 0-ply search for the luck only
  (about three times cheaper, still unbiased; see :func:`rollout`).
* **Quasi-random dice**: the first roll of the rollout is stratified over every 36 trials and the
  first two rolls over every 1,296 (each pair once); later rolls come from a generator seeded by
  (``seed``, trial index) (:func:`~analyzer.eval.trials.trial_dice`). A trial therefore depends on
  ``seed`` and its index only, and results are combined in trial order: the same ``seed`` gives the
  same result bit for bit, with any number of ``workers`` (each keeps an evaluation cache of exact
  values: it saves work, never changes a number).
* **Cubeful values**: the cubeless means converted with the cube model of
  :mod:`analyzer.eval.cube` (Janowski's cube life; match play through the MET); or, with
  ``cube_play``, cube games played inside the rollout: both sides double, take and pass by the
  same cube model on their 0-ply evaluations (No double and Double/take of a position before the
  roll are rolled out side by side with the same dice). A trial ends once all its cube games have
  ended by a pass, as gnubg's cubeful trials do; its cubeless result is then the 0-ply evaluation
  of that board, as at a truncation (the cube games' values do not depend on it, and the cubeless
  mean stays unbiased to the net's accuracy). In money play the results are points per
  unit cube; in match play each trial ends with a match-winning chance (cube decisions on the MET,
  no cube in the Crawford game, dead cubes and the cube limit respected), and the mean MWC is
  given as EMG for the side on roll.
* ``target_se``: stop early, after at least ``min_trials``, once the standard error of the
  cubeless equity is below it (checked every :data:`ROUND` trials).

>>> from analyzer.core.position import Position
>>> from analyzer.eval.engine import Engine
>>> r = rollout(Engine(), Position.from_points({1: 2}, {22: 1, 23: 1}), RolloutSettings(trials=72, workers=1))
>>> r.trials, r.probabilities.win == 1.0, r.equity_se
(72, True, 0.0)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any, cast, overload

import numpy as np
from numpy.typing import NDArray

from analyzer.core.ids import encode_position_id
from analyzer.core.match import MatchState, can_double
from analyzer.core.position import Position
from analyzer.eval import _rollout_kernel as K
from analyzer.eval.cube import (
    CubeDecision,
    cube_decision,
    cube_life_of,
    cube_tables,
    cubeful_value,
)
from analyzer.eval.engine import Engine, bearoff_arrays
from analyzer.eval.met import MatchEquityTable, met_by_name, mwc_to_emg
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import PLAY_FILTER, Evaluator
from analyzer.eval.trials import Z95, ProgressFn, RolloutSettings, close_pool, pool_context, trial_dice, worker_pool
from analyzer.eval.variants.engine import VariantEngine
from analyzer.eval.variants.rollout import VariantRolloutResult, rollout_cubeless
from analyzer.rules.kernel import Workspace

__all__ = ["CACHE_BITS", "CHUNK", "DEFAULT_SETTINGS", "EARLY_CACHE_BITS", "ROUND", "Z95", "ProgressFn",
           "RolloutCandidate", "RolloutResult", "RolloutSettings", "VariantRolloutResult", "close_pool", "played_cube",
           "pool_context", "rollout", "rollout_cube", "rollout_cubeful", "rollout_cubeless", "trial_dice"]

ROUND = 324
"""Trials per round: the early-stop test and the progress callback run between rounds."""
CHUNK = 18
"""Trials per task sent to a worker process (a round is 18 tasks: none left to one worker at its end)."""
CACHE_BITS = 12
"""Each worker's evaluation cache of the later plies holds ``2 ** CACHE_BITS`` play results (small: their
plays repeat only within a ply, :func:`analyzer.eval._rollout_kernel.new_cache`)."""
EARLY_CACHE_BITS = 17
"""Each worker's cache of the first plies' play results, which recur from trial to trial: ``2 ** EARLY_CACHE_BITS``
slots (about 12 MB at 17)."""
_OUTCOME_POINTS = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True, slots=True)
class RolloutCandidate:
    """The rollout of one start: a play's result (``play`` its text) or the position itself
    (``play`` None). Values are for the *reference* side: the side on roll in the rolled-out
    position (who made ``play`` when dice were given).

    ``probabilities`` are the mean cubeless chances, ``probabilities_se`` the standard errors of
    (win, win gammon, win backgammon, lose gammon, lose backgammon); ``equity`` the mean cubeless
    equity with ``equity_se`` and the 95% interval ``equity_ci``. ``cubeful_equity`` is the
    cube model's value of the means (money: per unit cube; match: EMG), not doubling now;
    ``None`` for cubeless rollouts; with cube play in the rollout it is the mean result of the
    cube games, ``cubeful_se`` its standard error. ``mean_plies`` is the average game length played.
    """

    play: str | None
    result: Position
    probabilities: Probabilities
    probabilities_se: tuple[float, float, float, float, float]
    equity: float
    equity_se: float
    equity_ci: tuple[float, float]
    cubeful_equity: float | None
    mean_plies: float
    cubeful_se: float | None = None
    paired_se: tuple[float, ...] = ()
    """With dice: the standard error of this candidate's equity minus each candidate's (in the
    result's order), from the trials' differences: every candidate plays the same dice, so a
    difference is measured with far less noise than ``hypot`` of the two ``equity_se``."""

    @property
    def value(self) -> float:
        """The value a review ranks it by: ``cubeful_equity``, or ``equity`` when the rollout was
        cubeless."""
        return self.cubeful_equity if self.cubeful_equity is not None else self.equity

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        d: dict[str, Any] = {"play": self.play, "position_id": encode_position_id(self.result)}
        d.update(self.probabilities.as_dict())
        names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
        d.update({f"{n}_se": v for n, v in zip(names, self.probabilities_se, strict=True)})
        d.update({"equity_se": self.equity_se, "equity_ci": list(self.equity_ci),
                  "cubeful_equity": self.cubeful_equity, "cubeful_se": self.cubeful_se,
                  "mean_plies": self.mean_plies})
        return d


@dataclass(frozen=True, slots=True)
class RolloutResult:
    """What :func:`rollout` returns.

    ``candidates`` holds one entry without dice (the position) or one per rolled-out play, best
    first (by cubeful equity when cubeful, else cubeless). ``cube`` is the cube decision from the
    rolled-out probabilities (dice ``None`` and cubeful only). ``trials`` is the number played
    (fewer than asked when ``stopped_early``).
    """

    position: Position
    dice: tuple[int, int] | None
    candidates: tuple[RolloutCandidate, ...]
    cube: CubeDecision | None
    trials: int
    trials_requested: int
    stopped_early: bool
    seed: int
    truncate: int | None
    variance_reduction: bool
    cubeful: bool
    cube_se: tuple[float, ...] | None = None
    """With cube play and no dice: the standard errors of the cube games' No double (and, when the
    cube could be turned, Double/take) means, in ``cube``'s units (money: per unit cube; match: EMG);
    with ``take_only``, of the Double/take mean alone (``cube.dt``; ``cube.nd`` is then the model's)."""
    cube_diff_se: float | None = None
    """With both cube games: the standard error of Double/take minus No double from the paired trials
    (both games are played on the same dice, so it is far smaller than the two errors together)."""
    race_stop: bool = False
    """Whether games that became races stopped there (:class:`~analyzer.eval.trials.RolloutSettings`)."""

    @property
    def best(self) -> RolloutCandidate:
        return self.candidates[0]

    @property
    def probabilities(self) -> Probabilities:
        """Mean probabilities of the best (or only) candidate."""
        return self.best.probabilities

    @property
    def equity(self) -> float:
        return self.best.equity

    @property
    def equity_se(self) -> float:
        return self.best.equity_se

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        d: dict[str, Any] = {
            "position_id": encode_position_id(self.position), "dice": None if self.dice is None else list(self.dice),
            "trials": self.trials, "trials_requested": self.trials_requested,
            "stopped_early": self.stopped_early, "seed": self.seed, "truncate": self.truncate,
            "race_stop": self.race_stop, "variance_reduction": self.variance_reduction, "cubeful": self.cubeful,
            "candidates": [c.as_dict() for c in self.candidates],
        }
        if self.cube is not None:
            c = self.cube
            d["cube"] = {"nd": c.nd, "dt": c.dt, "dp": c.dp, "action": c.action,
                         "take_point": c.take_point, "cube_life": c.cube_life}
        return d


# ------------------------------------------------------------------------------ workers
# Each process's evaluator, move buffers and evaluation cache (the worker processes, kept from one
# rollout to the next, are :func:`analyzer.eval.trials.worker_pool`'s).
_STATE: dict[str, Any] = {}


def _evaluator_key(W: tuple[NDArray[np.float32], ...], use_db: bool,
                   P: tuple[NDArray[np.float32], ...] | None) -> str:
    """A digest of the evaluator the kernels get (weights, bear-off databases on or off, pruning
    net): workers made for one never serve another (the weights may have changed in place)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(b"db" if use_db else b"--")
    for a in (*W, *(P if P is not None else ())):
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _init_worker(W: tuple[NDArray[np.float32], ...], use_db: bool,
                 P: tuple[NDArray[np.float32], ...] | None = None, key: str = "") -> None:
    # the kernels' evaluator (Engine.evaluator_args) without pruning in the plays made; the
    # pruning net ``P`` only serves the luck of ``luck_prune`` (without one, the contact net's
    # four arrays, of the pruning net's types, fill its slot). A process keeps its buffers and
    # cache while the evaluator stays the same: the cache holds exact values, so what it holds
    # from earlier rollouts saves work and never changes a number.
    if key and _STATE.get("key") == key:
        return
    _STATE.update(ev=_kernel_evaluator(W, use_db, P), ws=Workspace(8192),
                  cache=K.new_cache(CACHE_BITS, EARLY_CACHE_BITS), key=key)


def _kernel_evaluator(W: tuple[NDArray[np.float32], ...], use_db: bool,
                      P: tuple[NDArray[np.float32], ...] | None) -> tuple[Any, ...]:
    """The evaluator the rollout kernel gets (see :func:`_init_worker`)."""
    return (W, use_db, *bearoff_arrays(use_db), W[:4] if P is None else P, False)


def _compile_for_workers(task: _Task, W: tuple[NDArray[np.float32], ...], use_db: bool,
                         P: tuple[NDArray[np.float32], ...] | None) -> None:
    """Compile the rollout kernel here, for the argument types the workers give it, before they are
    forked: each then inherits the machine code (or what numba loaded from its cache) instead of
    compiling it again at its first task, and only one process writes those functions to numba's
    cache. A first run on two cores spends about 25 CPU-seconds less (the two workers compiled the
    same 22 functions at once). Stand-in buffers of the same types serve: only the types count.
    """
    run = K.run_trials
    if not hasattr(run, "compile"):  # NUMBA_DISABLE_JIT: a plain function, nothing to compile
        return
    from numba import typeof

    args = _kernel_call(task, _kernel_evaluator(W, use_db, P), Workspace(1), K.new_cache(1, 1))
    run.compile(tuple(cast(Any, typeof)(a) for a in args))


def _worker_pool(workers: int, W: tuple[NDArray[np.float32], ...], use_db: bool,
                 P: tuple[NDArray[np.float32], ...] | None, key: str, task: _Task) -> ProcessPoolExecutor:
    """The rollout worker processes for this evaluator (:func:`~analyzer.eval.trials.worker_pool`):
    those of the last rollout when it had the same evaluator and number of workers (starting
    processes costs about 80 ms a rollout), else new ones, started once the kernel is compiled here
    for ``task``'s types (:func:`_compile_for_workers`)."""
    return worker_pool(workers, ("standard", key), _init_worker, (W, use_db, P, key),
                       prepare=lambda: _compile_for_workers(task, W, use_db, P))


_Task = tuple[NDArray[np.int8], int, int, int, int, int, bool, bool, bool, NDArray[np.float64], NDArray[np.int64],
              bool, "_MatchCube", bool, "_Player"]
_MatchCube = tuple[bool, NDArray[np.float64], NDArray[np.bool_], bool, int]
"""Match cube play for the kernel: (match, value tables, cube access, Crawford game, highest cube level)."""
_Player = tuple[int, int, float, bool]
"""The player of the games for the kernel: (ply, move filter count, its threshold, replies pruned)."""


def _kernel_call(task: _Task, ev: tuple[Any, ...], ws: Workspace, cache: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arguments of :func:`analyzer.eval._rollout_kernel.run_trials` for ``task``, its results'
    arrays (zeros) the last three."""
    starts, side0, seed, first, count, truncate, race_stop, vr, cube_play, cubes, owners, double_first, mc, \
        luck_prune, play_by = task
    r1, r2, seeds = trial_dice(seed, first, count)
    out = np.zeros((count, starts.shape[0], 6), np.float64)
    plies = np.zeros((count, starts.shape[0]), np.int64)
    cf = np.zeros((count, starts.shape[0]), np.float64)
    return (starts, side0, r1, r2, seeds, truncate, race_stop, vr, cube_play, cubes, owners, double_first, *mc, ev,
            ws.args(),
            cache, luck_prune, *play_by, out, plies, cf)


def _run_chunk(task: _Task) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]]:
    ws: Workspace = _STATE["ws"]
    args = list(_kernel_call(task, _STATE["ev"], ws, _STATE["cache"]))
    at = len(args) - 10  # where ws.args() goes (then the cache, luck_prune, the player's four, three results)
    while True:
        rc = cast(Any, K.run_trials)(*args)
        if rc >= 0:
            return args[-3], args[-2], args[-1]
        ws.resize(ws.capacity * 4)
        _STATE["ws"] = ws
        args[at] = ws.args()


# ------------------------------------------------------------------------------ statistics
def _summaries(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-candidate means and standard errors of (5 probabilities, equity) from trial results
    ``x`` (n x k x 6)."""
    n, k = x.shape[0], x.shape[1]
    mean = np.zeros((k, 6))
    se = np.zeros((k, 6))
    for j in range(k):  # one candidate at a time: its numbers never depend on the others
        c = np.ascontiguousarray(x[:, j, :])
        five = (c[:, 0] + c[:, 1] + c[:, 2], c[:, 1] + c[:, 2], c[:, 2], c[:, 4] + c[:, 5], c[:, 5],
                c @ _OUTCOME_POINTS)
        for i, v in enumerate(five):
            v = np.ascontiguousarray(v)
            mean[j, i] = v.mean()
            se[j, i] = v.std(ddof=1) / math.sqrt(n) if n > 1 else 0.0
    return mean, se


def _paired_se(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Standard error of ``mean(a) - mean(b)`` from paired trials (0 for a lone trial).

    >>> round(_paired_se(np.array([1.0, 2.0, 3.0]), np.array([0.5, 1.5, 2.5])), 9)
    0.0
    """
    n = a.shape[0]
    return float(np.ascontiguousarray(a - b).std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0


def _probabilities(m: NDArray[np.float64]) -> Probabilities:
    return Probabilities(float(m[0]), float(m[1]), float(m[2]), float(m[3]), float(m[4]))


# ------------------------------------------------------------------------------ API
DEFAULT_SETTINGS = RolloutSettings()
"""The settings of a rollout asked for without any: 1,296 trials played out, variance reduction, cubeful."""
_Plays = Sequence[str] | Sequence[tuple[str, Position]]
"""Plays named for a rollout: their texts, or (text, resulting position seen from the mover) pairs."""


@overload
def rollout(engine: Engine, pos: Position, settings: RolloutSettings = ..., *, dice: tuple[int, int] | None = ...,
            plays: _Plays | None = ..., match: MatchState | None = ..., player: int = ...,
            met: MatchEquityTable | None = ..., progress: ProgressFn | None = ...) -> RolloutResult: ...


@overload
def rollout(engine: VariantEngine, pos: Position, settings: RolloutSettings = ..., *,
            dice: tuple[int, int] | None = ..., plays: _Plays | None = ..., match: MatchState | None = ...,
            player: int = ..., met: MatchEquityTable | None = ...,
            progress: ProgressFn | None = ...) -> VariantRolloutResult: ...


@overload
def rollout(engine: Evaluator, pos: Position, settings: RolloutSettings = ..., *,
            dice: tuple[int, int] | None = ..., plays: _Plays | None = ..., match: MatchState | None = ...,
            player: int = ..., met: MatchEquityTable | None = ...,
            progress: ProgressFn | None = ...) -> RolloutResult | VariantRolloutResult: ...


def rollout(engine: Evaluator, pos: Position, settings: RolloutSettings = DEFAULT_SETTINGS, *,
            dice: tuple[int, int] | None = None, plays: _Plays | None = None, match: MatchState | None = None,
            player: int = 0, met: MatchEquityTable | None = None,
            progress: ProgressFn | None = None) -> RolloutResult | VariantRolloutResult:
    """Roll ``pos`` (its side on roll) out with ``engine``'s 0-ply player, as ``settings`` say.

    Without ``dice`` the position is rolled out before its roll; with ``dice`` the candidates are
    the plays of that roll the 0-ply pass keeps (``settings.max_plays`` within
    ``settings.threshold`` of the best) or exactly the ``plays`` named. The engine's capabilities
    choose the rollout (:class:`~analyzer.eval.protocol.Evaluator`):

    * an engine with a cube (``cubeful``: the standard :class:`~analyzer.eval.engine.Engine`): a
      :class:`RolloutResult`, variance-reduced, cubeful or with the cube played as ``settings``
      ask, at ``match`` (default money, cube centred) for ``player`` (0/1), the MET ``met``;
      ``progress`` is called after every :data:`ROUND` trials;
    * an engine without a cube (:class:`~analyzer.eval.variants.engine.VariantEngine`): a
      :class:`~analyzer.eval.variants.rollout.VariantRolloutResult` in expected points, every game
      played out, no variance reduction (``settings.cubeful`` and ``variance_reduction`` do not
      apply; ``cube_play`` and ``truncate`` raise :class:`ValueError`, as do ``match`` and ``met``).

    >>> from analyzer.eval.engine import Engine
    >>> from analyzer.eval.variants.engine import engine_for
    >>> quick = RolloutSettings(trials=36, truncate=2, workers=1, max_plays=2, threshold=1.0)
    >>> r = rollout(Engine(), Position.start(), quick, dice=(3, 1))
    >>> r.candidates[0].play, len(r.candidates), r.cube is None
    ('8/5 6/5', 2, True)
    >>> v = rollout(engine_for("dutch"), Position.start("dutch"), RolloutSettings(trials=36, workers=1), dice=(6, 5))
    >>> v.variant, v.trials, v.as_dict()["cube"] is None
    ('dutch', 36, True)
    >>> rollout(engine_for("dutch"), Position.start("dutch"), quick)
    Traceback (most recent call last):
    ...
    ValueError: dutch rollouts play every game out: no truncation
    """
    if not engine.cubeful:
        if settings.cube_play:
            raise ValueError(f"{engine.variant} has no doubling cube: no cube play")
        if settings.truncate is not None or settings.race_stop:
            raise ValueError(f"{engine.variant} rollouts play every game out: no truncation")
        if settings.player_ply:
            raise ValueError(f"{engine.variant} rollouts play at 0-ply: no player_ply")
        if match is not None or met is not None:
            raise ValueError(f"{engine.variant} has no doubling cube: no match score or MET")
        return rollout_cubeless(engine, pos, settings, dice=dice, plays=plays, progress=progress)
    return rollout_cubeful(engine, pos, settings, dice=dice, plays=plays, match=match, player=player, met=met,
                           progress=progress)


def _texts(plays: _Plays | None) -> list[str] | None:
    """The texts of named plays.

    >>> _texts(["8/5 6/5"]), _texts([("8/5 6/5", Position.start())]), _texts(None)
    (['8/5 6/5'], ['8/5 6/5'], None)
    """
    if plays is None:
        return None
    return [p if isinstance(p, str) else p[0] for p in plays]


def rollout_cubeful(engine: Evaluator, pos: Position, settings: RolloutSettings = DEFAULT_SETTINGS, *,
                    dice: tuple[int, int] | None = None, plays: _Plays | None = None, match: MatchState | None = None,
                    player: int = 0, met: MatchEquityTable | None = None,
                    progress: ProgressFn | None = None) -> RolloutResult:
    """The rollout of an engine with a cube (``engine.cubeful``; see the module docstring and
    :func:`rollout`), with the kernel of :mod:`analyzer.eval._rollout_kernel` over the engine's
    ``rollout_args`` (its nets' weights, bear-off databases and pruning net).

    ``cube_play`` (match play, or money play without Jacoby, beavers or a cube limit): besides
    the cubeless games, a cube game is played alongside each trial, both sides doubling, taking
    and passing by the cube model on their 0-ply evaluation; the cubeful equities
    (``cubeful_equity`` with ``cubeful_se``) are then the mean points won per unit cube (money)
    or the mean MWC as EMG at the current cube for ``player`` (match), variance-reduced with the
    cube model's values when ``variance_reduction``.
    Before the roll the position is rolled out twice with the same dice -- cube as it is (no
    double now) and doubled and taken -- and ``cube`` is decided from those two values.

    ``luck_prune`` (with ``variance_reduction``, an engine with a pruning net): measure each
    roll's luck with the plays the engine's *pruned* 0-ply search chooses (the pruning net ranks
    a roll's plays, the best five are evaluated), as gnubg's rollouts do. The plays made stay the
    fully evaluated best and the correction stays unbiased (the roll thrown is valued like the 21
    of the mean); the numbers differ from ``luck_prune=False`` only where pruning misses a roll's
    best play, and a variance-reduced ply costs about a third.
    """
    if not engine.cubeful:
        raise ValueError(f"{engine.variant} has no doubling cube: its rollouts are cubeless")
    if not pos.spec.has_cube:
        raise ValueError(f"rollouts handle standard positions, not {pos.variant}")
    texts = _texts(plays)
    trials, truncate, seed, workers = settings.trials, settings.truncate, settings.seed, settings.workers
    cubeful, cube_play, variance_reduction = settings.cubeful, settings.cube_play, settings.variance_reduction
    luck_prune, min_trials, target_se = settings.luck_prune, settings.min_trials, settings.target_se
    max_plays, threshold = settings.max_plays, settings.threshold
    state = match if match is not None else MatchState()
    table = None if state.is_money else (met if met is not None else met_by_name())
    if cube_play and state.is_money and (state.jacoby or state.beavers or state.cube_limit is not None):
        raise ValueError("cube play in money rollouts is without Jacoby, beavers or a cube limit")
    mc = _match_cube(state, player, table, cube_play)
    owner0 = 0 if state.cube_owner is None else (1 if state.cube_owner == player else 2)
    may_double = owner0 != 2
    take_only = settings.take_only
    if take_only and (dice is not None or not (may_double and can_double(state, player))):
        raise ValueError("take_only rolls out a cube decision before the roll, with the cube available")
    if dice is None:
        labels: list[str | None] = [None]
        results = [pos]
        starts = np.frombuffer(pos.board, np.int8)[None, :].copy()
        side0 = 0
        cubes = np.array([2.0 if take_only else 1.0], np.float64)
        owners = np.array([2 if take_only else owner0], np.int64)
        if cube_play and not take_only and may_double and can_double(state, player):  # doubled and taken
            labels.append(None)
            results.append(pos)
            starts = np.concatenate([starts, starts])
            cubes = np.array([1.0, 2.0])
            owners = np.array([owner0, 2], np.int64)
    else:
        ranked = engine.rank_plays(pos, dice, 0)
        if texts is not None:
            wanted = {p.replace(" ", "") for p in texts}
            chosen = [r for r in ranked if r.play.replace(" ", "") in wanted]
            if len(chosen) != len(wanted):
                raise ValueError(f"not all of the plays {list(texts)!r} are legal with {dice}")
        else:
            best = ranked[0].equity
            chosen = [r for r in ranked[:max(1, max_plays)] if r.equity >= best - threshold]
        labels = [r.play for r in chosen]
        results = [r.result for r in chosen]
        starts = np.stack([np.frombuffer(r.result.flip().board, np.int8) for r in chosen])
        side0 = 1
        cubes = np.ones(len(chosen), np.float64)
        owners = np.full(len(chosen), owner0, np.int64)
    trunc = 0 if truncate is None else int(truncate)
    W, use_db, P = engine.rollout_args()
    chunks_out: list[NDArray[np.float64]] = []
    plies_out: list[NDArray[np.int64]] = []
    cf_out: list[NDArray[np.float64]] = []
    done = 0
    stopped = False
    lp = bool(luck_prune and variance_reduction and P is not None)
    # the 1-ply player: gnubg's play filter; the replies pruned as the engine's own search prunes them
    play_by: _Player = (int(settings.player_ply), PLAY_FILTER.count, float(PLAY_FILTER.threshold), P is not None)
    executor: ProcessPoolExecutor | None = None
    firsts = list(range(0, trials, ROUND))

    def tasks_of(first: int) -> list[_Task]:
        n = min(ROUND, trials - first)
        return [(starts, side0, seed, first + j, min(CHUNK, n - j), trunc, settings.race_stop, variance_reduction,
                 cube_play, cubes, owners, dice is not None, mc, lp, play_by) for j in range(0, n, CHUNK)]

    queued: dict[int, list[Future[tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]]]]] = {}
    key = _evaluator_key(W, use_db, P)
    if workers > 1 and trials > CHUNK:
        executor = _worker_pool(workers, W, use_db, P, key, tasks_of(0)[0])
    else:
        _init_worker(W, use_db, P, key)
    try:
        for rnd, first in enumerate(firsts):
            n = min(ROUND, trials - first)
            if executor is not None:  # the next round queued before this one is collected: no idle worker
                for q in (rnd, rnd + 1):
                    if q < len(firsts) and q not in queued:
                        queued[q] = [executor.submit(_run_chunk, t) for t in tasks_of(firsts[q])]
                outs = [f.result() for f in queued.pop(rnd)]
            else:
                outs = [_run_chunk(t) for t in tasks_of(first)]
            for o, p, f in outs:
                chunks_out.append(o)
                plies_out.append(p)
                cf_out.append(f)
            done += n
            if progress is not None:
                progress(done, trials)
            if target_se is not None and done >= min_trials and done < trials:
                _, se = _summaries(np.concatenate(chunks_out))
                if float(se[:, 5].max()) < target_se:
                    stopped = True
                    break
    except BaseException:
        if executor is not None:  # interrupted or a worker lost: the workers go with the queued tasks
            close_pool()
        raise
    left = [f for fs in queued.values() for f in fs if not f.cancel()]
    wait(left)  # stopped early: the next round's tasks already started finish, unused (the workers stay)
    x = np.concatenate(chunks_out)
    mean, se = _summaries(x)
    allp = np.concatenate(plies_out)
    mean_plies = [float(np.ascontiguousarray(allp[:, j]).mean()) for j in range(allp.shape[1])]
    cf_all = np.concatenate(cf_out) if cube_play else None
    cf_mean, cf_se = _cube_game_stats(cf_all) if cf_all is not None else (None, None)
    # the cube games are played on the same dice: Double/take - No double from the paired trials
    cf_diff_se = _paired_se(cf_all[:, 1], cf_all[:, 0]) if cf_all is not None and cf_all.shape[1] > 1 else None
    cf_mwc = None if cf_mean is None or table is None else cf_mean.copy()
    if cf_mean is not None and cf_se is not None and table is not None:  # MWC -> EMG for player
        scale = mwc_to_emg(table, state, player, 1.0) - mwc_to_emg(table, state, player, 0.0)
        cf_mean = np.array([mwc_to_emg(table, state, player, float(m)) for m in cf_mean])
        cf_se = cf_se * scale
        cf_diff_se = None if cf_diff_se is None else cf_diff_se * scale
    cands: list[RolloutCandidate] = []
    for k in range(1 if dice is None else len(results)):
        m, s = mean[k], se[k]
        probs = _probabilities(m)
        eq = float(m[5])
        cf: float | None = None
        cf_err: float | None = None
        if cf_mean is not None and cf_se is not None:
            cf, cf_err = float(cf_mean[k]), float(cf_se[k])
        elif cubeful:
            cf = _cubeful(pos if dice is None else results[k], probs, state, player, dice is None, table)
        cands.append(RolloutCandidate(labels[k], results[k], probs, (float(s[0]), float(s[1]), float(s[2]),
                                                                        float(s[3]), float(s[4])),
                                      eq, float(s[5]), (eq - Z95 * float(s[5]), eq + Z95 * float(s[5])), cf,
                                      float(mean_plies[k]), cf_err))
    if dice is not None:
        def rank(i: int) -> float:
            cf = cands[i].cubeful_equity
            return -(cf if cf is not None else cands[i].equity)

        order = sorted(range(len(cands)), key=rank)
        per_trial = x @ _OUTCOME_POINTS  # n x k: each trial's cubeless equity of each start
        cands = [replace(cands[i], paired_se=tuple(_paired_se(per_trial[:, i], per_trial[:, j]) for j in order))
                 for i in order]
    cube = None
    if cubeful and dice is None:
        gp = Probabilities.of(cands[0].probabilities, clamp=True)
        cube = cube_decision(gp, state, player, cube_life=cube_life_of(pos), met=table)
        if cf_mean is not None and take_only:  # the games are Double/take's; No double stays the model's
            cube = played_cube(cube, cube.nd, float(cf_mean[0]), owner0 == 1,
                               None if cf_mwc is None or cube.nd_mwc is None else (cube.nd_mwc, float(cf_mwc[0])))
        elif cf_mean is not None:
            two = len(cf_mean) > 1
            cube = played_cube(cube, float(cf_mean[0]), float(cf_mean[1]) if two else None, owner0 == 1,
                               None if cf_mwc is None else (float(cf_mwc[0]), float(cf_mwc[1]) if two else None))
    return RolloutResult(pos, dice, tuple(cands), cube, done, trials, stopped, seed, truncate,
                         variance_reduction, cubeful,
                         None if cf_se is None or dice is not None else tuple(float(v) for v in cf_se),
                         None if dice is not None else cf_diff_se, settings.race_stop)


def _match_cube(state: MatchState, player: int, table: MatchEquityTable | None, cube_play: bool) -> _MatchCube:
    """The match tables the kernel needs (dummies in money play or without cube play)."""
    if table is None or not cube_play:
        return (False, np.zeros((2, 1, 6)), np.zeros((2, 2, 1), np.bool_), False, 0)
    vt, may = cube_tables(state, player, met=table)
    vt, may = cube_tables(state, player, met=table, levels=vt.shape[1] + 2)  # room for dead-cube doubles
    top = vt.shape[1] - 1
    max_level = top if state.cube_limit is None else min(top, max(0, (state.cube_limit // state.cube).bit_length() - 1))
    return (True, vt, may, state.crawford, max_level)


def _cube_game_stats(cf: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    n, k = cf.shape
    mean = np.zeros(k)
    se = np.zeros(k)
    for j in range(k):
        v = np.ascontiguousarray(cf[:, j])
        mean[j] = v.mean()
        se[j] = v.std(ddof=1) / math.sqrt(n) if n > 1 else 0.0
    return mean, se


def played_cube(model: CubeDecision, nd: float, dt: float | None, redouble: bool,
                mwc: tuple[float, float | None] | None = None) -> CubeDecision:
    """``model`` (the cube model on the rolled-out probabilities) with No double and Double/take
    replaced by the rolled-out cube games (``mwc``: their MWC in match play), and the action
    decided again from them.

    >>> from analyzer.eval.cube import cube_decision
    >>> model = cube_decision([0.7, 0.1, 0.0, 0.05, 0.0], MatchState(), 0, cube_life=0.68)
    >>> [played_cube(model, nd, dt, False).action for nd, dt in ((0.5, 0.6), (0.6, 0.5), (1.1, 1.2))]
    ['double, take', 'no double, take', 'too good to double, pass']
    """
    if mwc is not None:
        model = replace(model, nd_mwc=mwc[0], dt_mwc=mwc[1] if mwc[1] is not None else model.dt_mwc)
    if dt is None or not model.available:
        return replace(model, nd=nd)
    word = "redouble" if redouble else "double"
    take = dt <= 1.0
    answer = "take" if take else "pass"
    too_good = nd > 1.0
    if too_good or (take and nd >= dt):  # ties as in analyzer.eval.cube._action
        action = f"too good to {word}, {answer}" if too_good else f"no {word}, {answer}"
        double = False
    else:
        action, double = f"{word}, {answer}", True
    return replace(model, nd=nd, dt=dt, action=action, double=double, take=take, too_good=too_good and not double,
                   beaver=False)


def _cubeful(where: Position, probs: Probabilities, state: MatchState, player: int, before_roll: bool,
             table: MatchEquityTable | None) -> float:
    """Cube-model value for ``player`` of rolled-out ``probs``: before the roll in ``where`` (not
    doubling), or after his play (``where`` is its result, the opponent on roll next)."""
    gp = Probabilities.of(probs, clamp=True)
    if before_roll:
        v = cubeful_value(gp, state, player, cube_life=cube_life_of(where), met=table)
        return v / state.cube if table is None else mwc_to_emg(table, state, player, v)
    opp = 1 - player
    v = cubeful_value(gp.flip(), state, opp, cube_life=cube_life_of(where.flip()), met=table)
    if table is None:
        return -v / state.cube
    return mwc_to_emg(table, state, player, 1.0 - v)


def rollout_cube(engine: Evaluator, pos: Position, state: MatchState, player: int,
                 settings: RolloutSettings = DEFAULT_SETTINGS, *, met: MatchEquityTable | None = None,
                 progress: ProgressFn | None = None) -> CubeDecision:
    """Cube decision of ``player`` on roll in ``pos`` from a rollout before the roll (cubeful:
    ``settings.cubeful`` is implied).

    >>> from analyzer.eval.engine import Engine
    >>> d = rollout_cube(Engine(), Position.start(), MatchState(), 0, RolloutSettings(trials=36, truncate=1, workers=1))
    >>> d.action
    'no double, take'
    """
    r = rollout_cubeful(engine, pos, replace(settings, cubeful=True), match=state, player=player, met=met,
                        progress=progress)
    assert r.cube is not None
    return r.cube
