"""The compiled cubeful values after many plays (luck's inner loop) equal the Python cube model's, bit for bit."""

from __future__ import annotations

import random

import numpy as np
import pytest

from analyzer.analysis.decisions import equity_after
from analyzer.analysis.luck import roll_values
from analyzer.core.dice import ALL_21
from analyzer.core.match import MatchState
from analyzer.core.position import Position, flip_boards
from analyzer.eval.cube import cubeful_after_many
from analyzer.eval.engine import Engine
from analyzer.eval.met import met_by_name
from analyzer.eval.probabilities import Probabilities
from analyzer.rules import find_variant

STATES = [
    MatchState(),  # money, centred, Jacoby as MatchState has it by default
    MatchState(cube=2, cube_owner=0),
    MatchState(cube=4, cube_owner=1),
    MatchState(jacoby=False),
    MatchState(length=7, score=(4, 2)),
    MatchState(length=7, score=(2, 4), cube=2, cube_owner=1),
    MatchState(length=5, score=(4, 2), crawford=True),
    MatchState(length=5, score=(4, 3), post_crawford=True),
    MatchState(length=13, score=(0, 11), cube=2, cube_owner=0),
    MatchState(length=3, score=(1, 1), cube=2, cube_owner=1),
]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _positions(n: int, seed: int) -> list[Position]:
    """Positions of random games (contact, races, bear-offs), the side on roll before his roll."""
    rules = find_variant("standard")
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.start()
        for _ in range(120):
            res = rules.legal_results(pos, (rng.randint(1, 6), rng.randint(1, 6)))
            nxt = Position(res[rng.randrange(len(res))].tobytes()) if len(res) else pos
            if nxt.mover_off == 15:
                break
            pos = nxt.flip()
            if rng.random() < 0.15:
                out.append(pos)
    return out


@pytest.mark.parametrize("state", STATES, ids=range(len(STATES)))
def test_every_candidate_as_equity_after(engine, state):
    met = met_by_name()
    rules = find_variant("standard")
    rng = random.Random(7)
    for pos in _positions(12, hash(state) % 1000):
        dice = ALL_21[rng.randrange(21)].dice
        results = rules.legal_results(pos, dice)
        after = flip_boards(results)
        raw = np.asarray(engine.evaluate_boards(after, 0))
        rows = np.arange(len(results))
        fast = cubeful_after_many(raw, after, rows, state, 0, met).tolist()
        mover = raw[:, [3, 4, 5, 0, 1, 2]]
        slow = [equity_after(Probabilities.from_outcomes(mover[i].tolist()), Position(results[i].tobytes()), state,
                             0, met) for i in rows]
        assert fast == slow  # exactly: the same operations in the same order


def test_roll_values_uses_it_and_keeps_its_numbers(engine):
    """roll_values of a standard position (compiled) equals the per-play path it replaced."""

    class NoBulk:  # the same engine without evaluate_boards: roll_values takes its one-play-at-a-time path
        def rank_plays(self, position, dice, ply):  # type: ignore[no-untyped-def]
            return engine.rank_plays(position, dice, ply)

    for pos in _positions(3, 11):
        for state in (STATES[0], STATES[5]):
            fast = roll_values(engine, pos, state, 0, met_by_name())
            slow = roll_values(NoBulk(), pos, state, 0, met_by_name())  # type: ignore[arg-type]
            assert fast.keys() == slow.keys()
            assert [fast[k] for k in fast] == pytest.approx([slow[k] for k in fast], abs=1e-12)
