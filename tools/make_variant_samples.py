"""Make the sample records ``data/samples/dutch-selfplay-5p.mat`` and ``mahbusa-selfplay-5p.mat``.

A match of Dutch backgammon or Mahbusa played by one player against itself with some noise,
written in our ``.mat`` dialect (``; [Variation "Dutch"]`` / ``"Plakoto"``, entries from the
reserve written ``bar/..``, no cube) by :func:`analyzer.formats.mat_writer.write_mat`, then read
back and replayed through the rules engine: the tool fails if any game does not replay or the
computed results differ from the ones it wrote.

Players (``--player``):

* ``net`` (default): the variant engine of :mod:`analyzer.eval.variants` at 0-ply, through
  :func:`analyzer.analysis.variants.load_variant_engine`;
* ``heuristic``: the hand-written "pip count plus safety" player of
  :mod:`analyzer.eval.heuristic`.

Noise: with probability ``--noise`` a roll is played with one of the ``--top`` best plays of the
player, drawn uniformly, instead of the best (so the review has errors to find). The dice, the
die-offs and the noise come from one ``numpy`` generator seeded with ``--seed``: the same
arguments and the same player give the same file.

Openings follow ``docs/rules.md``: a die-off (one die each, ties re-rolled), whose winner
re-rolls both dice and plays them (a double allowed); in Mahbusa the winner of the previous game
opens the next by rolling both dice, and a drawn game (both mothers pinned) scores nothing and
is followed by a die-off.

    python tools/make_variant_samples.py --variant dutch --player net --seed 1 --length 5
    python tools/make_variant_samples.py --variant mahbusa --player net --seed 1 --length 5
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from analyzer.analysis.normalise import plain_play
from analyzer.analysis.replay import replay_games
from analyzer.core.position import Position
from analyzer.core.variants import all_specs
from analyzer.formats.mat import read_matches
from analyzer.formats.mat_writer import write_mat
from analyzer.formats.records import Action, GameRecord, MatchRecord, Roll, Win
from analyzer.rules import Variant, find_variant
from analyzer.rules.base import LegalPlay

Chooser = Callable[[Position, tuple[int, int], list[LegalPlay]], list[int]]
"""Orders the legal plays of a roll best first (indices into the list given)."""

MAX_PLIES = 2000
VARIATION = {s.name: s.record_name for s in all_specs() if not s.has_cube}  # the variants with their own nets


def heuristic_chooser(rules: Variant) -> Chooser:
    """The heuristic player's order of the plays (ties keep the list order)."""
    from analyzer.eval.heuristic import score_results

    def order(pos: Position, dice: tuple[int, int], plays: list[LegalPlay]) -> list[int]:
        boards = np.stack([np.frombuffer(p.result.board, dtype=np.int8) for p in plays])
        scores = score_results(boards, rules)
        return [int(i) for i in np.argsort(-scores, kind="stable")]

    return order


def net_chooser(variant: str) -> Chooser:
    """The variant engine's 0-ply order of the plays."""
    from analyzer.analysis.variants import load_variant_engine

    engine = load_variant_engine(variant)

    def order(pos: Position, dice: tuple[int, int], plays: list[LegalPlay]) -> list[int]:
        index = {p.result: i for i, p in enumerate(plays)}
        ranked = [index[r.result] for r in engine.rank_plays(pos, dice, 0) if r.result in index]
        return ranked + [i for i in range(len(plays)) if i not in set(ranked)]

    return order


def _die_off(rng: np.random.Generator) -> int:
    """Who opens after one die each (ties re-rolled): 0 or 1."""
    while True:
        a, b = (int(x) for x in rng.integers(1, 7, size=2))
        if a != b:
            return 0 if a > b else 1


def _roll(rng: np.random.Generator) -> tuple[int, int]:
    a, b = (int(x) for x in rng.integers(1, 7, size=2))
    return (max(a, b), min(a, b))


def play_game(rules: Variant, choose: Chooser, rng: np.random.Generator, opener: int, *, noise: float,
              top: int) -> tuple[list[Action], int | None, int]:
    """One game from the start: its actions, the winner (``None`` for a draw) and the points."""
    pos = rules.start()
    side = opener
    actions: list[Action] = []
    for _ in range(MAX_PLIES):
        dice = _roll(rng)
        plays = rules.legal_plays(pos, dice)
        order = choose(pos, dice, plays)
        pick = order[0]
        if len(order) > 1 and rng.random() < noise:
            pick = order[int(rng.integers(0, min(top, len(order))))]
        play = plays[pick]
        actions.append(Roll(side=side, dice=dice, play=plain_play(play.hops)))
        out = rules.outcome(play.result)
        if out is not None:
            if out.points == 0:
                return actions, None, 0
            winner = side if out.winner == 0 else 1 - side
            return actions, winner, out.points
        pos = play.result.flip()
        side = 1 - side
    raise RuntimeError(f"no result after {MAX_PLIES} plies")


def play_match(variant: str, choose: Chooser, *, seed: int, length: int, noise: float, top: int,
               players: tuple[str, str], comments: Sequence[str] = ()) -> MatchRecord:
    """A match to ``length`` points (see the module docstring)."""
    rules = find_variant(variant)
    rng = np.random.default_rng(seed)
    score = [0, 0]
    games: list[GameRecord] = []
    previous: int | None = None  # winner of the previous game, when it had one
    while max(score) < length:
        opener = previous if (previous is not None and rules.winner_opens_next) else _die_off(rng)
        actions, winner, points = play_game(rules, choose, rng, opener, noise=noise, top=top)
        before = (score[0], score[1])
        if winner is not None:
            score[winner] += points
            actions.append(Win(side=winner, points=points, match=score[winner] >= length))
        games.append(GameRecord(number=len(games) + 1, line=0, score=before, actions=tuple(actions)))
        previous = winner
    event = f"bgreview {variant} self-play sample"
    tags = (("Player 1", players[0]), ("Player 2", players[1]), ("Event", event), ("Variation", VARIATION[variant]))
    return MatchRecord(players=players, length=length, games=tuple(games), variation=VARIATION[variant],
                       event=event, tags=tags, comments=tuple(comments))


def check_replay(path: Path, expect: MatchRecord) -> list[str]:
    """Read ``path`` back and replay it: the problems found (none when all is well)."""
    problems: list[str] = []
    [record] = list(read_matches(path))
    problems += [str(e) for e in record.errors]
    replays = list(replay_games(record))
    if len(replays) != len(expect.games):
        problems.append(f"{len(replays)} games replayed, {len(expect.games)} written")
    for g, game in zip(replays, expect.games, strict=False):
        if g.error is not None or g.score_error is not None:
            problems.append(str(g.error or g.score_error))
            continue
        won = game.result
        want = (None, 0) if won is None else (won.side, won.points)
        if (g.winner, g.points) != want:
            problems.append(f"game {game.number}: replay gives {(g.winner, g.points)}, written {want}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=sorted(VARIATION), required=True)
    ap.add_argument("--player", choices=("net", "heuristic"), default="net")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--length", type=int, default=5)
    ap.add_argument("--noise", type=float, default=0.15)
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None,
                    help="output file (default data/samples/<variant>-selfplay-<length>p.mat)")
    args = ap.parse_args(argv)
    rules = find_variant(args.variant)
    choose = net_chooser(args.variant) if args.player == "net" else heuristic_chooser(rules)
    label = "net" if args.player == "net" else "heuristic"
    players = (f"{label} A", f"{label} B")
    command = (f"python tools/make_variant_samples.py --variant {args.variant} --player {args.player} "
               f"--seed {args.seed} --length {args.length} --noise {args.noise} --top {args.top}")
    record = play_match(args.variant, choose, seed=args.seed, length=args.length, noise=args.noise, top=args.top,
                        players=players, comments=(f"made by: {command}",))
    out = args.out or Path("data/samples") / f"{args.variant}-selfplay-{args.length}p.mat"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_mat([record], out)
    problems = check_replay(out, record)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    ends = [f"game {g.number}: " + (f"{record.players[g.result.side]} +{g.result.points}" if g.result else "draw")
            for g in record.games]
    print(f"{out}: {len(record.games)} games, {sum(len(g.actions) for g in record.games)} actions; " + "; ".join(ends))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
