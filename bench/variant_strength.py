"""Play two players against each other in duplicate-dice, cubeless games and report A's points.

Usage::

    python bench/variant_strength.py --variant dutch --games 2000 --seed 1 --a heuristic --b random

Games come in pairs: each pair uses one dice sequence (the opening roll follows the variant, as in
``bench/random_games.py``) and is played twice, once with A opening and once with B opening on
the same dice, which cancels much of the luck. Games are cubeless and scored 1 / 2 (gammon, mars,
mother) / 3 (backgammon); a Mahbusa draw, or a game that reaches ``--max-plies``, scores 0.

The output is A's points per game against B with its standard error (from the spread of the
pair means) and the counts of every outcome kind by winner.

Players are looked up by name in :data:`PLAYERS`: a factory taking ``(variant, seed)`` and
returning a function ``(pos, dice, rules) -> row`` of ``rules.legal_results(pos, dice)``.
``net`` is our shipped variant net at 0-ply (``data/nets/<variant>.npz``) and ``nets:PATH`` any
variant net file or ``variant-td`` checkpoint (e.g. an earlier generation). When a net plays,
the whole duel runs compiled (:func:`analyzer.eval.variants.play.duel_outcomes`, with the
compiled port of the heuristic, checked against it in tests/test_variant_eval.py); its dice come
from numba's generator, so those figures are not paired with the Python path's dice.

``bench/strength.py --variant dutch|mahbusa`` lands here with the strength benchmark's options:
``--nets PATH`` / ``--checkpoint PATH`` (player A, default the shipped net), ``--opponent
heuristic|random|nets:PATH`` (player B) and ``--pairs N`` (2N games)::

    python bench/strength.py --variant dutch --opponent heuristic --pairs 1000
    python bench/strength.py --variant mahbusa --nets runs/mahbusa_fit.npz \
        --opponent nets:data/nets/mahbusa.npz --pairs 1000

>>> rules = find_variant("mahbusa")
>>> points, kind, plies = play_game(rules, [make_player("heuristic", "mahbusa", 0),
...                                         make_player("random", "mahbusa", 0)],
...                                 DiceStream(random.Random(1), rules), 5000)
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
from collections import Counter
from collections.abc import Callable

from analyzer.core.position import Position
from analyzer.eval.heuristic import choose_play
from analyzer.rules import Variant, find_variant

Player = Callable[[Position, tuple[int, int], Variant], int]
PlayerFactory = Callable[[str, int], Player]


def _random_player(variant: str, seed: int) -> Player:
    rng = random.Random(seed)

    def play(pos: Position, dice: tuple[int, int], rules: Variant) -> int:
        return rng.randrange(len(rules.legal_results(pos, dice)))

    return play


def _heuristic_player(variant: str, seed: int) -> Player:
    return choose_play


PLAYERS: dict[str, PlayerFactory] = {"random": _random_player, "heuristic": _heuristic_player}


def make_player(name: str, variant: str, seed: int) -> Player:
    """A player by name (see :data:`PLAYERS`)."""
    if name not in PLAYERS:
        raise SystemExit(f"unknown player {name!r} (have: {', '.join(sorted(PLAYERS))})")
    return PLAYERS[name](variant, seed)


class DiceStream:
    """A reproducible dice sequence: the opening roll, then plain rolls; replayable with :meth:`replay`."""

    def __init__(self, rng: random.Random, rules: Variant) -> None:
        self.rng = rng
        self.rules = rules
        self.rolls: list[tuple[int, int]] = []
        self.i = 0

    def replay(self) -> None:
        self.i = 0

    def next(self) -> tuple[int, int]:
        if self.i == len(self.rolls):
            while True:
                dice = self.rng.randint(1, 6), self.rng.randint(1, 6)
                if self.rolls or self.rules.opener_rerolls or dice[0] != dice[1]:
                    break
            self.rolls.append(dice)
        self.i += 1
        return self.rolls[self.i - 1]


def play_game(rules: Variant, players: list[Player], dice: DiceStream, max_plies: int) -> tuple[int, str, int]:
    """One game, ``players[0]`` opening: (points for players[0], outcome kind, plies)."""
    pos = rules.start()
    side = 0
    for ply in range(1, max_plies + 1):
        roll = dice.next()
        boards = rules.legal_results(pos, roll)
        row = players[side](pos, roll, rules)
        pos = Position(boards[row].tobytes(), rules.name)
        out = rules.outcome(pos)
        if out is not None:
            winner = side if out.winner == 0 else 1 - side
            return (out.points if winner == 0 else -out.points), out.kind, ply
        pos = pos.flip()
        side = 1 - side
    return 0, "unfinished", max_plies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--variant", default="dutch", help="standard, dutch or mahbusa (plakoto)")
    ap.add_argument("--games", type=int, default=2000, help="games (rounded up to an even number)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--a", default="heuristic", help=f"player A ({', '.join(sorted(PLAYERS))})")
    ap.add_argument("--b", default="random", help="player B")
    ap.add_argument("--max-plies", type=int, default=5000)
    ap.add_argument("--nets", help="player A = this variant net file (bench/strength.py's option)")
    ap.add_argument("--checkpoint", help="player A = this variant-td checkpoint")
    ap.add_argument("--opponent", help="player B (bench/strength.py's option)")
    ap.add_argument("--pairs", type=int, help="dice sequences, 2 games each (overrides --games)")
    ap.add_argument("--json", help="also write the result as JSON to this file")
    args = ap.parse_args(argv)
    if args.nets or args.checkpoint:
        args.a = f"nets:{args.nets or args.checkpoint}"
    if args.opponent:
        args.b = args.opponent
        if not (args.nets or args.checkpoint):
            args.a = "net"
    if args.pairs:
        args.games = 2 * args.pairs
    rules = find_variant(args.variant)
    if any(p == "net" or p.startswith("nets:") for p in (args.a, args.b)):
        return _compiled(args, rules)
    pa = make_player(args.a, rules.name, args.seed * 2 + 1)
    pb = make_player(args.b, rules.name, args.seed * 2 + 2)
    pairs = max(1, (args.games + 1) // 2)
    master = random.Random(args.seed)
    kinds: Counter[str] = Counter()
    pair_means: list[float] = []
    plies = 0
    t0 = time.perf_counter()
    for _ in range(pairs):
        dice = DiceStream(random.Random(master.getrandbits(64)), rules)
        total = 0
        for a_first in (True, False):
            dice.replay()
            order = [pa, pb] if a_first else [pb, pa]
            pts, kind, n = play_game(rules, order, dice, args.max_plies)
            pts_a = pts if a_first else -pts
            total += pts_a
            plies += n
            kinds[kind if pts_a == 0 else f"{'A' if pts_a > 0 else 'B'} {kind}"] += 1
        pair_means.append(total / 2)
    secs = time.perf_counter() - t0
    mean = sum(pair_means) / pairs
    var = sum((x - mean) ** 2 for x in pair_means) / max(pairs - 1, 1)
    se = math.sqrt(var / pairs)
    _report(args, rules, pairs, mean, se, kinds, secs, f"plies per game {plies / (2 * pairs):.1f}  ({secs:.1f} s)")
    return 0


def _report(args: argparse.Namespace, rules: Variant, pairs: int, mean: float, se: float, kinds: Counter[str],
            secs: float, last_line: str) -> None:
    """Print the result (and write it to ``--json``): A's points per game, its standard error, the
    outcome counts and ``last_line``."""
    games = 2 * pairs
    print(f"variant {rules.name}  A {args.a}  B {args.b}  games {games} ({pairs} duplicate pairs)  seed {args.seed}")
    print(f"A points per game: {mean:+.3f} +- {se:.3f} (standard error)")
    for kind, count in sorted(kinds.items()):
        print(f"  {kind:<16} {count:>7}  {100.0 * count / games:6.2f}%")
    print(last_line)
    if args.json:
        doc = {"variant": rules.name, "a": args.a, "b": args.b, "games": games, "seed": args.seed,
               "ppg": round(mean, 4), "se": round(se, 4), "outcomes": dict(kinds), "seconds": round(secs, 1)}
        with open(args.json, "w") as fh:
            fh.write(json.dumps(doc, indent=2) + "\n")


def _compiled(args: argparse.Namespace, rules: Variant) -> int:
    """The duel with a net player (Dutch, Mahbusa), compiled."""
    from analyzer.eval.variants.engine import NETS_DIR
    from analyzer.eval.variants.model import VariantNet
    from analyzer.eval.variants.play import duel_outcomes

    def player(name: str) -> VariantNet | str:
        if name == "net":
            return VariantNet.load(NETS_DIR / f"{rules.name}.npz")
        if name.startswith("nets:"):
            return VariantNet.load(name.split(":", 1)[1])
        return name

    pairs = max(1, (args.games + 1) // 2)
    t0 = time.perf_counter()
    pts, outs = duel_outcomes(rules.name, player(args.a), player(args.b), pairs, seed=args.seed,
                              max_plies=args.max_plies)
    secs = time.perf_counter() - t0
    pair = pts.reshape(-1, 2).mean(axis=1)
    mean = float(pts.mean())
    se = float(pair.std(ddof=1) / math.sqrt(pairs)) if pairs > 1 else float("nan")
    names = ["A single", "A 2 points", "B single", "B 2 points", "draw"]
    kinds: Counter[str] = Counter(names[o] if o >= 0 else "unfinished" for o in outs.tolist())
    _report(args, rules, pairs, mean, se, kinds, secs, f"({secs:.1f} s, compiled duel)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
