"""Checker decisions and luck in the cubeless variants: Dutch backgammon and Mahbusa.

Neither game has a doubling cube (``docs/rules.md`` §2.2, §3.2), so a variant game has checker
decisions only, and its equities are **cubeless expected points of one game**, from the side
that decides: a single counts 1, a mars (the loser has borne off nothing) or a Mahbusa mother win
2, a Mahbusa double-mother draw 0, and there is no backgammon. The range is -2..+2, against the
-3..+3 of standard money play; no match equity table applies (none exists for these games), so
match-winning chances are not computed even in a match: a variant match is analysed game by game.

The evaluator is any :class:`analyzer.eval.protocol.Evaluator` without a cube (``cubeful`` false):
the variant engine of :mod:`analyzer.eval.variants` (:func:`load_variant_engine`), or a stand-in with
its surface. A result that ends the game is valued from the rules (:meth:`Variant.outcome`), never
from the evaluator: the exact points, with the draw at 0.

Luck is gnubg's definition at 0-ply: the value of the best play with the roll thrown minus the
average over the 36 rolls. The opening roll of these games is thrown after a roll of one die each
(the winner of that roll re-rolls both dice and may play a double), so its luck also counts
winning the die-off: the average runs over both players opening, each with the 36 rolls. In
Mahbusa the winner of the previous game opens by rolling both dice; that first roll is an
ordinary roll (:func:`opening_kind`).

>>> from analyzer.eval.probabilities import Probabilities
>>> round(points_of(Probabilities(0.6, 0.2, 0.0, 0.1, 0.0)), 6)
0.3
>>> from analyzer.core.position import Position
>>> from analyzer.rules import find_variant
>>> terminal_value(find_variant("mahbusa"), Position.from_notation("P 8:14 1:1+o | O 20:14 | over", "mahbusa"))
2.0
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from analyzer.analysis.decisions import points_of as points_of
from analyzer.analysis.decisions import points_ranked0
from analyzer.analysis.decisions import terminal_value as terminal_value
from analyzer.core import layout as L
from analyzer.core.dice import ALL_21
from analyzer.core.errors import AnalyzerError
from analyzer.core.position import Position
from analyzer.core.variants import all_specs
from analyzer.eval.protocol import Evaluator
from analyzer.eval.variants.engine import engine_for
from analyzer.rules import find_variant

__all__ = ["CUBELESS_VARIANTS", "VARIANT_EQUITY_BASIS", "VARIANT_MAX_PLY", "NoEvaluatorError",
           "load_variant_engine", "opening_kind", "points_of", "terminal_value", "variant_luck", "variant_roll_values"]

CUBELESS_VARIANTS = tuple(s.name for s in all_specs() if not s.has_cube)  # valued by their own nets
"""The variants analysed here (no cube: checker decisions only)."""

VARIANT_EQUITY_BASIS = ("Dutch and Mahbusa: cubeless expected points of one game (single 1, mars or "
                        "mother win 2, double-mother draw 0, no backgammon; no cube), from the variant "
                        "engine at the analysis ply; results that end the game valued exactly")


class NoEvaluatorError(AnalyzerError, ValueError):
    """The match is of a variant that has no evaluator (yet, or not installed)."""


VARIANT_MAX_PLY = 2
"""The deepest search of the variant engines (``analyzer.eval.variants.engine.MAX_PLY``); a
deeper review of a variant game is refused (:class:`~analyzer.analysis.settings.ReviewSettings`)."""


def load_variant_engine(variant: str, workers: int = 1) -> Evaluator:
    """The shared variant engine of ``variant`` over its shipped nets
    (``analyzer.eval.variants.engine.engine_for``), its searches at 1 and 2 ply shared by ``workers``
    processes.

    Raises :class:`NoEvaluatorError` when the engine or its nets are missing.
    """
    if variant not in CUBELESS_VARIANTS:
        raise NoEvaluatorError(f"no evaluator for {variant}")
    try:
        return engine_for(variant, workers)
    except (FileNotFoundError, OSError) as e:
        raise NoEvaluatorError(f"no evaluator for {variant}: its nets are missing ({e})") from None
    except (AttributeError, TypeError, ValueError, KeyError) as e:
        raise NoEvaluatorError(f"no evaluator for {variant}: {e}") from None


_POINTS = {
    6: np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0]),  # win 1/2/3, lose 1/2/3 (the standard engine's order)
    5: np.array([1.0, 2.0, -1.0, -2.0, 0.0]),  # win 1/2, lose 1/2, draw (the variant nets' order)
    4: np.array([1.0, 2.0, -1.0, -2.0]),  # win 1/2, lose 1/2
}


def variant_roll_values(engine: Evaluator, position: Position) -> dict[tuple[int, int], float]:
    """The 0-ply value (the mover's expected points) of the best play of each of the 21 rolls
    in ``position`` (before the mover's roll), keyed by ``(high, low)``.

    An engine with ``evaluate_boards(boards, ply)`` (n x 64 boards, each for its side on roll,
    to outcome distributions: 6 columns as :meth:`analyzer.eval.engine.Engine.evaluate_boards`,
    or the variant nets' 5 (win 1, win 2, lose 1, lose 2, draw) or 4 (no draw) columns) gets the
    results of all 21 rolls in one batch; otherwise each roll is ranked with ``rank_plays``.
    """
    rules = find_variant(position.variant)
    bulk = getattr(engine, "evaluate_boards", None)
    if bulk is None:
        return {roll.dice: max(c.equity for c in points_ranked0(engine, position, roll.dice)) for roll in ALL_21}
    results, after, starts = rules.roll_results(position, [roll.dice for roll in ALL_21])  # one compiled call
    theirs = np.asarray(bulk(after, 0), dtype=np.float64)
    if theirs.ndim != 2 or theirs.shape[1] not in _POINTS:
        raise ValueError(f"evaluate_boards gave an array of shape {theirs.shape}, not n x 4, 5 or 6")
    equities = -(theirs @ _POINTS[theirs.shape[1]])  # the opponent is on roll after the play
    ended = np.flatnonzero((results[:, L.MOVER_OFF] == L.CHECKERS) | (results[:, L.OPP_OFF] == L.CHECKERS)
                           | (results[:, L.GAME_END] != 0))
    for i in ended.tolist():
        exact = terminal_value(rules, Position(results[i].tobytes(), position.variant))
        if exact is not None:
            equities[i] = exact
    bounds = starts.tolist()
    return {roll.dice: float(equities[bounds[r]: bounds[r + 1]].max()) for r, roll in enumerate(ALL_21)}


def _mean36(values: Mapping[tuple[int, int], float]) -> float:
    return sum(r.weight * values[r.dice] for r in ALL_21) / 36.0


def opening_kind(variant: str, game_index: int, previous_points: int | None) -> str:
    """How the first roll of a game was thrown: ``"die-off"`` (one die each, the winner
    re-rolls both) or ``"winner"`` (Mahbusa: the previous game's winner rolls both dice at once;
    after a draw, or in the first game, a die-off decides).

    >>> opening_kind("mahbusa", 1, 2), opening_kind("mahbusa", 1, 0), opening_kind("dutch", 3, 1)
    ('winner', 'die-off', 'die-off')
    """
    rules = find_variant(variant)
    if game_index > 0 and rules.winner_opens_next and previous_points:
        return "winner"
    return "die-off"


def variant_luck(values: Mapping[tuple[int, int], float], dice: tuple[int, int], *, opening: str | None = None,
                 opponent: Mapping[tuple[int, int], float] | None = None) -> float:
    """The luck of ``dice`` given :func:`variant_roll_values` of the roller's position.

    ``opening="die-off"``: the first roll of a game decided by a die-off; the average runs over
    either player opening (``opponent``: his values with him on roll, default ``values``, right
    for the symmetric starts), so winning the die-off counts. Any other roll (``opening`` ``None``
    or ``"winner"``) is compared with the average of the 36 rolls.

    >>> vals = {r.dice: float(r.high + r.low) / 12 for r in ALL_21}
    >>> round(variant_luck(vals, (6, 6)), 4), round(variant_luck(vals, (6, 6), opening="die-off"), 4)
    (0.4167, 1.0)
    >>> abs(sum(r.weight * variant_luck(vals, r.dice) for r in ALL_21)) < 1e-12
    True
    """
    key = (max(dice), min(dice))
    if opening == "die-off":
        opp = values if opponent is None else opponent
        return values[key] - 0.5 * (_mean36(values) - _mean36(opp))
    return values[key] - _mean36(values)
