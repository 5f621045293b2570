"""Compile the confirmation pass's rollout kernels in a second process while a first review runs.

numba compiles one function at a time in a process, and a fresh install's first review compiles
about 240 of them (some 200 CPU-seconds): the first pass's evaluation, search and cube kernels, then
the rollout kernels of the confirmation pass. Those are needed only after the first pass, so on two
cores they can be compiled beside it: :func:`start` launches a child process that runs small
rollouts of the kinds the confirmation plays (:func:`warm`), which writes numba's on-disk cache;
when the review gets there it loads those kernels instead of compiling them (and the rollout
workers, forked then, load them too).

* Nothing starts when the cache already holds the rollout kernel (a warm run costs one file read).
* The child inherits the environment, so it uses the same cache (``NUMBA_CACHE_DIR`` included),
  and it imports this very package.
* Writes to the cache from both processes are serialized
  (:func:`analyzer.core.jit.serialize_cache_writes`); where that is not possible, nothing starts.
* The child's output goes nowhere and its failures change nothing: the review compiles whatever
  is not cached when it needs it, as before. :func:`stop` ends it if it still runs.

>>> from analyzer.eval import _rollout_kernel as K
>>> cached(K.run_trials) in (True, False)
True
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[2]  # the directory holding the ``analyzer`` package


def cached(dispatcher: Any) -> bool:
    """Whether numba's on-disk cache holds a current entry for ``dispatcher`` (a compiled function);
    True when that cannot be told (then nothing is started)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - numba's internals changed: assume cached, start nothing
        return True


def start() -> subprocess.Popen[bytes] | None:
    """On a cold cache, start the child that compiles the rollout kernels (:func:`warm`); None when
    the cache holds them already, or the child cannot be started safely."""
    from analyzer.core.jit import serialize_cache_writes
    from analyzer.eval import _rollout_kernel as K

    if cached(K.run_trials) or not serialize_cache_writes():
        return None
    code = f"import sys; sys.path.insert(0, {str(_ROOT)!r}); from analyzer.eval.prewarm import main; main()"
    try:
        return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, close_fds=True)
    except OSError:
        return None


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End the child if it still runs (what it cached stays cached)."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def warm() -> None:
    """Small rollouts of each kind the confirmation pass plays, in this process (one worker): checker
    plays and cube decisions (and the Double/take games alone), cubeful, in a match, with variance
    reduction and pruned luck, so that numba compiles and caches the same kernel signatures."""
    from analyzer.core.match import MatchState
    from analyzer.core.position import Position
    from analyzer.eval.engine import Engine
    from analyzer.eval.rollout import RolloutSettings, rollout

    eng = Engine()
    state = MatchState(length=7)
    start_pos = Position.start()
    rollout(eng, start_pos, RolloutSettings(trials=2, truncate=7, workers=1, cubeful=True, variance_reduction=True,
                                            luck_prune=True, max_plays=2), dice=(3, 1), match=state, player=0)
    for take_only in (False, True):
        rollout(eng, start_pos, RolloutSettings(trials=2, truncate=2, workers=1, cubeful=True, cube_play=True,
                                                variance_reduction=True, luck_prune=True, take_only=take_only),
                match=state, player=0)


def main() -> None:
    """The child's work: :func:`warm` with serialized cache writes."""
    from analyzer.core.jit import serialize_cache_writes

    if serialize_cache_writes():
        warm()


if __name__ == "__main__":
    main()
