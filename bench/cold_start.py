"""Cold start of ``bgreview moves`` with a warm numba cache: wall time of a fresh process.

Run: ``python bench/cold_start.py [--runs 7]``. The first run warms the cache and is not counted.
Prints the median and the best wall time of the remaining runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    cmd = [sys.executable, "-m", "analyzer", "moves", "4HPwATDgc/ABMA", "--dice", "31", "--format", "json"]
    subprocess.run(cmd, check=True, capture_output=True)  # warm the numba cache
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    print(f"bgreview moves cold start over {args.runs} runs: median {statistics.median(times):.3f} s, "
          f"best {min(times):.3f} s")


if __name__ == "__main__":
    main()
