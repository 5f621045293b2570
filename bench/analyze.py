"""Wall time of analysing one match (default: the 7-point sample) at 0-ply and 2-ply.

The engine is warmed first (numba compilation and the bear-off databases are not timed) and its
evaluation cache is cleared before each timed run. Prints one JSON object; the target at 2-ply
is under 60 s on a 2-core machine.

``--whole-process`` times whole processes instead, each ply ``--runs`` times (medians):
``bgreview analyze FILE --ply N --no-confirm --no-html`` (a fresh interpreter, warm compiled-code
cache) beside GNU Backgammon's command-line analysis of the same file at the same plies
(``/usr/games/gnubg -t -q``, checker play and cube, ``set threads 2``; gnubg is only a referee).
With ``--confirm`` ours runs at the defaults, the confirmation pass included (issue 24's time
target: within 3x gnubg's 2-ply analysis); with ``--html`` too it writes the HTML report and its
charts, so that it is the README's first command (issue 52's target: within 3x gnubg's 2-ply,
measured in the same run). Each figure is the median wall seconds, with the median CPU seconds
(user + system, the process and its worker processes) beside it: on a shared machine the CPU
seconds say more than the wall.

Usage::

    python bench/analyze.py
    python bench/analyze.py --plies 0 1 2 data/samples/boardlord-llabba-7p.mat
    python bench/analyze.py --whole-process --plies 0 2 --runs 3
    python bench/analyze.py --whole-process --plies 2 --runs 3 --confirm
    python bench/analyze.py --whole-process --plies 2 --runs 3 --confirm --html   # the README's command
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _timed(cmd: list[str], **kw: object) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system of the process and the children it waited for,
    its worker processes included) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _medians(cmd: list[str], runs: int, **kw: object) -> tuple[float, float]:
    """Median wall and median CPU seconds of ``runs`` runs of ``cmd``."""
    times = [_timed(cmd, **kw) for _ in range(runs)]
    return round(median(w for w, _ in times), 2), round(median(c for _, c in times), 2)


def whole_process(file: str, plies: list[int], runs: int, confirm: bool = False,
                  html: bool = False) -> dict[str, object]:
    """Median wall and CPU seconds of ``bgreview analyze`` (``confirm``: with its confirmation pass;
    ``html``: writing the HTML report and its charts) and of gnubg's analysis, whole processes, and
    the ratios of ours to gnubg's."""
    out: dict[str, object] = {"file": file, "runs": runs, "confirm": confirm, "html": html,
                              "load": [round(x, 2) for x in os.getloadavg()]}
    with tempfile.TemporaryDirectory() as tmp:
        mat = Path(tmp) / "match.mat"  # a plain name: gnubg's command parser splits on spaces
        shutil.copy(file, mat)
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        ours = [sys.executable, "-m", "analyzer", "analyze", str(mat), "--no-progress",
                "--out", str(Path(tmp) / "out"), *([] if confirm else ["--no-confirm"]),
                *([] if html else ["--no-html"])]
        for ply in plies:
            row: dict[str, object] = {}
            row["bgreview_s"], row["bgreview_cpu_s"] = _medians([*ours, "--ply", str(ply)], runs, env=env)
            if Path(GNUBG).exists():
                cmds = Path(tmp) / f"gnubg{ply}.txt"
                cmds.write_text(f"set threads 2\nimport mat {mat}\n"
                                f"set analysis chequerplay evaluation plies {ply}\n"
                                f"set analysis cubedecision evaluation plies {ply}\nanalyse match\nquit\n")
                row["gnubg_s"], row["gnubg_cpu_s"] = _medians([GNUBG, "-t", "-q", "-c", str(cmds)], runs)
                row["ratio"] = round(float(row["bgreview_s"]) / max(float(row["gnubg_s"]), 1e-9), 2)  # type: ignore[arg-type]
                row["cpu_ratio"] = round(float(row["bgreview_cpu_s"]) / max(float(row["gnubg_cpu_s"]), 1e-9), 2)  # type: ignore[arg-type]
            out[f"ply{ply}"] = row
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
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
    ap.add_argument("--html", action="store_true",
                    help="with --whole-process: ours writes the HTML report and its charts too (the README's "
                         "command, with --confirm)")
    args = ap.parse_args(argv)
    if args.whole_process:
        sys.stdout.write(json.dumps(whole_process(args.file, args.plies, args.runs, args.confirm, args.html)) + "\n")
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
