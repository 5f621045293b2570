"""Scoring single decisions: candidate plays, equity loss, cube and take/pass decisions.

**Equity basis.** The evaluator gives *cubeless* probabilities. Every equity here is turned into
a *cubeful* normalised equity (EMG; in money play equity per unit of the current cube) with
:func:`analyzer.eval.cube.cubeful_emg` at the decision's score and cube, the way gnubg's 0-ply
evaluation does (Janowski's cube-life model): after a checker play the opponent is on roll, so
the value of a play is minus the opponent's cubeful EMG of the resulting position (normalised
equity is antisymmetric between the players at one cube). Plays are ranked on that value.

**Without a cube.** An engine whose game has no cube (``cubeful`` false: Dutch backgammon, Mahbusa)
values a play in the mover's cubeless expected points of the game instead (:func:`points_of`), and a
result that ends the game by its exact points from the rules (:func:`terminal_value`), never by the
evaluator; the candidates are chosen the same way.

**Candidates.** Every legal play is evaluated at 0-ply; the plays the move filter keeps (by
default gnubg's analysis filter, up to 16 within 0.32 of the best) are evaluated deeper: up to
1-ply at the requested ply; from 2-ply on at one ply less, and the best of those (up to 4 within
0.08, the last stage of gnubg's LARGE filter) at the requested ply. The played play is always
evaluated at the requested ply, as gnubg does. The played play is
found among the legal plays by the position it produces, never by its text.

>>> from analyzer.core.match import MatchState
>>> from analyzer.eval.probabilities import Probabilities
>>> from analyzer.core.position import Position, flip_boards
>>> p = Probabilities(1.0, 0.0, 0.0, 0.0, 0.0)
>>> equity_after(p, Position.start(), MatchState(), 0)
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from analyzer.core.match import MatchState
from analyzer.core.position import Position, flip_boards
from analyzer.eval.cube import CubeDecision, cube_life_of, cubeful_after_many, cubeful_emg
from analyzer.eval.met import MatchEquityTable, emg_to_mwc
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import ANALYSIS_FILTER, Evaluator, MoveFilter, RankedPlay
from analyzer.rules import Variant, find_variant
from analyzer.rules.base import Outcome

__all__ = ["DEEP_FILTER", "Candidate", "CheckerAnalysis", "CubeScore", "analyze_checker",
           "equity_after", "hint", "points_of", "ranking", "score_cube", "score_take", "terminal_value", "to_mwc"]

_EPS = 1e-9

DEEP_FILTER = MoveFilter(4, 0.08)
"""The last stage of gnubg's LARGE filter: from 2-ply on, up to 4 plays within 0.08 (at ply - 1)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A legal play with the mover's cubeful EMG after it and his cubeless chances."""

    play: str
    result: Position
    equity: float
    probabilities: Probabilities
    ply: int


@dataclass(frozen=True, slots=True)
class CheckerAnalysis:
    """The ranked candidates of one roll (best first) and the played one.

    ``legal`` counts the distinct legal plays; the roll is forced when there is only one (a
    dance included).
    """

    candidates: tuple[Candidate, ...]
    played: Candidate
    legal: int

    @property
    def best(self) -> Candidate:
        return self.candidates[0]

    @property
    def forced(self) -> bool:
        return self.legal <= 1

    @property
    def loss(self) -> float:
        """EMG lost by the played play (never negative)."""
        return max(0.0, self.best.equity - self.played.equity)


def equity_after(probs: Probabilities, result: Position, state: MatchState, player: int,
                 met: MatchEquityTable | None = None) -> float:
    """Cubeful EMG of ``player`` after a play that reached ``result`` (still seen from him), given
    his cubeless ``probs`` there; the opponent is then on roll with the cube as in ``state``.

    >>> from analyzer.core.match import MatchState
    >>> s = MatchState(length=5, score=(2, 3))
    >>> lost = Probabilities(0.0, 0.0, 0.0, 0.0, 0.0)
    >>> equity_after(lost, Position.start(), s, 0)
    -1.0
    """
    opp = result.flip()
    gp = Probabilities.of(probs.flip(), clamp=True)
    return -cubeful_emg(gp, state, 1 - player, cube_life=cube_life_of(opp), met=met)


def to_mwc(met: MatchEquityTable | None, state: MatchState, player: int, emg: float) -> float | None:
    """``player``'s match-winning chance for normalised equity ``emg``; ``None`` in money play.

    >>> from analyzer.eval.met import met_by_name
    >>> to_mwc(met_by_name(), MatchState(length=3), 0, 0.0), to_mwc(None, MatchState(), 0, 0.0)
    (0.5, None)
    """
    if state.is_money or met is None:
        return None
    return emg_to_mwc(met, state, player, emg)


class _Valued(Protocol):
    @property
    def equity(self) -> float: ...


_V = TypeVar("_V", bound=_Valued)


def _filtered(ranked: Sequence[_V], move_filter: MoveFilter) -> list[_V]:
    """The plays ``move_filter`` keeps of ``ranked`` (best first): at most its count, within its
    threshold of the best."""
    if not ranked:
        return []
    best = ranked[0].equity
    return [r for r in ranked[: move_filter.count] if r.equity >= best - move_filter.threshold]


def _deepen(engine: Evaluator, plays: Sequence[RankedPlay], ply: int) -> list[RankedPlay]:
    """``plays`` evaluated again at ``ply`` (one batch, so the engine can use its threads)."""
    if not plays:
        return []
    boards = np.stack([np.frombuffer(r.result.flip().board, dtype=np.int8) for r in plays])
    out = engine.evaluate_boards(boards, ply)
    deep: list[RankedPlay] = []
    mover = out[:, [3, 4, 5, 0, 1, 2]]  # back to the mover
    for r, o, m in zip(plays, out.tolist(), mover, strict=True):
        pr = Probabilities.from_outcomes([o[3], o[4], o[5], o[0], o[1], o[2]])
        deep.append(RankedPlay(r.play, r.result, pr.equity, pr, ply, outcomes=m))
    return deep


def ranking(engine: Evaluator, position: Position, dice: tuple[int, int], ply: int,
            move_filter: MoveFilter = ANALYSIS_FILTER, deep_filter: MoveFilter = DEEP_FILTER) -> list[RankedPlay]:
    """Every legal play of ``dice``, the most deeply evaluated first (cubeless equity order
    within each ply), as gnubg's filtered n-ply analysis does.

    All plays are evaluated at 0-ply and ``move_filter`` keeps the candidates. Up to 1-ply those
    are evaluated at ``ply``; from 2-ply on they are evaluated at ``ply - 1`` and ``deep_filter``
    (gnubg's last stage: 4 plays within 0.08) picks the ones evaluated at ``ply``.
    """
    if ply <= 1:
        return engine.rank_plays(position, dice, ply, move_filter)
    ranked = engine.rank_plays(position, dice, ply - 1, move_filter)
    stage = [r for r in ranked if r.ply == ply - 1] or ranked[:1]
    top = _filtered(stage, deep_filter)
    deep = sorted(_deepen(engine, top, ply), key=lambda r: -r.equity)
    chosen = {r.result for r in top}
    return deep + [r for r in ranked if r.result not in chosen]


def _kept(ranked: Sequence[RankedPlay], ply: int, move_filter: MoveFilter) -> list[RankedPlay]:
    """The candidates worth listing: every play evaluated beyond 0-ply (at 0-ply: the filter's)."""
    if ply > 0:
        return [r for r in ranked if r.ply > 0] or list(ranked[:1])
    return _filtered(ranked, move_filter)


def analyze_checker(engine: Evaluator, position: Position, dice: tuple[int, int], played: Position,
                    state: MatchState, player: int, *, ply: int, met: MatchEquityTable | None,
                    move_filter: MoveFilter = ANALYSIS_FILTER, deep_filter: MoveFilter = DEEP_FILTER,
                    ranked0: Sequence[RankedPlay] | None = None) -> CheckerAnalysis:
    """Rank the plays of ``dice`` in ``position`` (from the mover, ``player``) and locate the
    play that reached ``played``; the played play is evaluated at ``ply`` too.

    ``ranked0`` may hand in the 0-ply ranking already computed. Raises :class:`ValueError` when
    ``played`` is not a legal result of the roll.

    An engine without a cube (``engine.cubeful`` false) values the plays in the mover's cubeless
    points of the game (``state``, ``player``, ``met`` and ``ranked0`` do not apply; the module
    docstring); its candidates come deepest first, best first within a ply, too.
    """
    if not engine.cubeful:
        return _points_checker(engine, position, dice, played, ply, move_filter, deep_filter)
    r0 = list(ranked0) if ranked0 is not None else engine.rank_plays(position, dice, 0, move_filter)
    legal = len(r0)
    ranked = ranking(engine, position, dice, ply, move_filter, deep_filter) if legal > 1 and ply > 0 else r0
    keep = _kept(ranked, ply if legal > 1 else 0, move_filter)
    found = next((r for r in ranked if r.result == played), None)
    if found is None:
        raise ValueError(f"the played position is not a legal result of {dice[0]}{dice[1]}")
    if found.ply < ply and legal > 1:
        found = _deepen(engine, [found], ply)[0]
    pool = [r for r in keep if r.result != played] + [found]
    cands = _candidates(pool, state, player, met)
    mine = next(c for c in cands if c.result == played)
    return CheckerAnalysis(tuple(cands), mine, legal)


def _candidates(pool: Sequence[RankedPlay], state: MatchState, player: int,
                met: MatchEquityTable | None) -> list[Candidate]:
    """Cubeful candidates, the deepest evaluations first, best first within a ply.

    Standard plays that carry the evaluator's outcomes are valued in one compiled call
    (:func:`~analyzer.eval.cube.cubeful_after_many`: the same numbers as :func:`equity_after`)."""
    rows = [r.outcomes for r in pool]
    if pool and all(o is not None for o in rows) and all(r.result.spec.has_cube for r in pool):
        theirs = np.stack(cast(list[NDArray[np.float32]], rows))[:, [3, 4, 5, 0, 1, 2]]  # the opponent's view
        after = flip_boards(np.stack([np.frombuffer(r.result.board, dtype=np.int8) for r in pool]))
        values = cubeful_after_many(theirs, after, np.arange(len(pool)), state, player, met).tolist()
    else:
        values = [equity_after(r.probabilities, r.result, state, player, met) for r in pool]
    cands = [Candidate(r.play, r.result, v, r.probabilities, r.ply) for r, v in zip(pool, values, strict=True)]
    cands.sort(key=lambda c: (-c.ply, -c.equity))
    return cands


# ---------------------------------------------------------------------- without a cube: points of a game
def points_of(probs: Probabilities) -> float:
    """Expected points of one cubeless game of a variant without a cube from the chances (the
    gammon chances are the mars chances; the backgammon chances are zero in these games).

    >>> points_of(Probabilities(1.0, 1.0, 0.0, 0.0, 0.0)), points_of(Probabilities(0.0, 0.0, 0.0, 0.5, 0.0))
    (2.0, -1.5)
    """
    return float(probs.equity)


def _outcome_probabilities(out: Outcome) -> Probabilities:
    """The chances of the position's mover once the game is over (a draw: no win, no loss; worth 0)."""
    if out.points == 0:
        return Probabilities(0.0, 0.0, 0.0, 0.0, 0.0, draw=1.0)
    big = 1.0 if out.points >= 2 else 0.0
    if out.winner == 0:
        return Probabilities(1.0, big, 0.0, 0.0, 0.0)
    return Probabilities(0.0, 0.0, 0.0, big, 0.0)


def _terminal(out: Outcome) -> tuple[float, Probabilities]:
    """The exact points of the mover of a finished game and his chances there."""
    return float(out.points if out.winner == 0 else -out.points), _outcome_probabilities(out)


def terminal_value(rules: Variant, result: Position) -> float | None:
    """The exact points of the mover of ``result`` when the game is over there, else ``None``.

    >>> terminal_value(find_variant("dutch"), Position.start("dutch")) is None
    True
    """
    out = rules.outcome(result)
    return None if out is None else _terminal(out)[0]


def _points_value(rules: Variant, result: Position, probs: Probabilities) -> tuple[float, Probabilities]:
    out = rules.outcome(result)
    return (points_of(probs), probs) if out is None else _terminal(out)


def _points_after(engine: Evaluator, rules: Variant, result: Position, ply: int) -> tuple[float, Probabilities]:
    """The mover's value of ``result`` (seen from the mover) at ``ply``: the opponent's
    evaluation flipped, or the exact points when the game is over."""
    out = rules.outcome(result)
    if out is not None:
        return _terminal(out)
    probs = engine.evaluate(result.flip(), ply).flip()
    return points_of(probs), probs


def points_ranked0(engine: Evaluator, position: Position, dice: tuple[int, int]) -> list[Candidate]:
    """Every legal play of ``dice`` at 0-ply in points of the game, best first (results that end the
    game valued exactly): the ranking of an engine without a cube."""
    rules = find_variant(position.variant)
    cands = []
    for r in engine.rank_plays(position, dice, 0):
        value, probs = _points_value(rules, r.result, r.probabilities)
        cands.append(Candidate(str(r.play), r.result, value, probs, 0))
    cands.sort(key=lambda c: -c.equity)
    return cands


def _points_deepen(engine: Evaluator, rules: Variant, cands: Sequence[Candidate], ply: int) -> list[Candidate]:
    out = []
    for c in cands:
        value, probs = _points_after(engine, rules, c.result, ply)
        out.append(Candidate(c.play, c.result, value, probs, ply))
    out.sort(key=lambda c: -c.equity)
    return out


def _points_checker(engine: Evaluator, position: Position, dice: tuple[int, int], played: Position, ply: int,
                    move_filter: MoveFilter, deep_filter: MoveFilter) -> CheckerAnalysis:
    """:func:`analyze_checker` of an engine without a cube: every legal play valued at 0-ply and
    ``move_filter`` keeping the candidates; up to 1-ply those valued at ``ply``; from 2-ply on at
    ``ply - 1`` and the best of them (``deep_filter``) at ``ply``; the played play always at ``ply``.
    A value is the evaluation of the position after the play (the opponent on roll), in the mover's
    expected points."""
    rules = find_variant(position.variant)
    r0 = points_ranked0(engine, position, dice)
    legal = len(r0)
    mine = next((c for c in r0 if c.result == played), None)
    if mine is None:
        raise ValueError(f"the played position is not a legal result of {dice[0]}{dice[1]}")
    keep = _filtered(r0, move_filter)
    if ply == 0 or legal == 1:
        pool = keep + ([mine] if all(c.result != played for c in keep) else [])
        pool.sort(key=lambda c: -c.equity)
    elif ply == 1:
        pool = _points_deepen(engine, rules, keep + ([mine] if all(c.result != played for c in keep) else []), 1)
    else:
        stage = _points_deepen(engine, rules, keep, ply - 1)
        top = _filtered(stage, deep_filter)
        chosen = {c.result for c in top}
        if played not in chosen:
            top.append(next((c for c in stage if c.result == played), mine))
            chosen.add(played)
        pool = _points_deepen(engine, rules, top, ply) + [c for c in stage if c.result not in chosen]
    found = next(c for c in pool if c.result == played)
    return CheckerAnalysis(tuple(pool), found, legal)


def hint(engine: Evaluator, position: Position, dice: tuple[int, int], state: MatchState, player: int, *,
         ply: int, met: MatchEquityTable | None = None, move_filter: MoveFilter = ANALYSIS_FILTER,
         deep_filter: MoveFilter = DEEP_FILTER) -> list[Candidate]:
    """The candidate plays of ``dice`` in ``position`` (from ``player`` on roll), deepest
    evaluations first and best first by cubeful EMG within each (see :func:`ranking`).

    >>> from analyzer.eval.engine import Engine
    >>> [c.play for c in hint(Engine(), Position.start(), (3, 1), MatchState(), 0, ply=0)][:1]
    ['8/5 6/5']
    """
    ranked = ranking(engine, position, dice, ply, move_filter, deep_filter)
    return _candidates(_kept(ranked, ply, move_filter), state, player, met)


@dataclass(frozen=True, slots=True)
class CubeScore:
    """One side's score of a cube decision: the values (EMG, from that side), the error type
    (``None`` when right) and whether gnubg counts it as close (or actual)."""

    played: str
    best: str
    equity_played: float
    equity_best: float
    cube_error: str | None
    close: bool

    @property
    def loss(self) -> float:
        return max(0.0, self.equity_best - self.equity_played)


def _word(cd: CubeDecision) -> str:
    return "redouble" if cd.redouble else "double"


def score_cube(cd: CubeDecision, doubled: bool, *, close_cut: float) -> CubeScore:
    """Score the doubler's side of ``cd``: he doubled (``doubled``) or rolled without doubling.

    A double is valued at min(DT, DP) (the opponent answering correctly). Not doubling when the
    best action was to double is a missed double; doubling when it was not is a wrong double.
    Not doubling a dead cube (``never double``) is never close: gnubg has no cube decision there.

    >>> from analyzer.eval.cube import cube_decision
    >>> cd = cube_decision([0.75, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
    >>> s = score_cube(cd, False, close_cut=0.16)
    >>> s.cube_error, s.best, s.close, s.loss > 0
    ('missed double', 'double', True, True)
    """
    if cd.dt is None or cd.dp is None:
        raise ValueError("no cube decision: the cube was not available")
    answered = min(cd.dt, cd.dp)
    best = cd.best
    should = answered > cd.nd + _EPS
    word = _word(cd)
    played_eq = answered if doubled else cd.nd
    err: str | None = None
    if best - played_eq > _EPS:
        err = "wrong double" if doubled else "missed double"
    # A dead cube ("never double") is no cube decision for gnubg (GetDPEq): not close.
    dead = cd.action.startswith("never ")
    close = doubled or (best - answered < close_cut and not dead)
    return CubeScore(word if doubled else f"no {word}", word if should else f"no {word}", played_eq, best,
                     err, close)


def score_take(cd: CubeDecision, took: bool) -> CubeScore:
    """Score the taker's answer to the double of ``cd``, from the taker's side.

    >>> from analyzer.eval.cube import cube_decision
    >>> cd = cube_decision([0.9, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
    >>> s = score_take(cd, True)
    >>> s.cube_error, s.best, round(s.equity_best, 3)
    ('wrong take', 'pass', -1.0)
    """
    if cd.dt is None or cd.dp is None:
        raise ValueError("no cube decision: the cube was not available")
    take_eq, pass_eq = -cd.dt, -cd.dp
    should_take = take_eq >= pass_eq
    answer = "beaver" if cd.beaver else "take"
    played_eq = take_eq if took else pass_eq
    best = max(take_eq, pass_eq)
    err: str | None = None
    if best - played_eq > _EPS:
        err = "wrong take" if took else "wrong pass"
    return CubeScore(answer if took else "pass", answer if should_take else "pass", played_eq, best, err, True)
