"""Wall time of analysing one match (default: the 7-point sample) at 0-ply and 2-ply.

The engine is warmed first (numba compilation and the bear-off databases are not timed) and its
evaluation cache is cleared before each timed run. Prints one JSON object; the target at 2-ply
is under 60 s on a 2-core machine.

``--whole-process`` times whole processes instead, each ply ``--runs`` times (medians):
``bgreview analyze FILE --ply N --no-confirm --no-html`` (a fresh interpreter, warm compiled-code
cache) beside GNU Backgammon's command-line analysis of the same file at the same plies
(``/usr/games/gnubg -t -q``, checker play and cube, ``set threads 2``; gnubg is only a referee).
With ``--confirm`` ours runs at the defaults, the confirmation pass included (issue 24's time
target: within 3x gnubg's 2-ply analysis).

Usage::

    python bench/analyze.py
    python bench/analyze.py --plies 0 1 2 data/samples/boardlord-llabba-7p.mat
    python bench/analyze.py --whole-process --plies 0 2 --runs 3
    python bench/analyze.py --whole-process --plies 2 --runs 3 --confirm
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from analyzer.analysis.analyze import analyze_match
from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.formats import read_any

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "boardlord-llabba-7p.mat"
GNUBG = "/usr/games/gnubg"


def _wall(cmd: list[str], **kw: object) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    return time.perf_counter() - t


def whole_process(file: str, plies: list[int], runs: int, confirm: bool = False) -> dict[str, object]:
    """Median wall seconds of ``bgreview analyze`` (``confirm``: with its confirmation pass) and of
    gnubg's analysis, whole processes."""
    out: dict[str, object] = {"file": file, "runs": runs, "confirm": confirm}
    with tempfile.TemporaryDirectory() as tmp:
        mat = Path(tmp) / "match.mat"  # a plain name: gnubg's command parser splits on spaces
        shutil.copy(file, mat)
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        ours = [sys.executable, "-m", "analyzer", "analyze", str(mat), "--no-html", "--no-progress",
                "--out", str(Path(tmp) / "out"), *([] if confirm else ["--no-confirm"])]
        for ply in plies:
            row: dict[str, object] = {}
            row["bgreview_s"] = round(median(_wall([*ours, "--ply", str(ply)], env=env) for _ in range(runs)), 2)
            if Path(GNUBG).exists():
                cmds = Path(tmp) / f"gnubg{ply}.txt"
                cmds.write_text(f"set threads 2\nimport mat {mat}\n"
                                f"set analysis chequerplay evaluation plies {ply}\n"
                                f"set analysis cubedecision evaluation plies {ply}\nanalyse match\nquit\n")
                row["gnubg_s"] = round(median(_wall([GNUBG, "-t", "-q", "-c", str(cmds)]) for _ in range(runs)), 2)
                row["ratio"] = round(float(row["bgreview_s"]) / max(float(row["gnubg_s"]), 1e-9), 2)  # type: ignore[arg-type]
            out[f"ply{ply}"] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(SAMPLE), help="match file (default: the 7-point sample)")
    ap.add_argument("--plies", type=int, nargs="+", default=[0, 2], help="plies to time (default 0 2)")
    ap.add_argument("--whole-process", action="store_true",
                    help="time whole `bgreview analyze` processes beside gnubg's command-line analysis")
    ap.add_argument("--runs", type=int, default=3, help="runs per figure with --whole-process (median)")
    ap.add_argument("--confirm", action="store_true",
                    help="with --whole-process: ours at the defaults, the confirmation pass included")
    args = ap.parse_args(argv)
    if args.whole_process:
        sys.stdout.write(json.dumps(whole_process(args.file, args.plies, args.runs, args.confirm)) + "\n")
        return 0
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
