"""Speed of ``bgreview profile``: a player with many matches in a 0-ply batch dataset.

    python bench/profile.py DATASET --player NAME [--repeat 3] [--scale-to N] [--snapshot]

Times, on this machine: ``player_profile`` in this process (reading the dataset lazily, every
figure, the worst decisions; the first call and the best of ``--repeat``), then a fresh
``python -m analyzer profile`` process as a user runs it (start-up and printing included). Prints the
dataset's size (matches of the player, all decisions) beside each time. Target: at most 5 s for a
player with 300 matches on the development machine's 2 cores.

``--scale-to N``: when the dataset holds fewer than N of the player's matches, time a copy in a
temporary folder where the parts are repeated (each copy's ``file`` renamed, so the copies count as
other matches) until the player has at least N: the same decisions, more of them. The report says
so; it measures how the time grows with the archive, not a bigger real archive.

Build the dataset with, e.g. (the 0-ply review of one player's matches, in the background):

    nice -n 19 bgreview batch FILES... --out /work/runs/NAME-ply0 --ply 0 --jobs 1 [--resume]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from analyzer.batch.profile import player_profile


def player_matches(dataset: Path, player: str) -> tuple[int, int]:
    """The player's matches and all decisions of the dataset."""
    m = pl.read_parquet(dataset / "matches.parquet", columns=["player_0", "player_1"])
    who = player.strip().lower()
    mine = m.filter((pl.col("player_0").str.to_lowercase() == who) | (pl.col("player_1").str.to_lowercase() == who))
    rows = pl.scan_parquet(dataset / "decisions" / "*.parquet").select(pl.len()).collect().item()
    return mine.height, int(rows)


def snapshot(dataset: Path, into: Path) -> Path:
    """The parts ``dataset`` holds so far (a run still writing it), linked into ``into`` with a
    matches table built from the parts' own match rows: a dataset ``player_profile`` reads."""
    from analyzer.batch.layout import read_part_meta
    from analyzer.batch.tables import MATCHES_SCHEMA

    out = into / "snapshot"
    (out / "decisions").mkdir(parents=True)
    rows = []
    for part in sorted((dataset / "decisions").glob("*.parquet")):
        meta = read_part_meta(part) or {}
        if meta.get("match") is None:
            continue
        (out / "decisions" / part.name).hardlink_to(part)
        rows.append(meta["match"])
    pl.DataFrame(rows, schema=MATCHES_SCHEMA, orient="row").write_parquet(out / "matches.parquet")
    return out


def scaled_copy(dataset: Path, player: str, target: int, into: Path) -> Path:
    """A copy of ``dataset`` whose parts repeat until ``player`` has ``target`` matches."""
    have, _ = player_matches(dataset, player)
    copies = max(1, -(-target // max(1, have)))
    out = into / "scaled"
    (out / "decisions").mkdir(parents=True)
    matches = pl.read_parquet(dataset / "matches.parquet")
    frames = []
    for k in range(copies):
        for part in sorted((dataset / "decisions").glob("*.parquet")):
            frame = pl.read_parquet(part)
            if k:
                frame = frame.with_columns((pl.col("file") + f"#copy{k}").alias("file"))
            frame.write_parquet(out / "decisions" / f"c{k}-{part.name}")
        frames.append(matches.with_columns((pl.col("file") + (f"#copy{k}" if k else "")).alias("file"),
                                           (pl.lit(f"c{k}-") + pl.col("part")).alias("part")))
    pl.concat(frames).write_parquet(out / "matches.parquet")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--player", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale-to", type=int, default=0)
    ap.add_argument("--snapshot", action="store_true",
                    help="the dataset is still being written: profile the parts done so far")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dataset.parent if args.snapshot else None) as tmp:
        data = snapshot(args.dataset, Path(tmp)) if args.snapshot else args.dataset
        matches, rows = player_matches(data, args.player)
        print(f"dataset {data}: {args.player} in {matches} matches, {rows:,} decisions in all")
        if args.scale_to and matches < args.scale_to:
            data = scaled_copy(data, args.player, args.scale_to, Path(tmp))
            matches, rows = player_matches(data, args.player)
            print(f"scaled copy (parts repeated, files renamed): {matches} matches, {rows:,} decisions")
        times, cpus = [], []
        for _ in range(max(1, args.repeat)):
            t0, c0 = time.perf_counter(), time.process_time()
            p = player_profile(data, args.player)
            times.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        print(f"player_profile: first {times[0]:.2f} s, best of {len(times)} {min(times):.2f} s wall "
              f"(CPU {min(cpus):.2f} s, all threads) "
              f"({p.decisions:,} of the player's unforced decisions, {len(p.classes)} classes, "
              f"{p.peers} other players)")
        cmd = [sys.executable, "-m", "analyzer", "profile", str(data), "--player", args.player]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, check=False, env=None)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(f"bgreview profile (fresh process, table output): {wall:.2f} s wall, {cpu:.2f} s CPU, "
              f"exit {res.returncode}, {len(res.stdout.splitlines())} lines; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        if res.returncode:
            print(res.stderr[-2000:])
        shutil.rmtree(Path(tmp) / "scaled", ignore_errors=True)


if __name__ == "__main__":
    main()
