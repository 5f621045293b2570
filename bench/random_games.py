"""Play random legal games from the start and count how they end.

Usage::

    python bench/random_games.py --variant dutch --games 20000 --seed 1

Every game starts from the variant's initial position. The opening roll follows the variant:
Dutch and Mahbusa openers re-roll both dice (a double is possible), a standard opening roll is
never a double. Each turn picks one of the distinct legal results uniformly at random. A game
that has not ended after ``--max-plies`` plies is counted as ``unfinished``; in Mahbusa a draw
ends the game (the replay is a match-level concern).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from analyzer.core.position import Position
from analyzer.rules import Variant, find_variant


def opening_roll(rules: Variant, rng: random.Random) -> tuple[int, int]:
    while True:
        dice = rng.randint(1, 6), rng.randint(1, 6)
        if rules.opener_rerolls or dice[0] != dice[1]:
            return dice


def play_game(rules: Variant, rng: random.Random, max_plies: int) -> tuple[str, int]:
    """One random game: the outcome kind (or ``unfinished``) and the number of plies."""
    pos = rules.start()
    dice = opening_roll(rules, rng)
    for ply in range(1, max_plies + 1):
        boards = rules.legal_results(pos, dice)
        pos = Position(boards[rng.randrange(len(boards))].tobytes(), rules.name)
        outcome = rules.outcome(pos)
        if outcome is not None:
            return outcome.kind, ply
        pos = pos.flip()
        dice = rng.randint(1, 6), rng.randint(1, 6)
    return "unfinished", max_plies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="dutch", help="standard, dutch or mahbusa (plakoto)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=5000)
    args = ap.parse_args(argv)
    rules = find_variant(args.variant)
    rng = random.Random(args.seed)
    play_game(rules, random.Random(0), 10)  # compile / load the kernel outside the timing
    kinds: Counter[str] = Counter()
    plies = 0
    t0 = time.perf_counter()
    for _ in range(args.games):
        kind, n = play_game(rules, rng, args.max_plies)
        kinds[kind] += 1
        plies += n
    secs = time.perf_counter() - t0
    print(f"variant {rules.name}  games {args.games}  seed {args.seed}")
    for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:<12} {count:>8}  {100.0 * count / args.games:6.2f}%")
    print(f"plies per game {plies / max(args.games, 1):.1f}")
    print(f"{args.games / secs:.1f} games/s  {plies / secs:.0f} plies/s  ({secs:.1f} s)")
    return 1 if kinds["unfinished"] else 0


if __name__ == "__main__":
    sys.exit(main())
