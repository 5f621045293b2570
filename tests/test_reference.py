"""The plain-Python reference generator and the compiled kernel agree on every variant and option.

Positions come from seeded random play (so they include bar entries, Dutch reserves and locks,
Mahbusa pins and mother wins); every one of the 21 rolls is compared as a set of result boards.
The standard reference is also checked against GNU Backgammon's fixture.
"""

from __future__ import annotations

import random

import pytest
from test_gnubg_moves import CASES, pos_from_json

from analyzer.core.dice import ALL_21
from analyzer.core.position import Position
from analyzer.rules import Dutch, Mahbusa, Standard, Variant
from analyzer.rules.reference import reference_plays

RULESETS: list[Variant] = [
    Standard(), Dutch(), Dutch(enter_all_first=True), Dutch(entry_choice="turn_start"), Dutch(unlock="current"),
    Mahbusa(), Mahbusa(mother_check="on_pin"),
]


def positions(rules: Variant, seed: int, count: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = rules.start()
        for _ in range(rng.randrange(1, 160)):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            results = rules.legal_results(pos, dice)
            nxt = Position(results[rng.randrange(len(results))].tobytes(), pos.variant)
            if rules.outcome(nxt) is not None:
                break
            pos = nxt.flip()
        out.append(pos)
    return out


# the default rules of each game in the default tier, their options in the integration tier
@pytest.mark.parametrize("rules", [r if r.options == type(r)().options
                                   else pytest.param(r, marks=pytest.mark.integration) for r in RULESETS], ids=repr)
def test_reference_equals_kernel(rules: Variant) -> None:
    for pos in positions(rules, seed=7, count=40):
        for r in ALL_21:
            dice = (r.high, r.low)
            kernel = {p.result.board for p in rules.legal_plays(pos, dice)}
            ref = set(reference_plays(pos, dice, rules.options))
            assert ref == kernel, (pos, dice)


def test_reference_equals_gnubg() -> None:
    for case in CASES[::5]:
        pos = pos_from_json(case["pos"])
        dice = (case["dice"][0], case["dice"][1])
        want = {pos_from_json(r).board for r in case["results"]}
        assert set(reference_plays(pos, dice)) == want, (pos, dice)
