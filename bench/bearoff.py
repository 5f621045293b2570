"""Bear-off database benchmark: generation time, load time, lookup speed, one- vs two-sided.

Run: ``.venv/bin/python bench/bearoff.py`` (builds into a temporary directory; ``--keep DIR``
builds there instead).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from analyzer.core.position import Position
from analyzer.eval import _bearoff_gen as G
from analyzer.eval import bearoff as B


@njit(cache=True)
def _race_many(dist: np.ndarray, first: np.ndarray, boards: np.ndarray) -> float:
    out = np.zeros(5)
    acc = 0.0
    for i in range(boards.shape[0]):
        B.race_probs_board(dist, first, boards[i], out)
        acc += out[0]
    return acc


@njit(cache=True)
def _two_many(win: np.ndarray, boards: np.ndarray) -> float:
    acc = 0.0
    for i in range(boards.shape[0]):
        acc += B.two_sided_win_board(win, boards[i])
    return acc


@njit(cache=True)
def _os_vs_ts(dist: np.ndarray, first: np.ndarray, win: np.ndarray) -> tuple[float, float, float]:
    out = np.zeros(5)
    s = 0.0
    sa = 0.0
    mx = 0.0
    n = 0
    for x in range(1, win.shape[0]):
        for y in range(1, win.shape[1]):
            G.race_probs(dist, first, x, y, False, False, out)
            d = out[0] - win[x, y]
            s += d
            sa += abs(d)
            mx = max(mx, abs(d))
            n += 1
    return s / n, sa / n, mx


def _boards(n: int, max_opp: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sides = G.all_sides(15)
    out = np.zeros((n, 64), dtype=np.int8)
    for i in range(n):
        x = sides[int(rng.integers(1, 54264))]
        y = sides[int(rng.integers(1, min(max_opp, 54264)))]
        out[i, 1:7] = x
        out[i, 24:18:-1] = -y
        out[i, 26] = 15 - int(x.sum())
        out[i, 27] = 15 - int(y.sum())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--keep", type=Path, default=None, help="build into this cache root")
    ap.add_argument("--lookups", type=int, default=200_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep if args.keep is not None else Path(tmp)
        os.environ["BGREVIEW_CACHE"] = str(root)  # the default-database functions use it too
        # Warm the compiler so that generation times exclude JIT compilation (cache=True makes
        # later runs skip it anyway).
        t = time.perf_counter()
        B.build_one_sided()
        B.build_two_sided()
        print(f"first build incl. numba compile/cache load: {time.perf_counter() - t:.2f} s")
        for kind, fn in (("one-sided", B.BearoffDB.one_sided), ("two-sided", B.BearoffDB.two_sided)):
            t = time.perf_counter()
            fn(root, rebuild=True)
            wall = time.perf_counter() - t
            meta = B.read_meta(kind, root)
            assert meta is not None
            print(f"{kind}: generated in {meta['build_seconds']} s (with saving {wall:.2f} s)")
        d = B.cache_dir(root)
        total = sum(p.stat().st_size for p in d.glob("*.npy"))
        print(f"cache {d}: {total / 1e6:.1f} MB in {len(list(d.glob('*.npy')))} .npy files")
        B._loaded.clear()
        t = time.perf_counter()
        os_db = B.BearoffDB.one_sided(root)
        ts_db = B.BearoffDB.two_sided(root)
        print(f"load (memory map) both: {1e3 * (time.perf_counter() - t):.1f} ms")

        boards = _boards(args.lookups, 54264, 1)
        _race_many(os_db.dist, os_db.first, boards[:10])
        t = time.perf_counter()
        _race_many(os_db.dist, os_db.first, boards)
        dt = time.perf_counter() - t
        print(f"compiled one-sided race lookups: {args.lookups / dt:,.0f} /s")
        small = _boards(args.lookups, 924, 2)
        small[:, 1:7] = 0
        sides6 = G.all_sides(6)
        rng = np.random.default_rng(3)
        for i in range(small.shape[0]):
            x = sides6[int(rng.integers(1, 924))]
            small[i, 1:7] = x
            small[i, 26] = 15 - int(x.sum())
        _two_many(ts_db.win, small[:10])
        t = time.perf_counter()
        _two_many(ts_db.win, small)
        dt = time.perf_counter() - t
        print(f"compiled two-sided lookups: {args.lookups / dt:,.0f} /s")
        positions = [Position(bytes(b.tobytes())) for b in boards[:20000]]
        B.race_probabilities(positions[0])  # compile (or load) this signature first
        t = time.perf_counter()
        for p in positions:
            B.race_probabilities(p)
        dt = time.perf_counter() - t
        print(f"Python race_probabilities(pos): {len(positions) / dt:,.0f} /s")

        mean, mean_abs, mx = _os_vs_ts(os_db.dist, os_db.first, ts_db.win)
        print(f"one-sided race P(win) - exact two-sided, 851,929 pairs (both sides non-empty): mean {mean:+.5f}, "
              f"mean |d| {mean_abs:.5f}, max |d| {mx:.5f}")


if __name__ == "__main__":
    main()
