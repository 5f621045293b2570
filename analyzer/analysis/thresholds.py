"""Every threshold of the analysis in one place: error classes, close cube decisions, lucky rolls.

A :class:`Thresholds` value names its preset; reports record that name and the numbers. Two
presets ship:

* ``"xg"`` (eXtreme Gammon, Backgammon Galaxy, BackgammonDB defaults): *error* at a loss of at
  least 0.020 EMG, *blunder* at 0.080 or more (inclusive bounds).
* ``"gnubg"`` (GNU Backgammon 1.07): *doubtful* above 0.030, *bad* above 0.060, *very bad* above
  0.120 (strict bounds, as gnubg's ``Skill()``).

Both use gnubg's close-cube cut (a cube decision is close when optimal - min(DT, DP) < 0.16) and
its roll marks (lucky above +0.3, very lucky above +0.6, and mirrored). Other sets load from a
JSON file (:func:`load_thresholds`), e.g. BackgammonDB's extra *howler* class::

    {"name": "bgdb", "levels": [["error", 0.02], ["blunder", 0.08], ["howler", 0.25]]}

>>> XG.classify(0.019), XG.classify(0.02), XG.classify(0.2)
('none', 'error', 'blunder')
>>> GNUBG.classify(0.03), GNUBG.classify(0.0301), GNUBG.classify(0.5)
('none', 'doubtful', 'very bad')
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from analyzer._read import read_limited
from analyzer.core.errors import InputError

__all__ = ["GNUBG", "NO_ERROR", "PRESETS", "XG", "Thresholds", "load_thresholds", "thresholds_from"]

NO_ERROR = "none"
"""The class of a decision below every threshold."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Error classes by equity loss (EMG), plus the cube and luck cuts.

    ``levels`` holds ``(class name, lower bound)`` pairs in increasing order; a loss reaches a
    level at ``loss >= bound`` (or ``loss > bound`` when ``strict``). ``close_cube`` is gnubg's
    cut for a close cube decision, ``lucky``/``very_lucky`` mark rolls (and their negatives
    unlucky/very unlucky), all in EMG.

    >>> Thresholds("t", (("small", 0.01),)).classify(0.01)
    'small'
    """

    name: str
    levels: tuple[tuple[str, float], ...]
    strict: bool = False
    close_cube: float = 0.16
    lucky: float = 0.3
    very_lucky: float = 0.6

    def __post_init__(self) -> None:
        if not self.levels:
            raise ValueError("thresholds need at least one error class")
        bounds = [b for _, b in self.levels]
        if any(b <= 0 for b in bounds) or bounds != sorted(bounds) or len(set(bounds)) != len(bounds):
            raise ValueError(f"error thresholds must be positive and increasing: {bounds!r}")
        names = [n for n, _ in self.levels]
        if NO_ERROR in names or len(set(names)) != len(names) or any(not n for n in names):
            raise ValueError(f"error class names must be distinct, non-empty and not {NO_ERROR!r}")

    @property
    def classes(self) -> tuple[str, ...]:
        """The class names from the mildest to the worst.

        >>> GNUBG.classes
        ('doubtful', 'bad', 'very bad')
        """
        return tuple(n for n, _ in self.levels)

    def classify(self, loss: float) -> str:
        """The class of an equity loss (EMG), or ``"none"``."""
        out = NO_ERROR
        for name, bound in self.levels:
            if loss > bound or (not self.strict and loss >= bound):
                out = name
        return out

    def luck_mark(self, luck: float) -> str:
        """gnubg's roll mark: ``very lucky``, ``lucky``, ``""``, ``unlucky`` or ``very unlucky``.

        >>> XG.luck_mark(0.45), XG.luck_mark(-0.7), XG.luck_mark(0.1)
        ('lucky', 'very unlucky', '')
        """
        if luck > self.very_lucky:
            return "very lucky"
        if luck > self.lucky:
            return "lucky"
        if luck < -self.very_lucky:
            return "very unlucky"
        if luck < -self.lucky:
            return "unlucky"
        return ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form written into every report's metadata (and read by :func:`thresholds_from`)."""
        return {"name": self.name, "levels": [[n, b] for n, b in self.levels], "strict": self.strict,
                "close_cube": self.close_cube, "lucky": self.lucky, "very_lucky": self.very_lucky}


XG = Thresholds("xg", (("error", 0.020), ("blunder", 0.080)))
GNUBG = Thresholds("gnubg", (("doubtful", 0.030), ("bad", 0.060), ("very bad", 0.120)), strict=True)
PRESETS: dict[str, Thresholds] = {"xg": XG, "gnubg": GNUBG}


def thresholds_from(data: dict[str, Any]) -> Thresholds:
    """Build thresholds from their JSON form (see :meth:`Thresholds.as_dict`); missing cube and
    luck cuts take gnubg's values.

    >>> thresholds_from({"name": "mine", "levels": [["error", 0.01]]}).classify(0.015)
    'error'
    """
    try:
        levels = tuple((str(n), float(b)) for n, b in data["levels"])
        return Thresholds(name=str(data.get("name", "custom")), levels=levels,
                          strict=bool(data.get("strict", False)),
                          close_cube=float(data.get("close_cube", 0.16)),
                          lucky=float(data.get("lucky", 0.3)),
                          very_lucky=float(data.get("very_lucky", 0.6)))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"bad thresholds: {e}") from None


def load_thresholds(spec: str) -> Thresholds:
    """A preset by name (``xg``, ``gnubg``) or a JSON file of the form :meth:`Thresholds.as_dict`.

    >>> load_thresholds("gnubg").name
    'gnubg'
    """
    preset = PRESETS.get(spec.strip().lower())
    if preset is not None:
        return preset
    if not os.path.isfile(spec):
        raise ValueError(f"unknown thresholds {spec!r}: use xg, gnubg or a JSON file")

    try:  # a regular file of at most 1 MiB (a few lines are expected)
        data = json.loads(read_limited(spec, 1 << 20, what="thresholds file").decode("utf-8"))
    except InputError as e:
        raise ValueError(str(e)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read thresholds file {spec!r}: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"thresholds file {spec!r} must hold a JSON object")
    return thresholds_from(data)
