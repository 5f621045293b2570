"""Cubeless outcome probabilities of a position, always for its side on roll.

>>> p = Probabilities(0.6, 0.2, 0.01, 0.1, 0.005)
>>> round(p.equity, 3)
0.305
>>> p.flip().win
0.4
>>> Probabilities.from_outcomes([0.39, 0.19, 0.01, 0.305, 0.095, 0.005]) == p
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Chances of the side on roll: ``win`` (any win), ``win_gammon`` (gammon or backgammon),
    ``win_backgammon``, ``lose_gammon`` (gammon or backgammon), ``lose_backgammon``; ``draw``
    (0 points: only a Mahbusa double-mother pin) so that ``win + lose + draw = 1``.

    >>> Probabilities(0.5, 0.1, 0.0, 0.1, 0.0, draw=0.2).lose
    0.3
    """

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    draw: float = 0.0

    @property
    def lose(self) -> float:
        return 1.0 - self.win - self.draw

    @property
    def equity(self) -> float:
        """Cubeless money equity (expected points): ``w - l + wg + wbg - lg - lbg``
        (``= 2w - 1 + draw + ...``).

        >>> Probabilities(1.0, 1.0, 1.0, 0.0, 0.0).equity
        3.0
        """
        return 2.0 * self.win - 1.0 + self.draw + self.win_gammon + self.win_backgammon \
            - self.lose_gammon - self.lose_backgammon

    def flip(self) -> Probabilities:
        """The same chances seen by the other side."""
        return Probabilities(self.lose, self.lose_gammon, self.lose_backgammon, self.win_gammon,
                             self.win_backgammon, self.draw)

    def outcomes(self) -> tuple[float, float, float, float, float, float]:
        """The six exclusive outcomes: win single/gammon/backgammon, lose single/gammon/backgammon.

        >>> [round(v, 2) for v in Probabilities(0.6, 0.2, 0.01, 0.1, 0.005).outcomes()]
        [0.4, 0.19, 0.01, 0.3, 0.1, 0.01]
        """
        return (self.win - self.win_gammon, self.win_gammon - self.win_backgammon, self.win_backgammon,
                self.lose - self.lose_gammon, self.lose_gammon - self.lose_backgammon,
                self.lose_backgammon)

    @classmethod
    def from_outcomes(cls, p: Sequence[float]) -> Probabilities:
        """Build from the six exclusive outcome probabilities (normalised to sum 1).

        >>> Probabilities.from_outcomes([0, 1, 0, 0, 0, 0]).win_gammon
        1.0
        """
        v = [max(0.0, float(x)) for x in p]
        s = sum(v)
        if s <= 0.0:
            raise ValueError("outcome probabilities sum to zero")
        v = [x / s for x in v]
        return cls(v[0] + v[1] + v[2], v[1] + v[2], v[2], v[4] + v[5], v[5])

    def as_dict(self) -> dict[str, float]:
        out = {"win": self.win, "win_gammon": self.win_gammon, "win_backgammon": self.win_backgammon,
               "lose": self.lose, "lose_gammon": self.lose_gammon,
               "lose_backgammon": self.lose_backgammon, "equity": self.equity}
        if self.draw:
            out["draw"] = self.draw
        return out
