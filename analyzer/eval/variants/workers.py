"""The worker processes of a variant engine, shared by its played-out rollouts
(:mod:`analyzer.eval.variants.rollout`) and its deeper search
(:meth:`~analyzer.eval.variants.engine.VariantEngine.evaluate_boards` with ``workers``).

Each worker holds the engine's kernel arguments (variant code, rule options, the net's weights,
the race context) and its move buffers, set up once when the pool starts
(:func:`analyzer.eval.trials.worker_pool`, keyed by :func:`engine_key`): a review's first pass and
its confirmation rollouts use the same two processes. What a worker computes depends on its task
alone (the buffers are scratch), so the numbers are those of one process.

>>> from analyzer.eval.variants.engine import engine_for
>>> args = engine_for("dutch").rollout_args()[:4]
>>> init_worker(args, engine_key(args)); STATE["key"] == engine_key(args)
True
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ProcessPoolExecutor
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from analyzer.eval.trials import worker_pool
from analyzer.eval.variants.model import NMAX, eval_many
from analyzer.rules.kernel import Workspace

__all__ = ["STATE", "engine_key", "evaluate", "init_worker", "pool"]

STATE: dict[str, Any] = {}
"""This process's engine arrays (``code``, ``opts``, ``W``, ``ctx``), buffers (``ws`` for the rollout
kernel, ``ws1``/``ws2`` for the search) and the ``key`` they were set up for."""


def engine_key(args: tuple[Any, ...]) -> str:
    """A digest of the kernels' engine arguments (code, rule options, weights, race context):
    workers set up for one engine never serve another (the weights may have changed in place). The
    race context's bear-off databases (17 MB, read-only, the shipped ones or stand-ins when off)
    count by their shapes and whether they are used, as in the standard rollouts' key; its race net
    by its weights.

    >>> from analyzer.eval.variants.engine import engine_for
    >>> d, m = engine_for("dutch").rollout_args()[:4], engine_for("mahbusa").rollout_args()[:4]
    >>> engine_key(d) == engine_key(engine_for("dutch").rollout_args()[:4]), engine_key(d) == engine_key(m)
    (True, False)
    """
    code, opts, weights, (race, use_db, *databases) = args
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{code} {opts} {use_db} {[a.shape for a in databases]}".encode())
    for a in (*weights, *race):
        h.update(f"{a.dtype}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def init_worker(engine_args: tuple[Any, ...], key: str) -> None:
    """Set this process up for the kernel arguments ``engine_args`` (code, options, weights, race
    context arguments), unless it is already (the same ``key``)."""
    if STATE.get("key") == key:
        return
    code, opts, weights, ctx = engine_args
    STATE.clear()
    STATE.update(code=code, opts=opts, W=weights, ctx=ctx, ws=Workspace(8192), ws1=Workspace(8192),
                 ws2=Workspace(8192), key=key)


def pool(workers: int, engine_args: tuple[Any, ...], key: str,
         prepare: Any = None) -> ProcessPoolExecutor:
    """The worker processes of the engine ``engine_args`` (digest ``key``): those kept from the last
    call for it, else new ones, started once ``prepare()`` (if any) has run here."""
    return worker_pool(workers, ("variant", key), init_worker, (engine_args, key), prepare=prepare)


def evaluate(task: tuple[NDArray[np.int8], int]) -> NDArray[np.float32]:
    """Outcome vectors (n x 5) of ``boards`` (each for its side on roll) at ``ply``, with this
    process's engine: ``task`` is ``(boards, ply)``."""
    boards, ply = task
    out = np.zeros((boards.shape[0], NMAX), np.float32)
    while True:
        ws1: Workspace = STATE["ws1"]
        ws2: Workspace = STATE["ws2"]
        r = cast(Any, eval_many)(boards, ply, STATE["code"], STATE["opts"], STATE["W"], *STATE["ctx"],
                                 tuple(ws1.args()), tuple(ws2.args()), out)
        if r >= 0:
            return out
        ws1.resize(ws1.capacity * 4)
        ws2.resize(ws2.capacity * 4)
