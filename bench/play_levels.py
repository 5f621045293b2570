"""The levels of ``bgreview play`` against each other: points per game with duplicate dice.

Usage::

    python bench/play_levels.py --variant standard --pairs 200 --wc-pairs 40 --seed 1
    python bench/play_levels.py --variant dutch --matchups beginner:advanced,intermediate:advanced

Each matchup ``A:B`` plays ``--pairs`` pairs of games (``--wc-pairs`` when a side is world class, whose
2-ply search is slow): both games of a pair use the same dice sequence, once with A opening as the
first player and once with B, which cancels much of the luck. Games are cubeless (the levels' checker
play is measured, not their cube handling) and scored as the variant scores them: 1, 2 for a
gammon / mars / mother win, 3 for a backgammon; a Mahbusa draw scores 0. Each side chooses its plays
exactly as ``bgreview play`` does (:class:`analyzer.analysis.play.LevelEngine`, the level's ply and noise).

Printed per matchup: A's points per game against B, with its standard error (from the spread of the
pair means), the games played and the seconds taken; ``--json`` adds one JSON line per matchup.

>>> from analyzer.rules import find_variant
>>> rules = find_variant("mahbusa")
>>> a = engine_at("beginner", "mahbusa", 1)
>>> points = play_game(rules, (a, engine_at("advanced", "mahbusa", 2)), random.Random(3))
>>> points in (-2, -1, 0, 1, 2)
True
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from typing import Any

from analyzer.analysis.play import LEVELS, LevelEngine
from analyzer.core.match import MatchState
from analyzer.rules import Variant, find_variant

DEFAULT_MATCHUPS = "beginner:advanced,intermediate:advanced,advanced:world-class"
MONEY = MatchState()


def engine_at(level: str, variant: str, seed: int, shared: dict[str, Any] | None = None) -> LevelEngine:
    """The engine of ``bgreview play`` at ``level`` (its noise drawn from ``seed``); ``shared``
    keeps one evaluator per variant between players."""
    shared = shared if shared is not None else {}
    if variant not in shared:
        if variant == "standard":
            from analyzer.eval.engine import Engine

            shared[variant] = Engine()
        else:
            from analyzer.eval.variants.engine import engine_for

            shared[variant] = engine_for(variant)
    ev = shared[variant]
    return LevelEngine(variant, LEVELS[level], random.Random(f"{seed}/{level}"),
                   std=ev if variant == "standard" else None, var=None if variant == "standard" else ev)


def play_game(rules: Variant, sides: tuple[LevelEngine, LevelEngine], dice: random.Random,
              max_plies: int = 2000) -> int:
    """One cubeless game, ``sides[0]`` opening; returns the points ``sides[0]`` won (negative: lost).

    The first roll is not a double in standard backgammon (the opening roll); the variants' opener
    re-rolls both dice, so any roll opens there.
    """
    pos = rules.start()
    side = 0
    first = True
    for _ in range(max_plies):
        roll = (dice.randint(1, 6), dice.randint(1, 6))
        if first and not rules.opener_rerolls and roll[0] == roll[1]:
            continue
        first = False
        play = sides[side].choose(rules, pos, roll, MONEY, side)
        out = rules.outcome(play.result)
        if out is not None:
            if out.points == 0:
                return 0
            won = side if out.winner == 0 else 1 - side
            return out.points if won == 0 else -out.points
        pos = play.result.flip()
        side = 1 - side
    return 0


def matchup(variant: str, a: str, b: str, pairs: int, seed: int) -> dict[str, Any]:
    """A's points per game against B over ``pairs`` duplicate pairs."""
    rules = find_variant(variant)
    shared: dict[str, Any] = {}
    pa, pb = engine_at(a, variant, seed, shared), engine_at(b, variant, seed + 1, shared)
    means: list[float] = []
    t0 = time.perf_counter()
    for k in range(pairs):
        first = play_game(rules, (pa, pb), random.Random(f"{seed}/{k}"))
        second = -play_game(rules, (pb, pa), random.Random(f"{seed}/{k}"))
        means.append((first + second) / 2)
    n = len(means)
    ppg = sum(means) / n
    sd = math.sqrt(sum((m - ppg) ** 2 for m in means) / (n - 1)) if n > 1 else 0.0
    return {"variant": variant, "a": a, "b": b, "pairs": n, "games": 2 * n, "ppg": ppg, "se": sd / math.sqrt(n),
            "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="standard", choices=["standard", "dutch", "mahbusa"])
    ap.add_argument("--matchups", default=DEFAULT_MATCHUPS, help="A:B,... (levels: " + ", ".join(LEVELS) + ")")
    ap.add_argument("--pairs", type=int, default=200, help="pairs of games per matchup")
    ap.add_argument("--wc-pairs", type=int, default=40, help="pairs when a side is world class (2-ply)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="also print one JSON line per matchup")
    args = ap.parse_args(argv)
    for item in args.matchups.split(","):
        a, _, b = item.partition(":")
        if a not in LEVELS or b not in LEVELS:
            print(f"unknown level in {item!r} (levels: {', '.join(LEVELS)})", file=sys.stderr)
            return 2
        pairs = args.wc_pairs if "world-class" in (a, b) else args.pairs
        r = matchup(args.variant, a, b, pairs, args.seed)
        print(f"{args.variant:8s} {a:>12s} vs {b:<12s} {r['ppg']:+.3f} ppg +- {r['se']:.3f}  "
              f"({r['games']} games, {r['seconds']:.0f} s)", flush=True)
        if args.json:
            print(json.dumps(r), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
