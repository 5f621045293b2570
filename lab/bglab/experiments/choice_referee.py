"""A paired screen of candidate nets' 0-ply choices on a fixed set of decisions, valued by a referee.

Games against gnubg's 0-ply (``bench/strength.py``) are what the evaluator issue measures, but two
candidates a few thousandths of a point apart need hundreds of thousands of games to tell apart:
the dice, not the nets, make most of the variance. This screen takes that variance out. It fixes
the decisions once (the positions and rolls our side met in duplicate-dice games against gnubg's
0-ply, each with the list of its legal results), lets every candidate net choose a play in each,
and values each chosen result by GNU Backgammon's 2-ply (the ``gnubg`` wheel: a yardstick, never
a training label). Where two nets choose the same result their values are the same, so the paired
difference rests only on the decisions where they differ.

It is a proxy: gnubg's 2-ply is not the truth, and the decisions are those of the recording net's
games, not each candidate's own. The duplicate-dice games stay the figure that ships a net.

    # record the decisions (once): 500 pairs of games, the reference net against gnubg's 0-ply
    python -m bglab.experiments.choice_referee record --nets data/nets/standard.npz --pairs 500 \\
        --seed 3001 --out runs/referee_decisions.npz
    # screen nets (the first is the reference of the paired differences); values cached beside the file
    python -m bglab.experiments.choice_referee score --decisions runs/referee_decisions.npz \\
        --nets data/nets/standard.npz runs/cand_a.npz runs/cand_b.npz
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.analysis.themes import position_theme
from analyzer.core.position import Position
from bglab.checkpoint import load_nets
from bglab.duplicate import duplicate_games, gnubg_equity, our_equities


def record(nets_path: str, pairs: int, seed: int, out: str) -> dict[str, Any]:
    """Play ``pairs`` duplicate-dice pairs, ``nets_path`` (with the bear-off databases) against gnubg's
    0-ply, and save every decision of ours with two or more legal results: the position before it,
    the roll and the results (the move generator's distinct results, each from the opponent's side
    as it flips them, in ``results[starts[i]:starts[i + 1]]``)."""
    import gnubg  # type: ignore[import-not-found]

    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    ours = our_equities(load_nets(nets_path), True)
    before: list[np.ndarray] = []
    results: list[np.ndarray] = []
    starts = [0]
    rolls: list[tuple[int, int]] = []

    def choose(side: int, pos: Position, d: tuple[int, int], fl: np.ndarray, t: int) -> int:
        if side != 0:
            return int(np.argmax([-gnubg_equity(b) for b in fl]))
        if len(fl) > 1:  # legal_results are distinct already
            before.append(np.frombuffer(pos.board, np.int8).copy())
            results.append(fl.copy())
            starts.append(starts[-1] + len(fl))
            rolls.append(d)
        return int(np.argmax(-ours(fl)))

    t0 = time.time()
    pts = duplicate_games(pairs, seed, choose)
    np.savez_compressed(out, before=np.stack(before), results=np.concatenate(results),
                        starts=np.array(starts, np.int64), dice=np.array(rolls, np.int64).reshape(-1, 2),
                        meta=np.array(json.dumps({"nets": nets_path, "pairs": pairs, "seed": seed,
                                                  "games": 2 * pairs, "ppg": float(pts.mean())})))
    return {"decisions": len(before), "results": int(starts[-1]), "games": 2 * pairs,
            "seconds": round(time.time() - t0, 1)}


def _cache_path(decisions: str, ply: int) -> Path:
    return Path(decisions).with_suffix(f".gnubg{ply}.npz")


def score(decisions: str, nets: list[str], ply: int) -> dict[str, Any]:
    """Each net's 0-ply choice in every recorded decision, valued by gnubg at ``ply`` (cached by
    result), as the mean equity of the chosen results for the side that chose; paired differences
    against the first net, with their standard errors, overall and by theme."""
    import gnubg

    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    d = np.load(decisions)
    before, res, starts = d["before"], d["results"], d["starts"]
    meta = json.loads(str(d["meta"]))
    n = len(before)
    cache_file = _cache_path(decisions, ply)
    cache: dict[bytes, float] = {}
    if cache_file.exists():
        c = np.load(cache_file)
        cache = {bytes(k): float(v) for k, v in zip(c["keys"], c["values"], strict=True)}
    fresh = 0
    themes = [position_theme(Position(b.tobytes())) for b in before]
    picks = np.zeros((len(nets), n), np.int64)
    for j, path in enumerate(nets):
        eq = our_equities(load_nets(path), True)
        ours = -eq(res)  # each result is seen from the opponent: our equity is minus theirs
        for i in range(n):
            picks[j, i] = starts[i] + int(np.argmax(ours[starts[i]:starts[i + 1]]))
    values = np.zeros((len(nets), n))
    for j in range(len(nets)):
        for i in range(n):
            key = res[picks[j, i]].tobytes()
            if key not in cache:
                cache[key] = -gnubg_equity(res[picks[j, i]], ply)
                fresh += 1
            values[j, i] = cache[key]
    keys = np.array([np.frombuffer(k, np.int8) for k in cache])
    np.savez_compressed(cache_file, keys=keys, values=np.array(list(cache.values())))
    per_game = n / meta["games"]
    rows: list[dict[str, Any]] = []
    for j, path in enumerate(nets):
        diff = values[j] - values[0]
        row: dict[str, Any] = {"nets": path, "mean_value": float(values[j].mean()),
                               "differ_from_first": int((picks[j] != picks[0]).sum()),
                               "diff_per_game": float(diff.mean() * per_game),
                               "se_per_game": float(diff.std(ddof=1) / math.sqrt(n) * per_game) if j else 0.0}
        by: dict[str, list[float]] = defaultdict(list)
        for i in range(n):
            by[themes[i]].append(float(diff[i]))
        row["by_theme_per_game"] = {t: sum(v) / meta["games"] for t, v in sorted(by.items())}
        rows.append(row)
    return {"decisions": n, "games": meta["games"], "ply": ply, "gnubg_evaluations": fresh, "nets": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--nets", default="data/nets/standard.npz")
    r.add_argument("--pairs", type=int, default=500)
    r.add_argument("--seed", type=int, default=3001)
    r.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("--decisions", required=True)
    s.add_argument("--nets", nargs="+", required=True)
    s.add_argument("--ply", type=int, default=2, help="gnubg's depth for the value of a chosen result")
    args = ap.parse_args(argv)
    if args.cmd == "record":
        out = record(args.nets, args.pairs, args.seed, args.out)
        sys.stdout.write(json.dumps(out) + "\n")
        return 0
    out = score(args.decisions, args.nets, args.ply)
    w = sys.stdout.write
    w(f"{out['decisions']} decisions of {out['games']} games; gnubg {out['ply']}-ply, "
      f"{out['gnubg_evaluations']} new evaluations\n")
    w(f"{'nets':44} {'differ':>6} {'vs first, per game':>20}\n")
    for row in out["nets"]:
        w(f"{row['nets'][-44:]:44} {row['differ_from_first']:6d} "
          f"{row['diff_per_game']:+10.4f} +- {row['se_per_game']:.4f}\n")
    w(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
