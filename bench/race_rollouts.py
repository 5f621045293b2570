"""Race-net yardstick outside the bear-off databases: the race net's 0-ply against our played-out rollouts.

``bench/race.py`` checks the race net inside the two-sided database, where no race has a straggler.
This one draws race positions with checkers outside the home boards (bear-off class 0: where the
engine's race evaluation *is* the race net) from seeded self-play games of the nets (every ply of a
game from the one where it first becomes a race), classifies each by shape, takes a seeded sample of
at most ``--per-class`` positions of every class, and values each

* by the race net at 0-ply (what the engine returns for it), and
* by our own rollout: ``analyzer.eval.rollout.rollout``, cubeless, variance reduction on,
  ``--trials`` games (1,296 by default) played out to the bear-off databases.

It prints, per class, the bias (net minus rollout, mean signed) and the mean |error| of the side on
roll's win chance (in %) and of its cubeless equity, and the mean rollout standard error. The shape of
a side (:func:`side_shape`): ``home`` (every checker left is home), ``straggler`` (one or two checkers
outside, the farthest 7 or more pips outside the home board) or ``outside`` (any other race); the
class is ``mover/opponent``; where one side is a straggler, ``+s8`` marks 8 or more checkers off on
the straggler's side and ``+o8`` on the other side (issue 51's blind spot: a straggler with 10 off).
A second table splits the positions by the side on roll's pip count.

GNU Backgammon plays no part: the reference is our own rollouts.

Run: ``NUMBA_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/race_rollouts.py [--nets data/nets/standard.npz]
[--games 1500] [--per-class 40] [--seed 1] [--trials 1296] [--luck-prune] [--workers 1] [--json OUT]
[--save OUT.npz]``
(``--save`` writes the boards and their rollout values: training targets of ``bglab.race --rollout-targets``
when drawn with another seed than the held-out yardstick's; ``--from SAVED.npz --nets OTHER`` values the
saved boards with other nets against the saved rollouts, in seconds; ``--classes straggler`` keeps only the
classes whose name contains that word).
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

STRAGGLER_PIPS = 7
"""A checker this many pips or more outside its home board (on its point 13 or farther) is a straggler."""
MANY_OFF = 8
"""Checkers off that make a side "with most checkers off" against a straggler."""
PIP_EDGES = (40, 80)


def side_points(board: NDArray[np.int8], mover: bool) -> list[int]:
    """The points of one side's checkers left on the board, in its own numbering (25: the bar).

    >>> b = np.zeros(64, np.int8); b[3] = 2; b[24] = -1; b[0] = 1
    >>> side_points(b, True), side_points(b, False)
    ([3, 3], [1, 25])
    """
    pts: list[int] = []
    for p in range(1, 25):
        v = int(board[p])
        if mover and v > 0:
            pts += [p] * v
        elif not mover and v < 0:
            pts += [25 - p] * (-v)
    bar = int(board[25] if mover else board[0])
    pts += [25] * bar
    return pts


def side_shape(points: list[int]) -> str:
    """``home``, ``straggler`` (1 or 2 checkers outside, the farthest 7+ pips out) or ``outside``.

    >>> side_shape([1, 2, 6]), side_shape([1, 2, 13]), side_shape([1, 12]), side_shape([1, 14, 20, 20])
    ('home', 'straggler', 'outside', 'outside')
    """
    out = [p for p in points if p > 6]
    if not out:
        return "home"
    if len(out) <= 2 and max(out) >= 6 + STRAGGLER_PIPS:
        return "straggler"
    return "outside"


def shape_class(board: NDArray[np.int8]) -> str:
    """The class of a race position: ``mover/opponent`` shapes; where exactly one side is a
    straggler, ``+s8`` when the straggler's side has :data:`MANY_OFF` or more off and ``+o8`` when
    the other side has.

    >>> b = np.zeros(64, np.int8); b[1:4] = 1; b[26] = 5; b[0] = 1; b[24] = -4; b[27] = 10
    >>> shape_class(b)
    'home/straggler+s8'
    """
    ms = side_shape(side_points(board, True))
    os_ = side_shape(side_points(board, False))
    label = f"{ms}/{os_}"
    if (ms == "straggler") != (os_ == "straggler"):
        s_off, o_off = (int(board[26]), int(board[27])) if ms == "straggler" else (int(board[27]), int(board[26]))
        label += ("+s8" if s_off >= MANY_OFF else "") + ("+o8" if o_off >= MANY_OFF else "")
    return label


def pip_class(board: NDArray[np.int8]) -> str:
    """The side on roll's pip count range.

    >>> b = np.zeros(64, np.int8); b[6] = 10
    >>> pip_class(b)
    'pips 41-80'
    """
    pips = sum(side_points(board, True))
    lo = 0
    for hi in PIP_EDGES:
        if pips <= hi:
            return f"pips {lo + 1 if lo else 0}-{hi}"
        lo = hi
    return f"pips >{lo}"


def draw_positions(nets: Any, games: int, seed: int,
                   per_class: int) -> tuple[NDArray[np.int8], list[str], dict[str, int]]:
    """A seeded sample of class-0 race positions of ``games`` self-play games: at most ``per_class``
    of each shape class; returns the boards, their classes and how many each class had."""
    from bglab.race import bearoff_classes, selfplay_races

    sp = selfplay_races(nets, games, seed)
    sp = sp[bearoff_classes(sp) == 0]
    sp = np.unique(sp, axis=0)
    cls = [shape_class(b) for b in sp]
    found: dict[str, int] = {}
    for c in cls:
        found[c] = found.get(c, 0) + 1
    rng = np.random.default_rng(seed + 100)
    keep: list[int] = []
    for c in sorted(found):
        idx = np.array([i for i, k in enumerate(cls) if k == c], np.int64)
        if len(idx) > per_class:
            idx = np.sort(rng.choice(idx, size=per_class, replace=False))
        keep += idx.tolist()
    keep.sort()
    return sp[keep], [cls[i] for i in keep], found


def exclusive_outcomes(win: float, wg: float, wbg: float, lg: float, lbg: float) -> tuple[float, ...]:
    """The nets' six mutually exclusive outcomes from cumulative chances (gammons include backgammons).

    >>> exclusive_outcomes(0.6, 0.1, 0.02, 0.05, 0.0)
    (0.5, 0.08, 0.02, 0.35000000000000003, 0.05, 0.0)
    """
    return (win - wg, wg - wbg, wbg, 1.0 - win - lg, lg - lbg, lbg)


def _table(rows: dict[str, list[int]], net: NDArray[np.float64], ro: NDArray[np.float64],
           se: NDArray[np.float64]) -> list[dict[str, Any]]:
    out = []
    for c in sorted(rows):
        i = np.array(rows[c], np.int64)
        dw = 100.0 * (net[i, 0] - ro[i, 0])
        de = net[i, 1] - ro[i, 1]
        out.append({"class": c, "n": len(i), "win_bias": round(float(dw.mean()), 2),
                    "win_mae": round(float(np.abs(dw).mean()), 2), "eq_bias": round(float(de.mean()), 4),
                    "eq_mae": round(float(np.abs(de).mean()), 4), "ro_se": round(float(se[i].mean()), 4)})
    return out


def rollouts(nets: Any, boards: NDArray[np.int8], trials: int, workers: int, seed: int,
             luck_prune: bool = False) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Our cubeless, variance-reduced rollouts of ``boards`` with ``nets``' player, played out to the
    bear-off databases: the six exclusive outcomes and the equity's standard error of each."""
    from analyzer.core.position import Position
    from analyzer.eval.engine import Engine
    from analyzer.eval.rollout import RolloutSettings, rollout

    eng = Engine(nets)
    settings = RolloutSettings(trials=trials, workers=workers, cubeful=False, seed=seed, luck_prune=luck_prune)
    ro6 = np.zeros((len(boards), 6))
    se = np.zeros(len(boards))
    t0 = time.time()
    for k, b in enumerate(boards):
        c = rollout(eng, Position.from_array(b), settings).candidates[0]
        p = c.probabilities
        ro6[k] = exclusive_outcomes(p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon)
        se[k] = c.equity_se
        if (k + 1) % 10 == 0:
            sys.stderr.write(f"{k + 1}/{len(boards)} rolled out in {time.time() - t0:.0f} s\n")
    return ro6, se


def run(nets_path: str, games: int, seed: int, per_class: int, trials: int, workers: int,
        save: Path | None = None, source: Path | None = None, classes: str = "",
        luck_prune: bool = False) -> dict[str, Any]:
    """Draw, roll out and compare (or, with ``source``, compare on the boards and rollouts saved there);
    ``classes``: keep only the classes whose name contains one of these comma-separated words."""
    from analyzer.eval.net import evaluate_boards
    from bglab.checkpoint import load_nets
    from bglab.learner import EQUITY_WEIGHTS, outcome_equity

    nets = load_nets(nets_path)
    t0 = time.time()
    if source is not None:
        with np.load(source) as z:
            boards, ro6, se = z["boards"], z["rollout"].astype(np.float64), z["equity_se"]
            cls = [str(c) for c in z["classes"]]
            meta = json.loads(str(z["meta"])) if "meta" in z else {}
        found = meta.get("found", {})
        games, seed, trials = meta.get("games", games), meta.get("seed", seed), meta.get("trials", trials)
    else:
        boards, cls, found = draw_positions(nets, games, seed, per_class)
        if classes:
            words = classes.split(",")
            keep = [i for i, c in enumerate(cls) if any(w in c for w in words)]
            boards, cls = boards[keep], [cls[i] for i in keep]
    t1 = time.time()
    if source is None:
        ro6, se = rollouts(nets, boards, trials, workers, seed, luck_prune)
    out6 = evaluate_boards(nets, boards).astype(np.float64)
    net = np.stack([out6[:, :3].sum(axis=1), outcome_equity(out6)], axis=1)
    ro = np.stack([ro6[:, :3].sum(axis=1), ro6 @ EQUITY_WEIGHTS], axis=1)
    by_shape: dict[str, list[int]] = {}
    by_pips: dict[str, list[int]] = {}
    for k, b in enumerate(boards):
        by_shape.setdefault(cls[k], []).append(k)
        by_pips.setdefault(pip_class(b), []).append(k)
    by_shape["all"] = list(range(len(boards)))
    res = {"nets": nets_path, "games": games, "seed": seed, "trials": trials, "positions": len(boards),
           "found": dict(sorted(found.items())), "draw_seconds": round(t1 - t0, 1),
           "rollout_seconds": round(time.time() - t1, 1), "by_shape": _table(by_shape, net, ro, se),
           "by_pips": _table(by_pips, net, ro, se)}
    if save is not None and source is None:
        meta = {"nets": nets_path, "games": games, "seed": seed, "trials": trials, "found": res["found"]}
        np.savez_compressed(save, boards=boards, rollout=ro6.astype(np.float32), equity_se=se,
                            classes=np.array(cls), meta=np.array(json.dumps(meta)))
    return res


def _print(res: dict[str, Any]) -> None:
    print(f"nets {res['nets']}: {res['positions']} positions of {res['games']} self-play games (seed {res['seed']}), "
          f"{res['trials']} trials; draw {res['draw_seconds']} s, rollouts {res['rollout_seconds']} s")
    print("found per class: " + ", ".join(f"{k} {v}" for k, v in res["found"].items()))
    for key in ("by_shape", "by_pips"):
        print(f"\n{'class':24s} {'n':>4s} {'win bias%':>9s} {'win |e|%':>8s} {'eq bias':>8s} {'eq |e|':>7s} "
              f"{'ro se':>6s}")
        for r in res[key]:
            print(f"{r['class']:24s} {r['n']:4d} {r['win_bias']:9.2f} {r['win_mae']:8.2f} {r['eq_bias']:8.4f} "
                  f"{r['eq_mae']:7.4f} {r['ro_se']:6.4f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nets", default="data/nets/standard.npz", help="net set or checkpoint")
    ap.add_argument("--games", type=int, default=1500, help="seeded self-play games the positions come from")
    ap.add_argument("--per-class", type=int, default=40, help="at most this many positions a class")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--save", type=Path, help="write the boards and their rollout values (.npz)")
    ap.add_argument("--from", dest="source", type=Path,
                    help="value the boards of a --save file with --nets against its rollouts (no rollouts)")
    ap.add_argument("--classes", default="", help="only classes whose name contains one of these words (a,b)")
    ap.add_argument("--luck-prune", action="store_true",
                    help="measure each roll's luck with the pruned 0-ply search (about 3x cheaper, unbiased)")
    args = ap.parse_args()
    res = run(args.nets, args.games, args.seed, args.per_class, args.trials, args.workers, args.save, args.source,
              args.classes, args.luck_prune)
    _print(res)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
