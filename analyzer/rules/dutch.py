"""Dutch backgammon (``docs/rules.md`` §2): all checkers start in a reserve, no hitting before
the hitter has had a checker in his own home board, no cube, mars = 2."""

from __future__ import annotations

from typing import ClassVar

from analyzer.core import layout as L
from analyzer.core.position import Position
from analyzer.core.variants import VariantSpec, variant_spec
from analyzer.rules.base import Outcome, Variant, race_outcome


class Dutch(Variant):
    """Dutch backgammon with the default interpretations of ``docs/rules.md`` §2.4.

    Options (alternatives of §2.4): ``enter_all_first`` (D-a), ``entry_choice="turn_start"``
    (D-b), ``unlock="current"`` (D-d).

    >>> rules = Dutch()
    >>> sorted(p.text for p in rules.legal_plays(rules.start(), (4, 2)))
    ['bar/19', 'bar/23 bar/21']
    """

    spec: ClassVar[VariantSpec] = variant_spec("dutch")

    def __init__(self, options: int = 0, *, enter_all_first: bool = False,
                 entry_choice: str = "per_step", unlock: str = "permanent") -> None:
        if entry_choice not in ("per_step", "turn_start"):
            raise ValueError(f"entry_choice must be per_step or turn_start, not {entry_choice!r}")
        if unlock not in ("permanent", "current"):
            raise ValueError(f"unlock must be permanent or current, not {unlock!r}")
        if enter_all_first:
            options |= L.OPT_DUTCH_ENTER_ALL_FIRST
        if entry_choice == "turn_start":
            options |= L.OPT_DUTCH_TURN_START
        if unlock == "current":
            options |= L.OPT_DUTCH_UNLOCK_CURRENT
        super().__init__(options)

    def outcome(self, pos: Position) -> Outcome | None:
        """1 point, or 2 (mars) when the loser has borne off none. No backgammon."""
        return race_outcome(pos)
