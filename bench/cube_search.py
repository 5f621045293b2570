"""Wall time of one cube decision with the n-ply cubeful search, against the root conversion.

Middle-game (contact) positions before the roll from seeded 0-ply self-play; money, centred cube.
Run it on one core for the per-core figure:

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python bench/cube_search.py [--positions 40] [--plies 1 2 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from cube_agreement import self_play_positions  # bench/ is on the path when this script runs

from analyzer.core.match import MatchState
from analyzer.eval.cube import analyze_cube
from analyzer.eval.cube_search import cube_decision_nply
from analyzer.eval.engine import Engine
from analyzer.eval.features import CLASS_CONTACT, CLASS_CRASHED, classify


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--plies", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    engine = Engine()
    pool = self_play_positions(engine, 4 * a.positions, a.seed)
    contact = [p for p in pool if classify(np.frombuffer(p.board, np.int8)) in (CLASS_CONTACT, CLASS_CRASHED)]
    positions = contact[: a.positions]
    money = MatchState()
    cube_decision_nply(engine, positions[0], money, 0, 1)  # compile / load the kernels
    print(f"{len(positions)} contact positions from self-play (seed {a.seed}), money, centred cube")
    for ply in a.plies:
        times: list[float] = []
        for p in positions:
            t = time.perf_counter()
            cube_decision_nply(engine, p, money, 0, ply)
            times.append(time.perf_counter() - t)
        root: list[float] = []
        for p in positions:
            engine.clear_cache()
            t = time.perf_counter()
            analyze_cube(p, money, 0, lambda q, k=ply: engine.evaluate(q, k))
            root.append(time.perf_counter() - t)
        print(f"{ply}-ply cubeful search: median {1000 * statistics.median(times):.1f} ms, "
              f"max {1000 * max(times):.1f} ms per decision; root conversion of the {ply}-ply cubeless "
              f"evaluation: median {1000 * statistics.median(root):.1f} ms")


if __name__ == "__main__":
    main()
