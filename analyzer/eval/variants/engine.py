"""The evaluator of Dutch backgammon and Mahbusa, with the public surface of the standard
:class:`analyzer.eval.engine.Engine` that analysis needs.

``engine_for("dutch")`` (or ``"mahbusa"`` / ``"plakoto"``) gives a cached :class:`VariantEngine`
over the shipped net ``data/nets/<variant>.npz``; pure races use the standard race net and the
bear-off databases with the variant's scoring (see :mod:`analyzer.eval.variants.model`).

* :meth:`VariantEngine.evaluate` -- cubeless :class:`~analyzer.eval.probabilities.Probabilities`
  of a position for its side on roll at 0, 1 or 2 ply (no backgammons; ``draw`` is the Mahbusa
  double-mother draw; ``equity`` is expected points);
* :meth:`VariantEngine.rank_plays` -- every legal play of a roll, best first, as
  :class:`~analyzer.eval.engine.RankedPlay` (0-ply pass over all plays, then the move filter's
  survivors at the requested ply), one per distinct result of :meth:`Variant.legal_plays`;
* :meth:`VariantEngine.evaluate_boards` -- raw ``(n, 5)`` outcome vectors of many boards (at 1 or 2
  ply shared by the engine's ``workers`` processes, the same numbers as one).

>>> from analyzer.core.position import Position
>>> eng = engine_for("mahbusa")
>>> p = eng.evaluate(Position.start("mahbusa"))
>>> abs(p.win + p.lose + p.draw - 1.0) < 1e-6
True
>>> plays = eng.rank_plays(Position.start("mahbusa"), (6, 5))
>>> sorted(r.play for r in plays)
['24/13', '24/19 24/18']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from analyzer._resources import data_path
from analyzer.core.position import Position
from analyzer.eval.net import weights_fingerprint
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import (
    ANALYSIS_FILTER,
    PLAY_FILTER,
    CachedEvaluations,
    EvalCache,
    EvaluatorInfo,
    MoveFilter,
    RankedPlay,
)
from analyzer.eval.trials import close_pool, usable_cores
from analyzer.eval.variants import workers as vw
from analyzer.eval.variants.model import (
    NMAX,
    POINTS,
    RaceContext,
    VariantNet,
    eval_many,
    race_context,
    to_probabilities,
    variant_code,
    variant_code_name,
)
from analyzer.rules import find_variant, variant_spec
from analyzer.rules.kernel import Workspace, flip_into

NETS_DIR = data_path("nets")
MAX_PLY = 2
SWAP = [2, 3, 0, 1, 4]

__all__ = ["MAX_PLY", "VariantEngine", "engine_for"]


class VariantEngine(CachedEvaluations):
    """Cubeless evaluation and play ranking for one variant (Dutch or Mahbusa).

    ``net`` defaults to the shipped ``data/nets/<variant>.npz`` (or ``net_path``: a net file or
    a ``variant-td`` checkpoint). Results are cached by (board, ply).

    Its capabilities (:class:`analyzer.eval.protocol.Evaluator`): no cube (``cubeful`` false:
    equities are expected points of one game), rollouts played out without variance reduction,
    search up to :data:`MAX_PLY`.
    """

    cubeful = False
    cube = None
    """No cube to value (:attr:`analyzer.eval.protocol.Evaluator.cube`)."""
    variance_reduction = False
    max_ply = MAX_PLY

    def __init__(self, variant: str, net: VariantNet | None = None, *, net_path: Path | str | None = None,
                 use_bearoff: bool = True, cache_size: int = 200_000, workers: int = 1) -> None:
        self.code = variant_code(variant)
        self.variant = variant_code_name(self.code)
        if net is None:
            net = VariantNet.load(net_path or NETS_DIR / f"{self.variant}.npz")
        if net.variant != self.variant:
            raise ValueError(f"a {net.variant} net given to the {self.variant} engine")
        self.net = net
        self.rules = find_variant(self.variant)
        self._W = net.kernel_args()
        self._ctx: RaceContext = race_context(use_bearoff)
        self._ws1 = Workspace(8192)
        self._ws2 = Workspace(8192)
        self._cache = EvalCache(NMAX, cache_size)
        self.workers = max(1, min(int(workers), usable_cores()))
        """Processes that share a batch of boards evaluated at 1 or 2 ply (:meth:`evaluate_boards`)."""
        self._key: str | None = None

    @property
    def race_context(self) -> RaceContext:
        """The race evaluation its kernels use (bear-off databases and the race net)."""
        return self._ctx

    @property
    def kernel_args(self) -> tuple[Any, ...]:
        """The net's weights as its kernels take them (:meth:`VariantNet.kernel_args`)."""
        return cast(tuple[Any, ...], self._W)

    def describe(self) -> EvaluatorInfo:
        """What a review records of this engine: its net's version and feature version; ``bearoff`` false, as
        reviews have recorded it (the net itself reads no database; its race context may)."""
        return EvaluatorInfo.of_nets(type(self).__name__, self.net.meta, False)

    def rollout_args(self) -> tuple[Any, ...]:
        """What the played-out rollout kernel (:func:`analyzer.eval.rollout.rollout`) takes: the
        variant's kernel code and rule options, the net's weights, the race evaluation's arrays and
        the net's fingerprint (recorded with the result)."""
        return (self.code, self.rules.options, self.kernel_args, tuple(self._ctx.args()),
                weights_fingerprint(self.net.net))

    # ----------------------------------------------------------------- raw arrays
    def evaluate_boards(self, boards: NDArray[np.int8], ply: int = 0) -> NDArray[np.float32]:
        """Outcome vectors (n x 5: win 1, win 2, lose 1, lose 2, draw) of ``boards`` (n x 64,
        each for its own side on roll) at ``ply``, uncached."""
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}")
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        if self.workers > 1 and ply > 0 and boards.shape[0] > 1:
            return self._evaluate_in_workers(boards, ply)
        out = np.zeros((boards.shape[0], NMAX), np.float32)
        while True:
            r = cast(Any, eval_many)(boards, ply, self.code, self.rules.options, self._W, *self._ctx.args(),
                                     tuple(self._ws1.args()), tuple(self._ws2.args()), out)
            if r >= 0:
                return out
            self._ws1.resize(self._ws1.capacity * 4)
            self._ws2.resize(self._ws2.capacity * 4)

    def _evaluate_in_workers(self, boards: NDArray[np.int8], ply: int) -> NDArray[np.float32]:
        """:meth:`evaluate_boards` of several boards at ``ply`` > 0 shared by ``workers`` processes
        (:mod:`analyzer.eval.variants.workers`, the rollouts' own): each board is evaluated alone by
        the same kernel, so the numbers are those of one process."""
        n = boards.shape[0]
        parts = min(self.workers, n)
        # board i to part i % parts: a ranking's plays come ordered and neighbours cost alike
        order = [np.arange(t, n, parts) for t in range(parts)]
        args = (self.code, self.rules.options, self._W, tuple(self._ctx.args()))
        if self._key is None:  # the arrays of an engine stay (a net trained further is a new engine)
            self._key = vw.engine_key(args)
        pool = vw.pool(self.workers, args, self._key)
        try:
            got = list(pool.map(vw.evaluate, [(np.ascontiguousarray(boards[o]), ply) for o in order]))
        except BaseException:  # interrupted or a worker lost: the workers go with their tasks
            close_pool()
            raise
        out = np.zeros((n, NMAX), np.float32)
        for o, part in zip(order, got, strict=True):
            out[o] = part
        return out

    def _cached(self, boards: NDArray[np.int8], ply: int) -> NDArray[np.float32]:
        return self._cache.lookup(boards, ply, self.evaluate_boards)

    # ----------------------------------------------------------------- positions
    def evaluate(self, pos: Position, ply: int = 0) -> Probabilities:
        """Cubeless probabilities of ``pos`` for its side on roll (before the roll) at ``ply``;
        exact for a finished game.

        >>> eng = engine_for("dutch")
        >>> eng.evaluate(Position.from_notation("P | O 19:14 | off P15 O1", "dutch")).win
        1.0
        """
        self._check(pos)
        b = np.frombuffer(pos.board, dtype=np.int8)[None, :]
        return to_probabilities(self._cached(b, ply)[0, : self._k()])

    def rank_plays(self, pos: Position, dice: tuple[int, int], ply: int = 0,
                   move_filter: MoveFilter = ANALYSIS_FILTER) -> list[RankedPlay]:
        """Every legal play of ``dice`` in ``pos``, best first (``RankedPlay.result`` is still
        seen from the side that moved, its probabilities are that side's).

        Plays kept by ``move_filter`` after the 0-ply pass are evaluated at ``ply`` and listed
        first; the rest keep their 0-ply values.
        """
        self._check(pos)
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}")
        plays = self.rules.legal_plays(pos, dice)
        results = np.stack([np.frombuffer(p.result.board, dtype=np.int8) for p in plays])
        flipped = np.zeros_like(results)
        for i in range(len(results)):
            flip_into(results[i], flipped[i])
        p0 = self._cached(flipped, 0)[:, SWAP]  # back to the mover's side
        eq0 = p0 @ POINTS
        order = [int(i) for i in np.argsort(-eq0, kind="stable")]
        deep: list[int] = []
        pd = np.zeros((0, NMAX), np.float32)
        if ply > 0:
            best = eq0[order[0]]
            deep = [i for i in order[: move_filter.count] if eq0[i] >= best - move_filter.threshold]
            pd = self._cached(flipped[deep], ply)[:, SWAP]
        k = self._k()
        out: list[RankedPlay] = []
        for j, i in enumerate(deep):
            pr = to_probabilities(pd[j, :k])
            out.append(RankedPlay(plays[i].text, plays[i].result, pr.equity, pr, ply))
        out.sort(key=lambda r: -r.equity)
        done = set(deep)
        for i in order:
            if i not in done:
                pr = to_probabilities(p0[i, :k])
                out.append(RankedPlay(plays[i].text, plays[i].result, pr.equity, pr, 0))
        return out

    def best_play(self, pos: Position, dice: tuple[int, int], ply: int = 0,
                  move_filter: MoveFilter = PLAY_FILTER) -> RankedPlay:
        """The play :meth:`rank_plays` puts first."""
        return self.rank_plays(pos, dice, ply, move_filter)[0]

    def _k(self) -> int:
        return 5 if variant_spec(self.variant).draws else 4

    def _check(self, pos: Position) -> None:
        if pos.variant != self.variant:
            raise ValueError(f"the {self.variant} evaluator was given a {pos.variant} position")


_ENGINES: dict[tuple[str, int], VariantEngine] = {}


def engine_for(variant: str, workers: int = 1) -> VariantEngine:
    """The shared engine of a variant (``dutch``, ``mahbusa``/``plakoto``) over its shipped net,
    its searches at 1 and 2 ply shared by ``workers`` processes (cut to the usable cores).

    >>> engine_for("plakoto") is engine_for("mahbusa")
    True
    >>> engine_for("mahbusa", workers=2).workers == min(2, usable_cores())
    True
    """
    name = variant_code_name(variant_code(variant))
    key = (name, max(1, min(int(workers), usable_cores())))
    if key not in _ENGINES:
        _ENGINES[key] = VariantEngine(name, workers=key[1])
    return _ENGINES[key]


def probabilities_of(p: NDArray[np.float32] | list[float]) -> Probabilities:
    """:func:`analyzer.eval.variants.model.to_probabilities` (re-exported for callers)."""
    return to_probabilities(p)
