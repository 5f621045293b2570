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
from collections.abc import Callable
from functools import partial

import numpy as np

from analyzer.core.position import Position
from analyzer.eval.engine import ANALYSIS_FILTER, PLAY_FILTER, Engine, eval_parallel
from analyzer.eval.selfplay import GameBuffers, play_seeded

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
    ap.add_argument("--repeat", type=int, default=5,
                    help="time every figure this many times and keep the fastest (a shared machine's load varies)")
    args = ap.parse_args()
    rep = max(1, args.repeat)

    def best(run: Callable[[], object]) -> float:
        times = []
        for _ in range(rep):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        return min(times)

    eng = Engine(nets_path=args.nets)
    boards = sample_positions(eng, args.positions)
    res: dict[str, object] = {"positions": int(len(boards)), "repeat": rep}
    eng.evaluate_boards(boards[:8], 0)  # compile / warm up
    res["evals_per_s_1thread"] = round(len(boards) / best(lambda: eng.evaluate_boards(boards, 0)))
    eval_parallel(eng, boards[:64])
    res["evals_per_s_parallel"] = round(len(boards) / best(lambda: eval_parallel(eng, boards)))
    pos = Position.from_notation(MIDDLE_GAME)

    def cold(run: Callable[[], object]) -> Callable[[], object]:
        def go() -> object:
            eng.clear_cache()
            return run()
        return go

    for ply in range(1, args.max_ply + 1):
        res[f"evaluate_{ply}ply_s"] = round(best(cold(partial(eng.evaluate, pos, ply))), 4)
    for ply in range(0, args.max_ply + 1):
        for name, filt in (("analysis", ANALYSIS_FILTER), ("play", PLAY_FILTER)):
            hint = cold(partial(eng.rank_plays, pos, (6, 2), ply, filt))
            res[f"hint_{ply}ply_{name}_filter_s"] = round(best(hint), 4)
            res[f"hint_{ply}ply_{name}_filter_best"] = eng.rank_plays(pos, (6, 2), ply, filt)[0].play
    sys.stdout.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
