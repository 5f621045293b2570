"""Consistency yardstick in standard backgammon: 0-ply equity against a rollout of the same position.

The variants' consistency target (``bench/variant_consistency.py``: mean |0-ply - 1,296-trial
rollout| below 0.04) has no outside reference. This experiment measures the same figure in standard
backgammon, where a mature engine exists, on positions sampled the same way (one non-final
position of each of our own self-play games, played at 0-ply with noise 0.05, both picked by a
seed derived from ``--seed`` and the position's index):

* ``ours``: our standard net's 0-ply cubeless equity against our cubeless rollout played by the
  same net at 0-ply, without variance reduction (as the variant bench rolls out);
* ``--referee gnubg``: GNU Backgammon's 0-ply cubeless equity (``gnubg`` PyPI wheel, a referee
  only) against a rollout of the same position played by gnubg's 0-ply: each roll, every legal
  result of *our* move generator is evaluated by ``gnubg.evaluate`` and the best is played;
  the first two rolls are stratified over the 36 x 36 pairs, the rest drawn from a seeded
  generator; games are played to the end and scored cubeless (1, 2 or 3 points).

Results are appended to a JSONL file (one line per position and engine) and a rerun skips what is
there, so a long run resumes; ``--shard K/N`` takes positions ``i`` with ``i mod N == K`` only and
``--report-only`` prints the figures of what the file holds. ``--sample-nets`` picks the positions by another
net set's self-play (a candidate on the shipped nets' positions: paired with their records)::

    python -m bglab.experiments.standard_consistency --positions 200 --engine ours --out runs/std_cons.jsonl
    python -m bglab.experiments.standard_consistency --positions 200 --engine gnubg --shard 1/2 \\
        --out runs/std_cons.jsonl
    python -m bglab.experiments.standard_consistency --positions 200 --report-only --out runs/std_cons.jsonl
    # one class sampled wider: a back-game position from each of 2,000 self-play games that reaches one
    python -m bglab.experiments.standard_consistency --positions 2000 --theme "back game" --out runs/back.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from analyzer.analysis.themes import THEMES, position_theme
from analyzer.core import layout as L
from analyzer.core.ids import encode_position_id
from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.eval.features import CLASS_RACE, classify
from analyzer.eval.net import weights_fingerprint
from analyzer.eval.rollout import RolloutSettings, rollout
from analyzer.eval.selfplay import GameBuffers, game_seed, play_seeded
from analyzer.rules.standard import Standard
from bglab.checkpoint import load_nets
from bglab.records import read_records

RULES = Standard()
DICE = [(a, b) for a in range(1, 7) for b in range(1, 7)]


def sample_position(engine: Engine, index: int, seed: int, buf: GameBuffers,
                    theme: str | None = None) -> Position | None:
    """Position ``index`` of the sample: one non-final position of self-play game ``index`` (with
    ``theme``: one of the game's positions of that theme, None if it has none)."""
    n, _ = play_seeded(engine.nets, game_seed(seed, index), 0.05, buf)
    if n < 2:
        return None
    rng = np.random.default_rng([seed, index])
    if theme is not None:
        found = [p for p in (Position(buf.states[t].tobytes()) for t in range(n))
                 if RULES.outcome(p) is None and position_theme(p) == theme]
        return found[int(rng.integers(0, len(found)))] if found else None
    t = int(rng.integers(0, n))
    pos = Position(buf.states[t].tobytes())
    return None if RULES.outcome(pos) is not None else pos


def gnubg_board(b: NDArray[np.int8]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board tuple (side not on roll, side on roll) of a position seen from its mover.

    >>> gnubg_board(np.frombuffer(Position.start().board, np.int8))[1][5]
    5
    """
    me = [max(int(b[i + 1]), 0) for i in range(24)] + [int(b[L.MOVER_BAR])]
    opp = [max(-int(b[24 - j]), 0) for j in range(24)] + [int(b[L.OPP_BAR])]
    return tuple(opp), tuple(me)


def _cubeless(p: tuple[float, ...]) -> float:
    """Cubeless equity of gnubg's (win, win g, win bg, lose g, lose bg, ...) for the side on roll."""
    return 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]


class GnubgPlayer:
    """GNU Backgammon's 0-ply as a rollout player (referee only; the wheel is imported lazily)."""

    def __init__(self) -> None:
        import gnubg  # type: ignore[import-not-found]

        self.g = gnubg
        self.ec = gnubg.evalcontext(0, 0, 1, 0, 0.0)  # cubeless, 0-ply, deterministic, no pruning, no noise
        self.ci = gnubg.cubeinfo()

    def equity(self, b: NDArray[np.int8]) -> float:
        """0-ply cubeless equity of ``b`` for its mover, before the roll."""
        return _cubeless(self.g.evaluate(gnubg_board(b), self.ci, self.ec))

    def play(self, b: NDArray[np.int8], dice: tuple[int, int]) -> NDArray[np.int8]:
        """The board after gnubg's best play (still seen from the mover)."""
        res = cast(NDArray[np.int8], RULES.legal_results(Position(b.tobytes()), dice))
        if len(res) == 1:
            return cast(NDArray[np.int8], res[0])
        best, best_eq = 0, -9.0
        for k in range(len(res)):
            r = res[k]
            if r[L.MOVER_OFF] == L.CHECKERS:
                return cast(NDArray[np.int8], r)
            opp, me = gnubg_board(r)
            eq = -_cubeless(self.g.evaluate((me, opp), self.ci, self.ec))
            if eq > best_eq:
                best, best_eq = k, eq
        return cast(NDArray[np.int8], res[best])

    def rollout(self, pos: Position, trials: int, seed: int) -> tuple[float, float, list[int]]:
        """Mean, standard error and outcome counts (points won -3..3 by the side on roll)."""
        rng = np.random.default_rng(seed)
        pts = np.zeros(trials)
        counts = [0] * 7
        for k in range(trials):
            b = np.frombuffer(pos.board, np.int8).copy()
            sign = 1
            ply = 0
            while True:
                if ply == 0:
                    dice = DICE[k % 36]
                elif ply == 1:
                    dice = DICE[(k // 36) % 36]
                else:
                    d = rng.integers(1, 7, size=2)
                    dice = (int(d[0]), int(d[1]))
                after = self.play(b, dice)
                if after[L.MOVER_OFF] == L.CHECKERS:
                    out = RULES.outcome(Position(after.tobytes()))
                    assert out is not None and out.winner == 0
                    pts[k] = sign * out.points
                    counts[int(pts[k]) + 3] += 1
                    break
                b = np.frombuffer(Position(after.tobytes()).flip().board, np.int8).copy()
                sign = -sign
                ply += 1
        return float(pts.mean()), float(pts.std(ddof=1) / math.sqrt(trials)), counts


def report(recs: list[dict[str, Any]]) -> list[str]:
    """Lines of figures per engine over the positions every listed engine has."""
    by: dict[str, dict[int, dict[str, Any]]] = {}
    for r in recs:
        by.setdefault(r["engine"], {})[int(r["index"])] = r
    lines = []
    common = set.intersection(*(set(v) for v in by.values())) if by else set()
    for name, rr in sorted(by.items()):
        for label, idx in (("own positions", sorted(rr)), ("common positions", sorted(common))):
            if not idx:
                continue
            d = np.array([rr[i]["eq0"] - rr[i]["rollout"] for i in idx])
            se = np.array([rr[i]["se"] for i in idx])
            race = np.array([rr[i]["race"] for i in idx])
            lines.append(
                f"{name:6s} {label:16s} n={len(idx):4d}  mean |0-ply - rollout| {np.abs(d).mean():.4f} "
                f"(+- {np.abs(d).std(ddof=1) / math.sqrt(len(idx)) if len(idx) > 1 else float('nan'):.4f})  "
                f"contact {np.abs(d[~race]).mean() if (~race).any() else float('nan'):.4f} over {int((~race).sum())}, "
                f"race {np.abs(d[race]).mean() if race.any() else float('nan'):.4f} over {int(race.sum())}; "
                f"bias {d.mean():+.4f}; rollout rms SE {math.sqrt(float((se ** 2).mean())):.4f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--engine", choices=["ours", "gnubg"], default="ours")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="runs/standard_consistency.jsonl")
    ap.add_argument("--shard", default="0/1", help="K/N: only positions i with i mod N == K")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--nets", type=Path, help="our engine's net set or training checkpoint (default: the shipped "
                                               "nets): a candidate's positions and its own rollouts")
    ap.add_argument("--sample-nets", type=Path,
                    help="the net set whose self-play picks the positions (default: --nets): with the shipped "
                         "nets here, a candidate is valued and rolls out on the shipped nets' positions, paired "
                         "with their records of the same seed (the same positions and rollout dice)")
    ap.add_argument("--theme", choices=THEMES,
                    help="one position of this theme from each self-play game that reaches one (a wider sample of "
                         "one class; write it to its own --out)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    eng = Engine(None if args.nets is None else load_nets(args.nets))
    fp = weights_fingerprint(eng.nets.contact)
    sampler = eng if args.sample_nets is None else Engine(load_nets(args.sample_nets))
    sampled_by = None if sampler is eng else weights_fingerprint(sampler.nets.contact)
    name = args.engine
    recs = [r for r in read_records(out) if r.get("trials") == args.trials and r.get("seed") == args.seed
            and (r.get("engine") != "ours" or r.get("net") == fp)]
    done = {int(r["index"]) for r in recs if r["engine"] == name}
    k, n_shards = (int(x) for x in args.shard.split("/"))
    player = GnubgPlayer() if name == "gnubg" and not args.report_only else None
    buf = GameBuffers()
    t0 = time.time()
    with out.open("a") as fh:
        for i in range(0 if args.report_only else args.positions):
            if i in done or i % n_shards != k:
                continue
            pos = sample_position(sampler, i, args.seed, buf, args.theme)
            if pos is None:
                continue
            rseed = args.seed * 1_000_003 + i * 7919
            b = np.frombuffer(pos.board, np.int8)
            counts: list[int]
            if player is None:
                eq0 = eng.evaluate(pos, 0).equity
                r = rollout(eng, pos, RolloutSettings(trials=args.trials, cubeful=False, variance_reduction=False,
                                                      seed=rseed, workers=1))
                mean, se, counts = r.equity, r.equity_se, []
            else:
                eq0 = player.equity(b)
                mean, se, counts = player.rollout(pos, args.trials, rseed)
            own_pips, opp_pips = pos.pips()
            race = classify(b) == CLASS_RACE
            rec = {"index": i, "seed": args.seed, "trials": args.trials, "engine": name,
                   "net": fp if name == "ours" else "gnubg-0ply", "position": encode_position_id(pos),
                   "race": race, "pips": [own_pips, opp_pips], "eq0": round(eq0, 5), "rollout": round(mean, 5),
                   "se": round(se, 5), "outcomes": counts}
            if sampled_by is not None:
                rec["sampled_by"] = sampled_by
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            recs.append(rec)
    recs = [r for r in recs if int(r["index"]) < args.positions]
    print(f"standard consistency  positions < {args.positions}  trials {args.trials}  seed {args.seed}  "
          f"({time.time() - t0:.0f} s this run)")
    for line in report(recs):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
