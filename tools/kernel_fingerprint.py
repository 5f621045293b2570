"""Record what the compiled search kernels compute on a fixed, seeded set of positions.

A guard for refactors of :mod:`analyzer.eval.engine`, :mod:`analyzer.eval._cube_kernel` and
:mod:`analyzer.eval._rollout_kernel` that must not change a single bit: run it before the change
(``record``), again after it, and ``compare`` the two files. Every float is written with ``repr``
(shortest round-trip form), so equal files mean equal floats.

What it records, for positions taken from seeded greedy self-play games with the shipped nets
(up to 25 each of contact, crashed, race and bear-off positions):

* ``Engine.evaluate`` at 0, 1 and 2 ply (3 ply on five positions), through the engine's own
  path choice (threaded for large work), and the raw ``evaluate_boards`` on one thread;
* ``Engine.rank_plays`` at 0 and 2 ply for a few rolls;
* ``cube_decision_nply`` at 0, 1 and 2 ply, money and a 7-point match score;
* seeded rollouts (cubeless with variance reduction, a play comparison, cube play money and match).

Usage::

    python tools/kernel_fingerprint.py record /tmp/kernels_before.json
    python tools/kernel_fingerprint.py record /tmp/kernels_after.json
    python tools/kernel_fingerprint.py compare /tmp/kernels_before.json /tmp/kernels_after.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.ids import encode_position_id
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval import features as F
from analyzer.eval.bearoff import bearoff_class
from analyzer.eval.cube_search import cube_decision_nply
from analyzer.eval.engine import Engine
from analyzer.eval.rollout import RolloutSettings, rollout
from analyzer.eval.selfplay import GameBuffers, play_seeded

PER_CLASS = 25
DICE = ((3, 1), (6, 6), (5, 2))
MATCH = MatchState(length=7, score=(4, 2))


def sample_positions(eng: Engine, per_class: int = PER_CLASS) -> dict[str, list[NDArray[np.int8]]]:
    """Up to ``per_class`` positions of each kind from greedy self-play games with seeds 1, 2, ...
    (every third position of a game, so that one game does not fill a class)."""
    kinds: dict[str, list[NDArray[np.int8]]] = {"contact": [], "crashed": [], "race": [], "bearoff": []}
    buf = GameBuffers()
    seed = 1
    while seed < 400 and any(len(v) < per_class for v in kinds.values()):
        t, _ = play_seeded(eng.nets, seed, 0.0, buf)
        for i in range(seed % 3, t, 3):
            b = buf.states[i].copy()
            c = int(F.classify(b))
            if c == F.CLASS_OVER:
                continue
            if c == F.CLASS_RACE:
                kind = "bearoff" if int(bearoff_class(b)) != 0 else "race"
            else:
                kind = "crashed" if c == F.CLASS_CRASHED else "contact"
            if len(kinds[kind]) < per_class:
                kinds[kind].append(b)
        seed += 1
    return kinds


def _probs(p: Any) -> list[float]:
    return [p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon]


def record(path: Path) -> None:
    t0 = time.perf_counter()
    eng = Engine()
    kinds = sample_positions(eng)
    boards = [b for k in ("contact", "crashed", "race", "bearoff") for b in kinds[k]]
    positions = [Position.from_array(b) for b in boards]
    res: dict[str, Any] = {"counts": {k: len(v) for k, v in kinds.items()},
                           "ids": [encode_position_id(p) for p in positions]}
    few = [kinds[k][i] for k in ("contact", "crashed", "race", "bearoff") for i in range(3) if i < len(kinds[k])]
    few_pos = [Position.from_array(b) for b in few]
    # Engine.evaluate: the engine's own path (threads for large work), one position at a time
    for ply in (0, 1, 2):
        eng.clear_cache()
        res[f"evaluate_{ply}"] = [_probs(eng.evaluate(p, ply)) for p in positions]
    eng.clear_cache()
    res["evaluate_3"] = [_probs(eng.evaluate(p, 3)) for p in (few_pos[0], few_pos[3], few_pos[6], few_pos[9],
                                                               few_pos[1])]
    # raw batches: threaded (large work) and on one thread
    arr = np.stack(boards)
    for ply in (0, 1, 2):
        res[f"batch_{ply}"] = eng.evaluate_boards(arr, ply).tolist()
    threads = eng.threads
    eng.threads = 1
    for ply in (1, 2):
        res[f"batch_{ply}_serial"] = eng.evaluate_boards(arr, ply).tolist()
    eng.threads = threads
    # rank_plays
    ranks: list[Any] = []
    for p in few_pos:
        for dice in DICE:
            for ply in (0, 2):
                eng.clear_cache()
                plays = eng.rank_plays(p, dice, ply)
                ranks.append([[r.play, r.equity, r.ply, *_probs(r.probabilities)] for r in plays])
    res["rank_plays"] = ranks
    # cube decisions
    cubes: list[Any] = []
    for p in few_pos:
        for state in (MatchState(), MATCH):
            for ply in (0, 1, 2):
                d = cube_decision_nply(eng, p, state, 0, ply)
                cubes.append([d.nd, d.dt, d.dp, d.nd_mwc, d.dt_mwc, d.dp_mwc, d.action, d.take_point,
                              d.cube_life, list(d.probabilities.as_tuple())])
    res["cube"] = cubes
    # rollouts
    rolls: list[Any] = []
    for i, p in enumerate(few_pos[::3]):
        rolls.append(rollout(eng, p, RolloutSettings(trials=72, workers=1, seed=11 + i)).as_dict())
        rolls.append(rollout(eng, p, RolloutSettings(trials=36, truncate=5, workers=1, seed=5,
                                                     variance_reduction=False)).as_dict())
    start = Position.start()
    rolls.append(rollout(eng, start, RolloutSettings(trials=72, truncate=7, workers=1, seed=2), dice=(4, 2)).as_dict())
    cube = RolloutSettings(trials=72, workers=1, cube_play=True)
    rolls.append(rollout(eng, few_pos[0], replace(cube, seed=3)).as_dict())
    rolls.append(rollout(eng, few_pos[6], replace(cube, seed=4), match=MATCH).as_dict())
    rolls.append(rollout(eng, few_pos[1], replace(cube, trials=36, seed=6), dice=(6, 1), match=MATCH).as_dict())
    res["rollout"] = rolls
    path.write_text(json.dumps(res, sort_keys=True, indent=0))
    sys.stdout.write(f"{path}: {len(boards)} positions {res['counts']}, {time.perf_counter() - t0:.1f} s\n")


def _first_difference(a: Any, b: Any, where: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{where}: {a!r} != {b!r}"
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"{where}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            d = _first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = _first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, float) and a != a and b != b:  # both NaN
        return None
    return None if a == b else f"{where}: {a!r} != {b!r}"


def compare(a: Path, b: Path) -> int:
    ta, tb = a.read_text(), b.read_text()
    if ta == tb:
        sys.stdout.write(f"identical ({len(ta)} bytes)\n")
        return 0
    diff = _first_difference(json.loads(ta), json.loads(tb))
    sys.stdout.write(f"DIFFERENT: {diff}\n")
    return 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.out)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
