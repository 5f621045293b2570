"""Duplicate-dice games against a referee, and the two sides' 0-ply equities: what the strength benchmark's
duel against GNU Backgammon (``bench/strength.py --opponent gnubg``) and the choice experiments
(:mod:`bglab.experiments.choice_referee`, :mod:`bglab.experiments.choice_gaps`) share.

GNU Backgammon (the ``gnubg`` wheel, installed only for these) is a referee here, never a training label.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from analyzer.core.ids import encode_position_id
from analyzer.eval import features as F
from analyzer.eval.net import NetSet
from analyzer.eval.selfplay import MAX_PLIES
from analyzer.rules.kernel import flip_into

Chooser = Callable[[int, Any, tuple[int, int], np.ndarray, int], int]
"""``choose(side, position, dice, results, ply)``: the index of the play side ``side`` (0: ours) makes
among ``results`` (n x 64, each flipped to the next side on roll) in ``position`` with ``dice``."""


def duplicate_games(pairs: int, seed: int, choose: Chooser) -> np.ndarray:
    """Points of ``2 * pairs`` cubeless games from the start, side 0's view: each pair's dice
    (seeded by ``[seed, pair]``) are played twice, side 0 moving first in the first game and second
    in the other; ``choose`` picks each play. Python loop (the referee duels and experiments)."""
    from analyzer.core.position import Position
    from analyzer.rules.standard import Standard

    rules = Standard()
    pts = np.zeros(2 * pairs, np.int64)
    for i in range(pairs):
        rng = np.random.default_rng([seed, i])
        dice = rng.integers(1, 7, size=(MAX_PLIES, 2))
        while dice[0, 0] == dice[0, 1]:
            dice[0] = rng.integers(1, 7, size=2)
        for g in range(2):
            pos = Position.start()
            side = g
            for t in range(MAX_PLIES):
                d = (int(dice[t, 0]), int(dice[t, 1]))
                res = rules.legal_results(pos, d)
                over = res[:, 26] >= 15
                if over.any():
                    k = int(np.argmax(over))
                    p6 = F.game_over_outcome(res[k]) + 1
                    pts[2 * i + g] = p6 if side == 0 else -p6
                    break
                fl = np.zeros_like(res)
                for j in range(len(res)):
                    flip_into(res[j], fl[j])
                k = choose(side, pos, d, fl, t)
                pos = Position(fl[k].tobytes())
                side = 1 - side
    return pts


def gnubg_equity(board: np.ndarray, plies: int = 0) -> float:
    """GNU Backgammon's cubeless money equity (``gnubg`` wheel, a referee) of the side on roll of
    ``board`` (our n x 64 layout, one row) at ``plies``."""
    import gnubg  # type: ignore[import-not-found]

    from analyzer.core.position import Position

    pos = gnubg.position_from_id(encode_position_id(Position(board.tobytes())))
    if plies == 0:
        return float(gnubg.evaluate(pos)[5])
    ctx = {"cubeful": 0, "plies": plies, "deterministic": 1, "prune": 1, "noise": 0.0}
    return float(gnubg.evaluate(pos, gnubg.cubeinfo(), ctx)[5])


def our_equities(a: NetSet, bearoff: bool = False) -> Callable[[np.ndarray], np.ndarray]:
    """Our 0-ply cubeless equities of boards (n x 64, each for its side on roll): the nets alone, or
    with ``bearoff`` the product's 0-ply (the nets and our bear-off databases, as ``Engine``)."""
    from analyzer.eval.engine import Engine
    from analyzer.eval.net import evaluate_boards

    engine = Engine(a, use_bearoff=True) if bearoff else None
    eqw = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])

    def equities(boards: np.ndarray) -> np.ndarray:
        probs = evaluate_boards(a, boards) if engine is None else engine.evaluate_boards(boards)
        return np.asarray(probs @ eqw, np.float64)

    return equities
