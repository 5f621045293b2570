"""The confirmation pass: the decisions a review would headline, valued again by a stronger method.

A first pass at n-ply values every decision; its evaluation errors become a review's false
blunders (and its near-zero ratings hide real ones). The confirmation pass takes the decisions
that matter and values them again, and the stronger value stands. It runs after the first pass,
the decisions whose error class the first pass most likely has wrong first (:func:`doubt`: close
cube decisions and takes before gross blunders that no evaluation will clear), and values ``limit``
decisions a match (a double with its take or pass is one) and, past that, every cube decision at
least ``cube_doubt`` doubtful (the first pass errs most on the cube) and, with ``blunders``, every
decision the first pass puts in the worst error class (a review's blunders are all confirmed), then
goes on, the largest first-pass losses first, only while the next could still be among the five
worst of the review: what a review
headlines is confirmed, and the time stays bounded. The order changes no value (a decision's
rollouts are seeded by its game and move).

* **checker plays** whose loss reaches ``threshold`` (the lowest error class, 0.02 by default),
  and those where the best two candidates lie within ``margin`` of each other (a near-zero rating
  that a better evaluation may overturn): the best ``plays`` candidates of the first pass and the
  played play are rolled out with the same dice for all (cubeful at the match score through the
  cube model, variance reduction with each roll's luck measured by the pruned 0-ply search as gnubg
  does (unbiased; about twice as fast), quasi-random dice, truncated at ``truncate`` plies with the net
  at the horizon), in rounds of ``trials``, ``2 x trials``, ... games until the played play's
  error class is settled at 95% confidence (its signed loss: a play rolled out the best by a
  margin is no error even where that margin is uncertain), or the loss is known to within
  ``tolerance`` (the interval's half-width; ``low_tolerance`` for an interval below the second
  class line), or ``max_trials`` games are played, or the games left
  would settle it with a chance below ``futility`` (:func:`settle_chance`: a loss on a class line);
  a rival play that another rival leads by three standard errors of their paired difference plays
  no more rounds (:func:`_beaten`: it cannot be the best rival the loss is measured against);
* **cube decisions** that are close (gnubg's cut) or were doubled, and so every take/pass: the
  position before the roll is rolled out with cube play (a No double game and a Double/take game
  on the same dice, both sides turning and taking the cube by the model), played to the end
  (``cube_truncate``: a truncated rollout values its horizon with the very net whose blind spots
  made the first pass wrong; measured on the shipped sample's worst double, game 3 move 14, the
  wrong double costs 0.186 truncated at 7 plies and 0.081 played out; ``cube_race_stop``, off by
  default, stops the games where they become a race, valued there by the race net and the race's
  cube model: the sample's pass costs a tenth less, but the race net misvalues some races, e.g. a
  straggler against a side with ten checkers off, 71% to win where the games played out say 64%,
  which turned a 0.15 redouble blunder into a correct redouble on the review yardstick), in rounds as above until
  the error class of each action played is settled (the doubler's and, after a double, the
  taker's) or futile (``cube_futility``; once the doubler's is settled and the taker's is not, the later
  rounds play
  the Double/take games alone: the take is measured against the fixed Double/pass); the cube
  games' means replace the model's No double and Double/take;
* Dutch and Mahbusa plays (no cube): cubeless rollouts played to the end by the variant net.

A checker play's rollout goes further when the review's worst list would rank it by noise (its
loss and a neighbour's there differ by less than the larger of their standard errors,
:func:`rank_undecided`): the analysis sets a goal for its standard error (the gap), and it is rolled
on, its earlier rounds kept, to that goal or ``rank_max_trials`` games (four times ``max_trials`` by
default; the row's ``rank_trials``), unless the standard error it can expect at that cap
(:func:`rank_floor`), or its neighbour's, is still larger than the gap: then it stays marked undecided
without the games.

Method ``"ply"`` instead re-evaluates the same decisions at ``ply`` (3 by default: the first pass's
candidate filter with a deeper last stage, and the n-ply cube search).

The standard error of a loss is that of the difference of two rolled-out values, measured from the
trials' paired differences (every candidate plays the same dice, so most of the noise cancels; the
cubeless equities' differences stand for the cubeful ones'; a double's: Double/take minus No double
from the paired cube games, or No double alone where Double/pass is the smaller). Dutch and Mahbusa
rounds count the two values as independent (larger, conservative).

>>> s = ConfirmSettings()
>>> s.method, s.threshold, s.trials, s.max_trials
('rollout', 0.02, 72, 576)
>>> from analyzer.analysis.thresholds import XG
>>> settled(0.10, 0.005, XG), settled(0.085, 0.01, XG), settled(0.0, 0.0, XG)
(True, False, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from analyzer.analysis.decisions import Candidate, CheckerAnalysis, analyze_checker
from analyzer.analysis.thresholds import Thresholds
from analyzer.core.errors import SettingsError
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval.cube import CubeDecision, cube_decision, cube_life_of
from analyzer.eval.cube_search import cube_decision_nply
from analyzer.eval.met import MatchEquityTable
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import ANALYSIS_FILTER, Evaluator, MoveFilter
from analyzer.eval.rollout import RolloutCandidate, RolloutSettings, played_cube, rollout, rollout_cubeful
from analyzer.eval.variants.rollout import VariantRolloutCandidate

__all__ = ["CUBE_DOUBT", "CUBE_FUTILITY", "FUTILITY", "LIMIT", "METHODS", "RANK_TRIALS_FACTOR", "SPREAD",
           "ConfirmSettings", "Confirmed",
           "Confirmer", "cube_signed", "doubt", "rank_floor", "rank_undecided", "settle_chance", "settled",
           "take_signed"]

METHODS = ("rollout", "ply")
Z95 = 1.959963984540054
_SEED_STEP = 1_000_003
LIMIT = 10
"""How many decisions a match's confirmation pass values again by default, those whose error class
the first pass most likely has wrong first (:func:`doubt`; a double with its take or pass is one;
more while the next could still be among the review's five worst): what bounds its time
(``bench/review_agreement.py``, issue 24)."""
CUBE_DOUBT = 0.1
"""Cube decisions (a double with its answer as one) whose :func:`doubt` reaches this are valued
again whatever the limit: a cube error is the largest a review reports, and the 2-ply first pass
errs most there (``bench/review_agreement.py``: cube blunders found 94.4% and real 83.9% with the
limit alone, 96.3% and 94.6% with these valued too)."""
SPREAD = {"checker": 0.02, "cube": 0.07, "take": 0.17}
"""How far a 2-ply first pass's signed loss strays from the confirmation rollout's, by kind (EMG,
the standard deviation of the difference over the 1,994 decisions of the 22 matches of
``bench/review_agreement.py`` that the pass values without a limit: checker plays 0.020, the
doubler's margin 0.069, the taker's 0.17): the spread :func:`doubt` assumes."""
TOLERANCE = 0.01
"""A rolled-out loss known to within this (the 95% interval's half-width, EMG) needs no more games,
whatever its error class (:func:`settled`)."""
LOW_TOLERANCE = 0.015
"""A rolled-out loss whose interval lies below the second class line (XG's blunder line, 0.08;
gnubg's "bad", 0.06) needs no more games once known to within this: below it only the lowest line
is at stake, where a loss that close to the line is as much the one class as the other. (0.015
everywhere was measured too: on the 22-match yardstick it moved ten losses across the blunder line
by noise, and the blunders' precision against gnubg fell from 96.3% to 94.3%; docs/benchmarks.md.)"""
RANK_TRIALS_FACTOR = 4
"""The most games a checker play's confirmation rollout plays, in ``max_trials`` (2304 by default),
when its loss and a neighbour's in the review's worst list differ by less than the larger of their
standard errors (:func:`rank_undecided`): the extra rounds settle the order, or the cap leaves it
marked undecided (:meth:`Confirmer.checker`, ``goals``)."""
FUTILITY = 0.2
"""A decision whose loss would settle its error class by ``max_trials`` with a chance below this
(:func:`settle_chance`, were its true loss the one measured so far: it lies too near a class
boundary for the games left to tell) is not played on once half of ``max_trials`` are played: the
games would not change what it shows."""
CUBE_FUTILITY = 0.5
""":data:`FUTILITY` for the cube decisions (``ConfirmSettings.cube_futility``): a double or its take stops at
half of ``max_trials`` when the games left would more likely than not leave its class unsettled. A cube
decision's games are played out and cost several times a checker play's, and at 576 games its loss is
still known to about +-0.02 only, so its last 288 games mostly leave open what the first 288 left open:
the shipped sample's cube games 1,584 -> 1,008, its confirmation pass 65 -> 48 CPU-s. On all 22 matches of
``bench/review_agreement.py`` every blunder, best-play and loss figure stays the same, the cube actions
agree with gnubg 2-ply's in 98.8% of 2,233 (98.9% at 0.2) and the close ones in 94.3% of 457 (94.5%):
one close decision in 457 (docs/benchmarks.md, "Where the default review's time goes")."""

_Pairs = dict[tuple[Position, Position], float]
_Round = tuple[int, list[tuple[Position, float, float, Probabilities]], _Pairs | None]
"""One round's games; per candidate its result, value, standard error and chances; and, where the
rollout gives them, the standard errors of the paired differences (``(a, b)``: value of a minus b)."""


@dataclass(frozen=True, slots=True)
class ConfirmSettings:
    """Which decisions the confirmation pass values again, and how (see the module docstring)."""

    method: str = "rollout"
    threshold: float = 0.02
    margin: float = 0.02
    trials: int = 72
    max_trials: int = 576
    truncate: int | None = 7
    cube_truncate: int | None = None
    ply: int = 3
    plays: int = 3
    workers: int = 2
    limit: int | None = LIMIT
    tolerance: float = TOLERANCE
    low_tolerance: float | None = LOW_TOLERANCE
    cube_doubt: float | None = CUBE_DOUBT
    blunders: bool = True
    futility: float | None = FUTILITY
    cube_futility: float | None = CUBE_FUTILITY
    """:attr:`futility` for the cube decisions (:data:`CUBE_FUTILITY`)."""
    rank_max_trials: int | None = None
    """The most games to settle a rank (:data:`RANK_TRIALS_FACTOR`; ``None``: that many times
    ``max_trials``): :attr:`rank_cap`."""
    cube_race_stop: bool = False
    """A cube decision's games stop where they become a race (``RolloutSettings.race_stop``; measured and
    not the default: see the module docstring)."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise SettingsError(f"must be one of {', '.join(METHODS)}, not {self.method!r}", setting="confirm.method")
        for name in ("trials", "plays", "workers"):
            if getattr(self, name) < 1:
                raise SettingsError("must be at least 1", setting=f"confirm.{name}")
        if self.max_trials < self.trials:
            raise SettingsError(f"must be at least the first round's {self.trials} games",
                                setting="confirm.max_trials")
        if self.rank_max_trials is not None and self.rank_max_trials < self.max_trials:
            raise SettingsError("must be at least max_trials", setting="confirm.rank_max_trials")
        for name in ("truncate", "cube_truncate"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise SettingsError("must be at least 1 ply", setting=f"confirm.{name}")
        if self.limit is not None and self.limit < 0:
            raise SettingsError("must not be negative", setting="confirm.limit")
        for name in ("cube_doubt", "futility", "cube_futility"):
            if getattr(self, name) is not None and not 0.0 <= getattr(self, name) <= 1.0:
                raise SettingsError("is a chance: 0 to 1", setting=f"confirm.{name}")
        for name in ("tolerance", "low_tolerance", "margin"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise SettingsError("must not be negative", setting=f"confirm.{name}")
        if self.threshold <= 0:
            raise SettingsError("must be positive", setting="confirm.threshold")

    def as_dict(self) -> dict[str, Any]:
        """The settings as recorded in an analysis's metadata."""
        return {"method": self.method, "threshold": self.threshold, "margin": self.margin,
                "trials": self.trials, "max_trials": self.max_trials, "truncate": self.truncate,
                "cube_truncate": self.cube_truncate, "cube_play": self.method == "rollout",
                "ply": self.ply if self.method == "ply" else None, "plays": self.plays, "workers": self.workers,
                "variance_reduction": self.method == "rollout", "playing_ply": 0, "limit": self.limit,
                "tolerance": self.tolerance, "low_tolerance": self.low_tolerance, "cube_doubt": self.cube_doubt,
                "blunders": self.blunders,
                "futility": self.futility, "cube_futility": self.cube_futility, "rank_max_trials": self.rank_cap,
                "cube_race_stop": self.cube_race_stop and self.method == "rollout"}

    @property
    def rank_cap(self) -> int:
        """The most games a checker play's rollout plays to settle its rank in the worst list.

        >>> ConfirmSettings().rank_cap, ConfirmSettings(max_trials=1000).rank_cap
        (2304, 4000)
        """
        return self.rank_max_trials if self.rank_max_trials is not None else RANK_TRIALS_FACTOR * self.max_trials

    @property
    def label(self) -> str:
        """How a confirmed row was valued, for its ``method`` column."""
        return "rollout" if self.method == "rollout" else f"{self.ply}-ply"


@dataclass(frozen=True, slots=True)
class Confirmed:
    """How a decision was valued again: ``method`` (``"rollout"``, ``"3-ply"``), the games played per
    candidate (``None`` for n-ply) and the standard error of the loss (``None`` for n-ply)."""

    method: str
    trials: int | None
    loss_se: float | None
    take_se: float | None = None
    """A rolled-out double: the standard error of the take's loss (Double/take against the fixed
    Double/pass), where ``loss_se`` is the double's."""
    take_trials: int | None = None
    """A rolled-out double whose take needed more games than the double (the later rounds played the
    Double/take games alone): the take's games, where ``trials`` counts the double's."""
    rank_trials: int | None = None
    """The games of ``trials`` played past the point where the error class was settled, to settle
    the decision's rank in the review's worst list (``None``: none)."""


def rank_undecided(losses: Sequence[float], ses: Sequence[float | None]) -> list[bool]:
    """For losses ranked largest first, whether each neighbouring pair's order is left to a rollout's
    noise: the two differ by less than the larger of their standard errors (``None``: an n-ply value,
    no noise). Entry ``i`` is the pair ``i, i + 1``.

    >>> rank_undecided([0.736, 0.6, 0.3], [0.233, None, 0.002])
    [True, False]
    >>> rank_undecided([0.5, 0.5], [None, None])
    [False]
    """
    return [losses[i] - losses[i + 1] < max(ses[i] or 0.0, ses[i + 1] or 0.0) for i in range(len(losses) - 1)]


def rank_floor(se: float, trials: int, cap: int) -> float:
    """The standard error a rolled-out loss of ``se`` over ``trials`` games can expect after ``cap``
    games (it falls as ``1 / sqrt(games)``): a rank whose gap to its neighbour is smaller than this
    stays undecided whatever the games in between, so they are not played.

    >>> round(rank_floor(0.0065, 288, 2304), 4), rank_floor(0.0065, 2304, 2304)
    (0.0023, 0.0065)
    """
    return se * math.sqrt(trials / cap) if trials < cap else se


def settled(loss: float, se: float, thresholds: Thresholds, z: float = Z95, *, tolerance: float = 0.0,
            low_tolerance: float | None = None) -> bool:
    """Whether a loss measured with standard error ``se`` is in one error class at the confidence of
    ``z`` (both ends of its interval, clipped at 0, classify alike), or known to within ``tolerance``
    (the interval's half-width: a loss that close to a class boundary is as much the one as the other),
    or to within ``low_tolerance`` with the whole interval below the second class line.

    >>> from analyzer.analysis.thresholds import XG
    >>> settled(0.021, 0.004, XG), settled(0.021, 0.004, XG, tolerance=0.01)
    (False, True)
    >>> settled(0.021, 0.007, XG, tolerance=0.01), settled(0.021, 0.007, XG, tolerance=0.01, low_tolerance=0.015)
    (False, True)
    >>> settled(0.078, 0.007, XG, tolerance=0.01, low_tolerance=0.015)  # the blunder line: 0.01 stands
    False
    """
    half = z * se
    if half <= tolerance:
        return True
    if low_tolerance is not None and half <= low_tolerance and loss + half < _second_line(thresholds):
        return True
    return thresholds.classify(max(0.0, loss - half)) == thresholds.classify(max(0.0, loss + half))


def _second_line(thresholds: Thresholds) -> float:
    """The second lowest class line (``inf`` with fewer than two classes; the levels are increasing)."""
    return thresholds.levels[1][1] if len(thresholds.levels) > 1 else math.inf


def settle_chance(loss: float, se: float, done: int, max_trials: int, thresholds: Thresholds, z: float = Z95, *,
                  tolerance: float = 0.0, low_tolerance: float | None = None) -> float:
    """The chance that a loss measured as ``loss`` ± ``se`` over ``done`` games would be
    :func:`settled` after ``max_trials`` games, were its true value ``loss``: the final mean is
    normal about ``loss`` with the variance the games left add (``se`` shrinks as
    ``1 / sqrt(games)``), and settles when its interval then lies inside one error class.

    >>> from analyzer.analysis.thresholds import XG
    >>> round(settle_chance(0.085, 0.04, 144, 576, XG), 2)  # at the blunder line: 576 games would not tell
    0.16
    >>> round(settle_chance(0.15, 0.04, 144, 576, XG), 2)  # most likely a blunder once the games are played
    0.81
    >>> settle_chance(0.085, 0.04, 576, 576, XG)  # no games left
    0.0
    """
    if done >= max_trials or se <= 0.0:
        return 1.0 if settled(loss, se, thresholds, z, tolerance=tolerance, low_tolerance=low_tolerance) else 0.0
    se_max = se * math.sqrt(done / max_trials)
    half = z * se_max
    if half <= tolerance:
        return 1.0
    spread = math.sqrt(se * se - se_max * se_max)
    edges = [-math.inf, *sorted(b for _, b in thresholds.levels), math.inf]
    floor = -math.inf  # below it every final mean settles (the low tolerance)
    chance = 0.0
    if low_tolerance is not None and half <= low_tolerance:
        floor = _second_line(thresholds) - half
        chance = _phi((floor - loss) / spread)
    for lo, hi in zip(edges, edges[1:], strict=False):
        a, b = max(lo + half, floor), hi - half  # where the final mean settles in this class
        if a < b:
            chance += _phi((b - loss) / spread) - _phi((a - loss) / spread)
    return chance


def cube_signed(cd: CubeDecision, doubled: bool) -> float:
    """The doubler's signed loss in ``cd``: what doubling (``doubled``, the double valued as answered
    best) or not doubling loses to the other action, negative when it is the better one.

    >>> from analyzer.eval.cube import cube_decision
    >>> cd = cube_decision([0.75, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
    >>> cube_signed(cd, False) > 0 > cube_signed(cd, True)
    True
    """
    if cd.dt is None or cd.dp is None:
        raise ValueError("no cube decision: the cube was not available")
    gain = min(cd.dt, cd.dp) - cd.nd
    return -gain if doubled else gain


def take_signed(cd: CubeDecision, took: bool) -> float:
    """The taker's signed loss in ``cd`` (``took``: he took, else passed), negative when his answer
    is the better one.

    >>> from analyzer.eval.cube import cube_decision
    >>> cd = cube_decision([0.9, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
    >>> take_signed(cd, True) > 0 > take_signed(cd, False)
    True
    """
    if cd.dt is None or cd.dp is None:
        raise ValueError("no cube decision: the cube was not available")
    return cd.dt - cd.dp if took else cd.dp - cd.dt


def doubt(signed_loss: float, kind: str, thresholds: Thresholds) -> float:
    """The chance that a decision's error class is not the first pass's, were its true signed loss
    normal about ``signed_loss`` with the :data:`SPREAD` of its ``kind`` (``"checker"``, ``"cube"``
    for the doubler, ``"take"`` for the taker): the order of the confirmation pass under its limit.

    The signed loss is the loss when the first pass calls the decision wrong, else minus its margin
    (how much better the chosen play or action was than the next best), so a close right decision
    is as doubtful as a loss near a class boundary, and a gross blunder is not doubtful at all.

    >>> from analyzer.analysis.thresholds import XG
    >>> round(doubt(0.0, "cube", XG), 2), round(doubt(0.3, "checker", XG), 2), round(doubt(-0.1, "cube", XG), 2)
    (0.39, 0.0, 0.04)
    """
    s = SPREAD[kind]
    bounds = [b for _, b in thresholds.levels]
    at = max(0.0, signed_loss)
    lo = max([b for b in bounds if b <= at], default=-math.inf)
    hi = min([b for b in bounds if b > at], default=math.inf)
    return 1.0 - (_phi((hi - signed_loss) / s) - _phi((lo - signed_loss) / s))


def _phi(z: float) -> float:
    """The standard normal distribution function (``±inf`` allowed)."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def wants_checker(first: CheckerAnalysis, s: ConfirmSettings) -> bool:
    """Whether the confirmation pass values this checker play again.

    >>> from analyzer.core.position import Position
    >>> p = Probabilities(0.5, 0.0, 0.0, 0.0, 0.0)
    >>> a, b = (Candidate(t, Position.start(), e, p, 2) for t, e in (("a", 0.1), ("b", 0.05)))
    >>> wants_checker(CheckerAnalysis((a, b), a, 2), ConfirmSettings())
    False
    >>> wants_checker(CheckerAnalysis((a, b), b, 2), ConfirmSettings())
    True
    """
    if first.forced:
        return False
    if first.loss >= s.threshold:
        return True
    return len(first.candidates) > 1 and first.candidates[0].equity - first.candidates[1].equity < s.margin


@dataclass
class _Sum:
    """Running totals of one rolled-out candidate over the rounds."""

    play: str
    result: Position
    games: int = 0
    value: float = 0.0  # sum of games x mean
    var: float = 0.0  # sum of games^2 x se^2
    probs: tuple[float, ...] = (0.0,) * 6

    def add(self, games: int, value: float, se: float, p: Probabilities) -> None:
        self.games += games
        self.value += games * value
        self.var += (games * se) ** 2
        vec = (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon, p.draw)
        self.probs = tuple(a + games * b for a, b in zip(self.probs, vec, strict=True))

    @property
    def mean(self) -> float:
        return self.value / self.games

    @property
    def se(self) -> float:
        return math.sqrt(self.var) / self.games

    @property
    def probabilities(self) -> Probabilities:
        return Probabilities(*(x / self.games for x in self.probs))


BEATEN_Z = 3.0
"""A candidate other than the played play is rolled out no further once another such candidate
leads it by this many standard errors of their paired difference (:func:`_beaten`)."""


def _beaten(sums: Sequence[_Sum], played: Position, pairs: _Pairs) -> set[Position]:
    """The candidates that need no more games, among ``sums`` (those still rolled out, every one
    over the same games): not the played play, and led by another candidate that is not the played
    play either by :data:`BEATEN_Z` standard errors of the paired difference. The played play's
    loss is measured against the best of the others, which such a candidate is not (a lead of three
    errors is not overturned by the games that follow).

    >>> a, b, c = (Position.from_points({1: 2}, {24: 1}), Position.from_points({2: 2}, {24: 1}),
    ...            Position.from_points({3: 2}, {24: 1}))
    >>> sums = [_Sum("a", a, 100, 10.0), _Sum("b", b, 100, 0.0), _Sum("c", c, 100, 5.0)]
    >>> pairs = {(x, y): (100 * 0.01) ** 2 for x in (a, b, c) for y in (a, b, c) if x != y}
    >>> _beaten(sums, a, pairs) == {b}  # c leads b by 0.05 = 5 errors; a is the played play
    True
    """
    others = [x for x in sums if x.result != played]
    out: set[Position] = set()
    for x in others:
        for y in others:
            var = pairs.get((y.result, x.result))
            if y is x or var is None:
                continue
            if y.mean - x.mean > BEATEN_Z * math.sqrt(var) / x.games:
                out.add(x.result)
                break
    return out


def _loss(sums: Sequence[_Sum], played: Position, pairs: _Pairs | None = None) -> tuple[float, float]:
    """The played play's loss against the best other candidate and its standard error: from the
    paired differences when ``pairs`` holds them (sum over the rounds of (games x SE)^2 of rival
    minus played), else as if the two values were independent (larger: the dice are shared)."""
    mine = next(s for s in sums if s.result == played)
    others = [s for s in sums if s is not mine]
    if not others:
        return 0.0, 0.0
    rival = max(others, key=lambda s: s.mean)
    var = None if pairs is None else pairs.get((rival.result, mine.result))
    se = math.hypot(rival.se, mine.se) if var is None else math.sqrt(var) / mine.games
    return rival.mean - mine.mean, se


class Confirmer:
    """The confirmation pass of one analysis: its settings, evaluators, thresholds and seed."""

    def __init__(self, settings: ConfirmSettings, thresholds: Thresholds, seed: int,
                 met: MatchEquityTable | None, *, move_filter: MoveFilter = ANALYSIS_FILTER) -> None:
        self.settings = settings
        self.thresholds = thresholds
        self.seed = seed
        self.met = met
        self.move_filter = move_filter
        self.counts: dict[str, int] = {}
        self.goals: dict[tuple[int, int], float] = {}
        """Per checker play (game, move): the standard error its loss must reach, up to
        ``rank_max_trials`` games, to settle its rank in the worst list (set by the analysis)."""
        self._rounds: dict[tuple[int, int, tuple[tuple[str, Position], ...]], _Round] = {}

    def _count(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def _seed(self, game: int, move: int) -> int:
        return self.seed * _SEED_STEP + game * 1000 + move

    def _enough(self, signed_loss: float, se: float, done: int, *, cube: bool = False) -> bool:
        """Whether a rolled-out signed loss needs no more games: its error class is settled, or
        ``max_trials`` are played, or (``futility``; ``cube_futility`` for a cube decision, ``cube``),
        half of them played, the games left would most likely not settle it. Not sooner: at 144
        games a cube decision's loss is known to about ±0.06, and a futile class needs a value a
        reader can still trust."""
        s = self.settings
        if done >= s.max_trials or settled(signed_loss, se, self.thresholds, tolerance=s.tolerance,
                                           low_tolerance=s.low_tolerance):
            return True
        futility = s.cube_futility if cube else s.futility
        if futility is None or 2 * done < s.max_trials:  # half the games first
            return False
        return settle_chance(signed_loss, se, done, s.max_trials, self.thresholds, tolerance=s.tolerance,
                             low_tolerance=s.low_tolerance) < futility

    # ------------------------------------------------------------------ checker plays
    def checker(self, engine: Evaluator, position: Position, dice: tuple[int, int], state: MatchState,
                player: int, first: CheckerAnalysis, *, game: int = 0, move: int = 0,
                deep_filter: MoveFilter | None = None) -> tuple[CheckerAnalysis, Confirmed]:
        """``first`` valued again (call it when :func:`wants_checker` says so). An engine without a
        cube (Dutch, Mahbusa: ``cubeful`` false) rolls the plays out cubeless, played to the end,
        whatever the method (its search is shallower than the confirmation's ``ply``)."""
        s = self.settings
        self._count("checker")
        if s.method == "ply" and engine.cubeful:
            kw: dict[str, Any] = {} if deep_filter is None else {"deep_filter": deep_filter}
            ca = analyze_checker(engine, position, dice, first.played.result, state, player, ply=s.ply,
                                 met=self.met, move_filter=self.move_filter, **kw)
            return ca, Confirmed(s.label, None, None)

        def one_round(plays: list[tuple[str, Position]], trials: int, seed: int) -> _Round:
            if engine.cubeful:  # cubeful, variance-reduced, at the match score
                settings = RolloutSettings(trials=trials, truncate=s.truncate, seed=seed, workers=s.workers,
                                           cubeful=True, variance_reduction=True, luck_prune=True)
                res = rollout(engine, position, settings, dice=dice, plays=plays, match=state, player=player,
                              met=self.met)
            else:  # no cube: cubeless, every game played out
                res = rollout(engine, position, RolloutSettings(trials=trials, seed=seed, workers=s.workers),
                              dice=dice, plays=plays)
            cs: tuple[RolloutCandidate | VariantRolloutCandidate, ...] = res.candidates
            pairs = {(a.result, b.result): a.paired_se[j] for a in cs if a.paired_se for j, b in enumerate(cs)}
            return res.trials, [(c.result, c.value, c.equity_se, c.probabilities) for c in cs], pairs or None

        return self._rolled_out(first, one_round, self._seed(game, move), self.goals.get((game, move)))

    def _rolled_out(self, first: CheckerAnalysis, one_round: Callable[[list[tuple[str, Position]], int, int], _Round],
                    seed: int, goal: float | None = None) -> tuple[CheckerAnalysis, Confirmed]:
        """The best candidates of ``first`` and its played play rolled out in rounds of ``trials``,
        then as many again, ... (each round with its own seed) until the played play's loss is settled
        in its error class or ``max_trials`` games are played; with ``goal``, on until the loss's
        standard error is at most ``goal`` or ``rank_max_trials`` games are played. A round played
        before (same seed, games and plays: a decision valued again with a goal) is not played again."""
        s = self.settings
        cap = s.max_trials if goal is None else s.rank_cap
        settled_at: int | None = None
        chosen: dict[Position, Candidate] = {}
        for c in [*first.candidates[: s.plays], first.played]:
            chosen.setdefault(c.result, c)
        sums = {r: _Sum(c.play, r) for r, c in chosen.items()}
        plays = [(c.play, r) for r, c in chosen.items()]
        trials, done, k = s.trials, 0, 0
        pairs: _Pairs | None = {}
        while True:
            known = (seed + k, trials, tuple(plays))
            if known not in self._rounds:
                self._rounds[known] = one_round(plays, trials, seed + k)
            games, values, round_pairs = self._rounds[known]
            for result, value, se_value, probs in values:
                sums[result].add(games, value, se_value, probs)
            if pairs is not None and round_pairs is not None:
                for key, pse in round_pairs.items():
                    pairs[key] = pairs.get(key, 0.0) + (games * pse) ** 2
            else:
                pairs = None  # a round without paired errors: the independent bound for all
            done += games
            live = [sums[r] for _, r in plays]
            loss, se = _loss(live, first.played.result, pairs)
            if settled_at is None and self._enough(loss, se, done):
                settled_at = done
            if settled_at is not None and (goal is None or se <= goal or done >= cap):
                break
            if pairs is not None:
                beaten = _beaten(live, first.played.result, pairs)
                plays = [(play, r) for play, r in plays if r not in beaten]
            upto = s.max_trials if settled_at is None else cap  # before it settles, the rounds as without a goal
            trials, k = min(done, upto - done), k + 1
        cands = sorted((Candidate(x.play, x.result, x.mean, x.probabilities, 0) for x in sums.values()),
                       key=lambda c: -c.equity)
        mine = next(c for c in cands if c.result == first.played.result)
        return CheckerAnalysis(tuple(cands), mine, first.legal), \
            Confirmed("rollout", done, se, rank_trials=done - settled_at if done > settled_at else None)

    # ------------------------------------------------------------------ cube decisions
    def cube(self, engine: Evaluator, position: Position, state: MatchState, player: int, *,
             game: int = 0, move: int = 0,
             played: tuple[bool, bool | None] | None = None) -> tuple[CubeDecision, Confirmed]:
        """The cube decision of ``player`` on roll in ``position``, valued again.

        ``played``: whether the player doubled and, after a double, whether the opponent took
        (``None``: no answer to value); the rounds stop when the error class of each action played
        is settled (:meth:`_enough`). Without it, when the class of the wrong choice between
        doubling and not is settled, whichever was played."""
        s = self.settings
        if engine.cube is None:
            raise ValueError(f"{engine.variant} has no doubling cube: no cube decision to value")
        self._count("cube")
        if s.method == "ply":
            return cube_decision_nply(engine, position, state, player, s.ply, met=self.met), \
                Confirmed(s.label, None, None)

        total = _Sum("", position)
        games = _CubeGames()
        trials, done, k = s.trials, 0, 0
        take_only = False
        while True:
            settings = RolloutSettings(trials=trials, truncate=s.cube_truncate, seed=self._seed(game, move) + k,
                                       workers=s.workers, cubeful=True, cube_play=True, variance_reduction=True,
                                       luck_prune=True, take_only=take_only, race_stop=s.cube_race_stop)
            res = rollout_cubeful(engine, position, settings, match=state, player=player, met=self.met)
            if take_only:
                games.add_take(res)
            else:
                total.add(res.trials, res.equity, res.equity_se, res.probabilities)  # the No double games' chances
                games.add(res)
            done += res.trials
            model = self._decision(position, state, player, total.probabilities)
            cd, se = games.decision(model, state.cube_owner == player)
            if self._cube_enough(cd, se, games.take_se, done, played, doubler_settled=take_only):
                break
            # the doubler's class settled and only the take's open: Double/take's games alone from now
            take_only = take_only or self._doubler_settled(cd, se, done, played)
            trials, k = min(done, s.max_trials - done), k + 1
        return cd, Confirmed(s.label, games.games, se, games.take_se, None if not take_only else done)

    def _doubler_settled(self, cd: CubeDecision, se: float, done: int,
                         played: tuple[bool, bool | None] | None) -> bool:
        """Whether the rounds after a round that :meth:`_cube_enough` did not end need only the
        Double/take games: a double was played and answered, and the doubler's error class is settled
        (so the take's is what is open; it is measured on the Double/take games alone, against the
        fixed Double/pass)."""
        return played is not None and played[0] and played[1] is not None and \
            self._enough(cube_signed(cd, True), se, done, cube=True)

    def _cube_enough(self, cd: CubeDecision, se: float, take_se: float | None, done: int,
                     played: tuple[bool, bool | None] | None, *, doubler_settled: bool = False) -> bool:
        """Whether a rolled-out cube decision needs no more games (see :meth:`cube`;
        ``doubler_settled``: the doubler's class was settled in an earlier round, only the take's is
        tested)."""
        if cd.dt is None or cd.dp is None:
            return True
        if played is None:
            s = self.settings
            return done >= s.max_trials or settled(_cube_gap(cd), se, self.thresholds, tolerance=s.tolerance)
        doubled, took = played
        if not doubler_settled and not self._enough(cube_signed(cd, doubled), se, done, cube=True):
            return False
        return took is None or take_se is None or self._enough(take_signed(cd, took), take_se, done, cube=True)

    def _decision(self, position: Position, state: MatchState, player: int, p: Probabilities) -> CubeDecision:
        gp = Probabilities.of(p, clamp=True)
        table = None if state.is_money else self.met
        return cube_decision(gp, state, player, cube_life=cube_life_of(position), met=table)


@dataclass
class _CubeGames:
    """Running totals of a cube decision's rolled-out cube games over the rounds: No double and,
    when the cube can be turned, Double/take (values in the decision's units, and MWC in a match).
    Rounds of both games come first; rounds of Double/take's games alone (:meth:`add_take`) may
    follow, so Double/take can have more games (``dt_games``) than No double (``games``)."""

    games: int = 0
    dt_games: int = 0
    sums: tuple[float, ...] = ()
    mwc: tuple[float, ...] | None = None
    var: tuple[float, ...] = ()  # per value: the sum over its rounds of (games x SE)^2
    dt_var_both: float = 0.0  # Double/take's, over the rounds of both games alone
    diff_var: float | None = 0.0  # of Double/take - No double, paired (None: a round without it)

    def add(self, res: Any) -> None:
        cube = res.cube
        n = res.trials
        values = (cube.nd,) if cube.dt is None or res.cube_se is None or len(res.cube_se) < 2 else (cube.nd, cube.dt)
        ses = tuple(res.cube_se[: len(values)]) if res.cube_se is not None else (0.0,) * len(values)
        mwcs = None if cube.nd_mwc is None else (cube.nd_mwc, cube.dt_mwc)[: len(values)]
        if not self.sums:
            self.sums, self.var = (0.0,) * len(values), (0.0,) * len(values)
            self.mwc = None if mwcs is None else (0.0,) * len(values)
        self.games += n
        self.dt_games += n
        self.sums = tuple(a + n * v for a, v in zip(self.sums, values, strict=True))
        self.var = tuple(a + (n * e) ** 2 for a, e in zip(self.var, ses, strict=True))
        if len(ses) > 1:
            self.dt_var_both += (n * ses[1]) ** 2
        diff = res.cube_diff_se
        self.diff_var = None if self.diff_var is None or diff is None else self.diff_var + (n * diff) ** 2
        if self.mwc is not None and mwcs is not None:
            self.mwc = tuple(a + n * float(v) for a, v in zip(self.mwc, mwcs, strict=True))

    def add_take(self, res: Any) -> None:
        """A round of Double/take's games alone (a rollout with ``take_only``), after rounds of both."""
        if len(self.sums) < 2 or res.cube_se is None:
            raise ValueError("Double/take's games alone follow rounds of both cube games")
        n, dt, se = res.trials, res.cube.dt, res.cube_se[0]
        self.dt_games += n
        self.sums = (self.sums[0], self.sums[1] + n * dt)
        self.var = (self.var[0], self.var[1] + (n * se) ** 2)
        if self.mwc is not None and res.cube.dt_mwc is not None:
            self.mwc = (self.mwc[0], self.mwc[1] + n * float(res.cube.dt_mwc))

    @property
    def take_se(self) -> float | None:
        """The standard error of the Double/take mean (``None``: no Double/take games)."""
        return math.sqrt(self.var[1]) / self.dt_games if len(self.var) > 1 and self.dt_games else None

    def decision(self, model: CubeDecision, redouble: bool) -> tuple[CubeDecision, float]:
        """``model`` (the cube model on the rolled-out chances) with the cube games' means in place of
        its No double and Double/take, and the standard error of the gap between doubling and not
        (:func:`_cube_gap`): Double/take - No double from the paired trials where Double/take is
        the smaller of it and Double/pass (with the later games of Double/take alone added, by
        :func:`_gap_var`), else that of No double alone (Double/pass is fixed)."""
        counts = (self.games, self.dt_games)
        means = [v / n for v, n in zip(self.sums, counts, strict=False)]
        ses = [math.sqrt(v) / n for v, n in zip(self.var, counts, strict=False)]
        mwc = None if self.mwc is None else (self.mwc[0] / self.games,
                                             self.mwc[1] / self.dt_games if len(self.mwc) > 1 else None)
        cd = played_cube(model, means[0], means[1] if len(means) > 1 else None, redouble, mwc)
        if len(ses) > 1 and cd.dt is not None and cd.dp is not None:
            if cd.dp < cd.dt:
                return cd, ses[0]
            if self.diff_var is not None:
                return cd, math.sqrt(_gap_var(self.games, self.dt_games, self.var[0], self.dt_var_both,
                                              self.var[1] - self.dt_var_both, self.diff_var))
        return cd, math.hypot(*ses)


def _gap_var(n1: int, n2: int, nd_var: float, dt_var1: float, dt_var2: float, diff_var: float) -> float:
    """The variance of Double/take's mean over ``n2`` games minus No double's over the first ``n1``
    of them (played in pairs on the same dice; the last ``n2 - n1`` Double/take's alone). The sums
    are over rounds of (games x SE)^2: ``nd_var`` No double's, ``dt_var1`` Double/take's over the
    paired games and ``dt_var2`` over the rest, ``diff_var`` of the paired differences. With
    ``a = n1 / n2``: Var(a DT1 - ND1) + (1 - a)^2 Var(DT2), the covariance of the pair from the
    variance of their difference.

    >>> math.isclose(_gap_var(100, 100, 4.0, 9.0, 0.0, 1.0), 1.0 / 100 ** 2)  # all paired: the difference's
    True
    >>> round(_gap_var(100, 200, 4.0, 9.0, 9.0, 1.0) * 1e4, 6)  # 0.25 x 9 + 4 - 2 x 0.5 x 6 + 0.25 x 9, in 1e-4
    2.5
    """
    a = n1 / n2
    v1, w1, d1 = dt_var1 / n1 ** 2, nd_var / n1 ** 2, diff_var / n1 ** 2
    cov = (v1 + w1 - d1) / 2.0
    rest = dt_var2 / (n2 - n1) ** 2 if n2 > n1 else 0.0
    return max(0.0, a * a * v1 + w1 - 2.0 * a * cov + (1.0 - a) ** 2 * rest)


def _cube_gap(cd: CubeDecision) -> float:
    """How far the right cube action is from the other one, for the class test: what the wrong
    choice between no double and double would cost."""
    if cd.dt is None or cd.dp is None:
        return 0.0
    return abs(min(cd.dt, cd.dp) - cd.nd)
