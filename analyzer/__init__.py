"""bgreview: review backgammon matches with our own rules engine and evaluator.

The public API is importable from here. Each name is loaded on first use (module ``__getattr__``),
so ``import analyzer`` stays cheap: it imports no numpy and compiles no kernel.

>>> import analyzer
>>> pos = analyzer.parse_position("4HPwATDgc/ABMA").position
>>> "8/5 6/5" in [play.text for play in analyzer.find_variant("standard").legal_plays(pos, (3, 1))]
True
>>> engine = analyzer.Engine()
>>> round(engine.evaluate(pos, 0).win, 1)
0.5
>>> from analyzer._resources import sample_path
>>> [record] = analyzer.read_matches(sample_path("boardlord-llabba-7p"))
>>> record.players, record.length
(('BoardLord', 'Llabba'), 7)
>>> analysis = analyzer.analyze_match(record, analyzer.ReviewSettings(ply=0), engine=engine)
>>> analysis.decisions.height > 200
True

Names: :class:`Position`, :func:`parse_position` (any position text, with its match state and
dice), :func:`find_variant` (the rules), :class:`Engine` (the standard evaluator),
:func:`read_any` / :func:`read_matches` / :func:`read_sgf` (match files), :func:`analyze_match`,
:class:`ReviewSettings` (how it reviews: depth or rollouts, confirmation, thresholds, seed) and
:class:`MatchAnalysis` (the review of a match).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from analyzer._version import ENGINE_NAME, __version__

# public name -> (module, attribute); imported on first access only
_LAZY: dict[str, tuple[str, str]] = {
    "Position": ("analyzer.core.position", "Position"),
    "parse_position": ("analyzer.core.ids", "parse_position_spec"),
    "find_variant": ("analyzer.rules", "find_variant"),
    "Engine": ("analyzer.eval.engine", "Engine"),
    "read_any": ("analyzer.formats", "read_any"),
    "read_matches": ("analyzer.formats", "read_matches"),
    "read_sgf": ("analyzer.formats", "read_sgf"),
    "analyze_match": ("analyzer.analysis.analyze", "analyze_match"),
    "MatchAnalysis": ("analyzer.analysis.analyze", "MatchAnalysis"),
    "ReviewSettings": ("analyzer.analysis.settings", "ReviewSettings"),
}

__all__ = ["ENGINE_NAME", "Engine", "MatchAnalysis", "Position", "ReviewSettings", "__version__", "analyze_match",
           "find_variant", "parse_position", "read_any", "read_matches", "read_sgf"]

if TYPE_CHECKING:
    from analyzer.analysis.analyze import MatchAnalysis, analyze_match
    from analyzer.analysis.settings import ReviewSettings
    from analyzer.core.ids import parse_position_spec as parse_position
    from analyzer.core.position import Position
    from analyzer.eval.engine import Engine
    from analyzer.formats import read_any, read_matches, read_sgf
    from analyzer.rules import find_variant


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562).

    >>> import analyzer
    >>> analyzer.read_any.__name__
    'read_any'
    >>> analyzer.no_such_name
    Traceback (most recent call last):
    AttributeError: module 'analyzer' has no attribute 'no_such_name'
    """
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
