"""Batch throughput, scaling and memory of ``bgreview batch``.

    python bench/batch.py [--corpus tests/data/corpus] [--analysis-files 12] [--ply 0]
                          [--analysis-jobs 1,2] [--archive-matches 5000]
                          [--dask] [--skip-replay] [--skip-analysis] [--skip-archive]

Every run is a fresh ``python -m analyzer batch`` process into a temporary dataset folder, so the
figures include process start, worker start-up (spawned pool workers load the compiled kernels)
and the final table rebuild, as a user sees them. For each run the bench prints the wall time,
matches per minute, and the peak memory: of the whole process tree (the sum of the resident set
sizes of the CLI process and its workers, sampled every 50 ms with psutil) and of the largest
single process.

1. ``--replay-only`` over the whole corpus with 1 and 2 workers (scaling from 1 to 2).
2. 0-ply analysis (``--ply``) of the first ``--analysis-files`` corpus files with 1 and 2 workers
   (``--analysis-files 0 --analysis-jobs 2``: the whole corpus on both cores); with ``--dask`` each
   pool run is followed by the same run on a local Dask cluster (``--scheduler local``).
3. Memory does not grow with the archive: one file of ``--archive-matches`` matches (the corpus
   files concatenated over and over) is run with ``--replay-only --jobs 1``; workers stream the
   matches one at a time and the parent keeps one small row per match. Target: < 1 GB.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent


def corpus_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".mat", ".txt", ".sgf")
                  and "gnubg-analysis-export" not in p.parts)


def run(inputs: list[str], out: Path, extra: list[str]) -> dict[str, float]:
    """One ``bgreview batch`` run: wall seconds, matches, peak tree and single-process RSS (MB)."""
    cmd = [sys.executable, "-m", "analyzer", "batch", *inputs, "--out", str(out), "--no-progress", *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    top = psutil.Process(proc.pid)
    peak_tree = peak_one = 0
    while proc.poll() is None:
        try:
            procs = [top, *top.children(recursive=True)]
            rss = []
            for p in procs:
                with contextlib.suppress(psutil.Error):
                    rss.append(p.memory_info().rss)
            peak_tree = max(peak_tree, sum(rss))
            peak_one = max(peak_one, max(rss, default=0))
        except psutil.Error:
            pass
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"batch failed ({proc.returncode}): {err[-2000:]}")
    totals = json.loads((out / "manifest.json").read_text())["totals"]
    return {"wall": wall, "matches": float(totals["matches"]), "errors": float(totals["errors"]),
            "tree_mb": peak_tree / 2**20, "one_mb": peak_one / 2**20}


def show(label: str, r: dict[str, float]) -> None:
    print(f"{label:<34} {r['wall']:7.1f} s  {int(r['matches']):6d} matches  {60 * r['matches'] / r['wall']:8.0f} "
          f"matches/min  peak RSS {r['tree_mb']:6.0f} MB (tree), {r['one_mb']:5.0f} MB (largest process)"
          f"  [{int(r['errors'])} error rows]")


def scaling(label: str, inputs: list[str], extra: list[str], tmp: Path, jobs: tuple[int, ...] = (1, 2),
            dask: bool = False) -> None:
    walls: dict[int, float] = {}
    for n in jobs:
        r = run(inputs, tmp / f"{label}-{n}", [*extra, "--jobs", str(n)])
        show(f"{label}, {n} worker{'s' if n > 1 else ''}", r)
        walls[n] = r["wall"]
        if dask:
            r = run(inputs, tmp / f"{label}-{n}-dask", [*extra, "--jobs", str(n), "--scheduler", "local"])
            show(f"{label}, Dask {n} worker{'s' if n > 1 else ''}", r)
            print(f"{label}: Dask local cluster / process pool, {n} worker{'s' if n > 1 else ''}: "
                  f"{r['wall'] / walls[n]:.2f}x the time")
    if 1 in walls and 2 in walls:
        print(f"{label}: speed-up 1 -> 2 workers: {walls[1] / walls[2]:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT / "tests" / "data" / "corpus")
    ap.add_argument("--analysis-files", type=int, default=12)
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--archive-matches", type=int, default=5000)
    ap.add_argument("--analysis-jobs", default="1,2",
                    help="worker counts for the analysis runs, comma-separated (e.g. 2 for the whole corpus)")
    ap.add_argument("--dask", action="store_true",
                    help="also run the analysis on a local Dask cluster (--scheduler local) beside each pool run")
    ap.add_argument("--skip-replay", action="store_true")
    ap.add_argument("--skip-analysis", action="store_true")
    ap.add_argument("--skip-archive", action="store_true")
    args = ap.parse_args()
    files = corpus_files(args.corpus)
    print(f"corpus: {len(files)} files; {psutil.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if not args.skip_replay:
            scaling("replay-only, whole corpus", [str(args.corpus)], ["--replay-only"], tmp)
        if not args.skip_analysis:
            subset = [str(f) for f in (files[:args.analysis_files] if args.analysis_files > 0 else files)]
            jobs = tuple(int(j) for j in args.analysis_jobs.split(","))
            scaling(f"{args.ply}-ply, {len(subset)} files", subset, ["--ply", str(args.ply)], tmp, jobs, args.dask)
        if not args.skip_archive:
            archive = tmp / "archive.txt"
            n = 0
            with open(archive, "wb") as out:
                while n < args.archive_matches:
                    for f in files:
                        if f.suffix == ".sgf":
                            continue
                        out.write(f.read_bytes() + b"\n")
                        n += 1
                        if n >= args.archive_matches:
                            break
            size = archive.stat().st_size / 2**20
            r = run([str(archive)], tmp / "archive", ["--replay-only", "--jobs", "1"])
            show(f"archive {n} matches ({size:.0f} MB)", r)
            print(f"archive: peak {r['tree_mb']:.0f} MB (target < 1024 MB)")


if __name__ == "__main__":
    main()
