"""Mahbusa / Plakoto (``docs/rules.md`` §3): pinning instead of hitting, the mother rule."""

from __future__ import annotations

from typing import ClassVar

from analyzer.core import layout as L
from analyzer.core.position import Position
from analyzer.core.variants import VariantSpec, variant_spec
from analyzer.rules.base import Outcome, Variant, race_outcome


class Mahbusa(Variant):
    """Mahbusa (Plakoto) with the default interpretations of ``docs/rules.md`` §3.4.

    Option: ``mother_check="on_pin"`` (M-a alternative: the mother win is checked only at the
    moment of the pin).

    >>> rules = Mahbusa()
    >>> sorted(p.text for p in rules.legal_plays(rules.start(), (6, 5)))
    ['24/13', '24/19 24/18']
    """

    spec: ClassVar[VariantSpec] = variant_spec("mahbusa")

    def __init__(self, options: int = 0, *, mother_check: str = "state") -> None:
        if mother_check not in ("state", "on_pin"):
            raise ValueError(f"mother_check must be state or on_pin, not {mother_check!r}")
        if mother_check == "on_pin":
            options |= L.OPT_MAHBUSA_ON_PIN
        super().__init__(options)

    def outcome(self, pos: Position) -> Outcome | None:
        """Mother win (2), double-mother draw (0), or 1 / 2 (mars) by bearing off."""
        opp_mother_pinned = 1 in pos.pinned_opponent
        own_mother_pinned = 24 in pos.pinned_mover
        if pos.game_end_flag:
            if opp_mother_pinned and own_mother_pinned:
                return Outcome(0, 0, "draw")
            if opp_mother_pinned:
                return Outcome(0, 2, "mother")
            if own_mother_pinned:
                return Outcome(1, 2, "mother")
        return race_outcome(pos)
