"""The kind of game a standard backgammon position is: its theme, and the phase of the game.

Strong players judge an evaluator, and their own play, by the kind of position: blitzes, primes,
back games, holding games and bear-offs against contact each ask for other skills, and an
evaluator can be sound in most of them and blind in one. :func:`position_theme` names the
theme of a position (the first that fits, in the order of :data:`THEMES`), from simple counts of
both sides' checkers; :func:`game_phase` says how far the game has gone by the pips left.

The definitions (``A`` is either side, ``B`` the other; points in ``A``'s numbering, ``A``
bearing off from its points 1..6, ``B``'s home board being ``A``'s points 19..24):

* ``race``: no contact is left.
* ``crashed``: the evaluator's crashed class (a side has at most 6 checkers still in play once
  heavy stacks on its 1- and 2-points are discounted).
* ``bear-off vs contact``: contact, and ``A`` has borne off a checker or has every checker home.
* ``blitz``: ``A`` has made 3 or more of its home points, and ``B`` has a checker on the bar or a
  blot in ``A``'s home board and no anchor there.
* ``back game``: ``A`` holds two or more points in ``B``'s home board and trails by 50 or more pips.
* ``ace-point game``: ``A`` holds ``B``'s ace point (its own 24-point), no other point there, has
  at most 4 checkers back, and trails by 40 or more pips.
* ``prime vs prime``: both sides have a prime of 4 or more points with a checker of the other
  side behind it.
* ``containment``: ``A`` has a prime of 4 or more points with a checker of ``B`` behind it.
* ``holding``: ``A`` holds ``B``'s bar-, 5- or 4-point (its own 18-, 20- or 21-point; 19 too)
  with at most 3 checkers back, and ``B`` has no checker left in ``A``'s home board or on the bar.
* ``middle game``: everything else (mutual contact, the opening).

>>> from analyzer.core.position import Position
>>> position_theme(Position.start()), game_phase(Position.start())
('middle game', 'opening')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzer.core.position import Position
from analyzer.eval.features import CLASS_CRASHED, CLASS_RACE, classify

__all__ = ["PHASES", "THEMES", "SideShape", "game_phase", "position_theme", "side_shape"]

THEMES = ("race", "crashed", "bear-off vs contact", "blitz", "back game", "ace-point game", "prime vs prime",
          "containment", "holding", "middle game")
"""Every theme, in the order :func:`position_theme` tries them."""

PHASES = ("opening", "middle", "late")
"""The phases of :func:`game_phase`."""

PRIME = 4
"""Consecutive made points that count as a prime."""


@dataclass(frozen=True, slots=True)
class SideShape:
    """Counts of one side's checkers, in that side's own point numbering (it bears off from 1..6).

    ``points`` are the side's checkers on its points 1..24 (index 0 = point 1); ``theirs`` the
    other side's checkers on the same points; ``prime`` the longest run of made points and
    ``prime_low`` the lowest point of that run (0 without a made point); ``behind`` the other side's
    checkers behind that prime (on lower points, or on the bar: they must still pass it).
    """

    points: tuple[int, ...]
    theirs: tuple[int, ...]
    bar: int
    their_bar: int
    off: int
    pips: int
    their_pips: int
    prime: int
    prime_low: int
    behind: int

    @property
    def home_points(self) -> int:
        """Points 1..6 the side has made."""
        return sum(1 for n in self.points[:6] if n >= 2)

    @property
    def back(self) -> int:
        """The side's checkers in the other side's home board (its points 19..24) and on the bar."""
        return sum(self.points[18:]) + self.bar

    @property
    def anchors(self) -> tuple[int, ...]:
        """The points of the other side's home board (19..24) that the side holds."""
        return tuple(p for p in range(19, 25) if self.points[p - 1] >= 2)

    @property
    def all_home(self) -> bool:
        """Every checker of the side not yet borne off is on its points 1..6."""
        return self.bar == 0 and sum(self.points[6:]) == 0


def side_shape(pos: Position) -> SideShape:
    """The :class:`SideShape` of the side on roll in ``pos``.

    >>> s = side_shape(Position.start())
    >>> s.home_points, s.back, s.anchors, s.prime, s.pips
    (1, 2, (24,), 1, 167)
    """
    mine = pos.mover
    theirs = pos.opponent
    best, best_low, run = 0, 0, 0
    for p in range(1, 25):
        run = run + 1 if mine[p - 1] >= 2 else 0
        if run > best:
            best, best_low = run, p - run + 1
    behind = 0
    if best_low:
        behind = sum(theirs[: best_low - 1]) + pos.opponent_bar
    pips, their_pips = pos.pips()
    return SideShape(points=mine, theirs=theirs, bar=pos.mover_bar, their_bar=pos.opponent_bar,
                     off=pos.mover_off, pips=pips, their_pips=their_pips, prime=best, prime_low=best_low,
                     behind=behind)


def _blitzing(a: SideShape, b: SideShape) -> bool:
    """``a`` attacks ``b`` in ``a``'s home board (``b``'s checkers there are ``a.theirs[:6]``)."""
    if a.home_points < 3 or any(n >= 2 for n in a.theirs[:6]):
        return False
    return b.bar > 0 or any(n == 1 for n in a.theirs[:6])


def _back_game(a: SideShape) -> bool:
    return len(a.anchors) >= 2 and a.pips - a.their_pips >= 50


def _ace_point_game(a: SideShape) -> bool:
    return a.anchors == (24,) and a.back <= 4 and a.pips - a.their_pips >= 40


def _containing(a: SideShape) -> bool:
    return a.prime >= PRIME and a.behind > 0


def _holding(a: SideShape, b: SideShape) -> bool:
    return bool(set(a.anchors) & {18, 19, 20, 21}) and a.back <= 3 and b.back == 0


def position_theme(pos: Position) -> str:
    """The theme of a standard backgammon position in play (one of :data:`THEMES`).

    >>> position_theme(Position.from_notation("P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2"))
    'middle game'
    >>> position_theme(Position.from_notation("P 2:4 3:3 4:3 5:3 6:2 | O 1:2 19:13"))
    'bear-off vs contact'
    """
    if not pos.spec.has_cube:  # the standard evaluator's games
        raise ValueError(f"themes are defined for standard backgammon, not {pos.variant}")
    board = np.frombuffer(pos.board, np.int8)
    kind = int(classify(board))
    if kind == CLASS_RACE:
        return "race"
    if kind == CLASS_CRASHED:
        return "crashed"
    a, b = side_shape(pos), side_shape(pos.flip())
    sides = ((a, b), (b, a))
    if any(s.off > 0 or s.all_home for s in (a, b)):
        return "bear-off vs contact"
    if any(_blitzing(x, y) for x, y in sides):
        return "blitz"
    if any(_back_game(x) for x in (a, b)):
        return "back game"
    if any(_ace_point_game(x) for x in (a, b)):
        return "ace-point game"
    if _containing(a) and _containing(b):
        return "prime vs prime"
    if _containing(a) or _containing(b):
        return "containment"
    if any(_holding(x, y) for x, y in sides):
        return "holding"
    return "middle game"


def game_phase(pos: Position) -> str:
    """How far the game has gone, by both sides' pips: ``opening`` (280 or more together; the
    start has 334), ``middle`` (200 to 279) or ``late`` (under 200).

    >>> game_phase(Position.from_notation("P 2:4 3:3 4:3 5:3 6:2 | O 1:2 19:13"))
    'late'
    """
    total = sum(pos.pips())
    if total >= 280:
        return "opening"
    return "middle" if total >= 200 else "late"
