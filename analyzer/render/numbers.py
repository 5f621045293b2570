"""Numbers as the tables print them: fixed decimals, never a negative zero.

A value that rounds to zero at the printed precision is printed as zero: a zero MWC loss scaled by
-100 is ``0.00``, not ``-0.00``; a luck of -0.00004 is ``+0.0%``, not ``-0.0%``.

>>> fixed(-0.00004 * 100, "+.1f"), fixed(0.0 * -100.0, ".2f"), fixed(-0.06, ".1f")
('+0.0', '0.00', '-0.1')
"""

from __future__ import annotations

import math

__all__ = ["fixed"]


def fixed(x: float, spec: str) -> str:
    """``format(x, spec)``, with a value that rounds to zero written as zero (its sign, if the
    spec asks for one, is ``+``). Infinities and NaN are left as ``format`` writes them.

    >>> fixed(-0.0004, ".3f"), fixed(-0.0004, "+.3f"), fixed(-0.0006, ".3f"), fixed(float("-inf"), ".1f")
    ('0.000', '+0.000', '-0.001', '-inf')
    """
    text = format(x, spec)
    if math.isfinite(x) and text.startswith("-") and not any(c in "123456789" for c in text):
        return format(0.0, spec)
    return text
