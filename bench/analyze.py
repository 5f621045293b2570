"""Wall time of analysing one match (default: the 7-point sample) at 0-ply and 2-ply.

The engine is warmed first (numba compilation and the bear-off databases are not timed) and its
evaluation cache is cleared before each timed run. Prints one JSON object; the target at 2-ply
is under 60 s on a 2-core machine.

Usage::

    python bench/analyze.py
    python bench/analyze.py --plies 0 1 2 data/samples/boardlord-llabba-7p.mat
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from analyzer.analysis.analyze import analyze_match
from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.formats import read_any

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "boardlord-llabba-7p.mat"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(SAMPLE), help="match file (default: the 7-point sample)")
    ap.add_argument("--plies", type=int, nargs="+", default=[0, 2], help="plies to time (default 0 2)")
    args = ap.parse_args(argv)
    [record, *_] = list(read_any(args.file))
    engine = Engine()
    t0 = time.perf_counter()
    engine.rank_plays(Position.start(), (3, 1), 1)
    engine.evaluate(Position.start(), max(args.plies))
    warm = time.perf_counter() - t0
    out: dict[str, object] = {"file": args.file, "warm_up_s": round(warm, 2), "threads": engine.threads}
    for ply in args.plies:
        engine.clear_cache()
        t = time.perf_counter()
        a = analyze_match(record, engine=engine, ply=ply)
        wall = time.perf_counter() - t
        out[f"ply{ply}"] = {"seconds": round(wall, 2), "decisions": a.decisions.height,
                            "pr": [None if p.pr_raw is None else round(500 * p.pr_raw, 2)
                                   for p in a.players]}
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
