"""What every rollout shares: its settings, its dice and its worker processes.

:class:`RolloutSettings` is how a rollout is asked for (:func:`analyzer.eval.rollout.rollout`, for
any engine); :func:`trial_dice` gives the quasi-random first two rolls and the generator seed of
every trial, the same for the standard and the variant rollouts; :func:`worker_pool` the worker
processes they spread their trials over, kept from one rollout to the next while the rollouts ask
for the same evaluator (:func:`close_pool` stops them), in the context of :func:`pool_context`.

>>> s = RolloutSettings(trials=72, truncate=7)
>>> s.trials, s.truncate, s.cubeful, s.variance_reduction
(72, 7, True, True)
>>> RolloutSettings(trials=0)
Traceback (most recent call last):
...
ValueError: trials must be >= 1
"""

from __future__ import annotations

import atexit
import multiprocessing as mp
import multiprocessing.util as mp_util
import os
import sys
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

__all__ = ["Z95", "ProgressFn", "RolloutSettings", "close_pool", "pool_context", "trial_dice", "usable_cores",
           "worker_pool"]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution (the rollouts' confidence intervals)."""
ProgressFn = Callable[[int, int], None]
"""``progress(trials done, trials planned)``."""


@dataclass(frozen=True, slots=True)
class RolloutSettings:
    """How to roll a position out (see :mod:`analyzer.eval.rollout`); what an engine cannot do is
    left out (a cubeless engine gives no cubeful values, one without variance reduction plays raw
    trials), what contradicts it is refused (cube play or truncation without a cube: ValueError).

    * ``trials`` games (fewer when ``target_se`` stops it early: at least ``min_trials``, once every
      candidate's equity standard error is below ``target_se``), the dice seeded by ``seed``,
      spread over ``workers`` processes (the same result with any number; at most :func:`usable_cores`:
      more are cut to that, fewer than 1 refused);
    * ``truncate``: stop each game after that many plies and take the net's value there (``None``:
      play to the end or the bear-off databases; standard backgammon only); ``race_stop``: stop a game
      that began with contact where it becomes a race, valued by the race net (and, in cube games, the
      cube model) there (standard backgammon only);
    * ``cubeful``: add the cube model's values (engines with a cube); ``cube_play``: play the cube in
      the games (money without Jacoby, beavers or a cube limit, or match play);
    * ``variance_reduction``: subtract each roll's luck (engines that support it); ``luck_prune``:
      measure that luck with the pruned 0-ply search;
    * ``player_ply``: the ply of the player in the games: 0 plays each roll's 0-ply best play, 1 the
      best by a 1-ply search of the 0-ply pass's best plays (gnubg's play filter: up to 8 within 0.16),
      each valued by the mean over the opponent's 21 rolls of his 0-ply best reply (standard
      backgammon only; several times slower). The luck and the values at a stop stay 0-ply;
    * with dice, the candidates: at most ``max_plays`` plays within ``threshold`` of the best at 0-ply;
    * ``max_plies``: a variant game longer than that is dropped (``None``: the engine's limit);
    * ``take_only`` (cube play, no dice, the cube available): play the Double/take games alone, not
      the No double games beside them (the same games as with both: every start plays the same dice).
    """

    trials: int = 1296
    truncate: int | None = None
    seed: int = 0
    workers: int = 2
    cubeful: bool = True
    cube_play: bool = False
    variance_reduction: bool = True
    luck_prune: bool = False
    min_trials: int = 144
    target_se: float | None = None
    max_plays: int = 8
    threshold: float = 0.16
    max_plies: int | None = None
    take_only: bool = False
    race_stop: bool = False
    player_ply: int = 0

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise ValueError("trials must be >= 1")
        if self.workers < 1:
            raise ValueError("workers must be >= 1")
        if self.workers > usable_cores():  # more processes than cores only cost (the results are the same)
            object.__setattr__(self, "workers", usable_cores())
        if self.take_only and not self.cube_play:
            raise ValueError("take_only plays the Double/take cube games: it needs cube_play")
        if self.truncate is not None and self.truncate < 1:
            raise ValueError("truncate must be >= 1 (or None)")
        if self.player_ply not in (0, 1):
            raise ValueError("player_ply must be 0 or 1")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it), at least 1.

    >>> 1 <= usable_cores() <= (os.cpu_count() or 1)
    True
    >>> RolloutSettings(workers=10**9).workers == usable_cores()
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------------------ dice
def _mix(seed: int, index: int) -> int:
    """A 32-bit seed for trial ``index`` (splitmix64 of seed and index)."""
    z = (seed * 0x9E3779B97F4A7C15 + index * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & (2**64 - 1)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return (z ^ (z >> 31)) & 0xFFFFFFFF


def trial_dice(seed: int, start: int, count: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """First roll, second roll (indices 0..35: ``6 * (die1 - 1) + die2 - 1``) and generator seed
    of trials ``start .. start + count - 1``.

    Within every block of 1,296 trials (0..1295, 1296..2591, ...) the first roll runs through a
    permutation of the 36 rolls every 36 trials and each (first, second) pair occurs once.

    >>> r1, r2, s = trial_dice(7, 0, 1296)
    >>> sorted(set(np.bincount(r1[:36]).tolist())), len(set(zip(r1.tolist(), r2.tolist())))
    ([1], 1296)
    >>> bool((trial_dice(7, 100, 5)[2] == s[100:105]).all())
    True
    """
    r1 = np.zeros(count, np.int64)
    r2 = np.zeros(count, np.int64)
    seeds = np.zeros(count, np.int64)
    perms: dict[int, tuple[NDArray[np.int64], NDArray[np.int64]]] = {}
    for j in range(count):
        i = start + j
        blk, a, b = i // 1296, i % 36, (i // 36) % 36
        if blk not in perms:
            rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF, blk])
            p1 = rng.permutation(36).astype(np.int64)
            p2 = np.stack([rng.permutation(36) for _ in range(36)]).astype(np.int64)
            perms[blk] = (p1, p2)
        p1, p2 = perms[blk]
        r1[j] = p1[a]
        r2[j] = p2[a, b]
        seeds[j] = _mix(seed, i)
    return r1, r2, seeds


def pool_context() -> Any:
    """The multiprocessing context of rollout workers: fork on Linux (cheap: compiled kernels
    are inherited, and safe: the workers run no threaded numba code), spawn elsewhere."""
    if sys.platform.startswith("linux"):
        return mp.get_context("fork")
    return mp.get_context("spawn")


# ------------------------------------------------------------------------------ workers
# The worker processes kept from one rollout to the next: executor, its key (workers, evaluator), the
# process that started it. One pool at a time, whatever the engine: standard and variant rollouts share it.
_POOL: dict[str, Any] = {}


def _watch_parent(parent: int) -> None:
    """A worker's watch: end it once the process that started it is gone (killed, so that it could
    not stop its workers), instead of waiting for tasks forever."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _start_worker(parent: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    initializer(*initargs)


def worker_pool(workers: int, key: Hashable, initializer: Callable[..., None], initargs: tuple[Any, ...],
                prepare: Callable[[], None] | None = None) -> ProcessPoolExecutor:
    """The rollout worker processes for ``key`` (what the workers hold: the evaluator, by a digest of
    its arrays): those of the last rollout when it asked for the same key and number of ``workers``
    (starting processes and loading the kernels in each costs a rollout more than its few games), else
    new ones (the old ones stopped), each set up by ``initializer(*initargs)``, started once
    ``prepare()`` has run here (a kernel compiled before the fork is inherited by every worker).
    A forked child never uses its parent's pool.

    >>> def setup() -> None: ...
    >>> a = worker_pool(1, "doc", setup, ())
    >>> worker_pool(1, "doc", setup, ()) is a, worker_pool(1, "other", setup, ()) is a
    (True, False)
    >>> close_pool()
    """
    if _POOL.get("pid") == os.getpid() and _POOL.get("key") == (workers, key):
        return cast(ProcessPoolExecutor, _POOL["executor"])
    close_pool()
    if prepare is not None:
        prepare()
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=pool_context(), initializer=_start_worker,
                             initargs=(os.getpid(), initializer, initargs))
    _POOL.update(executor=ex, key=(workers, key), pid=os.getpid())
    # a process of multiprocessing (a batch worker) joins its children when it ends, before any
    # atexit handler: stop the workers first, or it waits for them forever
    mp_util.Finalize(None, close_pool, exitpriority=100)
    return ex


def close_pool() -> None:
    """Stop the worker processes kept between rollouts (if any; they also stop when the process
    exits). A later rollout with workers starts new ones.

    >>> close_pool(); _POOL
    {}
    """
    ex, pid = _POOL.get("executor"), _POOL.get("pid")
    _POOL.clear()
    if ex is not None and pid == os.getpid():
        ex.shutdown(wait=True, cancel_futures=True)


atexit.register(close_pool)
