"""The one evaluator seam: what analysis, rollouts and the CLI may ask of an engine.

Two engines implement :class:`Evaluator`: the standard :class:`analyzer.eval.engine.Engine`
(cubeful analysis, variance-reduced rollouts, up to 3-ply) and
:class:`analyzer.eval.variants.engine.VariantEngine` (Dutch backgammon and Mahbusa: no cube,
played-out rollouts without variance reduction, up to 2-ply). Code above the eval layer asks the
engine's capabilities what differs (``cube``, ``cubeful``, ``variance_reduction``, ``max_ply``,
``variant``) instead of comparing variant names or engine classes.

Both engines cache their evaluations by (board, ply) in one :class:`EvalCache`.

>>> from analyzer.eval.engine import Engine
>>> from analyzer.eval.variants.engine import engine_for
>>> [(e.variant, e.cubeful, e.variance_reduction, e.max_ply) for e in (Engine(), engine_for("dutch"))]
[('standard', True, True, 3), ('dutch', False, False, 2)]
>>> [e.cube is None for e in (Engine(), engine_for("dutch"))]
[False, True]
>>> isinstance(engine_for("mahbusa"), Evaluator)
True
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from analyzer.core.position import Position
from analyzer.eval.probabilities import Probabilities

__all__ = ["ANALYSIS_FILTER", "PLAY_FILTER", "CachedEvaluations", "CubeSearch", "EvalCache", "Evaluator",
           "EvaluatorInfo", "Listed", "MoveFilter", "RankedPlay"]


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """Keep at most ``count`` plays within ``threshold`` equity of the best at 0-ply."""

    count: int
    threshold: float


ANALYSIS_FILTER = MoveFilter(16, 0.32)
"""gnubg's analysis filter: up to 16 plays within 0.32 of the best at 0-ply."""
PLAY_FILTER = MoveFilter(8, 0.16)
"""gnubg's play filter: up to 8 plays within 0.16 of the best at 0-ply."""


@dataclass(frozen=True, slots=True)
class EvaluatorInfo:
    """What an engine says of itself for the record of a review (``summary.json``'s ``metadata.engine``):
    its kind (its class's name), its nets' version and their inputs' feature version (``None`` where the
    nets' metadata does not say), and whether its evaluation looks positions up in the bear-off databases.

    >>> EvaluatorInfo("Engine", "v0.13", 3, True).nets
    'v0.13'
    """

    evaluator: str
    nets: str | Sequence[str] | None = None
    feature_version: int | None = None
    bearoff: bool = False

    @classmethod
    def of_nets(cls, evaluator: str, meta: Mapping[str, Any], bearoff: bool) -> EvaluatorInfo:
        """The info of an engine named ``evaluator`` over nets with the metadata ``meta`` (their
        ``version`` and ``feature_version``).

        >>> EvaluatorInfo.of_nets("VariantEngine", {"version": "d1"}, False)
        EvaluatorInfo(evaluator='VariantEngine', nets='d1', feature_version=None, bearoff=False)
        """
        return cls(evaluator, meta.get("version"), meta.get("feature_version"), bearoff)


class Listed(Protocol):
    """Where a lazily made :class:`RankedPlay` finds its text and position: the legal plays of a
    roll as arrays (:class:`analyzer.rules.base.PlayListing`)."""

    def text(self, i: int) -> str: ...

    def result(self, i: int) -> Position: ...


class RankedPlay:
    """One candidate play: its text, the resulting position (still seen from the side that
    moved), that side's probabilities and equity after it, and the ply it was evaluated at.

    Immutable, compared and hashed by those five fields. The engines make them with :meth:`listed`
    from the arrays of a roll's plays: the text, the position and the probabilities are built only
    when read (most candidates of a ranking are never shown).

    >>> p = Probabilities(0.6, 0.2, 0.0, 0.1, 0.0)
    >>> r = RankedPlay("8/5 6/5", Position.start(), p.equity, p, 0)
    >>> r.play, r.ply, r == RankedPlay("8/5 6/5", Position.start(), p.equity, p, 0)
    ('8/5 6/5', 0, True)
    >>> r.equity = 1.0
    Traceback (most recent call last):
    ...
    AttributeError: property 'equity' of 'RankedPlay' object has no setter
    """

    __slots__ = ("_equity", "_index", "_outcomes", "_play", "_ply", "_probabilities", "_result", "_row",
                 "_source")
    __match_args__ = ("play", "result", "equity", "probabilities", "ply")

    def __init__(self, play: str, result: Position, equity: float, probabilities: Probabilities, ply: int, *,
                 outcomes: NDArray[np.float32] | None = None) -> None:
        self._play: str | None = play
        self._result: Position | None = result
        self._equity = equity
        self._probabilities: Probabilities | None = probabilities
        self._ply = ply
        self._source: Listed | None = None
        self._outcomes = None if outcomes is None else np.asarray(outcomes, np.float32).reshape(1, 6)
        self._index = self._row = 0

    @classmethod
    def listed(cls, source: Listed, index: int, equity: float, outcomes: NDArray[np.float32], row: int,
               ply: int) -> RankedPlay:
        """Play ``index`` of ``source`` with ``equity``, its six outcome probabilities (the mover's:
        :meth:`Probabilities.from_outcomes`, whose equity ``equity`` must be) at ``outcomes[row]``."""
        r = cls.__new__(cls)
        r._play = r._result = r._probabilities = None
        r._source = source
        r._index = index
        r._equity = equity
        r._outcomes = outcomes
        r._row = row
        r._ply = ply
        return r

    @property
    def play(self) -> str:
        """The play's canonical text (``""`` for a dance)."""
        if self._play is None:
            assert self._source is not None
            self._play = self._source.text(self._index)
        return self._play

    @property
    def result(self) -> Position:
        """The position the play reaches, still seen from the side that moved."""
        if self._result is None:
            assert self._source is not None
            self._result = self._source.result(self._index)
        return self._result

    @property
    def equity(self) -> float:
        """The mover's cubeless equity after the play."""
        return self._equity

    @property
    def probabilities(self) -> Probabilities:
        """The mover's cubeless chances after the play."""
        if self._probabilities is None:
            assert self._outcomes is not None
            self._probabilities = Probabilities.from_outcomes(self._outcomes[self._row].tolist())
        return self._probabilities

    @property
    def ply(self) -> int:
        """The ply the play was evaluated at."""
        return self._ply

    @property
    def outcomes(self) -> NDArray[np.float32] | None:
        """The six outcome probabilities of the mover after the play as the evaluator gave them
        (win single/gammon/backgammon, lose ...; :attr:`probabilities` is made from them), or
        ``None`` when the play was made from its :class:`Probabilities` alone."""
        return None if self._outcomes is None else self._outcomes[self._row]

    def _fields(self) -> tuple[str, Position, float, Probabilities, int]:
        return (self.play, self.result, self._equity, self.probabilities, self._ply)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, RankedPlay)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"RankedPlay(play={self.play!r}, result={self.result!r}, equity={self._equity!r}, "
                f"probabilities={self.probabilities!r}, ply={self._ply!r})")

    def __reduce__(self) -> tuple[type[RankedPlay], tuple[str, Position, float, Probabilities, int]]:
        return (RankedPlay, self._fields())


class CubeSearch(Protocol):
    """What the n-ply cubeful search (:mod:`analyzer.eval.cube_search`) takes of an engine that values
    the cube: its compiled 0-ply evaluator (the kernels' ``ev`` tuple, read by the kernels alone) and
    the threads it may spread a tree over."""

    @property
    def threads(self) -> int: ...

    def evaluator_args(self, *, prune: bool = True) -> tuple[Any, ...]: ...


@runtime_checkable
class Evaluator(Protocol):
    """An engine: cubeless evaluation and play ranking of one variant's positions.

    * ``evaluate`` -- the cubeless chances of a position's side on roll (before its roll) at ``ply``;
    * ``rank_plays`` -- every legal play of ``dice``, best first, as :class:`RankedPlay` (a 0-ply
      pass over all plays, the ``move_filter``'s survivors evaluated again at ``ply``);
    * ``evaluate_boards`` -- raw outcome distributions of many boards (n x 64, each for its own side
      on roll; the standard engine's 6 columns win 1/2/3, lose 1/2/3, the variant nets' 5: win 1/2,
      lose 1/2, draw), uncached;
    * ``clear_cache`` -- forget the cached evaluations.

    Capabilities, for the code that drives an engine:

    * ``variant`` -- the rules it evaluates (``"standard"``, ``"dutch"``, ``"mahbusa"``);
    * ``cubeful`` -- its game has a doubling cube (cube decisions, cubeful EMG, the MET);
      without one, equities are cubeless expected points of one game;
    * ``cube`` -- how the cube is valued beyond 0-ply: the n-ply cubeful search over the engine's
      kernels (:class:`CubeSearch`), ``None`` for a game without a cube (Dutch, Mahbusa);
    * ``variance_reduction`` -- its rollouts can subtract each roll's luck (and be truncated);
    * ``max_ply`` -- its deepest search;
    * ``rollout_args`` -- what its rollout kernel takes (the cubeful kernel with variance reduction and
      cube play when ``cubeful``, else the played-out cubeless one; read by
      :func:`analyzer.eval.rollout.rollout` alone);
    * ``describe`` -- what a review records of it (:class:`EvaluatorInfo`: its kind, its nets' version,
      the bear-off databases).
    """

    @property
    def variant(self) -> str: ...

    @property
    def cubeful(self) -> bool: ...

    @property
    def variance_reduction(self) -> bool: ...

    @property
    def max_ply(self) -> int: ...

    @property
    def cube(self) -> CubeSearch | None: ...

    def rollout_args(self) -> tuple[Any, ...]: ...

    def describe(self) -> EvaluatorInfo: ...

    def evaluate(self, pos: Position, ply: int = 0) -> Probabilities: ...

    def rank_plays(self, pos: Position, dice: tuple[int, int], ply: int = 0,
                   move_filter: MoveFilter = ANALYSIS_FILTER) -> list[RankedPlay]: ...

    def evaluate_boards(self, boards: NDArray[np.int8], ply: int = 0) -> NDArray[np.float32]: ...

    def clear_cache(self) -> None: ...


class EvalCache:
    """Outcome distributions of boards by (board, ply), the oldest dropped beyond ``size`` entries.

    :meth:`lookup` answers a batch: the boards it holds from the cache, the others with one call of
    the engine's uncached ``evaluate_boards``, whose rows it then keeps.

    >>> calls = []
    >>> def twice(boards, ply):
    ...     calls.append(len(boards))
    ...     return np.asarray(boards[:, :2], np.float32) * 2
    >>> cache = EvalCache(2, size=8)
    >>> b = np.array([[1, 2], [3, 4]], np.int8)
    >>> cache.lookup(b, 0, twice).tolist(), cache.lookup(b[::-1], 0, twice).tolist(), calls
    ([[2.0, 4.0], [6.0, 8.0]], [[6.0, 8.0], [2.0, 4.0]], [2])
    >>> cache.size = 1
    >>> _ = cache.lookup(b, 1, twice); len(cache)
    1
    """

    def __init__(self, width: int, size: int) -> None:
        self.width = width
        self.size = size
        self._store: OrderedDict[bytes | tuple[bytes, int], NDArray[np.float32]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._store)

    def lookup(self, boards: NDArray[np.int8], ply: int,
               evaluate: Callable[[NDArray[np.int8], int], NDArray[np.float32]]) -> NDArray[np.float32]:
        """The ``width`` outcome columns of every board at ``ply`` (``evaluate`` for the misses)."""
        n = boards.shape[0]
        if n == 0:
            return np.zeros((0, self.width), np.float32)
        raw = np.ascontiguousarray(boards).tobytes()
        w = len(raw) // n
        # the key of a 0-ply entry is the board alone (the most frequent: no tuple to make)
        keys: list[bytes | tuple[bytes, int]] = (
            [raw[i * w: i * w + w] for i in range(n)] if ply == 0 else [(raw[i * w: i * w + w], ply) for i in range(n)])
        store = self._store
        rows = [store.get(k) for k in keys]
        todo = [i for i, r in enumerate(rows) if r is None]
        if todo:
            res = evaluate(boards[todo], ply)
            for j, i in enumerate(todo):
                rows[i] = store[keys[i]] = res[j]
            while len(store) > self.size:
                store.popitem(last=False)
        return np.array(rows, np.float32).reshape(n, self.width)

    def clear(self) -> None:
        """Forget every entry."""
        self._store.clear()


class CachedEvaluations:
    """The cache half of an engine (both engines inherit it): ``_cache`` (an :class:`EvalCache`, set by
    the engine), its ``cache_size`` and :meth:`clear_cache`."""

    _cache: EvalCache

    @property
    def cache_size(self) -> int:
        """How many (board, ply) evaluations the engine keeps."""
        return self._cache.size

    @cache_size.setter
    def cache_size(self, size: int) -> None:
        self._cache.size = size

    def clear_cache(self) -> None:
        """Forget the cached evaluations."""
        self._cache.clear()
