"""The pruning net: a tiny net on the raw inputs that pre-selects plays inside n-ply searches.

It is distilled from the main nets (our own): positions are the afterstates of every legal
play of random rolls in seeded self-play games, targets the main nets' 0-ply outcome
distributions. Race positions are not pruned (their full encoding is already cheap).

>>> from analyzer.eval.net import NetSet
>>> nets = NetSet.initial(hidden=8, race_hidden=8, seed=0)
>>> prune = train_prune_net(nets, games=2, hidden=4, epochs=1)
>>> prune.n_inputs
200
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from analyzer.core.layout import NSLOTS
from analyzer.core.position import Position
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.net import Net, NetSet, evaluate_boards
from analyzer.eval.selfplay import GameBuffers, play_seeded
from analyzer.rules.kernel import flip_into
from analyzer.rules.standard import Standard
from bglab.optim import Adam

jitcache.refresh_module(__file__, ("eval/selfplay.py",))


@njit(cache=True)
def _encode_raw_many(boards: np.ndarray, out: np.ndarray) -> None:
    for i in range(boards.shape[0]):
        F.encode_raw(boards[i], out[i])


@njit(cache=True)
def _flip_many(boards: np.ndarray, out: np.ndarray) -> None:
    for i in range(boards.shape[0]):
        flip_into(boards[i], out[i])


def prune_positions(nets: NetSet, games: int, seed: int = 5) -> NDArray[np.int8]:
    """Contact/crashed positions (side on roll) that inner search nodes evaluate."""
    buf = GameBuffers()
    rules = Standard()
    rng = np.random.default_rng(seed)
    out: list[NDArray[np.int8]] = []
    for g in range(games):
        n, _ = play_seeded(nets, 50_000_000 + seed * 100_000 + g, 0.02, buf)
        for t in range(n):
            pos = Position(buf.states[t].tobytes())
            d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            res = rules.legal_results(pos, d)
            flipped = np.zeros_like(res)
            _flip_many(res, flipped)
            out.append(flipped)
    boards = np.concatenate(out) if out else np.zeros((0, NSLOTS), np.int8)
    keep = np.array([F.classify(b) in (F.CLASS_CONTACT, F.CLASS_CRASHED) for b in boards], dtype=bool)
    return np.ascontiguousarray(boards[keep])


def train_prune_net(nets: NetSet, games: int = 300, hidden: int = 16, epochs: int = 8, lr: float = 3e-3,
                    batch: int = 256, seed: int = 5) -> Net:
    """Distil ``nets`` into a ``N_RAW`` -> ``hidden`` -> 6 pruning net."""
    boards = prune_positions(nets, games, seed)
    targets = evaluate_boards(nets, boards)
    x = np.zeros((len(boards), F.N_RAW), np.float32)
    _encode_raw_many(boards, x)
    rng = np.random.default_rng(seed)
    net = Net.initial(F.N_RAW, hidden, rng)
    opt = Adam(net, lr=lr)
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for s in range(0, len(x), batch):
            idx = order[s:s + batch]
            opt.step(x[idx], targets[idx])
    return net
