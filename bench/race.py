"""Race evaluation benchmark: our race evaluations against the exact two-sided bear-off database.

Sections (cubeless money equity of the side on roll; errors are |equity - reference|):

1. every pair of the exact two-sided database (at most 6 checkers a side, all home; 851,929
   positions, or a seeded ``--sample``):
   a. the engine's 0-ply as shipped (it consults the exact database: should be exact);
   b. the one-sided database convolution: what the engine's 0-ply returns for home-board races
      when the exact database is not consulted (more than 6 checkers on a side);
   c. the race net alone (the raw 0-ply player's race evaluation), over all pairs and over the
      hold-out pairs that :mod:`bglab.race` never trains on;
   d. the engine's 1- and 2-ply lookahead with the exact table left out (``Engine(two_sided=False)``:
      the one-sided convolution at the leaves), on a seeded sample of ``--lookahead`` pairs: how
      close our race evaluation gets where no exact table exists;
2. home-board races with more than 6 checkers on a side (seeded sample): the race net against the
   one-sided convolution (gammons included; the convolution is itself an approximation, see 1b);
3. races with checkers outside the home boards (from seeded self-play of the nets): the race net
   against the engine's ``--outside-ply`` lookahead (databases wherever a line reaches them, the
   net elsewhere), a consistency check rather than an exact reference.

Run: ``.venv/bin/python bench/race.py [--nets data/nets/standard.npz] [--sample N] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.eval.engine import Engine
from analyzer.eval.net import evaluate_boards
from bglab.checkpoint import load_nets
from bglab.learner import outcome_equity
from bglab.race import (
    all_db_pairs,
    bearoff_classes,
    db_boards,
    home_boards,
    is_holdout,
    selfplay_races,
)


def _stats(pred: NDArray[np.float64], ref: NDArray[np.float64]) -> dict[str, float]:
    d = pred - ref
    a = np.abs(d)
    return {"n": int(len(d)), "mean_abs": round(float(a.mean()), 6), "max_abs": round(float(a.max()), 6),
            "mean_signed": round(float(d.mean()), 6), "p99_abs": round(float(np.quantile(a, 0.99)), 6)}


def _one_sided(boards: NDArray[np.int8]) -> NDArray[np.float32]:
    """The one-sided convolution for home-board boards (the engine's class-1 path)."""
    from analyzer.eval.bearoff import BearoffDB, race_probs_board

    db = BearoffDB.one_sided()
    out = np.zeros((len(boards), 6), np.float32)
    c = np.zeros(5, np.float64)
    for i in range(len(boards)):
        race_probs_board(db.dist, db.first, boards[i], c)
        out[i] = (c[0] - c[1], c[1] - c[2], c[2], 1.0 - c[0] - c[3], c[3] - c[4], c[4])
    return out


def run(nets_path: str, sample: int, home: int, outside: int, outside_ply: int, seed: int,
        lookahead: int = 0) -> dict[str, Any]:
    nets = load_nets(nets_path)
    eng = Engine(nets, cache_size=0, prune=False)
    res: dict[str, Any] = {"nets": nets_path}
    xs, ys = all_db_pairs()
    if 0 < sample < len(xs):
        pick = np.sort(np.random.default_rng(seed).choice(len(xs), size=sample, replace=False))
        xs, ys = xs[pick], ys[pick]
    t0 = time.time()
    boards = db_boards(xs, ys)
    exact = outcome_equity(eng.evaluate_boards(boards, 0))
    from analyzer.eval.bearoff import BearoffDB

    win = np.asarray(BearoffDB.two_sided().win, dtype=np.float64)[xs, ys]
    res["db_engine_0ply"] = _stats(exact, 2.0 * win - 1.0)
    res["db_one_sided"] = _stats(outcome_equity(_one_sided(boards)), exact)
    net = outcome_equity(evaluate_boards(nets, boards))
    res["db_net"] = _stats(net, exact)
    hold = is_holdout(xs, ys)
    res["db_net_holdout"] = _stats(net[hold], exact[hold])
    res["db_seconds"] = round(time.time() - t0, 1)
    if lookahead > 0:
        no_exact = Engine(nets, two_sided=False, cache_size=0, prune=False)
        pick = np.sort(np.random.default_rng(seed + 3).choice(len(boards), size=min(lookahead, len(boards)),
                                                              replace=False))
        for ply in (1, 2):
            t1 = time.time()
            looked = outcome_equity(no_exact.evaluate_boards(boards[pick], ply))
            res[f"db_one_sided_{ply}ply"] = _stats(looked, exact[pick])
            res[f"db_one_sided_{ply}ply_seconds"] = round(time.time() - t1, 1)
    rng = np.random.default_rng(seed + 1)
    hb = home_boards(home, rng)
    hb = hb[bearoff_classes(hb) == 1]
    res["home_net_vs_one_sided"] = _stats(outcome_equity(evaluate_boards(nets, hb)), outcome_equity(_one_sided(hb)))
    if outside > 0:
        sp = selfplay_races(nets, max(1, outside // 4), seed)
        sp = sp[bearoff_classes(sp) == 0]
        sp = sp[np.random.default_rng(seed + 2).permutation(len(sp))[:outside]]
        t1 = time.time()
        ref = outcome_equity(eng.evaluate_boards(sp, outside_ply))
        res[f"outside_net_vs_{outside_ply}ply"] = _stats(outcome_equity(evaluate_boards(nets, sp)), ref)
        res["outside_seconds"] = round(time.time() - t1, 1)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nets", default="data/nets/standard.npz", help="net set or checkpoint")
    ap.add_argument("--sample", type=int, default=0, help="seeded sample of database pairs (0: all)")
    ap.add_argument("--home", type=int, default=100_000, help="home-board races with > 6 checkers a side")
    ap.add_argument("--outside", type=int, default=1000, help="races with checkers outside (0: skip)")
    ap.add_argument("--outside-ply", type=int, default=2)
    ap.add_argument("--lookahead", type=int, default=5000,
                    help="database pairs for the 1- and 2-ply lookahead without the exact table (0: skip)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    res = run(args.nets, args.sample, args.home, args.outside, args.outside_ply, args.seed, args.lookahead)
    text = json.dumps(res, indent=1)
    sys.stdout.write(text + "\n")
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
