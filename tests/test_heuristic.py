"""The hand-written "pip count plus safety" player (:mod:`analyzer.eval.heuristic`) and the
duplicate-dice strength bench (``bench/variant_strength.py``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from analyzer.core.position import Position
from analyzer.eval.heuristic import choose_play, score_boards
from analyzer.rules import find_variant


def _chosen(variant: str, notation: str, dice: tuple[int, int]) -> str:
    """The text of the play the heuristic picks."""
    rules = find_variant(variant)
    pos = Position.from_notation(notation, variant)
    boards = rules.legal_results(pos, dice)
    best = Position(boards[choose_play(pos, dice, rules)].tobytes(), variant)
    texts = [p.text for p in rules.legal_plays(pos, dice) if p.result == best]
    assert len(texts) == 1
    return texts[0]


START = "P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2"


@pytest.mark.parametrize(
    ("variant", "notation", "dice", "expected"),
    [
        # Standard: make a point rather than leave blots.
        ("standard", START, (3, 1), "8/5 6/5"),
        ("standard", START, (6, 1), "13/7 8/7"),
        # Dutch: entering both checkers is safe while the opponent may not hit.
        ("dutch", "P | O | res P15 O15", (6, 5), "bar/20 bar/19"),
        # Dutch: hit the opponent's blot once we may hit.
        ("dutch", "P 20:1 | O 12:1 | res P14 O14 | unlocked | ounlocked", (6, 2), "20/12*"),
        # Mahbusa: pin the opponent's blot.
        ("mahbusa", "P 24:13 14:1 1:1 | O 20:1 12:1 2:13", (6, 2), "24/18 14/12^"),
        # Mahbusa: keep two checkers on the 24-point rather than leave the mother exposed.
        ("mahbusa", "P 24:2 13:12 8:1 | O 20:2 1:13", (6, 1), "13/7 8/7"),
    ],
)
def test_prefers_the_obvious_play(variant: str, notation: str, dice: tuple[int, int], expected: str) -> None:
    assert _chosen(variant, notation, dice) == expected


def test_mahbusa_pin_beats_no_pin() -> None:
    rules = find_variant("mahbusa")
    pos = Position.from_notation("P 24:13 20:1 18:1 | O 17:1 1:14", "mahbusa")
    boards = rules.legal_results(pos, (1, 3))
    best = Position(boards[choose_play(pos, (1, 3), rules)].tobytes(), "mahbusa")
    assert best.pinned_opponent == (17,)


def test_dutch_blot_is_safe_while_opponent_is_locked() -> None:
    locked = Position.from_notation("P 20:1 | O 16:1 | res P14 O14 | unlocked | olocked", "dutch")
    unlocked = Position.from_notation("P 20:1 | O 16:1 | res P14 O14 | unlocked | ounlocked", "dutch")
    rows = np.stack([np.frombuffer(p.board, np.int8) for p in (locked, unlocked)])
    s = score_boards(rows, "dutch")
    assert s[0] > s[1]


def test_winning_play_is_taken() -> None:
    rules = find_variant("standard")
    pos = Position.from_notation("P 2:1 1:1 | O 24:1 19:14 | off P13", "standard")
    boards = rules.legal_results(pos, (2, 1))
    assert boards[choose_play(pos, (2, 1), rules)][26] == 15


@pytest.mark.parametrize("variant", ["standard", "dutch", "mahbusa"])
def test_choose_play_returns_a_legal_row(variant: str) -> None:
    rules = find_variant(variant)
    rng = random.Random(7)
    pos = rules.start()
    for _ in range(60):
        dice = rng.randint(1, 6), rng.randint(1, 6)
        boards = rules.legal_results(pos, dice)
        row = choose_play(pos, dice, rules)
        assert 0 <= row < len(boards)
        assert choose_play(pos, dice, rules) == row  # deterministic
        pos = Position(boards[row].tobytes(), variant)
        pos = rules.start() if rules.outcome(pos) is not None else pos.flip()


@pytest.mark.parametrize("variant", ["standard", "dutch", "mahbusa"])
def test_heuristic_beats_random(variant: str, capsys: pytest.CaptureFixture[str],
                                bench_script: Callable[[str], ModuleType]) -> None:
    bench = bench_script("variant_strength")
    assert bench.main(["--variant", variant, "--games", "40", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("A points per game"))
    ppg = float(line.split(":")[1].split()[0])
    assert ppg > 0


def test_duplicate_pairs_replay_the_same_dice(bench_script: Callable[[str], ModuleType]) -> None:
    bench = bench_script("variant_strength")
    rules = find_variant("dutch")
    dice = bench.DiceStream(random.Random(5), rules)
    first = [dice.next() for _ in range(30)]
    dice.replay()
    assert [dice.next() for _ in range(30)] == first


def test_a_player_against_itself_scores_zero_in_duplicate(capsys: pytest.CaptureFixture[str],
                                                           bench_script: Callable[[str], ModuleType]) -> None:
    bench = bench_script("variant_strength")
    assert bench.main(["--variant", "mahbusa", "--games", "6", "--a", "heuristic", "--b", "heuristic"]) == 0
    assert "A points per game: +0.000 +- 0.000" in capsys.readouterr().out
