"""Replay throughput and streaming memory.

    python bench/replay.py [--corpus tests/data/corpus] [--archive-matches 20000] [--skip-archive]
                           [--ids]

1. Speed: every .mat/.txt match of the corpus (1,780 files) is read and replayed move by move
   (``read_matches`` + ``replay_games``; with ``--ids`` the gnubg/XG identifiers of every
   decision are computed too). The rate is matches per CPU second of this process
   (``time.process_time``: the one-core figure even on a busy machine); wall-clock is printed too.
   Target: >= 100 matches/s.
2. Memory: an archive of ``--archive-matches`` matches is written to a temporary file by
   concatenating the corpus files over and over, then streamed through ``read_matches`` and
   ``replay_games`` one match at a time. The peak resident set size of the process
   (``resource.getrusage``) is printed before and after, plus the peak of Python allocations
   during the stream (``tracemalloc``, on the first ``--traced`` matches, since tracing is slow).
   Target: < 300 MB.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from analyzer.analysis.identifiers import decision_ids
from analyzer.analysis.replay import replay_games
from analyzer.formats.mat import read_matches


def corpus_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".mat", ".txt")
                  and "gnubg-analysis-export" not in p.parts)


def peak_rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / (1024 * 1024)


def replay_all(files: list[Path], ids: bool) -> tuple[int, int, int, int]:
    matches = games = decisions = failed = 0
    for f in files:
        for m in read_matches(f):
            matches += 1
            failed += len(m.errors)
            for g in replay_games(m):
                games += 1
                if not g.ok:
                    failed += 1
                decisions += len(g.decisions)
                if ids:
                    for d in g.decisions:
                        decision_ids(d)
    return matches, games, decisions, failed


def speed(files: list[Path], ids: bool) -> None:
    replay_all(files[:3], ids)  # load the compiled kernel and warm the caches
    t0, w0 = time.process_time(), time.perf_counter()
    matches, games, decisions, failed = replay_all(files, ids)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    print(f"speed: {matches} matches, {games} games, {decisions} decisions, {failed} failures")
    print(f"speed: {cpu:.1f} s CPU, {wall:.1f} s wall -> {matches / cpu:.1f} matches/s per CPU second "
          f"({matches / wall:.1f} wall), {decisions / cpu:.0f} decisions/s")


def make_archive(files: list[Path], count: int, path: str) -> int:
    n = 0
    with open(path, "wb") as out:
        while n < count:
            for f in files:
                out.write(f.read_bytes())
                out.write(b"\n")
                n += 1
                if n >= count:
                    break
    return n


def memory(files: list[Path], count: int, traced: int) -> None:
    fd, path = tempfile.mkstemp(suffix=".mat")
    os.close(fd)
    try:
        make_archive(files, count, path)
        size = os.path.getsize(path) / 2**20
        before = peak_rss_mb()
        tracemalloc.start()
        n = 0
        for m in read_matches(path):
            for g in replay_games(m):
                for _ in g.decisions:
                    pass
            n += 1
            if n == traced:
                traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
        if tracemalloc.is_tracing():
            traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        after = peak_rss_mb()
        print(f"memory: archive of {n} matches, {size:.0f} MB on disk")
        print(f"memory: peak RSS {before:.0f} MB before streaming, {after:.0f} MB after; "
              f"peak Python allocations over the first {min(n, traced)} matches {traced_peak:.1f} MB")
    finally:
        os.unlink(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(Path(__file__).parent.parent / "tests" / "data" / "corpus"))
    ap.add_argument("--archive-matches", type=int, default=20000)
    ap.add_argument("--traced", type=int, default=500, help="matches streamed under tracemalloc")
    ap.add_argument("--skip-archive", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--ids", action="store_true", help="also compute the IDs of every decision")
    args = ap.parse_args()
    files = corpus_files(Path(args.corpus))
    if not args.skip_speed:
        speed(files, args.ids)
    if not args.skip_archive:
        memory(files, args.archive_matches, args.traced)


if __name__ == "__main__":
    main()
