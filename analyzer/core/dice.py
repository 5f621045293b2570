"""Dice rolls: the :class:`Roll` value, the 21 distinct rolls and the 36 ordered outcomes.

A roll is stored larger die first (as gnubg stores it); ``Roll(1, 5)`` and ``Roll(5, 1)`` are
equal. Doubles are played four times.

>>> Roll(1, 5)
Roll(5, 1)
>>> Roll(4, 4).dice_to_play
(4, 4, 4, 4)
>>> len(ALL_21), sum(r.weight for r in ALL_21), len(ALL_36)
(21, 36, 36)
>>> parse_roll("6-3")
Roll(6, 3)
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import SupportsIndex

from analyzer.core.errors import ParseError


@dataclass(frozen=True, slots=True, init=False)
class Roll:
    """A roll of two dice, larger die first; ``weight`` is 1 for a double and 2 otherwise."""

    high: int
    low: int

    def __init__(self, die1: int, die2: int) -> None:
        a, b = _die(die1, (die1, die2)), _die(die2, (die1, die2))
        object.__setattr__(self, "high", max(a, b))
        object.__setattr__(self, "low", min(a, b))

    def __repr__(self) -> str:
        return f"Roll({self.high}, {self.low})"

    def __str__(self) -> str:
        return f"{self.high}{self.low}"

    @property
    def is_double(self) -> bool:
        """True for 1-1, 2-2, ... 6-6."""
        return self.high == self.low

    @property
    def weight(self) -> int:
        """How many of the 36 ordered outcomes give this roll (1 or 2).

        >>> Roll(6, 6).weight, Roll(6, 5).weight
        (1, 2)
        """
        return 1 if self.high == self.low else 2

    @property
    def probability(self) -> float:
        """``weight / 36``."""
        return self.weight / 36.0

    @property
    def dice(self) -> tuple[int, int]:
        """The two dice, larger first (the form the rules engine takes)."""
        return (self.high, self.low)

    @property
    def dice_to_play(self) -> tuple[int, ...]:
        """The die values to play: two, or four copies for a double."""
        return (self.high,) * 4 if self.is_double else (self.high, self.low)

    @property
    def pips(self) -> int:
        """Total pips of the roll (a double counts four times).

        >>> Roll(6, 6).pips, Roll(2, 1).pips
        (24, 3)
        """
        return sum(self.dice_to_play)

    @property
    def index(self) -> int:
        """Position of this roll in :data:`ALL_21` (0..20).

        >>> ALL_21[Roll(5, 2).index]
        Roll(5, 2)
        """
        return _INDEX[(self.high, self.low)]


def _shown(value: object) -> str:
    """``value`` as JSON text (Python's repr for what JSON cannot write), for error messages."""
    return json.dumps(value, default=repr)[:60]


def _die(value: object, dice: object) -> int:
    """One die: an integer 1..6 (``True`` and ``1.0`` are not dice)."""
    if isinstance(value, bool) or not isinstance(value, SupportsIndex):
        raise ParseError("a die is a whole number 1 to 6", token=_shown(dice))
    n = operator.index(value)
    if not 1 <= n <= 6:
        raise ParseError("dice must be 1 to 6", token=_shown(dice))
    return n


def dice_from_data(value: object) -> tuple[int, int]:
    """Two dice given as data (a JSON list ``[a, b]``), in the order given.

    Exactly two whole numbers 1 to 6: booleans, floats, strings and nested lists are refused.

    >>> dice_from_data([3, 1])
    (3, 1)
    >>> dice_from_data([True, 1])
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: a die is a whole number 1 to 6: '[true, 1]'
    """
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ParseError("dice are a list of two numbers 1 to 6", token=_shown(value))
    return _die(value[0], value), _die(value[1], value)


def parse_roll(text: str) -> Roll:
    """Read a roll written ``"51"``, ``"5-1"``, ``"5 1"`` or ``"5x1"``.

    >>> parse_roll("15")
    Roll(5, 1)
    >>> parse_roll("70")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: not a roll of two dice 1-6: '70'
    """
    m = re.fullmatch(r"\s*([1-6])\s*[-x ,]?\s*([1-6])\s*", text, flags=re.ASCII)
    if not m:
        raise ParseError("not a roll of two dice 1-6", token=text)
    return Roll(int(m.group(1)), int(m.group(2)))


ALL_21: tuple[Roll, ...] = tuple(Roll(a, b) for a in range(1, 7) for b in range(1, a + 1))
"""The 21 distinct rolls (1-1, 2-1, 2-2, ... 6-6); weight 2 for non-doubles, 1 for doubles."""

ALL_36: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
"""The 36 equally likely ordered outcomes ``(first die, second die)``."""

OPENING_ROLLS: tuple[Roll, ...] = tuple(r for r in ALL_21 if not r.is_double)
"""The 15 rolls that can start a standard game (a tie is re-rolled)."""

_INDEX = {(r.high, r.low): i for i, r in enumerate(ALL_21)}


def expectation(f: Callable[[Roll], float], rolls: tuple[Roll, ...] = ALL_21) -> float:
    """The weighted average of ``f`` over ``rolls`` (by default all 36 outcomes).

    >>> expectation(lambda r: r.pips)
    8.166666666666666
    >>> expectation(lambda r: float(r.high + r.low), OPENING_ROLLS)
    7.0
    """
    total = 0.0
    weight = 0
    for r in rolls:
        total += r.weight * f(r)
        weight += r.weight
    if weight == 0:
        raise ValueError("no rolls to average over")
    return total / weight
