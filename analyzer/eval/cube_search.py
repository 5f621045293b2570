"""The n-ply cubeful search: cube decisions valued to a depth of plies, the way gnubg does.

Janowski's cube-life model (:mod:`analyzer.eval.cube`) turns the cubeless probabilities of one
position into cubeful values. :func:`cubeful_search` applies it only at the leaves of a tree of
rolls ``ply`` deep and makes the cube decision of the side on roll at every node in between;
:func:`cube_decision_nply` turns the root's values into a :class:`~analyzer.eval.cube.CubeDecision`.
The tree is built and backed up by the compiled kernels of :mod:`analyzer.eval._cube_kernel`, with
the outcome values and cube access of :func:`analyzer.eval.cube.cube_tables`.

>>> from analyzer.eval.engine import Engine
>>> race = Position.from_points({6: 4, 5: 4, 4: 4, 3: 3}, {19: 3, 20: 3, 21: 3, 18: 3, 17: 3})
>>> cube_decision_nply(Engine(), race, MatchState(), 0, 0).action == cube_decision_nply(
...     Engine(), race, MatchState(), 0, 0, root_conversion=True).action
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from analyzer.core.match import MatchState, can_double
from analyzer.core.position import Position
from analyzer.eval.cube import CubeDecision, analyze_cube, cube_life_of, cube_tables, decision_of_values
from analyzer.eval.met import MatchEquityTable, met_by_name
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import Evaluator

__all__ = ["MAX_SEARCH_PLY", "CubefulSearch", "cube_decision_nply", "cubeful_search"]

MAX_SEARCH_PLY = 3
"""The deepest search :func:`cubeful_search` makes."""


@dataclass(frozen=True, slots=True)
class CubefulSearch:
    """What :func:`cubeful_search` finds for ``player`` on roll: his values (money: points, cube
    included; match: MWC) of No double (``nd``), Double/take (``dt``; with a beaver when the taker
    should beaver, then ``beaver``) and Double/pass (``dp``); ``dt``/``dp`` are ``None`` without
    access to the cube. ``probabilities`` are the cubeless ``ply``-ply chances of the same search,
    ``cube_life`` the root position's.
    """

    ply: int
    nd: float
    dt: float | None
    dp: float | None
    beaver: bool
    probabilities: Probabilities
    cube_life: float


_WORKSPACE: list[Any] = []
_THREAD_WORKSPACE: list[Any] = []
"""The move buffers of the threaded tree (:func:`~analyzer.eval._cube_kernel.build_tree_parallel`), one set
per thread, kept for the next search with as many threads (and grown when a tree overflows them)."""


def cubeful_search(engine: Evaluator, position: Position, state: MatchState, player: int, ply: int, *,
                   met: MatchEquityTable | None = None) -> CubefulSearch:
    """n-ply cubeful evaluation of ``position`` (before the roll, seen from ``player`` on roll).

    The search is gnubg's "cubeful evaluation" recursion. Every node of the ``ply``-deep tree of
    rolls is valued for each cube state it can be reached with (cube value and owner): a leaf
    (0-ply) by Janowski's cubeful value of its 0-ply probabilities (:func:`~analyzer.eval.cube.cubeful_value`'s model,
    the leaf's own cube life); a node where the game is over by its result; any other node by the
    cube decision of its side on roll with the values from below -- No double is the mean over the
    21 rolls of the next nodes' values with the cube unchanged, Double the opponent's better answer
    for himself: take (cube doubled and owned by him; in money with beavers, beaver when that is
    better for him) or pass -- and the node is worth its proper action. Doubles follow the rules
    (no cube in the Crawford game, a cube limit, the owner's access; dead cubes and automatic
    redouble limits of the score enter through the MET and Janowski's model at the leaves).

    Plays: each roll at each node is played as the engine's cubeless search plays it -- the best
    0-ply play, among the 5 best by the pruning net in contact -- and then valued cubefully. This
    is the choice gnubg makes (moves inside the search picked by the cheap evaluation), it keeps the
    cubeless part of the search equal to the engine's ``ply``-ply evaluation, and it costs one tree
    for all cube states instead of one per state.

    At ``ply`` 0 the values are those of :func:`~analyzer.eval.cube.cube_decision` on the 0-ply probabilities, exactly.
    ``engine`` is an evaluator that values the cube: its ``cube`` (:class:`~analyzer.eval.protocol.CubeSearch`,
    the standard :class:`analyzer.eval.engine.Engine`'s nets, pruning and bear-off settings) gives the
    kernels' evaluator and threads; an engine without a cube raises :class:`ValueError`.

    >>> from analyzer.eval.engine import Engine
    >>> r = cubeful_search(Engine(), Position.from_points({1: 1}, {24: 1}), MatchState(), 0, 1)
    >>> r.nd, r.dt, r.dp, r.probabilities.win
    (1.0, 2.0, 1.0, 1.0)
    """
    from analyzer.eval import _cube_kernel as K
    from analyzer.eval.engine import _LevelWorkspace
    from analyzer.rules.kernel import Workspace

    search = engine.cube
    if search is None:
        raise ValueError(f"{engine.variant} has no doubling cube: no cubeful search")
    if not position.spec.has_cube:
        raise ValueError(f"the cubeful search handles standard positions, not {position.variant}")
    if not 0 <= ply <= MAX_SEARCH_PLY:
        raise ValueError(f"ply must be 0..{MAX_SEARCH_PLY}")
    if position.pips()[0] == 0 or position.pips()[1] == 0:
        raise ValueError("the game is over in this position")
    table = None if state.is_money else (met if met is not None else met_by_name())
    nstates = 2 * ply + 3  # a double and a beaver per ply at most
    vt, may = cube_tables(state, player, met=table, levels=nstates + 1)
    # the highest cube level a double may reach (cube limit)
    max_level = nstates if state.cube_limit is None else max(0, (state.cube_limit // state.cube).bit_length() - 1)
    n = int(K.tree_size(ply))
    boards = np.zeros((n, 64), np.int8)
    status = np.zeros(n, np.int8)
    lost = np.zeros(n, np.int8)
    probs = np.zeros((n, 6), np.float32)
    life = np.zeros(n, np.float64)
    root = np.frombuffer(position.board, np.int8).copy()
    ev = search.evaluator_args()
    threads = search.threads
    if ply >= 2 and threads > 1:  # 21 + 441 best plays: worth the threads (the tree is the same)
        if not _THREAD_WORKSPACE or _THREAD_WORKSPACE[0].arrays[0].shape[0] != threads:
            _THREAD_WORKSPACE[:] = [_LevelWorkspace(capacity=8192, levels=threads)]
        build_parallel = cast(Any, K.build_tree_parallel)
        while build_parallel(root, ply, ev, _THREAD_WORKSPACE[0].arrays, boards, status, lost, probs, life) < 0:
            # four times the capacity (arrays: threads x capacity x ...), kept grown as the one-thread buffers are
            _THREAD_WORKSPACE[0] = _LevelWorkspace(capacity=4 * _THREAD_WORKSPACE[0].arrays[0].shape[1],
                                                   levels=threads)
    else:
        if not _WORKSPACE:
            _WORKSPACE.append(Workspace(8192))
        ws = _WORKSPACE[0]
        build = cast(Any, K.build_tree)
        while build(root, ply, ev, ws.args(), boards, status, lost, probs, life) < 0:
            ws.resize(ws.capacity * 4)
    nd = np.zeros((n, nstates, 3), np.float64)
    val = np.zeros((n, nstates, 3), np.float64)
    K.cube_backup(ply, status, lost, probs, life, vt, may, nstates, state.is_money, state.jacoby, state.beavers,
                  state.crawford, max_level, nd, val)
    cl = np.zeros(6, np.float64)
    K.cubeless_backup(ply, status, lost, probs, cl)
    p5 = np.zeros(5, np.float64)
    K.probs5(cl, p5)
    pr = Probabilities.clamped(*(float(v) for v in p5))
    o0 = 0 if state.cube_owner is None else (1 if state.cube_owner == player else 2)
    nd_v = float(nd[0, 0, o0])
    x = cube_life_of(position)
    if not can_double(state, player):
        return CubefulSearch(ply, nd_v, None, None, False, pr, x)
    dt_v = float(nd[0, 1, 2])
    beaver = False
    if state.is_money and state.beavers and dt_v < 0.0 and max_level >= 2:
        bv = float(nd[0, 2, 2])
        if bv < dt_v:
            dt_v, beaver = bv, True
    return CubefulSearch(ply, nd_v, dt_v, float(vt[0, 0, 0]), beaver, pr, x)


def cube_decision_nply(engine: Evaluator, position: Position, state: MatchState, player: int, ply: int, *,
                       met: MatchEquityTable | None = None, root_conversion: bool = False) -> CubeDecision:
    """The cube decision of ``player`` on roll in ``position`` at ``ply`` with the n-ply cubeful
    search (:func:`cubeful_search`). ``probabilities`` in the result are the search's cubeless
    ``ply``-ply chances; the take point and the dead-cube wording come from the cube model on them.

    ``root_conversion``: the older, cheaper method instead -- the ``ply``-ply cubeless
    probabilities converted by Janowski's model at the root (:func:`~analyzer.eval.cube.analyze_cube`). At ``ply`` 0
    both are the same.

    >>> from analyzer.eval.engine import Engine
    >>> race = Position.from_points({6: 4, 5: 4, 4: 4, 3: 3}, {19: 3, 20: 3, 21: 3, 18: 3, 17: 3})
    >>> cube_decision_nply(Engine(), race, MatchState(), 0, 1).action
    'double, pass'
    """
    if root_conversion:
        return analyze_cube(position, state, player, lambda p: engine.evaluate(p, ply), met=met)
    table = None if state.is_money else (met if met is not None else met_by_name())
    r = cubeful_search(engine, position, state, player, ply, met=table)
    return decision_of_values(r.probabilities, state, player, cube_life=r.cube_life, met=table, nd=r.nd, dt=r.dt,
                              dp=r.dp, beaver=r.beaver)
