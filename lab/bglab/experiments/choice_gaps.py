"""Where our 0-ply's checker plays lose against GNU Backgammon's 0-ply, by theme and phase.

``bench/strength.py --opponent gnubg`` says how much our 0-ply loses per game; ``bench/blind_spots.py``
says where its equities are far from rollouts. Neither says which *choices* cost the points. This
driver plays the same duplicate-dice games as the strength bench (our nets, optionally with the
bear-off databases, against the ``gnubg`` wheel's 0-ply; a referee, never a training signal) and,
at each of our checker plays, asks which play gnubg's 0-ply would have made among the same legal
results. Where the two differ, both resulting positions are valued by gnubg's 2-ply (cubeless
money equity) and the difference is the choice's cost: a measurement of where to look, with
gnubg's 2-ply as the yardstick (it is not the truth; our own rollouts decide what we train on).

The output breaks the cost down by the theme and the phase of the position before the play
(``analyzer.analysis.themes``) and writes the worst choices (Position ID, dice, both plays' results,
cost) to a JSONL file, whose positions can be rolled out and labelled by our own code.

    python -m bglab.experiments.choice_gaps --pairs 300 --seed 2031 --out runs/choice_gaps.jsonl
    python -m bglab.experiments.choice_gaps --nets runs/v06f_fit.npz --pairs 300 --seed 2031
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

from analyzer.analysis.themes import game_phase, position_theme
from analyzer.core.ids import encode_position_id
from analyzer.core.position import Position
from analyzer.eval.net import NetSet
from bglab.checkpoint import load_nets
from bglab.duplicate import duplicate_games, gnubg_equity, our_equities


def run(nets: NetSet, pairs: int, seed: int, bearoff: bool, ply: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play ``pairs`` duplicate-dice pairs; return the breakdown and the differing choices."""
    import gnubg  # type: ignore[import-not-found]

    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    ours = our_equities(nets, bearoff)
    choices: list[dict[str, Any]] = []
    decisions: dict[tuple[str, str], int] = defaultdict(int)

    def choose(side: int, pos: Position, d: tuple[int, int], fl: np.ndarray, t: int) -> int:
        g0 = np.array([-gnubg_equity(b) for b in fl])
        if side != 0:
            return int(np.argmax(g0))
        k = int(np.argmax(-ours(fl)))
        if len(fl) > 1:
            theme, phase = position_theme(pos), game_phase(pos)
            decisions[(theme, phase)] += 1
            kg = int(np.argmax(g0))
            if kg != k and not np.array_equal(fl[kg], fl[k]):
                cost = -gnubg_equity(fl[kg], ply) + gnubg_equity(fl[k], ply)
                choices.append({"ply": t, "position": encode_position_id(pos), "dice": list(d),
                                "ours": encode_position_id(Position(fl[k].tobytes())),
                                "gnubg": encode_position_id(Position(fl[kg].tobytes())),
                                "theme": theme, "phase": phase, "cost": cost})
        return k

    pts = duplicate_games(pairs, seed, choose)
    games = 2 * pairs
    pair = pts.reshape(-1, 2).mean(axis=1)
    table: dict[str, Any] = {}
    for key in sorted(set(decisions) | {(c["theme"], c["phase"]) for c in choices}):
        cs = [c["cost"] for c in choices if (c["theme"], c["phase"]) == key]
        table[f"{key[0]} / {key[1]}"] = {"decisions": decisions[key], "differ": len(cs),
                                         "cost_per_game": sum(cs) / games,
                                         "mean_cost": (sum(cs) / len(cs)) if cs else 0.0}
    summary = {"games": games, "ppg": float(pts.mean()), "se": float(pair.std(ddof=1) / math.sqrt(pairs)),
               "decisions": sum(decisions.values()), "differ": len(choices),
               "cost_per_game": sum(c["cost"] for c in choices) / games, "by_theme_phase": table}
    return summary, choices


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nets", default="data/nets/standard.npz")
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2031)
    ap.add_argument("--ply", type=int, default=2, help="gnubg's depth for the cost of a differing choice")
    ap.add_argument("--bearoff", action="store_true", help="our side with the bear-off databases")
    ap.add_argument("--out", default="", help="JSONL of the differing choices, worst first")
    args = ap.parse_args(argv)
    t0 = time.time()
    summary, choices = run(load_nets(args.nets), args.pairs, args.seed, args.bearoff, args.ply)
    summary["seconds"] = round(time.time() - t0, 1)
    rows = sorted(summary.pop("by_theme_phase").items(), key=lambda kv: -kv[1]["cost_per_game"])
    w = sys.stdout.write
    w(f"{'theme / phase':34} {'decisions':>9} {'differ':>7} {'mean cost':>9} {'cost/game':>9}\n")
    for name, r in rows:
        w(f"{name:34} {r['decisions']:9d} {r['differ']:7d} {r['mean_cost']:9.4f} {r['cost_per_game']:9.4f}\n")
    w(json.dumps(summary) + "\n")
    if args.out:
        with Path(args.out).open("w") as fh:
            for c in sorted(choices, key=lambda c: -c["cost"]):
                fh.write(json.dumps(c) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
