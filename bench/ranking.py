"""Per-decision cost: one 0-ply ranking of all plays of a roll, called from Python one at a time.

Times ``Engine().rank_plays(position, dice, 0)`` call by call over a fixed, seeded set of real
positions with their rolls, and, when the ``gnubg`` wheel is importable, GNU Backgammon's
``findbestmoves`` (cubeless 0-ply, the same board and dice; gnubg is only a referee here) on the
same positions in the same run, interleaved call by call so that both see the same machine load.
The positions:

* ``sample``: every checker decision of the shipped 7-point sample (its recorded roll);
* ``opening``: the starting position with each of the 21 rolls;
* ``selfplay``: positions of seeded 0-ply self-play games (contact and race), a seeded roll each.

Each (position, roll) is ranked once per pass and every pass meets new positions for neither
engine's cache (``--warm`` adds a second pass over the same positions: cache hits). Prints the
median microseconds per call by group and overall, for both, and the ratio.

Usage::

    python bench/ranking.py                   # the sample, the opening, 300 self-play positions
    python bench/ranking.py --selfplay 1000 --warm
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

from analyzer.analysis.replay import replay_games
from analyzer.core.ids import encode_position_id
from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.eval.selfplay import GameBuffers, play_seeded
from analyzer.formats import read_any

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "boardlord-llabba-7p.mat"
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]

Case = tuple[str, Position, tuple[int, int]]


def sample_cases(path: Path) -> list[Case]:
    """Every checker decision of a match file, with its roll."""
    [record, *_] = list(read_any(str(path)))
    out: list[Case] = []
    for g in replay_games(record):
        for d in g.decisions:
            if d.kind == "move" and d.dice is not None:
                out.append(("sample", d.position, d.dice))
    return out


def selfplay_cases(engine: Engine, n: int, seed: int) -> list[Case]:
    """``n`` positions of seeded self-play games (no finished ones), each with a seeded roll."""
    rng = np.random.default_rng(seed)
    buf = GameBuffers()
    boards: list[bytes] = []
    g = 0
    while len(boards) < 4 * n:
        t, _ = play_seeded(engine.nets, seed * 1000 + g, 0.0, buf)
        boards.extend(buf.states[i].tobytes() for i in range(t))
        g += 1
    out: list[Case] = []
    for i in rng.permutation(len(boards)):
        pos = Position(boards[int(i)])
        if pos.game_over() is None:
            out.append(("selfplay", pos, ROLLS[int(rng.integers(21))]))
        if len(out) == n:
            break
    return out


def gnubg_ranker() -> Any:
    """A function ranking (position, dice) with gnubg's cubeless 0-ply ``findbestmoves``, or None."""
    if importlib.util.find_spec("gnubg") is None:
        return None
    import gnubg  # type: ignore[import-not-found]

    ec = gnubg.evalcontext(0, 0, 0, 0, 0)
    ci = gnubg.cubeinfo()
    find = gnubg.findbestmoves

    def prepare(pos: Position) -> Any:
        return gnubg.positionfromid(encode_position_id(pos))

    def rank(board: Any, dice: tuple[int, int]) -> Any:
        return find(board, ci, ec, dice)

    return prepare, rank


def time_pass(engine: Engine, cases: list[Case], gnu: Any, boards: list[Any]) -> dict[str, list[float]]:
    """Seconds per call, by group and engine, over one pass (ours then gnubg's, call by call)."""
    clock = time.perf_counter
    times: dict[str, list[float]] = {}
    rank = engine.rank_plays
    for (group, pos, dice), gb in zip(cases, boards, strict=True):
        t0 = clock()
        rank(pos, dice, 0)
        t1 = clock()
        times.setdefault(f"ours/{group}", []).append(t1 - t0)
        if gnu is not None:
            t0 = clock()
            gnu[1](gb, dice)
            t1 = clock()
            times.setdefault(f"gnubg/{group}", []).append(t1 - t0)
    return times


def summary(times: dict[str, list[float]]) -> dict[str, Any]:
    """Median microseconds per call by group and over all, and our time over gnubg's."""
    out: dict[str, Any] = {}
    groups = sorted({k.split("/")[1] for k in times})
    for who in ("ours", "gnubg"):
        rows = {g: times[f"{who}/{g}"] for g in groups if f"{who}/{g}" in times}
        if not rows:
            continue
        med = {g: round(1e6 * median(v), 1) for g, v in rows.items()}
        med["all"] = round(1e6 * median([x for v in rows.values() for x in v]), 1)
        out[f"{who}_us"] = med
    if "gnubg_us" in out:
        out["ratio"] = {g: round(out["ours_us"][g] / out["gnubg_us"][g], 2) for g in out["gnubg_us"]}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(SAMPLE), help="match whose checker decisions are ranked (the 7-point sample)")
    ap.add_argument("--selfplay", type=int, default=300, help="self-play positions (default 300)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--warm", action="store_true", help="also time a second pass over the same positions")
    ap.add_argument("--no-gnubg", action="store_true", help="time ours alone")
    args = ap.parse_args(argv)
    engine = Engine()
    cases = sample_cases(Path(args.file)) + [("opening", Position.start(), r) for r in ROLLS]
    cases += selfplay_cases(engine, args.selfplay, args.seed)
    gnu = None if args.no_gnubg else gnubg_ranker()
    boards = [gnu[0](p) if gnu is not None else None for _, p, _ in cases]
    # warm up both (compilation, bear-off databases) on positions outside the timed set, then start cold
    for d in ROLLS:
        engine.rank_plays(Position.from_notation("P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2"), d, 0)
        if gnu is not None:
            gnu[1](gnu[0](Position.from_notation("P 6:5 5:5 4:5 | O 24:5 23:5 22:4 21:1")), d)
    engine.clear_cache()
    res: dict[str, Any] = {"calls": len(cases), "gnubg": gnu is not None}
    res["cold"] = summary(time_pass(engine, cases, gnu, boards))
    if args.warm:
        res["warm"] = summary(time_pass(engine, cases, gnu, boards))
    sys.stdout.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
