"""A simple hand-written evaluator for every variant: "pip count plus safety".

This is the *yardstick* player of the strength benchmark (``bench/variant_strength.py``): our
0-ply net is measured against it. It is deliberately plain and is not our evaluator.

A resulting position (still seen from the side that just moved, before the turn passes) gets

``score = PIP * (opponent pips - own pips)``
``        - sum over own exposed blots of (BLOT + BLOT_LOSS * what a hit or pin costs)``
``        + HOME_POINT * made points on 1..6 + PRIME * (longest run of made points - 1)``
``        + Mahbusa terms + Dutch terms``

and :func:`choose_play` picks the legal result with the highest score (the first one on ties,
in the order of :meth:`Variant.legal_results`, so the choice is deterministic). A result that
ends the game scores ``WIN * points`` (a Mahbusa draw scores 0).

Weights and reasoning (one unit is about one pip):

* ``PIP = 1``: every play of a roll moves the same number of pips, so the pip difference only
  separates plays that hit (standard, Dutch) or bear off; it is the race term.
* An own blot is *exposed* when a free opponent checker sits 1 to 6 pips behind it (or, for the
  points 1..6, the opponent has checkers on the bar or in the Dutch reserve to enter with). In
  Dutch a blot is never exposed while the opponent may not hit yet. The cost is ``BLOT = 2``
  plus ``BLOT_LOSS = 0.3`` (about one direct shot's chance, 11/36) times the loss if hit: in
  standard and Dutch the pips lost, ``25 - p`` for a blot on point p; in Mahbusa a pinned
  checker is stuck, and the further from home the worse, so ``p`` pips, and a pin there also
  counts as the pinned-checker penalty below.
* ``HOME_POINT = 2`` per made point (two or more own checkers) in the home board and
  ``PRIME = 1.5`` per point of the longest run of made points beyond the first: they block.
  Both are dropped once contact is over (a pure race: only pips count).
* Mahbusa: ``PIN = 4`` plus ``PIN_DIST = 0.5`` per pip from home for each pinned checker, a
  bonus for the opponent's and a penalty for ours (a pinned checker costs its owner tempo and
  blocks its home). The mother (a lone own checker on the 24-point) is worth ``MOTHER = 30``:
  that much is lost when she is exposed to a pin, twice that when she is pinned, and pinning
  the opponent's mother while our own 24-point is not yet empty earns ``MOTHER`` too.
* Dutch: ``RESERVE = 1`` per checker still in the reserve (beyond its 25 pips: entering
  develops the position) and ``UNLOCK = 5`` once we may hit (a checker has reached home).

>>> from analyzer.rules import find_variant
>>> rules = find_variant("standard")
>>> pos = rules.start()
>>> boards = rules.legal_results(pos, (3, 1))
>>> best = Position(boards[choose_play(pos, (3, 1), rules)].tobytes())
>>> best.mover[7], best.mover[5], best.mover[4]  # 8/5 6/5: making the 5-point
(2, 4, 2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analyzer.core import layout as L
from analyzer.core.position import Position
from analyzer.core.variants import variant_spec

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from analyzer.rules.base import Variant

PIP = 1.0
BLOT = 2.0
BLOT_LOSS = 0.3
HOME_POINT = 2.0
PRIME = 1.5
PIN = 4.0
PIN_DIST = 0.5
MOTHER = 30.0
RESERVE = 1.0
UNLOCK = 5.0
WIN = 1000.0

_POINTS = np.arange(1, 25, dtype=np.float64)  # point number of columns 0..23


def _longest_run(made: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Longest run of consecutive True along axis 1 of an ``(n, 24)`` array."""
    run = np.zeros(made.shape[0], dtype=np.int64)
    best = np.zeros(made.shape[0], dtype=np.int64)
    for j in range(made.shape[1]):
        run = np.where(made[:, j], run + 1, 0)
        best = np.maximum(best, run)
    return best


def score_boards(boards: NDArray[np.int8], variant: str) -> NDArray[np.float64]:
    """The heuristic score of each ``(n, 64)`` result board, seen from the side that moved.

    Game-ending results are not recognised here (see :func:`score_results`).

    >>> b = np.frombuffer(Position.start().board, np.int8)[None, :]
    >>> float(score_boards(b, "standard")[0])  # the 6-point made
    2.0
    """
    spec = variant_spec(variant)
    a = np.asarray(boards, dtype=np.int8).astype(np.int64)
    n = a.shape[0]
    top = a[:, 1:25]
    pin = a[:, L.PIN0 + 1 : L.PIN0 + 25]
    own_free = np.maximum(top, 0)  # own checkers that can move (top stacks)
    opp_free = np.maximum(-top, 0)
    own_all = own_free + (pin == -1)
    opp_all = opp_free + (pin == 1)
    own_pips = own_all @ _POINTS + 25 * (a[:, L.MOVER_BAR] + a[:, L.MOVER_RES])
    opp_pips = opp_all @ (25 - _POINTS) + 25 * (a[:, L.OPP_BAR] + a[:, L.OPP_RES])
    score = PIP * (opp_pips - own_pips)

    # Contact: some opponent checker (or bar / reserve checker) behind one of ours.
    own_any = own_all > 0
    opp_any = opp_all > 0
    own_high = np.where(own_any.any(axis=1), 24 - np.argmax(own_any[:, ::-1], axis=1), 0)
    own_high = np.where(a[:, L.MOVER_BAR] + a[:, L.MOVER_RES] > 0, 25, own_high)
    opp_low = np.where(opp_any.any(axis=1), np.argmax(opp_any, axis=1) + 1, 25)
    opp_low = np.where(a[:, L.OPP_BAR] + a[:, L.OPP_RES] > 0, 0, opp_low)
    contact = own_high > opp_low

    # Exposed blots: a free opponent checker 1..6 pips behind (lower point number), or the
    # opponent can enter onto points 1..6 from its bar / reserve.
    shooters = np.zeros((n, 24), dtype=bool)
    for d in range(1, 7):
        shooters[:, d:] |= opp_free[:, : 24 - d] > 0
    enters = (a[:, L.OPP_BAR] + a[:, L.OPP_RES]) > 0
    shooters[:, :6] |= enters[:, None]
    blot = (top == 1) & (pin != 1)  # a lone checker on a pinned opponent one cannot be landed on
    exposed = blot & shooters
    if spec.hit_lock:
        exposed &= (a[:, L.OPP_CAN_HIT] > 0)[:, None]
    loss = _POINTS if spec.pins else 25 - _POINTS  # a pinned checker loses its way home, a hit one its way in
    score -= (exposed * (BLOT + BLOT_LOSS * loss)).sum(axis=1)

    made = (top >= 2) | ((top >= 1) & (pin == 1))
    home = made[:, :6].sum(axis=1)
    prime = np.maximum(_longest_run(made) - 1, 0)
    score += np.where(contact, HOME_POINT * home + PRIME * prime, 0.0)

    if spec.pins:
        score += ((pin == 1) * (PIN + PIN_DIST * (25 - _POINTS))).sum(axis=1)
        score -= ((pin == -1) * (PIN + PIN_DIST * _POINTS)).sum(axis=1)
        own_mother = (own_all[:, 23] == 1) & (pin[:, 23] == 0)
        score -= MOTHER * (own_mother & exposed[:, 23])
        score -= 2 * MOTHER * (pin[:, 23] == -1)
        score += MOTHER * (pin[:, 0] == 1)
    if spec.reserve:
        score -= RESERVE * a[:, L.MOVER_RES]
    if spec.hit_lock:
        score += UNLOCK * (a[:, L.MOVER_CAN_HIT] > 0)
    return np.asarray(score, dtype=np.float64)


def score_results(boards: NDArray[np.int8], rules: Variant) -> NDArray[np.float64]:
    """:func:`score_boards`, with results that end the game scored ``WIN * points`` (a loss,
    impossible after one's own play, ``-WIN * points``; a Mahbusa draw 0)."""
    scores = score_boards(boards, rules.name)
    ends = np.flatnonzero((boards[:, L.MOVER_OFF] == L.CHECKERS) | (boards[:, L.GAME_END] != 0))
    for i in ends:
        out = rules.outcome(Position(boards[i].tobytes(), rules.name))
        if out is not None:
            scores[i] = WIN * out.points * (1 if out.winner == 0 else -1)
    return scores


def choose_play(pos: Position, dice: tuple[int, int], rules: Variant) -> int:
    """The row of ``rules.legal_results(pos, dice)`` with the best heuristic score (the first
    one on ties).

    >>> from analyzer.rules import find_variant
    >>> rules = find_variant("mahbusa")
    >>> pos = Position.from_notation("P 24:13 20:1 18:1 | O 17:1 1:14", "mahbusa")
    >>> boards = rules.legal_results(pos, (1, 3))
    >>> Position(boards[choose_play(pos, (1, 3), rules)].tobytes(), "mahbusa").pinned_opponent
    (17,)
    """
    boards = rules.legal_results(pos, dice)
    return int(np.argmax(score_results(boards, rules)))
