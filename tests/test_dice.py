"""Dice rolls: Roll, ALL_21, ALL_36, parsing and averages."""

from __future__ import annotations

from collections import Counter

import pytest

from analyzer.core.dice import ALL_21, ALL_36, OPENING_ROLLS, Roll, expectation, parse_roll
from analyzer.core.errors import ParseError


def test_all_36_and_all_21_agree() -> None:
    assert len(ALL_36) == 36 and len(set(ALL_36)) == 36
    counts = Counter(Roll(a, b) for a, b in ALL_36)
    assert len(ALL_21) == 21 and set(ALL_21) == set(counts)
    for r in ALL_21:
        assert r.weight == counts[r]
        assert r.probability == pytest.approx(counts[r] / 36)
    assert sum(r.weight for r in ALL_21) == 36
    assert sum(r.is_double for r in ALL_21) == 6


def test_roll_value() -> None:
    assert Roll(1, 5) == Roll(5, 1) and hash(Roll(1, 5)) == hash(Roll(5, 1))
    r = Roll(2, 6)
    assert (r.high, r.low, r.dice, str(r), repr(r)) == (6, 2, (6, 2), "62", "Roll(6, 2)")
    assert r.dice_to_play == (6, 2) and r.pips == 8 and not r.is_double
    d = Roll(3, 3)
    assert d.dice_to_play == (3, 3, 3, 3) and d.pips == 12 and d.weight == 1
    assert [ALL_21[r.index] for r in ALL_21] == list(ALL_21)
    with pytest.raises(AttributeError):
        r.high = 1  # type: ignore[misc]
    for a, b in ((0, 1), (7, 2), (3, -1)):
        with pytest.raises(ParseError):
            Roll(a, b)


@pytest.mark.parametrize(("text", "roll"), [("51", Roll(5, 1)), ("15", Roll(5, 1)), ("5-1", Roll(5, 1)),
                                            ("6 6", Roll(6, 6)), (" 4x2 ", Roll(4, 2)), ("3,1", Roll(3, 1))])
def test_parse_roll(text: str, roll: Roll) -> None:
    assert parse_roll(text) == roll


@pytest.mark.parametrize("text", ["", "5", "517", "07", "a1", "5--1"])
def test_parse_roll_errors(text: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_roll(text)
    assert info.value.token == text


def test_opening_rolls_and_expectation() -> None:
    assert len(OPENING_ROLLS) == 15 and not any(r.is_double for r in OPENING_ROLLS)
    assert sum(r.weight for r in OPENING_ROLLS) == 30
    # average pips of a roll: 2 x 3.5 for the two dice plus the extra half of doubles
    assert expectation(lambda r: float(r.pips)) == pytest.approx(7 + sum(2 * d for d in range(1, 7)) / 36)
    assert expectation(lambda r: 1.0 if r.is_double else 0.0) == pytest.approx(1 / 6)
    with pytest.raises(ValueError):
        expectation(lambda r: 0.0, ())
