"""How a match is reviewed, as one value: :class:`ReviewSettings`.

The command line (``analyze``, ``batch`` and its workers, ``play``'s end-of-match review) and the
Python API build one :class:`ReviewSettings` and hand it to
:func:`~analyzer.analysis.analyze.analyze_match`. Its constructor checks it, once, against the
capabilities of the engines that will review the match (:class:`EngineCapabilities`: the deepest
search, the cube, rollouts that can be truncated) and raises a one-line
:class:`~analyzer.core.errors.SettingsError` naming the setting for what an engine cannot do: a ply
deeper than it searches is refused, not searched shallower.

>>> s = ReviewSettings(ply=0)
>>> s.ply, s.thresholds.name, s.confirm, [e.variant for e in s.engines]
(0, 'xg', None, ['standard'])
>>> ReviewSettings(ply=3, engines=(engine_capabilities("dutch"),))
Traceback (most recent call last):
...
analyzer.core.errors.SettingsError: ply must be 0..2 for dutch (the deepest search of its engine)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from analyzer.analysis.confirm import ConfirmSettings
from analyzer.analysis.decisions import DEEP_FILTER
from analyzer.analysis.thresholds import XG, Thresholds
from analyzer.core.errors import SettingsError
from analyzer.core.variants import find_spec
from analyzer.eval.capabilities import EngineCapabilities, engine_capabilities
from analyzer.eval.met import MatchEquityTable
from analyzer.eval.protocol import ANALYSIS_FILTER, MoveFilter
from analyzer.eval.trials import RolloutSettings
from analyzer.formats.records import MatchRecord, variant_of

__all__ = ["EngineCapabilities", "ReviewSettings", "RolloutReview", "engine_capabilities", "record_engines"]


def record_engines(records: Iterable[MatchRecord]) -> tuple[EngineCapabilities, ...]:
    """The capabilities of the engines that review the games of ``records`` (each game's own variant,
    else its match's), in the order of the variants' names; a variant no engine knows is left out
    (its games do not replay).

    >>> from analyzer.formats.mat import read_match_text
    >>> [m] = read_match_text(" 1 point match\\n Game 1\\n a : 0      b : 0\\n  1) 31: 8/5 6/5\\n")
    >>> [e.variant for e in record_engines([m])]
    ['standard']
    """
    names = {variant_of(g.variation) if g.variation else r.variant for r in records for g in r.games}
    return tuple(engine_capabilities(name) for name in sorted(names) if find_spec(name) is not None)


STANDARD = engine_capabilities("standard")
"""The standard engine's capabilities: :attr:`ReviewSettings.engines` by default."""


@dataclass(frozen=True, slots=True)
class RolloutReview:
    """Analyse by rollouts (:mod:`analyzer.eval.rollout`) instead of n-ply evaluation.

    Every unforced checker play rolls out the best candidates of the 0-ply analysis (``plays``
    within ``threshold`` cubeful EMG of the best) plus the played play, with the same dice for
    all; every cube decision rolls out the position before the roll. ``truncate`` stops trials
    after that many plies (``None``: play to the end); ``workers`` processes share the trials.
    The analysis seed seeds the dice.

    >>> RolloutReview(trials=0)
    Traceback (most recent call last):
    ...
    analyzer.core.errors.SettingsError: rollout.trials must be at least 1
    """

    trials: int = 1296
    truncate: int | None = None
    workers: int = 2
    plays: int = 4
    threshold: float = 0.08

    def __post_init__(self) -> None:
        for name in ("trials", "workers", "plays"):
            if getattr(self, name) < 1:
                raise SettingsError("must be at least 1", setting=f"rollout.{name}")
        if self.truncate is not None and self.truncate < 1:
            raise SettingsError("must be at least 1 ply", setting="rollout.truncate")

    def trials_settings(self, seed: int) -> RolloutSettings:
        """The settings of each rollout of the analysis (:class:`analyzer.eval.trials.RolloutSettings`:
        these trials, truncation and workers, the analysis's ``seed``, the rest by default).

        >>> s = RolloutReview(trials=72, truncate=5).trials_settings(3)
        >>> s.trials, s.truncate, s.seed, s.workers, s.variance_reduction
        (72, 5, 3, 2, True)
        """
        return RolloutSettings(trials=self.trials, truncate=self.truncate, seed=seed, workers=self.workers)


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """How a match is reviewed (see the module docstring).

    * ``ply`` -- the depth of the first pass (gnubg numbering), or with ``rollout`` every decision
      rolled out instead (:class:`RolloutReview`; the candidates then come from 0-ply);
    * ``confirm`` -- the confirmation pass (:class:`~analyzer.analysis.confirm.ConfirmSettings`;
      ``None``: none; ignored with ``rollout``, which values every decision that way);
    * ``thresholds`` -- the error classes; ``seed`` -- the rollouts' dice (recorded with the review);
    * ``workers`` -- the processes of the rollouts and the confirmation: when given, it replaces the
      ``workers`` of ``rollout`` and ``confirm`` (``None``: theirs stand);
    * ``engines`` -- the capabilities of the engines that review the match, checked here:
      ``ply`` within each one's deepest search, ``rollout.truncate`` only where rollouts may be
      truncated, ``confirm`` at ``ply`` within a cubeful engine's search (the cubeless engines
      confirm by rollouts);
    * ``met`` -- the match equity table (``None``: Kazaross-XG2; unused in money play);
      ``move_filter``, ``deep_filter`` -- the candidate filters of the n-ply search.

    >>> s = ReviewSettings(confirm=ConfirmSettings(), workers=1)
    >>> s.confirm.workers, s.ply
    (1, 2)
    >>> ReviewSettings(rollout=RolloutReview(truncate=7), engines=(STANDARD, engine_capabilities("dutch")))
    Traceback (most recent call last):
    ...
    analyzer.core.errors.SettingsError: rollout.truncate must be unset for dutch (its rollouts play every game out)
    """

    ply: int = 2
    rollout: RolloutReview | None = None
    confirm: ConfirmSettings | None = None
    thresholds: Thresholds = XG
    seed: int = 0
    workers: int | None = None
    engines: tuple[EngineCapabilities, ...] = (STANDARD,)
    met: MatchEquityTable | None = None
    move_filter: MoveFilter = ANALYSIS_FILTER
    deep_filter: MoveFilter = DEEP_FILTER

    def __post_init__(self) -> None:
        if self.workers is not None:
            if self.workers < 1:
                raise SettingsError("must be at least 1", setting="workers")
            # the one count of processes, handed down (a frozen value's own fields, set once here)
            if self.rollout is not None and self.rollout.workers != self.workers:
                object.__setattr__(self, "rollout", dataclasses.replace(self.rollout, workers=self.workers))
            if self.confirm is not None and self.confirm.workers != self.workers:
                object.__setattr__(self, "confirm", dataclasses.replace(self.confirm, workers=self.workers))
        for engine in self.engines:
            engine.check_ply(self.ply)
            if self.rollout is not None and self.rollout.truncate is not None and not engine.variance_reduction:
                raise SettingsError(f"must be unset for {engine.variant} (its rollouts play every game out)",
                                    setting="rollout.truncate")
            if self.confirm is not None and self.confirm.method == "ply" and engine.cubeful:
                engine.check_ply(self.confirm.ply, "confirm.ply")

    def for_engines(self, engines: tuple[EngineCapabilities, ...]) -> ReviewSettings:
        """These settings for a review by ``engines``: the same value when it was made for them all,
        else a copy made (and so checked) for them.

        >>> ReviewSettings(ply=3).for_engines((engine_capabilities("dutch"),))
        Traceback (most recent call last):
        ...
        analyzer.core.errors.SettingsError: ply must be 0..2 for dutch (the deepest search of its engine)
        """
        if set(engines) <= set(self.engines):
            return self
        return dataclasses.replace(self, engines=engines)
