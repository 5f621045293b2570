"""JSON text read safely: every way it can fail is a :class:`~analyzer.core.errors.ParseError`.

>>> load_json("[1, 2]", "a list")
[1, 2]
"""

from __future__ import annotations

import json
import re
from typing import Any

from analyzer.core.errors import ParseError
from analyzer.core.ids._codec import excerpt

__all__ = ["MAX_JSON_DEPTH", "load_json"]

MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects :func:`load_json` reads (positions need 3)."""

# a string (closed or running to the end of the text) or one bracket
_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str, what: str) -> Any:
    """Read JSON text; every way it can fail is a :class:`ParseError` that starts with ``what``.

    Besides malformed text this refuses ``NaN`` and ``Infinity`` (not JSON), numbers too long for
    Python to convert, and nesting deeper than :data:`MAX_JSON_DEPTH` (checked before parsing,
    so that no input reaches the interpreter's recursion limit).

    >>> load_json('{"dice": [3, 1]}', "batch line")
    {'dice': [3, 1]}
    >>> load_json("[" * 40 + "]" * 40, "batch line")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: batch line: nested deeper than 32 levels: '[[[[[[[[[[[[[[[[[[[[...'
    """
    depth = deepest = 0
    for m in _JSON_NESTING.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    raise ParseError(f"{what}: nested deeper than {MAX_JSON_DEPTH} levels",
                                     token=excerpt(text, 20))
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise ParseError(f"{what}: not valid JSON ({e.msg} at column {e.colno})", token=excerpt(text)) from None
    except (ValueError, RecursionError) as e:  # huge numbers, NaN; recursion cannot happen below the cap
        raise ParseError(f"{what}: not valid JSON ({str(e).split(';')[0]})", token=excerpt(text)) from None
