"""The one evaluator seam: what analysis, rollouts and the CLI may ask of an engine.

Two engines implement :class:`Evaluator`: the standard :class:`analyzer.eval.engine.Engine`
(cubeful analysis, variance-reduced rollouts, up to 3-ply) and
:class:`analyzer.eval.variants.engine.VariantEngine` (Dutch backgammon and Mahbusa: no cube,
played-out rollouts without variance reduction, up to 2-ply). Code above the eval layer asks the
engine's capability flags what differs (``cubeful``, ``variance_reduction``, ``max_ply``,
``variant``) instead of comparing variant names.

Both engines cache their evaluations by (board, ply) in one :class:`EvalCache`.

>>> from analyzer.eval.engine import Engine
>>> from analyzer.eval.variants.engine import engine_for
>>> [(e.variant, e.cubeful, e.variance_reduction, e.max_ply) for e in (Engine(), engine_for("dutch"))]
[('standard', True, True, 3), ('dutch', False, False, 2)]
>>> isinstance(engine_for("mahbusa"), Evaluator)
True
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from analyzer.core.position import Position
from analyzer.eval.probabilities import Probabilities

__all__ = ["ANALYSIS_FILTER", "PLAY_FILTER", "CachedEvaluations", "EvalCache", "Evaluator", "MoveFilter", "RankedPlay"]


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
class RankedPlay:
    """One candidate play: its text, the resulting position (still seen from the side that
    moved), that side's probabilities and equity after it, and the ply it was evaluated at."""

    play: str
    result: Position
    equity: float
    probabilities: Probabilities
    ply: int


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
    * ``variance_reduction`` -- its rollouts can subtract each roll's luck (and be truncated);
    * ``max_ply`` -- its deepest search.
    """

    @property
    def variant(self) -> str: ...

    @property
    def cubeful(self) -> bool: ...

    @property
    def variance_reduction(self) -> bool: ...

    @property
    def max_ply(self) -> int: ...

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
        self._store: OrderedDict[tuple[bytes, int], NDArray[np.float32]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._store)

    def lookup(self, boards: NDArray[np.int8], ply: int,
               evaluate: Callable[[NDArray[np.int8], int], NDArray[np.float32]]) -> NDArray[np.float32]:
        """The ``width`` outcome columns of every board at ``ply`` (``evaluate`` for the misses)."""
        out = np.zeros((boards.shape[0], self.width), np.float32)
        keys = [(boards[i].tobytes(), ply) for i in range(boards.shape[0])]
        todo: list[int] = []
        for i, k in enumerate(keys):
            hit = self._store.get(k)
            if hit is None:
                todo.append(i)
            else:
                out[i] = hit
        if todo:
            res = evaluate(boards[todo], ply)
            for j, i in enumerate(todo):
                out[i] = res[j]
                self._store[keys[i]] = res[j]
            while len(self._store) > self.size:
                self._store.popitem(last=False)
        return out

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
