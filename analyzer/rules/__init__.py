"""Rules of every variant behind one :class:`Variant` interface.

>>> find_variant("plakoto").name
'mahbusa'
"""

from __future__ import annotations

from analyzer.rules.base import LegalPlay, Outcome, Variant, check_dice
from analyzer.rules.dutch import Dutch
from analyzer.rules.mahbusa import Mahbusa
from analyzer.rules.registry import find_variant, variant_spec
from analyzer.rules.standard import Standard

__all__ = ["Dutch", "LegalPlay", "Mahbusa", "Outcome", "Standard", "Variant", "check_dice", "find_variant",
           "variant_spec"]
