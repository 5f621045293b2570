"""Whole-process start-up of ``bgreview`` commands (warm numba cache), beside GNU Backgammon in the same run.

Each command runs once to warm the caches (not counted), then ``--runs`` times, the commands taking turns
(so a busy machine slows them all alike); the table gives the median and the best wall time of each, and
the ratio of our median to gnubg's for the same work:

* ``analyze``: ``bgreview analyze`` of the 7-point sample at 0-ply with the defaults (charts and the HTML
  report; ``--no-confirm``: the first pass alone, as gnubg's analysis), a fresh output folder each run;
  against gnubg's CLI importing the same ``.mat`` and analysing it at 0-ply (checker play and cube, no
  rollouts), ``show statistics match`` and quit;
* ``analyze --no-html``: the decision tables and the summary only, against the same gnubg figure;
* ``hint``: ``bgreview hint`` of a middle-game position, 6-2, at 2-ply; against gnubg's ``hint`` of the
  same position and roll at 2-ply;
* ``moves``: ``bgreview moves`` of the opening position, 3-1 (the legal plays, no evaluation); against
  gnubg starting and quitting.

gnubg runs with one thread (``set threads 1``), as our kernels run on one here (2 cores). Without
``/usr/games/gnubg`` the gnubg column is empty.

The table also gives the median CPU time (user and system) of each command and its ratio: on a busy
machine the wall times stretch, the CPU times much less. ``hint`` at 2-ply may use two threads (its CPU time
counts both).

``--before CHECKOUT`` also times our commands from another checkout (its root as ``PYTHONPATH``) in the same
rounds; ``--floor`` also times what any process of ours pays before its own work: the interpreter, numpy,
numba, the first cached compiled kernel (numba's initialisation), polars, typer and rich, matplotlib, each a
whole process with the layers above it. The children run in a temporary folder with the byte-code cache on
(the warm-up writes the ``.pyc`` files an installed package has).

``--cold`` times instead a fresh install's first review: the README's first command (``bgreview analyze``
of the 7-point sample with the defaults: 2-ply, the confirmation pass, charts and the HTML report) with an
empty numba cache (``NUMBA_CACHE_DIR`` a new empty folder) and a fresh output folder, then the same command
on the cache it filled; it prints the wall and CPU time of both, their difference (what compiling the
engine cost) and the compile notice's lines. Run one at a time: the compiling takes both cores.

Run: ``python bench/cold_start.py [--runs 5] [--only analyze hint] [--before ../main] [--floor]``, or
``python bench/cold_start.py --cold [--file MATCH]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "samples" / "boardlord-llabba-7p.mat"
GNUBG = "/usr/games/gnubg"
MIDDLE_GAME_ID = "4Dl4ADOw5+ABMA"  # bench/speed.py's MIDDLE_GAME: P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2
OPENING_ID = "4HPwATDgc/ABMA"


def child_env(pythonpath: str | None = None) -> dict[str, str]:
    """The environment of a timed command: this one, with ``COLUMNS`` set, the byte-code cache on (the
    warm-up writes the ``.pyc`` files an installed package has; ``PYTHONDONTWRITEBYTECODE`` in a
    developer's shell would otherwise leave every changed module to be compiled again in each run), and
    ``PYTHONPATH`` replaced when given (``--before``: another checkout)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["COLUMNS"] = "100"
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return env


@dataclass
class Case:
    """One timed command: ``argv(run)`` is the command line of run number ``run`` (-1: the warm-up), run
    in the environment ``env``."""

    name: str
    argv: Callable[[int], list[str]]
    env: dict[str, str] = field(default_factory=child_env)
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def bgreview(*args: str) -> list[str]:
    """The command line of ``bgreview ARGS`` run by this interpreter."""
    return [sys.executable, "-m", "analyzer", *args]


def gnubg_script(work: Path, name: str, commands: Sequence[str]) -> list[str]:
    """gnubg's command line running ``commands`` (written to ``work/name.cmd``) and quitting."""
    path = work / f"{name}.cmd"
    path.write_text("\n".join(["set threads 1", *commands, "quit", ""]))
    return [GNUBG, "-t", "-q", "-r", "-c", str(path)]


FLOOR_KERNEL = """from numba import njit


@njit(cache=True)
def one(x):
    return x + 1
"""
# What any process of ours pays before its own work, one layer more on each line (each a whole process).
FLOOR: dict[str, str] = {
    "floor: python": "pass",
    "floor: + numpy": "import numpy",
    "floor: + numba": "import numpy, numba",
    "floor: + 1st kernel": "import gc, numpy, numba, floor_kernel; floor_kernel.one(1); gc.freeze()",
    "floor: + polars": "import gc, numpy, numba, floor_kernel, polars; floor_kernel.one(1); gc.freeze()",
    "floor: + typer, rich": ("import gc, numpy, numba, floor_kernel, polars, typer, rich.console, rich.table; "
                             "floor_kernel.one(1); gc.freeze()"),
    "floor: + matplotlib": ("import gc, numpy, numba, floor_kernel, polars, typer, rich.console, rich.table, "
                            "matplotlib.figure, matplotlib.backends.backend_agg, matplotlib.backends.backend_svg; "
                            "floor_kernel.one(1); gc.freeze()"),
}


def floor_cases(work: Path) -> list[Case]:
    """The start-up floor of a process that uses numba kernels: the interpreter, then numpy, numba, the first
    cached compiled kernel (numba's target context: typing and lowering registries, LLVM; a one-line kernel
    cached in ``work``), polars, typer and rich, matplotlib (the charts), each line a whole process with
    the layers above it (ours end with :func:`gc.freeze`, as ``bgreview`` does)."""
    (work / "floor_kernel.py").write_text(FLOOR_KERNEL)
    return [Case(name, lambda i, code=code: [sys.executable, "-c", code],
                 child_env(os.pathsep.join([str(work), os.environ.get("PYTHONPATH", "")])))
            for name, code in FLOOR.items()]


def cases(work: Path, only: Sequence[str], sample: Path, before: str | None = None,
          floor: bool = False) -> tuple[list[Case], dict[str, str]]:
    """The timed commands and, for each of ours, the gnubg case it is compared with; with ``before`` (a
    checkout's root), each of ours also run from that checkout (``NAME (before)``); with ``floor``, the
    start-up floor (:func:`floor_cases`), compared with gnubg's 0-ply analysis."""
    ours: dict[str, Callable[[int], list[str]]] = {
        "analyze": lambda i: bgreview("analyze", str(sample), "--ply", "0", "--no-confirm", "-o", str(work / f"a{i}")),
        "analyze --no-html": lambda i: bgreview("analyze", str(sample), "--ply", "0", "--no-html", "--no-confirm",
                                                "-o", str(work / f"n{i}")),
        "hint": lambda i: bgreview("hint", MIDDLE_GAME_ID, "--dice", "62", "--ply", "2"),
        "moves": lambda i: bgreview("moves", OPENING_ID, "--dice", "31", "--format", "json"),
    }
    referee = {"analyze": "gnubg analyse 0-ply", "analyze --no-html": "gnubg analyse 0-ply",
               "hint": "gnubg hint 2-ply", "moves": "gnubg start"}
    chosen = [n for n in ours if not only or n.split()[0] in only or n in only]
    out = [Case(n, ours[n]) for n in chosen]
    pairs = {n: referee[n] for n in chosen}
    if before is not None:
        out += [Case(f"{n} (before)", ours[n], child_env(before)) for n in chosen]
        pairs.update({f"{n} (before)": referee[n] for n in chosen})
    if floor:
        out += floor_cases(work)
        pairs.update({name: "gnubg analyse 0-ply" for name in FLOOR})
    if Path(GNUBG).exists():
        scripts = {
            "gnubg analyse 0-ply": [f"import mat {sample}", "set analysis chequerplay evaluation plies 0",
                                    "set analysis cubedecision evaluation plies 0", "analyse match",
                                    "show statistics match"],
            "gnubg hint 2-ply": ["new game", f"set board {MIDDLE_GAME_ID}", "set dice 6 2",
                                 "set evaluation chequerplay evaluation plies 2", "hint"],
            "gnubg start": [],
        }
        for name in dict.fromkeys(pairs.values()):
            argv = gnubg_script(work, name.replace(" ", "_"), scripts[name])
            out.append(Case(name, lambda i, a=argv: a))
    else:
        pairs = {}
    return out, pairs


def children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run(case: Case, i: int, cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time of one run of ``case`` in the folder ``cwd`` (not the checkout: ``python -m``
    would import the package found there before ``PYTHONPATH``'s); its output is captured; a failure
    stops the bench."""
    argv = case.argv(i)
    c = children_cpu()
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=case.env, cwd=cwd)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{case.name}: exit {proc.returncode}: {' '.join(argv)}\n{proc.stderr[-2000:]}")
    return wall, children_cpu() - c


def cold(sample: Path) -> None:
    """Time the README's first command with an empty numba cache, then again on the cache it filled, and
    print both, their difference and the compile notice (see the module docstring)."""
    work = Path(tempfile.mkdtemp(prefix="bgr_cold_"))
    try:
        env = child_env()
        env["NUMBA_CACHE_DIR"] = str(work / "numba")
        (work / "numba").mkdir()
        rows: list[tuple[str, float, float]] = []
        notice: list[str] = []
        for name in ("first run, empty numba cache", "second run, cache filled"):
            argv = bgreview("analyze", str(sample), "--out", str(work / f"out{len(rows)}"), "--no-progress")
            c = children_cpu()
            t = time.perf_counter()
            proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, cwd=work)
            wall = time.perf_counter() - t
            if proc.returncode != 0:
                raise SystemExit(f"exit {proc.returncode}: {' '.join(argv)}\n{proc.stderr[-2000:]}")
            rows.append((name, wall, children_cpu() - c))
            notice += [line for line in proc.stderr.splitlines() if "compil" in line]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (_, w1, c1), (_, w2, c2) = rows
    rows.append(("compiling (the difference)", w1 - w2, c1 - c2))
    print(f"bgreview analyze {sample.name} --out DIR --no-progress; load average {os.getloadavg()[0]:.2f}")
    print(f"{'':<30} {'wall s':>8} {'cpu s':>8}")
    for name, wall, cpu in rows:
        print(f"{name:<30} {wall:>8.1f} {cpu:>8.1f}")
    print("\n".join(notice) if notice else "(no compile notice: nothing was compiled)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs of each command (default 5)")
    ap.add_argument("--only", nargs="*", default=[], help="commands to time: analyze hint moves (default all)")
    ap.add_argument("--file", default=str(SAMPLE), help="match file to analyse (default: the 7-point sample)")
    ap.add_argument("--before", metavar="CHECKOUT",
                    help="also time each command from this checkout's root (PYTHONPATH), in the same rounds")
    ap.add_argument("--floor", action="store_true",
                    help="also time the start-up floor: python, numpy, numba, its first kernel, polars, typer, ...")
    ap.add_argument("--cold", action="store_true",
                    help="time the first review with an empty numba cache (compiling), then a second one")
    args = ap.parse_args(argv)
    if args.cold:
        cold(Path(args.file).resolve())
        return 0
    work = Path(tempfile.mkdtemp(prefix="bgr_cold_"))
    try:
        before = str(Path(args.before).resolve()) if args.before else None
        todo, pairs = cases(work, args.only, Path(args.file).resolve(), before, args.floor)
        for case in todo:
            run(case, -1, work)  # warm the numba cache, the byte-code cache, the file cache, gnubg's weights
            for folder in work.glob("[an]-1"):
                shutil.rmtree(folder, ignore_errors=True)
        for i in range(args.runs):
            for case in todo:
                wall, cpu = run(case, i, work)
                case.times.append(wall)
                case.cpu.append(cpu)
                for folder in work.glob(f"[an]{i}"):
                    shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {c.name: statistics.median(c.times) for c in todo}
    best = {c.name: min(c.times) for c in todo}
    cpu = {c.name: statistics.median(c.cpu) for c in todo}
    print(f"whole-process wall times, median (best) of {args.runs} runs after a warm-up, and the median CPU "
          f"time (user + system; less sensitive to a busy machine); load average {os.getloadavg()[0]:.2f}")
    print(f"{'command':<27} {'ours s':>14} {'cpu':>5} {'gnubg':<20} {'gnubg s':>14} {'cpu':>5} {'ratio':>6} {'cpu':>6}")
    for c in todo:
        ref = pairs.get(c.name)
        if ref is None and pairs:
            continue
        ours = f"{med[c.name]:.3f} ({best[c.name]:.3f})"
        if ref is None:
            print(f"{c.name:<27} {ours:>14} {cpu[c.name]:>5.2f}")
            continue
        theirs = f"{med[ref]:.3f} ({best[ref]:.3f})"
        print(f"{c.name:<27} {ours:>14} {cpu[c.name]:>5.2f} {ref:<20} {theirs:>14} {cpu[ref]:>5.2f} "
              f"{med[c.name] / med[ref]:>5.2f}x {cpu[c.name] / cpu[ref]:>5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
