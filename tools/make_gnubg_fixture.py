"""Build the gnubg move-generation fixture ``tests/data/gnubg_moves.jsonl.gz``.

GNU Backgammon is the referee here, not a dependency: this tool runs *inside* gnubg's embedded
Python (the Debian build, see ``docs/gnubg-referee.md``) and records, for thousands of
(position, dice) cases, gnubg's complete list of legal plays as the set of resulting positions.
Nothing in ``analyzer/`` imports gnubg; the tests only read the stored fixture.

Run it with the plain interpreter; it re-launches itself under gnubg::

    python tools/make_gnubg_fixture.py --out tests/data/gnubg_moves.jsonl.gz \\
        --counts tests/data/gnubg_move_counts.tsv --seed 2026 --games 30 --constructed 300

(the defaults; they reproduce the committed fixture byte for byte: 5,208 cases in about a
minute)

Or inside gnubg directly: ``BGR_FIX_ARGS='--seed 1' gnubg -t -q -r -p tools/make_gnubg_fixture.py``
(gnubg passes no argv, so the arguments travel in the ``BGR_FIX_ARGS`` environment variable).

Cases come from two sources, both seeded:

* **self-play**: games from the start (no cube) where each play is gnubg's 0-ply best play
  from ``hint``, or with probability ``--explore`` a random one of its legal plays (for variety;
  the dice and choices come from Python's ``random`` with ``--seed``). Every
  position reached is recorded with the rolled dice and with one extra random roll.
* **constructed**: random legal positions aimed at the rare cases: checkers on the bar against
  strong boards (dances), primes, bear-offs with contact (opponent checkers on the bar or in the
  mover's home board), and checkers scattered at random.

For each case gnubg's ``hint`` at 0-ply lists every legal play (it generates all plays and
keeps one per distinct resulting position). Each play's text is turned into ``(from, to)`` hops
by gnubg's own ``parsemove`` and applied to the board here; a hop that lands on a lone opposing
checker hits it. gnubg writes every intermediate point where a hit happened (``13/10*/8``), so
applying the merged hops in order gives the right board. As a self-check the number of
distinct results must equal the number of plays gnubg listed. An empty list means the roll
cannot be played; it is recorded as the single result "position unchanged", as our engine
reports a pass.

Output, one JSON object per line (gzip)::

    {"id": gnubg position id, "src": "selfplay|bar|prime|contact|scatter",
     "pos": POS, "dice": [d1, d2], "plays": gnubg's play texts, "results": [POS, ...]}

where POS is the project's JSON position form, seen from the side on roll (results too, before
the turn passes)::

    {"mover": [24 counts, points 1..24], "opponent": [24 counts on the mover's numbering],
     "mover_bar": n, "opponent_bar": n, "mover_off": n, "opponent_off": n}

The counts file (``--counts``) is a tab-separated ``position_id  dice  count`` table derived
from the same data: the number of distinct legal plays gnubg lists.

Known gnubg quirks handled here: ``hint`` needs a game in progress with the dice set, so the
tool starts a session with two human players and sets board and dice for each case; gnubg
prints to C stdout, which is silenced around commands; ``hint`` returns an empty list (not an
error) when the roll cannot be played.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shlex
import subprocess
import sys
import time
from collections import Counter
from typing import Any

GNUBG = "/usr/games/gnubg"
ENV_ARGS = "BGR_FIX_ARGS"

# A side is a list of 25 counts in that side's own numbering: index i = point i + 1, 24 = bar.
Side = list[int]


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="tests/data/gnubg_moves.jsonl.gz")
    ap.add_argument("--counts", default="tests/data/gnubg_move_counts.tsv")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--games", type=int, default=30, help="self-play games")
    ap.add_argument("--constructed", type=int, default=300, help="positions per constructed kind")
    ap.add_argument("--explore", type=float, default=0.3, help="chance of a random play in self-play")
    return ap.parse_args(argv)


# --------------------------------------------------------------------------- outside gnubg
def relaunch() -> int:
    """Run this file inside gnubg, passing our argv through the environment."""
    env = dict(os.environ)
    env[ENV_ARGS] = shlex.join(sys.argv[1:])
    cmd = [GNUBG, "-t", "-q", "-r", "-p", os.path.abspath(__file__)]
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL)
    return proc.returncode


# --------------------------------------------------------------------------- inside gnubg
class Quiet:
    """Silence gnubg's C-level stdout while a command runs."""

    def __enter__(self) -> None:
        sys.stdout.flush()
        self.saved = os.dup(1)
        self.null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(self.null, 1)

    def __exit__(self, *exc: object) -> None:
        os.dup2(self.saved, 1)
        os.close(self.saved)
        os.close(self.null)


def to_json(on_roll: Side, other: Side) -> dict[str, Any]:
    """The project's JSON form, seen from ``on_roll`` (the opponent on the mover's numbering)."""
    mover = [on_roll[i] for i in range(24)]
    opponent = [other[23 - i] for i in range(24)]  # mover point p = opponent's point 25 - p
    return {
        "mover": mover,
        "opponent": opponent,
        "mover_bar": on_roll[24],
        "opponent_bar": other[24],
        "mover_off": 15 - sum(on_roll),
        "opponent_off": 15 - sum(other),
    }


def apply_hops(on_roll: Side, other: Side, hops: tuple[tuple[int, int], ...]) -> tuple[Side, Side]:
    """Apply gnubg's parsed hops ((from, to): 25 bar, 0 off, mover's numbering) to copies."""
    me = list(on_roll)
    opp = list(other)
    for src, dst in hops:
        si = 24 if src == 25 else src - 1
        if me[si] <= 0:
            raise ValueError(f"no checker to move from {src}")
        me[si] -= 1
        if dst == 0:
            continue
        oi = 24 - dst  # index of the mover's point dst in the opponent's own numbering
        if opp[oi] == 1:
            opp[oi] = 0
            opp[24] += 1
        elif opp[oi] > 1:
            raise ValueError(f"landing on a made point {dst}")
        me[dst - 1] += 1
    return me, opp


def key_of(on_roll: Side, other: Side) -> tuple[int, ...]:
    return tuple(on_roll) + tuple(other)


class Referee:
    def __init__(self) -> None:
        import gnubg  # only available inside gnubg

        self.g = gnubg
        with Quiet():
            for cmd in ("set player 0 human", "set player 1 human",
                        "set evaluation chequerplay evaluation plies 0",
                        "set evaluation chequerplay evaluation noise 0",
                        "set display off", "set automatic game off", "new session"):
                gnubg.command(cmd)
        self.queries = 0

    def position_id(self, on_roll: Side, other: Side) -> str:
        return str(self.g.positionid((tuple(other), tuple(on_roll))))

    def plays(self, on_roll: Side, other: Side, dice: tuple[int, int]) -> tuple[str, list[str]]:
        """gnubg's position id and its list of legal plays (best first) for ``dice``."""
        pid = self.position_id(on_roll, other)
        with Quiet():
            self.g.command("set board " + pid)
            self.g.command(f"set dice {dice[0]} {dice[1]}")
        board = self.g.board()
        if [list(board[0]), list(board[1])] != [list(other), list(on_roll)]:
            raise RuntimeError(f"gnubg did not take the board {pid}")
        with Quiet():
            h = self.g.hint(9999)
        self.queries += 1
        return pid, [m["move"] for m in h["hint"]]

    def results(self, on_roll: Side, other: Side, plays: list[str]) -> list[tuple[Side, Side]]:
        if not plays:
            return [(list(on_roll), list(other))]
        out: dict[tuple[int, ...], tuple[Side, Side]] = {}
        for text in plays:
            hops = self.g.parsemove(text)
            me, opp = apply_hops(on_roll, other, hops)
            out.setdefault(key_of(me, opp), (me, opp))
        if len(out) != len(plays):
            raise RuntimeError(f"{len(plays)} plays gave {len(out)} distinct results: {plays}")
        return list(out.values())


# --------------------------------------------------------------------------- positions
START: Side = [0] * 25
for _p, _n in ((24, 2), (13, 5), (8, 3), (6, 5)):
    START[_p - 1] = _n


def roll(rng: random.Random) -> tuple[int, int]:
    a, b = rng.randint(1, 6), rng.randint(1, 6)
    return (a, b) if a >= b else (b, a)


def place(rng: random.Random, side: Side, n: int, points: list[int], blocked: set[int]) -> None:
    """Drop ``n`` checkers of ``side`` (own numbering) at random on ``points`` not in ``blocked``."""
    free = [p for p in points if p not in blocked]
    for _ in range(n):
        p = rng.choice(free)
        side[p - 1] += 1


def opp_points(other: Side) -> set[int]:
    """Mover's numbering of the points the opponent occupies."""
    return {25 - (i + 1) for i in range(24) if other[i] > 0}


def mover_points(on_roll: Side) -> set[int]:
    return {i + 1 for i in range(24) if on_roll[i] > 0}


def make_bar(rng: random.Random) -> tuple[Side, Side]:
    """Mover on the bar against an opponent home board with 2..6 points made."""
    me, opp = [0] * 25, [0] * 25
    made = rng.sample(range(1, 7), rng.randint(2, 6))  # opponent's own home points
    left = 15
    for p in made:
        k = rng.choice((2, 2, 3))
        k = min(k, left)
        opp[p - 1] += k
        left -= k
    if rng.random() < 0.5 and left:  # a blot in the home board to hit on entry
        blots = [p for p in range(1, 7) if opp[p - 1] == 0]
        if blots:
            opp[rng.choice(blots) - 1] = 1
            left -= 1
    opp_off = rng.randint(0, min(left, 3))
    left -= opp_off
    place(rng, opp, left, list(range(7, 25)), set())
    me[24] = rng.randint(1, 4)
    n = 15 - me[24] - rng.randint(0, 2)
    blocked = opp_points(opp)
    place(rng, me, n, list(range(1, 19)), blocked)
    return me, opp


def make_prime(rng: random.Random) -> tuple[Side, Side]:
    """Opponent holds 4..6 consecutive points in front of some of the mover's checkers."""
    me, opp = [0] * 25, [0] * 25
    length = rng.randint(4, 6)
    lo = rng.randint(2, 12 - length)  # mover's numbering of the prime's lowest point
    prime = list(range(lo, lo + length))
    left = 15
    for p in prime:  # mover point p is the opponent's point 25 - p
        opp[25 - p - 1] += 2
        left -= 2
    place(rng, opp, left, [25 - p for p in range(1, 25) if p not in prime], set())
    behind = rng.randint(1, 4)
    blocked = opp_points(opp)
    place(rng, me, behind, list(range(lo + length, 25)), blocked)
    if rng.random() < 0.3:
        me[24] += 1
        behind += 1
    place(rng, me, 15 - behind - rng.randint(0, 3), list(range(1, lo)), blocked)
    return me, opp


def make_contact(rng: random.Random) -> tuple[Side, Side]:
    """Mover bearing off (all home, some off) with opponent checkers on the bar or in the home."""
    me, opp = [0] * 25, [0] * 25
    anchors = rng.randint(1, 3)
    for _ in range(anchors):  # opponent checkers in the mover's home board: own points 19..24
        p = rng.randint(19, 24)
        opp[p - 1] += rng.choice((1, 1, 2))
    if rng.random() < 0.35:
        opp[24] += rng.randint(1, 2)
    used = sum(opp)
    opp_off = rng.randint(0, 15 - used) if rng.random() < 0.3 else 0
    place(rng, opp, 15 - used - opp_off, list(range(1, 19)), set())
    me_on = rng.randint(1, 15)
    blocked = opp_points(opp)
    place(rng, me, me_on, list(range(1, 7)), {p for p in blocked if opp[24 - p] >= 2})
    # a mover checker may land on an opponent blot by the placement above: resolve by moving it off
    for p in range(1, 7):
        if me[p - 1] and opp[24 - p]:
            me[p - 1] = 0
    if sum(me) == 0:
        me[0] = 1
    if rng.random() < 0.15:  # one straggler just outside
        p = rng.randint(7, 9)
        if not opp[24 - p]:
            me[p - 1] += 1
    return me, opp


def make_scatter(rng: random.Random) -> tuple[Side, Side]:
    """Both sides' checkers scattered at random (bar and off included)."""
    me, opp = [0] * 25, [0] * 25
    for side, other, mine in ((opp, me, False), (me, opp, True)):
        n_bar = rng.choice((0, 0, 0, 1, 2))
        n_off = rng.choice((0, 0, 0, rng.randint(0, 10)))
        side[24] = n_bar
        taken = opp_points(other) if mine else {25 - p for p in mover_points(other)}
        pts = rng.sample(range(1, 25), rng.randint(2, 10))
        pts = [p for p in pts if p not in taken] or [q for q in range(1, 25) if q not in taken][:1]
        place(rng, side, 15 - n_bar - n_off, pts, set())
    return me, opp


def legal(me: Side, opp: Side) -> bool:
    if sum(me) > 15 or sum(opp) > 15 or sum(me) == 0 or sum(opp) == 0:
        return False
    return all(not (me[p - 1] and opp[24 - p]) for p in range(1, 25))


# --------------------------------------------------------------------------- main
def classify(me: Side, opp: Side, dice: tuple[int, int], plays: list[str]) -> list[str]:
    tags = []
    if me[24]:
        tags.append("bar")
    if not plays:
        tags.append("dance")
    if dice[0] == dice[1]:
        tags.append("double")
    home = me[24] == 0 and all(me[i] == 0 for i in range(6, 24))
    if home:
        tags.append("bearoff")
        top = max((i + 1 for i in range(6) if me[i]), default=0)
        if opp[24] or any(opp[24 - p] for p in range(1, top + 1)):
            tags.append("contact-bearoff")
    if any("off" in t for t in plays):
        tags.append("bears-off")
    run = best = 0
    for p in range(1, 25):
        run = run + 1 if opp[24 - p] >= 2 else 0
        best = max(best, run)
    if best >= 4:
        tags.append("primed")
    if "*" in "".join(plays):
        tags.append("hit")
    if plays and len(plays) == 1:
        tags.append("forced")
    return tags


def main_inside() -> None:
    args = parse_args(shlex.split(os.environ.get(ENV_ARGS, "")))
    rng = random.Random(args.seed)
    ref = Referee()
    cases: list[dict[str, Any]] = []
    seen: set[tuple[tuple[int, ...], tuple[int, int]]] = set()
    tags: Counter[str] = Counter()
    t0 = time.time()

    def record(me: Side, opp: Side, dice: tuple[int, int], src: str) -> list[str]:
        pid, plays = ref.plays(me, opp, dice)
        k = (key_of(me, opp), dice)
        if k not in seen:
            seen.add(k)
            res = ref.results(me, opp, plays)
            cases.append({"id": pid, "src": src, "pos": to_json(me, opp), "dice": list(dice),
                          "plays": plays, "results": [to_json(a, b) for a, b in res]})
            tags.update(classify(me, opp, dice, plays))
            tags[src] += 1
        return plays

    for game in range(args.games):
        me, opp = list(START), list(START)
        while True:
            dice = roll(rng)
            plays = record(me, opp, dice, "selfplay")
            extra = roll(rng)
            if extra != dice:
                record(me, opp, extra, "selfplay")
            if plays:
                pick = 0 if rng.random() >= args.explore else rng.randrange(len(plays))
                me, opp = apply_hops(me, opp, ref.g.parsemove(plays[pick]))
            if sum(me) == 0:
                break
            me, opp = opp, me
        print(f"game {game + 1}/{args.games}: {len(cases)} cases, {time.time() - t0:.0f}s",
              file=sys.stderr)

    makers = {"bar": make_bar, "prime": make_prime, "contact": make_contact, "scatter": make_scatter}
    for name, make in makers.items():
        made = 0
        while made < args.constructed:
            try:
                me, opp = make(rng)
            except IndexError:  # no free point to place on: draw another
                continue
            if not legal(me, opp):
                continue
            record(me, opp, roll(rng), name)
            made += 1
        print(f"{name}: {len(cases)} cases, {time.time() - t0:.0f}s", file=sys.stderr)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=9) as fh:
        for c in cases:
            fh.write(json.dumps(c, separators=(",", ":")) + "\n")
    with open(args.counts, "w", encoding="utf-8") as fh:
        fh.write("# gnubg 1.07 legal-play counts (distinct results; a pass counts 1), from "
                 f"tools/make_gnubg_fixture.py --seed {args.seed}\n")
        fh.write("position_id\tdice\tcount\n")
        for c in cases:
            fh.write(f"{c['id']}\t{c['dice'][0]}{c['dice'][1]}\t{len(c['results'])}\n")
    print(f"{len(cases)} cases, {ref.queries} gnubg queries, {time.time() - t0:.0f}s", file=sys.stderr)
    for name, n in sorted(tags.items()):
        print(f"  {name:16} {n}", file=sys.stderr)


if __name__ == "__main__" or os.environ.get(ENV_ARGS) is not None:
    try:
        import gnubg  # noqa: F401
    except ImportError:
        if __name__ == "__main__":
            sys.exit(relaunch())
    else:
        main_inside()
