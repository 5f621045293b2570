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

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray


class _HasProbabilities(Protocol):
    @property
    def win(self) -> float: ...
    @property
    def win_gammon(self) -> float: ...
    @property
    def win_backgammon(self) -> float: ...
    @property
    def lose_gammon(self) -> float: ...
    @property
    def lose_backgammon(self) -> float: ...


ProbabilitiesLike = Sequence[float] | NDArray[np.floating[Any]] | _HasProbabilities
"""Five cubeless probabilities of the side on roll: a sequence, an array or an object with fields."""


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Chances of the side on roll: ``win`` (any win), ``win_gammon`` (gammon or backgammon),
    ``win_backgammon``, ``lose_gammon`` (gammon or backgammon), ``lose_backgammon``; ``draw``
    (0 points: only a Mahbusa double-mother pin) so that ``win + lose + draw = 1``.

    The cube model (:mod:`analyzer.eval.cube`) takes them through :meth:`of`, which checks that
    they are consistent (or with ``clamp`` makes them so, :meth:`clamped`), in Python floats and
    without a draw (standard backgammon).

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
        s = 0.0
        for x in v:  # in order, as the compiled rankings (analyzer.eval.engine) add them
            s += x
        if s <= 0.0:
            raise ValueError("outcome probabilities sum to zero")
        v = [x / s for x in v]
        return cls(v[0] + v[1] + v[2], v[1] + v[2], v[2], v[4] + v[5], v[5])

    @classmethod
    def clamped(cls, win: float, win_gammon: float, win_backgammon: float, lose_gammon: float,
                lose_backgammon: float) -> Probabilities:
        """Probabilities of a game without draws forced into consistency (as raw network outputs
        may need): each in [0, 1], backgammons <= gammons <= the wins or losses they belong to.

        >>> Probabilities.clamped(0.5, 0.52, 0.6, -0.01, 0.0).as_tuple()
        (0.5, 0.5, 0.5, 0.0, 0.0)
        """
        w = min(max(win, 0.0), 1.0)
        wg = min(max(win_gammon, 0.0), w)
        lg = min(max(lose_gammon, 0.0), 1.0 - w)
        vals = (w, wg, min(max(win_backgammon, 0.0), wg), lg, min(max(lose_backgammon, 0.0), lg))
        if any(math.isnan(v) for v in vals):
            raise ValueError(f"inconsistent probabilities: {vals!r}")
        return cls(*vals)

    @classmethod
    def of(cls, probs: ProbabilitiesLike, *, clamp: bool = False) -> Probabilities:
        """The five chances of a game without draws from five numbers (a sequence or numpy array)
        or any object with the five fields, as Python floats (a draw is left out). Inconsistent
        ones raise :class:`ValueError`, or with ``clamp`` are fixed by :meth:`clamped`.

        >>> Probabilities.of([0.5, 0.1, 0.0, 0.1, 0.0]).win
        0.5
        >>> round(Probabilities.of(np.array([0.6, 0.2, 0.0, 0.1, 0.0], np.float32)).lose_gammon, 6)
        0.1
        >>> Probabilities.of([0.5, 0.6, 0.0, 0.0, 0.0])
        Traceback (most recent call last):
        ValueError: inconsistent probabilities: (0.5, 0.6, 0.0, 0.0, 0.0)
        """
        if isinstance(probs, Sequence | np.ndarray):
            vals = [float(v) for v in probs]
            if len(vals) != 5:
                raise ValueError(f"expected 5 probabilities, got {len(vals)}")
        else:
            vals = [float(probs.win), float(probs.win_gammon), float(probs.win_backgammon),
                    float(probs.lose_gammon), float(probs.lose_backgammon)]
        if clamp:
            return cls.clamped(*vals)
        w, wg, wbg, lg, lbg = vals
        t = 1e-6
        ok = (-t <= w <= 1 + t and -t <= wbg <= wg + t and wg <= w + t and -t <= lbg <= lg + t
              and lg <= 1 - w + t)
        if not ok or any(math.isnan(v) for v in vals):
            raise ValueError(f"inconsistent probabilities: {tuple(vals)!r}")
        return cls(w, wg, wbg, lg, lbg)

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        """The five chances in evaluator order (the draw left out).

        >>> Probabilities(0.6, 0.2, 0.01, 0.1, 0.005).as_tuple()
        (0.6, 0.2, 0.01, 0.1, 0.005)
        """
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon, self.lose_backgammon)

    def as_dict(self) -> dict[str, float]:
        out = {"win": self.win, "win_gammon": self.win_gammon, "win_backgammon": self.win_backgammon,
               "lose": self.lose, "lose_gammon": self.lose_gammon,
               "lose_backgammon": self.lose_backgammon, "equity": self.equity}
        if self.draw:
            out["draw"] = self.draw
        return out
