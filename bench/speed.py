"""Evaluator speed: batched 0-ply evaluations per second, n-ply evaluation and ``hint`` timings.

Positions come from seeded self-play games with the shipped nets (a realistic mix of contact,
crashed and race positions). Prints one JSON object.

Usage::

    python bench/speed.py                 # default: 20,000 positions, hint at 0..2 ply
    NUMBA_NUM_THREADS=1 python bench/speed.py --positions 5000
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from analyzer.core.position import Position
from analyzer.eval.engine import ANALYSIS_FILTER, PLAY_FILTER, Engine, eval_parallel
from analyzer.train.selfplay import GameBuffers, play_seeded

MIDDLE_GAME = "P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2"


def sample_positions(eng: Engine, n: int, seed: int = 7) -> np.ndarray:
    buf = GameBuffers()
    out: list[np.ndarray] = []
    total = 0
    g = 0
    while total < n:
        t, _ = play_seeded(eng.nets, seed * 1000 + g, 0.0, buf)
        out.append(buf.states[:t].copy())
        total += t
        g += 1
    return np.concatenate(out)[:n]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=20_000)
    ap.add_argument("--max-ply", type=int, default=2)
    ap.add_argument("--nets", help="net set to time (default: the shipped data/nets/standard.npz)")
    args = ap.parse_args()
    eng = Engine(nets_path=args.nets)
    boards = sample_positions(eng, args.positions)
    res: dict[str, object] = {"positions": int(len(boards))}
    eng.evaluate_boards(boards[:8], 0)  # compile / warm up
    t0 = time.perf_counter()
    eng.evaluate_boards(boards, 0)
    dt = time.perf_counter() - t0
    res["evals_per_s_1thread"] = round(len(boards) / dt)
    eval_parallel(eng, boards[:64])
    t0 = time.perf_counter()
    eval_parallel(eng, boards)
    dt = time.perf_counter() - t0
    res["evals_per_s_parallel"] = round(len(boards) / dt)
    pos = Position.from_notation(MIDDLE_GAME)
    for ply in range(1, args.max_ply + 1):
        eng.clear_cache()
        t0 = time.perf_counter()
        eng.evaluate(pos, ply)
        res[f"evaluate_{ply}ply_s"] = round(time.perf_counter() - t0, 4)
    for ply in range(0, args.max_ply + 1):
        for name, filt in (("analysis", ANALYSIS_FILTER), ("play", PLAY_FILTER)):
            eng.clear_cache()
            t0 = time.perf_counter()
            plays = eng.rank_plays(pos, (6, 2), ply, filt)
            res[f"hint_{ply}ply_{name}_filter_s"] = round(time.perf_counter() - t0, 4)
            res[f"hint_{ply}ply_{name}_filter_best"] = plays[0].play
    sys.stdout.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
