"""The luck of a roll, as gnubg measures it, and what a player's luck adds up to.

**A roll's luck** (gnubg's ``luck-value``, ``LuckNormal``/``LuckFirst`` in ``analysis.c``) is the
value of the best play with the roll thrown minus the average, over all 36 rolls, of the value
of the best play with each roll. Values are 0-ply, as gnubg's luck analysis: the best play of each
roll is the one the 0-ply evaluation prefers, valued as a cubeful normalised equity (EMG, the
cube's value = 1) at the score and cube of the decision with :func:`analyzer.analysis.decisions.equity_after`.
A dance is valued like any play (the position is unchanged), so dancing shows negative luck.

**The opening roll** (never a double) is averaged over its 30 outcomes, each non-double played by
either player, as gnubg's ``LuckFirst`` does: it includes the luck of winning the opening roll.

**In match play** a roll's luck in match-winning chance is gnubg's ``eq2mwc(luck) - eq2mwc(0)``
at the decision's score and cube (:func:`mwc_luck`): the luck times the roll's *stake*
(:func:`stake`), the MWC that one EMG is worth there, half the MWC gap between winning and
losing the cube's points. A roll at a 4-cube near the end of a match is worth many rolls at a
1-cube early on; EMG and MWC luck of one roll always have the same sign.

**Per-player totals** (:mod:`analyzer.analysis.stats`) add up the luck in the match's currency:
MWC in a match (gnubg's "luck cost"), points (luck x cube) in money play. gnubg's own "Luck total
EMG" adds the EMG of rolls at different stakes, so its sign can differ from the MWC total (-0.60
EMG but +13.7% MWC for BoardLord in the shipped 7-point sample, by gnubg as by us); the EMG total
shown here is the MWC (or points) total divided by the match's average stake, so the two always
agree in sign and equal gnubg's sum whenever every roll has the same stake. Luck is not a zero-sum
quantity: in a game where both players keep missing shots both are unlucky (gnubg gives -90% and
-38% MWC to the two players of one 13-point corpus match); the luck-adjusted result subtracts
one's own luck and adds the opponent's. ``docs/luck.md`` explains it with examples and the
agreement with gnubg (``bench/luck_agreement.py``).

>>> from analyzer.core.dice import ALL_21
>>> values = {r.dice: float(r.high + r.low) for r in ALL_21}
>>> round(luck_of(values, (6, 6)), 4), round(luck_of(values, (3, 1), opening=True), 4)
(5.0, 4.0)
>>> round(sum(r.weight * luck_of(values, r.dice) for r in ALL_21), 9)
0.0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from analyzer.analysis.decisions import equity_after
from analyzer.core.dice import ALL_21
from analyzer.core.match import MatchState
from analyzer.core.position import Position, flip_boards
from analyzer.eval.cube import cubeful_after_many
from analyzer.eval.met import MatchEquityTable, emg_to_mwc
from analyzer.eval.net import OUTCOME_POINTS
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import Evaluator
from analyzer.rules import find_variant

__all__ = ["luck_of", "mwc_luck", "roll_values", "stake"]


def _key(dice: tuple[int, int]) -> tuple[int, int]:
    return (max(dice), min(dice))


#: plays of a roll, best first by 0-ply cubeless equity, whose cubeful value is compared
CUBEFUL_CANDIDATES = 4


@dataclass(frozen=True, slots=True)
class _RollBoards:
    """The plays of the 21 rolls of one position, evaluated: ``after`` (every distinct result of
    every roll, the opponent on roll, rolls in :data:`ALL_21` order), ``raw`` (the opponent's 0-ply
    outcomes there) and ``chosen`` (rows of ``after``: the :data:`CUBEFUL_CANDIDATES` best plays of
    each roll by the mover's cubeless equity, rolls in order, best first, ties in generation order)
    with ``cstarts``, where each roll's candidates begin in ``chosen``."""

    after: NDArray[np.int8]
    raw: NDArray[np.float32]
    chosen: NDArray[np.intp]
    cstarts: NDArray[np.intp]


def _roll_boards(bulk: Callable[[NDArray[np.int8], int], NDArray[np.float32]],
                 position: Position) -> _RollBoards:
    """Every play of the 21 rolls, each distinct board evaluated once (results reached by several
    rolls, such as 41 and 32 moving one checker five pips, are evaluated once)."""
    # every roll's results in one compiled call; ``after``: the opponent on roll after each play
    _, after, bounds = find_variant(position.variant).roll_results(position, [roll.dice for roll in ALL_21])
    sizes = np.diff(bounds).astype(np.intp)
    rows = np.ascontiguousarray(after).view(np.dtype((np.void, after.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    raw = np.asarray(bulk(after[first], 0))[inverse.ravel()]
    equities = raw[:, [3, 4, 5, 0, 1, 2]] @ OUTCOME_POINTS  # the mover's
    roll_of = np.repeat(np.arange(len(sizes)), sizes)
    by_equity = np.argsort(-equities, kind="stable")
    order = by_equity[np.argsort(roll_of[by_equity], kind="stable")]  # by roll, then best first
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rank = np.arange(len(order)) - starts[roll_of[order]]
    cstarts = np.concatenate(([0], np.cumsum(np.minimum(sizes, CUBEFUL_CANDIDATES))[:-1]))
    return _RollBoards(after, raw, order[rank < CUBEFUL_CANDIDATES], cstarts)


def roll_values(engine: Evaluator, position: Position, state: MatchState, player: int,
                met: MatchEquityTable | None = None) -> dict[tuple[int, int], float]:
    """The 0-ply value (cubeful EMG of ``player``) of the best play of each of the 21 rolls in
    ``position`` (seen from ``player``, before his roll), keyed by ``(high, low)``.

    As in gnubg the best play is the one with the highest cubeful equity at the score: the
    :data:`CUBEFUL_CANDIDATES` plays with the highest 0-ply cubeless equity are valued cubefully and
    the highest counts. With an engine that evaluates raw boards in bulk (``evaluate_boards``) all
    21 rolls are evaluated in one batch.
    """
    bulk = getattr(engine, "evaluate_boards", None)
    out: dict[tuple[int, int], float] = {}
    if bulk is None:
        for roll in ALL_21:
            ranked = engine.rank_plays(position, roll.dice, 0)[:CUBEFUL_CANDIDATES]
            out[roll.dice] = max(equity_after(r.probabilities, r.result, state, player, met) for r in ranked)
        return out
    rb = _roll_boards(bulk, position)
    starts = rb.cstarts  # every roll has a play (an unplayable roll: the position unchanged)
    if position.spec.has_cube:  # the cube model compiled, every candidate of every roll in one call
        cubeful = cubeful_after_many(rb.raw, rb.after, rb.chosen, state, player, met)
        best = np.maximum.reduceat(cubeful, starts).tolist()
        return {roll.dice: v for roll, v in zip(ALL_21, best, strict=True)}
    results = flip_boards(rb.after[rb.chosen])
    mover = rb.raw[rb.chosen][:, [3, 4, 5, 0, 1, 2]].tolist()
    values = [equity_after(Probabilities.from_outcomes(m), Position(r.tobytes(), position.variant), state, player, met)
              for m, r in zip(mover, results, strict=True)]
    ends = [*starts[1:].tolist(), len(values)]
    return {roll.dice: max(values[a:b]) for roll, a, b in zip(ALL_21, starts.tolist(), ends, strict=True)}


def luck_of(values: Mapping[tuple[int, int], float], dice: tuple[int, int], *, opening: bool = False,
            opponent: Mapping[tuple[int, int], float] | None = None) -> float:
    """The luck of ``dice`` given :func:`roll_values`.

    ``opening`` is gnubg's ``LuckFirst``: the average runs over the 30 ways the opening roll can
    fall, each of the 15 non-doubles played either by the opener (``values``) or by his opponent
    (``opponent``: the opponent's :func:`roll_values` of the position with him on roll, in his
    own EMG; default ``values``, right for the symmetric start at a symmetric score).
    """
    if opening:
        opp = values if opponent is None else opponent
        mean = sum(values[r.dice] - opp[r.dice] for r in ALL_21 if not r.is_double) / 30.0
        return values[_key(dice)] - mean
    total = weight = 0.0
    for roll in ALL_21:
        total += roll.weight * values[roll.dice]
        weight += roll.weight
    return values[_key(dice)] - total / weight


def stake(state: MatchState, player: int, met: MatchEquityTable | None) -> float:
    """What one EMG of ``player``'s luck is worth at the score and cube of ``state``: MWC in a
    match (half the MWC gap between winning and losing the cube's points), points (the cube's
    value) in money play or without a table.

    >>> from analyzer.eval.met import met_by_name
    >>> stake(MatchState(length=1), 0, met_by_name()), stake(MatchState(cube=4), 0, None)
    (0.5, 4.0)
    """
    if met is None or state.is_money:
        return float(state.cube)
    return emg_to_mwc(met, state, player, 1.0) - emg_to_mwc(met, state, player, 0.0)


def mwc_luck(luck: float, state: MatchState, player: int, met: MatchEquityTable | None) -> float | None:
    """The match-winning chance ``luck`` (EMG, :func:`luck_of`) is worth to ``player`` at the score
    and cube of ``state``, as gnubg's ``eq2mwc(luck) - eq2mwc(0)``; ``None`` in money play.

    The cube counts: at 4-2 to 7 a 4-cube puts the match on the game, so each EMG there is worth
    more than four times an EMG of the same game at a 1-cube.

    >>> from analyzer.eval.met import met_by_name
    >>> from dataclasses import replace
    >>> s = MatchState(length=7, score=(4, 2))
    >>> mwc_luck(0.5, s, 0, met_by_name()) * 4 < mwc_luck(0.5, replace(s, cube=4), 0, met_by_name())
    True
    """
    if met is None or state.is_money:
        return None
    return emg_to_mwc(met, state, player, luck) - emg_to_mwc(met, state, player, 0.0)
