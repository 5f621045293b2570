"""Strength benchmark: cubeless money games with duplicate dice, our 0-ply against a referee.

Each dice sequence is played twice with the sides swapped; the report gives points per game
and its standard error over the pairs. Opponents:

* ``pubeval``: Tesauro's published linear benchmark evaluator (our own encoder, his weights from
  ``bench/data/pubeval_weights.json``; used only here);
* ``gnubg``: GNU Backgammon's 0-ply through the ``gnubg`` PyPI wheel (installed only for this
  benchmark; a referee, never a training signal);
* ``heuristic``: the fixed hand-weighted baseline of the training curve;
* ``nets:PATH``: another net set or training checkpoint (e.g. an earlier generation).

Usage::

    python bench/strength.py --nets data/nets/standard.npz --opponent pubeval --pairs 1000
    python bench/strength.py --checkpoint lab/checkpoints/td.npz --opponent pubeval --pairs 1000
    python bench/strength.py --variant dutch --opponent heuristic --pairs 1000   # bench/variant_strength.py
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from analyzer.core.layout import VAR_STANDARD
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.net import NetSet
from analyzer.eval.selfplay import (
    MAX_PLIES,
    PLAYER_HEURISTIC,
    PLAYER_NET,
    START_BOARD,
    choose,
    duel_dice,
    duel_scratch,
)
from analyzer.rules.kernel import Workspace, flip_into, generate

jitcache.refresh_module(__file__, ("eval/selfplay.py",))  # its kernels call the self-play kernels

PLAYER_PUBEVAL = 2
WEIGHTS = Path(__file__).with_name("data") / "pubeval_weights.json"


def load_pubeval() -> tuple[np.ndarray, np.ndarray]:
    doc = json.loads(WEIGHTS.read_text())
    return np.array(doc["race"], np.float64), np.array(doc["contact"], np.float64)


@njit(cache=True)
def pubeval_score(cand: np.ndarray, race: bool, wr: np.ndarray, wc: np.ndarray) -> float:
    """Tesauro's linear score of an afterstate seen from the side that just moved."""
    if cand[26] >= 15:
        return 1e9
    w = wr if race else wc
    s = 0.0
    for k in range(24):
        n = cand[24 - k]
        j = 5 * k
        if n == -1:
            s += w[j]
        elif n == 1:
            s += w[j + 1]
        elif n >= 2:
            s += w[j + 2]
            if n == 3:
                s += w[j + 3]
            elif n >= 4:
                s += w[j + 4] * (n - 3) * 0.5
    s += w[120] * cand[0] * 0.5
    s += w[121] * cand[26] / 15.0
    return s


@njit(cache=True)
def _pick(board, d1, d2, W, kind, wr, wc, pool, phash, parent, hfrom, hto, hhit, ptag, pterm, table,
          tstamp, stampbox, results, tmp, xc, xr, hid, pa, pb, bp):
    if kind != PLAYER_PUBEVAL:
        return choose(board, d1, d2, W, kind, 0.0, pool, phash, parent, hfrom, hto, hhit, ptag, pterm,
                      table, tstamp, stampbox, results, tmp, xc, xr, hid, pa, pb, bp)
    n = generate(board, d1, d2, VAR_STANDARD, 0, pool, phash, parent, hfrom, hto, hhit, ptag, pterm,
                 table, tstamp, stampbox, results)
    if n < 0:
        return -1
    race = F.classify(board) == F.CLASS_RACE
    best = -1e30
    best_row = results[0]
    for k in range(n):
        s = pubeval_score(pool[results[k]], race, wr, wc)
        if s > best:
            best = s
            best_row = results[k]
    return best_row


@njit(cache=True)
def duel_pairs(seeds, WA, kindA, WB, kindB, wr, wc, pool, phash, parent, hfrom, hto, hhit, ptag, pterm,
               table, tstamp, stampbox, results, points):
    """A's points for each seed's two games (A first, then B first) with the same rolls."""
    dice = np.zeros((MAX_PLIES, 2), np.int64)
    tmp, xc, xr, hid, pa, pb, bp = duel_scratch(WA, WB)
    for i in range(seeds.shape[0]):
        duel_dice(seeds[i], dice)
        for g in range(2):
            board = START_BOARD.copy()
            side = g
            res = 0
            for t in range(MAX_PLIES):
                if side == 0:
                    row = _pick(board, dice[t, 0], dice[t, 1], WA, kindA, wr, wc, pool, phash, parent, hfrom,
                                hto, hhit, ptag, pterm, table, tstamp, stampbox, results, tmp, xc, xr, hid,
                                pa, pb, bp)
                else:
                    row = _pick(board, dice[t, 0], dice[t, 1], WB, kindB, wr, wc, pool, phash, parent, hfrom,
                                hto, hhit, ptag, pterm, table, tstamp, stampbox, results, tmp, xc, xr, hid,
                                pa, pb, bp)
                if row < 0:
                    break
                chosen = pool[row]
                if chosen[26] >= 15:
                    pts = F.game_over_outcome(chosen) + 1
                    res = pts if side == 0 else -pts
                    break
                flip_into(chosen, board)
                side = 1 - side
            points[2 * i + g] = res


def _load_player(spec: str) -> tuple[NetSet | None, int]:
    if spec == "pubeval":
        return None, PLAYER_PUBEVAL
    if spec == "heuristic":
        return None, PLAYER_HEURISTIC
    path = spec.split(":", 1)[1] if spec.startswith("nets:") else spec
    return _load_nets(path), PLAYER_NET


def _load_nets(path: str) -> NetSet:
    from bglab.checkpoint import load_nets

    return load_nets(path)


def _gnubg_duel(a: NetSet, pairs: int, seed: int, bearoff: bool = False) -> np.ndarray:
    """Duplicate-dice duel against GNU Backgammon's 0-ply (``gnubg`` wheel, referee only): for
    each roll gnubg's player evaluates every legal result of *our* move generator with
    ``gnubg.evaluate`` and plays the best. Python loop, so slower than the compiled duels.
    ``bearoff``: our side plays the product's 0-ply (the nets and our bear-off databases, as
    ``Engine`` evaluates; gnubg's 0-ply reads its own databases too) instead of the nets alone."""
    import gnubg

    from bglab.duplicate import duplicate_games, gnubg_equity, our_equities  # the referee's duel: the lab

    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    ours = our_equities(a, bearoff)

    def choose(side: int, pos: Any, dice: tuple[int, int], fl: np.ndarray, ply: int) -> int:
        eq = -ours(fl) if side == 0 else np.array([-gnubg_equity(b) for b in fl])
        return int(np.argmax(eq))

    return duplicate_games(pairs, seed, choose)


def run(a: NetSet, opponent: str, pairs: int, seed: int = 2026, bearoff: bool = False) -> dict[str, float]:
    """Duel ``a`` against ``opponent``; returns ppg, its standard error and the win rate
    (``bearoff``: against gnubg, our side with the bear-off databases, see :func:`_gnubg_duel`)."""
    if opponent == "gnubg":
        t0 = time.time()
        pts = _gnubg_duel(a, pairs, seed, bearoff)
        pair = pts.reshape(-1, 2).mean(axis=1)
        return {"games": 2 * pairs, "ppg": float(pts.mean()), "se": float(pair.std(ddof=1) / math.sqrt(pairs)),
                "win_rate": float((pts > 0).mean()), "seconds": round(time.time() - t0, 1)}
    b, kb = _load_player(opponent)
    dummy = NetSet.initial(hidden=1, race_hidden=1, seed=0)
    wr, wc = load_pubeval()
    ws = Workspace(8192)
    seeds = np.arange(seed * 100_000, seed * 100_000 + pairs, dtype=np.int64)
    pts = np.zeros(2 * pairs, np.int64)
    t0 = time.time()
    duel_pairs(seeds, a.kernel_args(), PLAYER_NET, (b or dummy).kernel_args(), kb, wr, wc, *ws.args(), pts)
    dt = time.time() - t0
    pair = pts.reshape(-1, 2).mean(axis=1)
    return {"games": 2 * pairs, "ppg": float(pts.mean()), "se": float(pair.std(ddof=1) / math.sqrt(pairs)),
            "win_rate": float((pts > 0).mean()), "seconds": round(dt, 1)}


def main() -> int:
    if any(a == "--variant" or a.startswith("--variant=") for a in sys.argv[1:]):
        # Dutch / Mahbusa: bench/variant_strength.py (same options: --nets, --opponent, --pairs)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from variant_strength import main as variant_main

        return int(variant_main(sys.argv[1:]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--nets", default=None, help="net set (.npz); default data/nets/standard.npz")
    src.add_argument("--checkpoint", help="training checkpoint (.npz)")
    ap.add_argument("--opponent", default="pubeval", help="pubeval | gnubg | heuristic | nets:PATH")
    ap.add_argument("--pairs", type=int, default=1000, help="dice sequences (2 games each)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--bearoff", action="store_true",
                    help="against gnubg: our side evaluates with the bear-off databases as the product's 0-ply does "
                         "(gnubg's 0-ply reads its own); without it, the nets alone")
    args = ap.parse_args()
    if args.bearoff and args.opponent != "gnubg":
        ap.error("--bearoff applies to --opponent gnubg (the compiled duels play the nets alone on both sides)")
    a = _load_nets(args.checkpoint or args.nets or "data/nets/standard.npz")
    res = run(a, args.opponent, args.pairs, args.seed, args.bearoff)
    res["bearoff"] = bool(args.bearoff)
    sys.stdout.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
