"""Move-generation throughput: resulting positions per second on one core.

    python bench/movegen.py [--variant standard|dutch|mahbusa] [--positions 10000] [--seed 1]

Builds a fixed, seeded set of positions reached by random legal play from the start of the
variant (a new game begins whenever one ends), warms up the compiled kernel, then generates every
distinct result for every position x all 21 rolls with ``analyzer.rules.kernel.count_batch`` and
prints the rate. The rate is per CPU second of this process (``time.process_time``), which is
the one-core figure even on a busy machine; the wall-clock rate is printed too. Target: at least
1,000,000 results/s for standard; Dutch and Mahbusa within 2x of standard.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from analyzer.core import layout as L
from analyzer.rules import find_variant, kernel

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)


def build_positions(variant: str, count: int, seed: int) -> tuple[np.ndarray, int, int]:
    """``count`` boards (int8, 64 slots) reached by seeded random play; returns boards, code, opts."""
    rules = find_variant(variant)
    code, opts = rules.code, rules.options
    rng = np.random.default_rng(seed)
    ws = kernel.Workspace()
    start = np.frombuffer(rules.start().board, dtype=np.int8).copy()
    boards = np.zeros((count, L.NSLOTS), dtype=np.int8)
    cur = start.copy()
    for i in range(count):
        boards[i] = cur
        d1, d2 = ROLLS[rng.integers(len(ROLLS))]
        n = ws.generate(cur, int(d1), int(d2), code, opts)
        # choose among the results sorted by content, so the set does not depend on the
        # generator's internal order (which optimisations may change)
        rows = sorted(ws.pool[ws.results[k]].tobytes() for k in range(n))
        row = np.frombuffer(rows[rng.integers(n)], dtype=np.int8)
        if row[L.MOVER_OFF] >= L.CHECKERS or row[L.GAME_END]:
            cur = start.copy()
        else:
            kernel.flip_into(row, cur)
    return boards, code, opts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="standard", choices=["standard", "dutch", "mahbusa"])
    ap.add_argument("--positions", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    args = ap.parse_args()

    t0 = time.perf_counter()
    boards, code, opts = build_positions(args.variant, args.positions, args.seed)
    t_build = time.perf_counter() - t0
    ws = kernel.Workspace()
    for b in boards:  # grow the buffers to the largest case, outside the timing
        for d1, d2 in ROLLS:
            ws.generate(b, int(d1), int(d2), code, opts)
    kernel.count_batch(boards[:50], ROLLS, code, opts, *ws.args())  # warm-up (JIT / cache load)

    best = best_wall = float("inf")
    total = 0
    for _ in range(args.repeat):
        t, c = time.perf_counter(), time.process_time()
        total = int(kernel.count_batch(boards, ROLLS, code, opts, *ws.args()))
        best = min(best, time.process_time() - c)
        best_wall = min(best_wall, time.perf_counter() - t)
    if total < 0:
        raise SystemExit("work buffers too small")
    calls = len(boards) * len(ROLLS)
    print(f"variant {args.variant}: {len(boards)} positions x {len(ROLLS)} rolls = {calls} calls "
          f"(positions built in {t_build:.1f}s)")
    print(f"  {total} results in {best:.3f}s CPU, {best_wall:.3f}s wall (best of {args.repeat})")
    print(f"  {total / best:,.0f} results/s ({total / best_wall:,.0f} by wall clock), "
          f"{calls / best:,.0f} calls/s, {total / calls:.1f} results per call")


if __name__ == "__main__":
    main()
