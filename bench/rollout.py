"""Rollout speed: full 0-ply cubeless rollout games per second of the opening position.

Plays ``--trials`` games to the end (bear-off databases stop them early, as gnubg's do) with
``--workers`` processes, without and (``--vr``) with variance reduction. When the ``gnubg`` wheel
is importable, GNU Backgammon rolls out the same position with the same settings (0-ply,
cubeless, no truncation, bear-off truncation on, 2 threads) in a separate process and the ratio
is printed. gnubg is only a referee here: nothing of it is used by ``analyzer``.

    .venv/bin/python bench/rollout.py [--trials 1296] [--workers 2] [--vr] [--no-gnubg]

``--variant dutch|mahbusa`` times our variant rollouts instead (cubeless, played out, no variance
reduction; no other engine plays these games): the opening position, and the two best plays of a
middle-game roll from one of our own self-play games.

    .venv/bin/python bench/rollout.py --variant mahbusa [--trials 1296] [--workers 2]
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


def variant_speed(variant: str, trials: int, workers: int) -> None:
    """Print games per second of variant rollouts (the opening, and two plays of a middle-game roll)."""
    from analyzer.eval.variants.engine import engine_for
    from analyzer.eval.variants.play import GameBuffers, play_seeded
    from analyzer.eval.variants.rollout import variant_rollout

    eng = engine_for(variant)
    variant_rollout(eng, Position.start(eng.variant), trials=2, workers=1)  # compile / load the kernels
    buf = GameBuffers()
    n = play_seeded(eng.net, 11, 0.05, buf)[0]
    middle = Position(buf.states[n // 3].tobytes(), eng.variant)
    for name, pos, dice in (("the opening position", Position.start(eng.variant), None),
                            ("the 2 best plays of 31 in a middle-game position", middle, (3, 1))):
        t = time.perf_counter()
        r = variant_rollout(eng, pos, dice=dice, trials=trials, workers=workers, max_plays=2, threshold=9.0)
        dt = time.perf_counter() - t
        games = sum(c.games + c.dropped for c in r.candidates)
        print(f"bgreview {eng.variant}: {trials} full 0-ply cubeless games each of {name}, {workers} workers: "
              f"{games / dt:.1f} games/s, {dt:.1f} s (best {r.best.equity:+.3f} +- {r.best.equity_se:.3f})",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--vr-trials", type=int, default=144, help="trials of the variance-reduced run")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--vr", action="store_true", help="also time rollouts with variance reduction")
    ap.add_argument("--no-gnubg", action="store_true")
    ap.add_argument("--variant", choices=("dutch", "mahbusa", "plakoto"), help="time the variant rollouts")
    a = ap.parse_args()
    if a.variant:
        variant_speed(a.variant, a.trials, a.workers)
        return
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
