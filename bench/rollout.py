"""Rollout speed: full 0-ply cubeless rollout games per second of the opening position.

Plays ``--trials`` games to the end (bear-off databases stop them early, as gnubg's do) with
``--workers`` processes, without and (``--vr``) with variance reduction. When the ``gnubg`` wheel
is importable, GNU Backgammon rolls out the same position with the same settings (0-ply,
cubeless, no truncation, bear-off truncation on, 2 threads) in a separate process and the ratio
is printed. gnubg is only a referee here: nothing of it is used by ``analyzer``.

    .venv/bin/python bench/rollout.py [--trials 1296] [--workers 2] [--vr] [--no-gnubg]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time

from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.eval.rollout import rollout

GNUBG_SCRIPT = r"""
import json, sys, time
import gnubg
n, threads, vr = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
for c in ["set threads %d" % threads, "set rollout trials %d" % n, "set rollout cubeful off",
          "set rollout varredn %s" % ("on" if vr else "off"), "set rollout truncation enable off",
          "set rollout chequerplay plies 0", "set rollout cubedecision plies 0", "set rollout later enable off",
          "set rollout quasirandom on", "set rollout seed 1", "set rollout bearofftruncation exact on",
          "set rollout bearofftruncation onesided on"]:
    gnubg.command(c)
gnubg.setgnubgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
t = time.perf_counter()
gnubg.command("rollout")
sys.stderr.write(json.dumps({"seconds": time.perf_counter() - t}) + "\n")
"""


def ours(engine: Engine, trials: int, workers: int, vr: bool) -> tuple[float, float, float]:
    t = time.perf_counter()
    r = rollout(engine, Position.start(), trials=trials, workers=workers, cubeful=False, variance_reduction=vr,
                seed=1)
    dt = time.perf_counter() - t
    return trials / dt, r.equity, r.equity_se


def gnubg(trials: int, threads: int, vr: bool) -> float | None:
    if importlib.util.find_spec("gnubg") is None:
        return None
    p = subprocess.run([sys.executable, "-c", GNUBG_SCRIPT, str(trials), str(threads), "1" if vr else "0"],
                       capture_output=True, text=True, timeout=3600, check=False)
    for line in p.stderr.splitlines():
        if line.startswith("{"):
            return float(trials / json.loads(line)["seconds"])
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--vr-trials", type=int, default=144, help="trials of the variance-reduced run")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--vr", action="store_true", help="also time rollouts with variance reduction")
    ap.add_argument("--no-gnubg", action="store_true")
    a = ap.parse_args()
    engine = Engine()
    rollout(engine, Position.start(), trials=36, workers=1, cubeful=False, variance_reduction=True, truncate=2)
    runs = [(False, a.trials)] + ([(True, a.vr_trials)] if a.vr else [])
    for vr, n in runs:
        gps, eq, se = ours(engine, n, a.workers, vr)
        line = (f"bgreview: {n} full 0-ply cubeless games of the opening position, variance reduction "
                f"{'on' if vr else 'off'}, {a.workers} workers: {gps:.1f} games/s (equity {eq:+.3f} +- {se:.3f})")
        print(line, flush=True)
        if not a.no_gnubg:
            g = gnubg(n, a.workers, vr)
            if g is None:
                print("gnubg: wheel not installed (pip install gnubg), no comparison")
            else:
                print(f"gnubg:    same settings, {a.workers} threads: {g:.1f} games/s; "
                      f"ratio bgreview/gnubg = {gps / g:.2f}", flush=True)


if __name__ == "__main__":
    main()
