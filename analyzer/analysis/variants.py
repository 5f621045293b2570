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

>>> round(points_of(Probabilities(0.6, 0.2, 0.0, 0.1, 0.0)), 6)
0.3
>>> from analyzer.core.position import Position
>>> from analyzer.rules import find_variant
>>> terminal_value(find_variant("mahbusa"), Position.from_notation("P 8:14 1:1+o | O 20:14 | over", "mahbusa"))
2.0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from analyzer.analysis.decisions import DEEP_FILTER, Candidate, CheckerAnalysis
from analyzer.core import layout as L
from analyzer.core.dice import ALL_21
from analyzer.core.errors import AnalyzerError
from analyzer.core.position import Position
from analyzer.core.variants import all_specs
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import ANALYSIS_FILTER, Evaluator, MoveFilter
from analyzer.eval.variants.engine import VariantEngine, engine_for
from analyzer.rules import Variant, find_variant
from analyzer.rules.base import Outcome

__all__ = ["CUBELESS_VARIANTS", "VARIANT_EQUITY_BASIS", "VARIANT_MAX_PLY", "NoEvaluatorError",
           "analyze_variant_checker", "load_variant_engine", "opening_kind", "points_of", "terminal_value",
           "variant_luck", "variant_roll_values"]

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


def load_variant_engine(variant: str) -> Evaluator:
    """The shared variant engine of ``variant`` over its shipped nets
    (``analyzer.eval.variants.engine.engine_for``).

    Raises :class:`NoEvaluatorError` when the engine or its nets are missing.
    """
    if variant not in CUBELESS_VARIANTS:
        raise NoEvaluatorError(f"no evaluator for {variant}")
    try:
        engine = engine_for(variant)
    except (FileNotFoundError, OSError) as e:
        raise NoEvaluatorError(f"no evaluator for {variant}: its nets are missing ({e})") from None
    except (AttributeError, TypeError, ValueError, KeyError) as e:
        raise NoEvaluatorError(f"no evaluator for {variant}: {e}") from None
    if not isinstance(engine, Evaluator):
        raise NoEvaluatorError(f"no evaluator for {variant}: {type(engine).__name__} is no Evaluator")
    return engine


def points_of(probs: Probabilities) -> float:
    """Expected points of one cubeless variant game from the chances (the gammon chances are the
    mars chances; the backgammon chances are zero in these games).

    >>> points_of(Probabilities(1.0, 1.0, 0.0, 0.0, 0.0)), points_of(Probabilities(0.0, 0.0, 0.0, 0.5, 0.0))
    (2.0, -1.5)
    """
    return float(probs.equity)


def _outcome_probabilities(out: Outcome) -> Probabilities:
    """The chances of the position's mover once the game is over (a draw: no win, no loss when
    :class:`Probabilities` knows draws, else an even split; either way worth 0)."""
    if out.points == 0:
        if "draw" in {f.name for f in dataclasses.fields(Probabilities)}:
            drawn: Any = Probabilities
            return cast(Probabilities, drawn(0.0, 0.0, 0.0, 0.0, 0.0, draw=1.0))
        return Probabilities(0.5, 0.0, 0.0, 0.0, 0.0)
    big = 1.0 if out.points >= 2 else 0.0
    if out.winner == 0:
        return Probabilities(1.0, big, 0.0, 0.0, 0.0)
    return Probabilities(0.0, 0.0, 0.0, big, 0.0)


def terminal_value(rules: Variant, result: Position) -> float | None:
    """The exact points of the mover of ``result`` when the game is over there, else ``None``.

    >>> from analyzer.rules import find_variant
    >>> terminal_value(find_variant("dutch"), Position.start("dutch")) is None
    True
    """
    out = rules.outcome(result)
    if out is None:
        return None
    return float(out.points if out.winner == 0 else -out.points)


def _value(rules: Variant, result: Position, probs: Probabilities) -> tuple[float, Probabilities]:
    out = rules.outcome(result)
    if out is None:
        return points_of(probs), probs
    return float(out.points if out.winner == 0 else -out.points), _outcome_probabilities(out)


def _after(engine: Evaluator, rules: Variant, result: Position, ply: int) -> tuple[float, Probabilities]:
    """The mover's value of ``result`` (seen from the mover) at ``ply``: the opponent's
    evaluation flipped, or the exact points when the game is over."""
    out = rules.outcome(result)
    if out is not None:
        return _value(rules, result, _outcome_probabilities(out))
    probs = engine.evaluate(result.flip(), ply).flip()
    return points_of(probs), probs


def _ranked0(engine: Evaluator, rules: Variant, position: Position,
             dice: tuple[int, int]) -> list[Candidate]:
    """Every legal play at 0-ply, best first (game-ending results valued exactly)."""
    cands = []
    for r in engine.rank_plays(position, dice, 0):
        value, probs = _value(rules, r.result, r.probabilities)
        cands.append(Candidate(str(r.play), r.result, value, probs, 0))
    cands.sort(key=lambda c: -c.equity)
    return cands


def _filtered(cands: Sequence[Candidate], move_filter: MoveFilter) -> list[Candidate]:
    if not cands:
        return []
    best = cands[0].equity
    return [c for c in cands[: move_filter.count] if c.equity >= best - move_filter.threshold]


def _deepen(engine: Evaluator, rules: Variant, cands: Sequence[Candidate], ply: int) -> list[Candidate]:
    out = []
    for c in cands:
        value, probs = _after(engine, rules, c.result, ply)
        out.append(Candidate(c.play, c.result, value, probs, ply))
    out.sort(key=lambda c: -c.equity)
    return out


def analyze_variant_checker(engine: Evaluator, position: Position, dice: tuple[int, int],
                            played: Position, *, ply: int, move_filter: MoveFilter = ANALYSIS_FILTER,
                            deep_filter: MoveFilter = DEEP_FILTER) -> CheckerAnalysis:
    """Rank the plays of ``dice`` in the variant ``position`` (from the mover) and locate the
    play that reached ``played``.

    As for standard games (:func:`analyzer.analysis.decisions.ranking`): every legal play is
    valued at 0-ply and ``move_filter`` keeps the candidates; up to 1-ply those are valued at
    ``ply``; from 2-ply on they are valued at ``ply - 1`` and the best of them (``deep_filter``)
    at ``ply``. The played play is always valued at ``ply``. A value is the evaluation of the
    position after the play (the opponent on roll), in the mover's expected points (module
    docstring). Candidates come deepest first, best first within a ply. Raises
    :class:`ValueError` when ``played`` is not a legal result of the roll.
    """
    rules = find_variant(position.variant)
    r0 = _ranked0(engine, rules, position, dice)
    legal = len(r0)
    mine = next((c for c in r0 if c.result == played), None)
    if mine is None:
        raise ValueError(f"the played position is not a legal result of {dice[0]}{dice[1]}")
    keep = _filtered(r0, move_filter)
    if ply == 0 or legal == 1:
        pool = keep + ([mine] if all(c.result != played for c in keep) else [])
        pool.sort(key=lambda c: -c.equity)
    elif ply == 1:
        pool = _deepen(engine, rules, keep + ([mine] if all(c.result != played for c in keep) else []), 1)
    else:
        stage = _deepen(engine, rules, keep, ply - 1)
        top = _filtered(stage, deep_filter)
        chosen = {c.result for c in top}
        if played not in chosen:
            top.append(next((c for c in stage if c.result == played), mine))
            chosen.add(played)
        pool = _deepen(engine, rules, top, ply) + [c for c in stage if c.result not in chosen]
    found = next(c for c in pool if c.result == played)
    return CheckerAnalysis(tuple(pool), found, legal)


def rollout_variant_checker(engine: Evaluator, position: Position, dice: tuple[int, int],
                            first: CheckerAnalysis, *, trials: int, plays: int = 4, threshold: float = 0.08,
                            workers: int = 1, seed: int = 0) -> CheckerAnalysis:
    """Roll out the best candidates of ``first`` (a 0-ply :func:`analyze_variant_checker`: at most
    ``plays`` within ``threshold`` points of the best) and the played play, ``trials`` games each
    with the same dice for all (:func:`analyzer.eval.rollout.rollout` of the variant engine:
    cubeless, played out, seeded by ``seed``). The candidates are then the rolled-out plays, best first,
    valued in the mover's mean points (``ply`` 0: the rollouts are played by the 0-ply net).
    A forced play is returned as it is. Raises :class:`NoEvaluatorError` when ``engine`` is not
    the variant net engine (only its nets can play the rollouts).
    """
    if first.forced:
        return first
    from analyzer.eval.rollout import RolloutSettings, rollout  # here: 0.05 s of CPU a fresh `hint` spares

    if not isinstance(engine, VariantEngine):
        raise NoEvaluatorError(f"rollouts of {position.variant} need the variant net engine, "
                               f"not {type(engine).__name__}")
    top = [c for c in first.candidates[:plays] if c.equity >= first.best.equity - threshold]
    chosen: dict[Position, tuple[str, Position]] = {}
    for c in [*top, first.played]:
        chosen.setdefault(c.result, (c.play, c.result))
    res = rollout(engine, position, RolloutSettings(trials=trials, seed=seed, workers=workers), dice=dice,
                  plays=list(chosen.values()))
    cands = [Candidate(str(c.play), c.result, c.equity, c.probabilities, 0) for c in res.candidates]
    mine = next(c for c in cands if c.result == first.played.result)
    return CheckerAnalysis(tuple(cands), mine, first.legal)


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
        return {roll.dice: max(c.equity for c in _ranked0(engine, rules, position, roll.dice)) for roll in ALL_21}
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
