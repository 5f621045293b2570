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

:func:`player_theme` says the same from the side on roll's point of view (the player who decides):
``blitz: attacking`` or ``blitz: defending``, ``back game: playing`` or ``back game: against``, and so
on (:data:`PLAYER_THEMES`), and names the themes of Dutch backgammon and Mahbusa, where most of the
standard ones do not apply (:data:`DUTCH_THEMES`, :data:`MAHBUSA_THEMES`).

>>> from analyzer.core.position import Position
>>> position_theme(Position.start()), game_phase(Position.start())
('middle game', 'opening')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzer.core.position import Position
from analyzer.eval.features import CLASS_CRASHED, CLASS_RACE, classify

__all__ = ["DUTCH_THEMES", "MAHBUSA_THEMES", "PHASES", "PLAYER_THEMES", "THEMES", "SideShape", "game_phase",
           "player_theme", "position_theme", "side_shape"]

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


PLAYER_THEMES = ("race", "crashed", "bear-off vs contact", "blitz: attacking", "blitz: defending",
                 "back game: playing", "back game: against", "ace-point game: playing", "ace-point game: against",
                 "prime vs prime", "containment: priming", "containment: primed", "holding: holding",
                 "holding: against", "middle game")
"""The standard themes of :func:`player_theme`, seen from the side on roll: the one-sided themes of
:data:`THEMES` split by who plays them (``attacking``/``playing``/``priming``/``holding``: the side on roll;
``defending``/``against``/``primed``: the other side)."""

DUTCH_THEMES = ("race", "bear-off vs contact", "hit on the bar", "entering", "locked", "middle game")
"""Dutch backgammon's themes (the first that fits): ``race`` (no contact), ``bear-off vs contact`` (a side
has borne off or has every checker home, contact left), ``hit on the bar`` (a checker of either side on the
bar), ``entering`` (a side still has checkers in its reserve), ``locked`` (no checker of a side has reached
its home board yet, so it may not hit), ``middle game``. Blitzes, back games and primes as the standard
themes define them hardly arise: every checker enters from the reserve and hitting is locked at first."""

MAHBUSA_THEMES = ("race", "mother pinned", "bear-off vs contact", "pinned", "pinning", "opening", "middle game")
"""Mahbusa's themes (the first that fits): ``race`` (no contact), ``mother pinned`` (either side's last
checker on its starting point is pinned: the game may end at once), ``bear-off vs contact``, ``pinned``
(a checker of the side on roll is pinned), ``pinning`` (the side on roll pins a checker), ``opening``
(either side still has 8 or more checkers on its starting point), ``middle game``. There is no hitting and
no bar: the standard themes (blitz, back game, holding, primes) do not apply."""


def _contact(pos: Position) -> bool:
    """Some checker still has to pass an opposing one (bar, reserve and pins count as contact)."""
    mine, theirs = pos.mover, pos.opponent
    if pos.pinned_mover or pos.pinned_opponent:
        return True
    back = 25 if pos.mover_bar or pos.mover_reserve else max((p for p in range(1, 25) if mine[p - 1]), default=0)
    opp_back = 0 if pos.opponent_bar or pos.opponent_reserve else min(
        (p for p in range(1, 25) if theirs[p - 1]), default=25)
    return back > opp_back


def _home_or_off(pos: Position) -> bool:
    """Either side has borne off a checker or has every checker in its home board."""
    for p in (pos, pos.flip()):
        if p.mover_off > 0 or (p.mover_bar == 0 and p.mover_reserve == 0 and sum(p.mover[6:]) == 0):
            return True
    return False


def _dutch_theme(pos: Position) -> str:
    if not _contact(pos):
        return "race"
    if _home_or_off(pos):
        return "bear-off vs contact"
    if pos.mover_bar or pos.opponent_bar:
        return "hit on the bar"
    if pos.mover_reserve or pos.opponent_reserve:
        return "entering"
    if not (pos.mover_can_hit and pos.opponent_can_hit):
        return "locked"
    return "middle game"


def _mahbusa_theme(pos: Position) -> str:
    if not _contact(pos):
        return "race"
    start = 24
    if (pos.mover[start - 1] == 1 and start in pos.pinned_mover) or (
            pos.opponent[0] == 1 and 1 in pos.pinned_opponent):
        return "mother pinned"
    if _home_or_off(pos):
        return "bear-off vs contact"
    if pos.pinned_mover:
        return "pinned"
    if pos.pinned_opponent:
        return "pinning"
    if pos.mover[start - 1] >= 8 or pos.opponent[0] >= 8:
        return "opening"
    return "middle game"


_ONE_SIDED = {"blitz": ("blitz: attacking", "blitz: defending"),
              "back game": ("back game: playing", "back game: against"),
              "ace-point game": ("ace-point game: playing", "ace-point game: against"),
              "containment": ("containment: priming", "containment: primed"),
              "holding": ("holding: holding", "holding: against")}


def player_theme(pos: Position) -> str:
    """The theme of ``pos`` from the side on roll's point of view: one of :data:`PLAYER_THEMES` in a
    standard game, of :data:`DUTCH_THEMES` or :data:`MAHBUSA_THEMES` in those games.

    A one-sided theme (a blitz, a back game, an ace-point game, containment, a holding game) says
    who plays it; when both sides fit, the side on roll's own is named.

    >>> player_theme(Position.from_notation("P 6:3 5:3 4:3 3:2 8:2 13:2 | O 24:1 19:13 | bar P0 O1"))
    'blitz: attacking'
    >>> player_theme(Position.from_notation("P 6:3 5:3 4:3 3:2 8:2 13:2 | O 24:1 19:13 | bar P0 O1").flip())
    'blitz: defending'
    >>> player_theme(Position.start("dutch")), player_theme(Position.start("mahbusa"))
    ('entering', 'opening')
    """
    if pos.variant == "dutch":
        return _dutch_theme(pos)
    if pos.variant == "mahbusa":
        return _mahbusa_theme(pos)
    theme = position_theme(pos)
    if theme not in _ONE_SIDED:
        return theme
    a, b = side_shape(pos), side_shape(pos.flip())
    mine = {"blitz": _blitzing(a, b), "back game": _back_game(a), "ace-point game": _ace_point_game(a),
            "containment": _containing(a), "holding": _holding(a, b)}[theme]
    return _ONE_SIDED[theme][0 if mine else 1]
