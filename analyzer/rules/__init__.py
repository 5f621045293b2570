"""Rules of every variant behind one :class:`Variant` interface.

>>> find_variant("plakoto").name
'mahbusa'
"""

from __future__ import annotations

from analyzer.core.errors import ParseError
from analyzer.rules.base import LegalPlay, Outcome, Variant, check_dice
from analyzer.rules.dutch import Dutch
from analyzer.rules.mahbusa import Mahbusa
from analyzer.rules.standard import Standard

VARIANTS: dict[str, type[Variant]] = {"standard": Standard, "dutch": Dutch, "mahbusa": Mahbusa}
_ALIASES = {"backgammon": "standard", "plakoto": "mahbusa"}


def find_variant(name: str) -> Variant:
    """A rules object (default options) for a variant name or alias."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in VARIANTS:
        raise ParseError("unknown variant (use standard, dutch, mahbusa or plakoto)", token=name)
    return VARIANTS[key]()


__all__ = ["VARIANTS", "Dutch", "LegalPlay", "Mahbusa", "Outcome", "Standard", "Variant", "check_dice",
           "find_variant"]
