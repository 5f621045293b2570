"""Cube decisions at n-ply against GNU Backgammon's proper cube action (money, centred cube).

Positions come from our own 0-ply self-play (:func:`analyzer.eval.selfplay.play_seeded`), one
random position before the roll from each of many games (seeded). We decide with the n-ply cubeful
search :func:`analyzer.eval.cube_search.cube_decision_nply` at ``--ply`` (and, for comparison, with the older
conversion of ``--ply`` cubeless probabilities at the root, :func:`analyzer.eval.cube.analyze_cube`); GNU Backgammon
(the ``gnubg`` wheel, run in a separate process, used as a referee only) gives its ``hint`` cube
analysis at the same ply. Both actions are folded into ``no double``, ``double, take``,
``double, pass``, ``too good, take``, ``too good, pass`` and the agreement is printed, overall
and on the positions where at least one side doubles (the non-trivial ones).

    .venv/bin/python bench/cube_agreement.py [--positions 200] [--ply 2] [--seed 0] [--show 10]
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import time
from collections import Counter

import numpy as np

from analyzer.cli.cube import simple_action
from analyzer.core.ids import encode_position_id, match_id_from_state
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval.cube import CubeDecision, analyze_cube
from analyzer.eval.cube_search import cube_decision_nply
from analyzer.eval.engine import Engine
from analyzer.eval.selfplay import GameBuffers, play_seeded

GNUBG_SCRIPT = r"""
import ctypes, sys
import gnubg
libc = ctypes.CDLL(None)
ply = int(sys.argv[1])
ids = sys.stdin.read().split()
for c in ["set threads 2", "set evaluation cubedecision evaluation plies %d" % ply,
          "set evaluation chequerplay evaluation plies %d" % ply, "set jacoby off"]:
    gnubg.command(c)
for i, gid in enumerate(ids):
    libc.printf(b"@@@ %d\n", ctypes.c_int(i))
    gnubg.setgnubgid(gid)
    gnubg.command("hint")
libc.printf(b"@@@ end\n")
libc.fflush(None)
"""


def self_play_positions(engine: Engine, count: int, seed: int) -> list[Position]:
    """``count`` positions before the roll, each from its own self-play game (skipping the first
    four plies and finished or bear-off-only positions)."""
    rng = np.random.default_rng(seed)
    buf = GameBuffers()
    out: list[Position] = []
    game = 0
    while len(out) < count:
        t, outcome = play_seeded(engine.nets, seed * 1_000_003 + game, 0.0, buf)
        game += 1
        if outcome < 0 or t < 8:
            continue
        k = int(rng.integers(4, t))
        pos = Position.from_array(buf.states[k])
        if max(i + 1 for i, n in enumerate(pos.mover) if n) <= 6 and pos.mover_bar == 0 \
                and min(i + 1 for i, n in enumerate(pos.opponent) if n) >= 19 and pos.opponent_bar == 0:
            continue  # both sides bearing off: the databases decide, little to compare
        out.append(pos)
    return out


def gnubg_actions(ids: list[str], ply: int) -> list[str | None]:
    """gnubg's 'Proper cube action' text for each ``PositionID:MatchID`` (None if none printed)."""
    p = subprocess.run([sys.executable, "-c", GNUBG_SCRIPT, str(ply)], input="\n".join(ids), capture_output=True,
                       text=True, timeout=3600, check=False)
    chunks = re.split(r"^@@@ ", p.stdout, flags=re.M)
    found: dict[int, str] = {}
    for ch in chunks:
        head, _, body = ch.partition("\n")
        if head.strip().isdigit():
            m = re.search(r"Proper cube action: ([^\n(]*)", body)
            if m:
                found[int(head)] = m.group(1).strip()
    return [found.get(i) for i in range(len(ids))]


def fold_gnubg(text: str) -> str:
    """gnubg's wording folded like ours ('Optional double' counts as a double)."""
    t = text.lower().replace("optional ", "")
    return simple_action(t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=10, help="list this many disagreements")
    a = ap.parse_args()
    if importlib.util.find_spec("gnubg") is None:
        sys.exit("the gnubg wheel is needed as the referee: .venv/bin/pip install gnubg")
    engine = Engine()
    positions = self_play_positions(engine, a.positions, a.seed)
    mid = match_id_from_state(MatchState(), on_roll=0).encode()
    ids = [f"{encode_position_id(p)}:{mid}" for p in positions]
    t = time.perf_counter()
    root = [analyze_cube(p, MatchState(), 0, lambda q: engine.evaluate(q, a.ply)) for p in positions]
    t_root = time.perf_counter() - t
    t = time.perf_counter()
    ours = [cube_decision_nply(engine, p, MatchState(), 0, a.ply) for p in positions]
    t_ours = time.perf_counter() - t
    t = time.perf_counter()
    theirs = gnubg_actions(ids, a.ply)
    t_gnubg = time.perf_counter() - t
    report(positions, ids, ours, theirs, a, f"cubeful search, {t_ours:.1f} s")
    report(positions, ids, root, theirs, a, f"cubeless converted at the root, {t_root:.1f} s")
    print(f"time: gnubg {t_gnubg:.1f} s")


def report(positions: list[Position], ids: list[str], ours: list[CubeDecision], theirs: list[str | None],
           a: argparse.Namespace, method: str) -> None:
    """Print the agreement of ``ours`` with gnubg's actions."""
    pairs = [(simple_action(o.action), fold_gnubg(g)) for o, g in zip(ours, theirs, strict=True) if g is not None]
    agree = sum(x == y for x, y in pairs)
    relevant = [(x, y) for x, y in pairs if x != "no double" or y != "no double"]
    agree_rel = sum(x == y for x, y in relevant)
    print(f"{len(positions)} self-play positions (seed {a.seed}), money, centred cube, {a.ply}-ply ({method}); "
          f"gnubg answered {len(pairs)}")
    print(f"agreement with gnubg's proper action: {agree}/{len(pairs)} = {100 * agree / max(1, len(pairs)):.1f}%")
    print(f"  where either side doubles: {agree_rel}/{len(relevant)} = "
          f"{100 * agree_rel / max(1, len(relevant)):.1f}%")
    print(f"  double/no double agreement: "
          f"{sum((x == 'no double') == (y == 'no double') for x, y in pairs)}/{len(pairs)}")
    print("  confusion (ours -> gnubg): "
          + ", ".join(f"{k[0]} -> {k[1]}: {v}" for k, v in sorted(Counter(pairs).items()) if k[0] != k[1]))
    shown = 0
    for gid, o, g in zip(ids, ours, theirs, strict=True):
        if g is not None and simple_action(o.action) != fold_gnubg(g) and shown < a.show:
            shown += 1
            print(f"  {gid}: ours {o.action} (nd {o.nd:+.3f} dt {o.dt:+.3f}, win {o.probabilities.win:.3f}) "
                  f"| gnubg {g}")


if __name__ == "__main__":
    main()
