"""Standard backgammon (``docs/rules.md`` §1)."""

from __future__ import annotations

from typing import ClassVar

from analyzer.core import layout as L
from analyzer.core.position import Position
from analyzer.core.variants import VariantSpec, variant_spec
from analyzer.rules.base import Outcome, Variant


class Standard(Variant):
    """Standard backgammon: hits go to the bar, gammons and backgammons, the doubling cube.

    >>> rules = Standard()
    >>> len(rules.legal_plays(rules.start(), (3, 1)))
    16
    """

    spec: ClassVar[VariantSpec] = variant_spec("standard")

    def outcome(self, pos: Position) -> Outcome | None:
        """Single, gammon or backgammon once a side has borne off all 15.

        >>> Standard().outcome(Position.from_notation("P | O 19:15 | off P15"))
        Outcome(winner=0, points=2, kind='gammon')
        """
        if pos.mover_off == L.CHECKERS:
            return _standard_result(0, pos.opponent_off, pos.opponent_bar, sum(pos.opponent[0:6]))
        if pos.opponent_off == L.CHECKERS:
            return _standard_result(1, pos.mover_off, pos.mover_bar, sum(pos.mover[18:24]))
        return None


def _standard_result(winner: int, loser_off: int, loser_bar: int, loser_in_winner_home: int) -> Outcome:
    if loser_off > 0:
        return Outcome(winner, 1, "single")
    if loser_bar or loser_in_winner_home:
        return Outcome(winner, 3, "backgammon")
    return Outcome(winner, 2, "gammon")
