"""The referee's classes of a position, for the lab's selections (issue 51: the weak classes).

The referee yardstick (``bench/referee.py``) reports per class of position, the classes of
``tools/gnubg_referee.py`` (:func:`position_labels`: the themes of ``analyzer/analysis/themes.py``
applied one by one, and ``on the bar``), and splits back games, containment and holding games by
the seat of the side holding more checkers back (``bench/referee.py`` :func:`back_seat`). The lab
selects positions to label by the same definitions, read from those two scripts (neither is a package;
both import only the product), so that a selection and the yardstick cannot drift apart. Only the
definitions are used: nothing of GNU Backgammon (its values, the referee set) selects or labels.

A position is seen from its side on roll; ``on the bar`` is counted from both seats here (the side
on roll on the bar, or its opponent: :func:`position_classes` with ``both_seats``), as the
investigation asked (docs/benchmarks.md, "Why our search adds little where the nets are worst").

>>> from analyzer.core.position import Position
>>> position_classes(Position.start())
('middle game',)
>>> seat_code(Position.start())
0
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.ids import encode_position_id
from analyzer.core.position import Position

ROOT = Path(__file__).resolve().parents[2]
WEAK = ("back game", "containment", "on the bar")
"""The classes where the nets are worst against the referee (docs/benchmarks.md, the referee section)."""


@cache
def _script(rel: str, name: str) -> ModuleType:
    """The repository script ``rel`` loaded as module ``name`` (once)."""
    path = ROOT / rel
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"{path}: the script that defines the referee's classes is missing")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, mod)
    spec.loader.exec_module(mod)
    return mod


def _referee_tool() -> Any:
    return _script("tools/gnubg_referee.py", "_bglab_gnubg_referee_classes")


def _referee_bench() -> Any:
    return _script("bench/referee.py", "_bglab_referee_bench")


def class_names() -> tuple[str, ...]:
    """The referee's classes in its order (a bit each in :func:`class_mask`).

    >>> class_names()[:2], len(class_names())
    (('race', 'bear-off vs contact'), 10)
    """
    return tuple(_referee_tool().CLASSES)


def position_classes(pos: Position, both_seats: bool = True) -> tuple[str, ...]:
    """The referee classes of ``pos`` (``tools/gnubg_referee.py position_labels``); with
    ``both_seats``, ``on the bar`` also when the opponent of the side on roll is on the bar.

    >>> from analyzer.core.position import Position
    >>> b = np.frombuffer(Position.start().board, np.int8).copy()
    >>> b[1] += 1; b[0] += 1  # one of the opponent's back checkers on its bar
    >>> position_classes(Position(b.tobytes())), position_classes(Position(b.tobytes()), both_seats=False)
    (('on the bar',), ('middle game',))
    """
    out = list(_referee_tool().position_labels(pos))
    if both_seats and "on the bar" not in out and pos.flip().mover_bar > 0:
        # "middle game" is the class of a position in no other class
        out = [c for c in class_names() if (c in out or c == "on the bar") and c != "middle game"]
    return tuple(out)


SEAT_CODES = {None: 0, "back side on roll": 1, "back side off roll": -1}


def seat_code(pos: Position) -> int:
    """``bench/referee.py back_seat`` as a number: 1 when the side on roll holds more checkers back
    (on the bar or in the other side's home board), -1 when its opponent does, 0 when both hold as many."""
    return SEAT_CODES[_referee_bench().back_seat(encode_position_id(pos))]


def class_mask(pos: Position) -> int:
    """The bits of :func:`position_classes` (both seats), bit ``i`` for ``class_names()[i]``.

    >>> from analyzer.core.position import Position
    >>> class_mask(Position.start()) == 1 << class_names().index("middle game")
    True
    """
    names = class_names()
    return sum(1 << names.index(c) for c in position_classes(pos))


def describe(boards: NDArray[np.int8]) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
    """Each board's :func:`class_mask` and :func:`seat_code` (for a label file's rows: weights by
    class and seat in a fit, counts in a report).

    >>> from analyzer.core.position import Position
    >>> m, s = describe(np.frombuffer(Position.start().board, np.int8)[None])
    >>> m.tolist() == [1 << class_names().index("middle game")], s.tolist()
    (True, [0])
    """
    masks = np.zeros(len(boards), np.int16)
    seats = np.zeros(len(boards), np.int8)
    for i, b in enumerate(boards):
        pos = Position(np.asarray(b, np.int8).tobytes())
        masks[i] = class_mask(pos)
        seats[i] = seat_code(pos)
    return masks, seats


def weak_positions(boards: NDArray[np.int8], games: NDArray[np.int64], classes: tuple[str, ...] = WEAK,
                   limit: int = 20_000, seed: int = 51
                   ) -> tuple[NDArray[np.int8], NDArray[np.int64], dict[str, int]]:
    """The positions of ``boards`` (a :func:`bglab.dataset.corpus_positions` file's rows) in any of
    ``classes``, each board once, in a seeded queue balanced by class and seat, the first ``limit``:
    a row's stratum is its first class of ``classes`` and its :func:`seat_code`; the strata take turns
    (so that a build stopped anywhere holds them alike), each in a seeded random order. Returns the
    boards, the source game of each (``games``' entry), and the pool's count per stratum. A label build
    reads them as one game each (``bglab weak-positions`` writes them as a positions file).

    >>> from analyzer.core.position import Position
    >>> s = np.frombuffer(Position.start().board, np.int8)
    >>> b = s.copy(); b[1] += 1; b[0] += 1
    >>> out, src, counts = weak_positions(np.stack([s, b, b]), np.array([0, 1, 2]))
    >>> len(out), src.tolist(), counts
    (1, [1], {'on the bar / even': 1})
    """
    names = {1: "back side on roll", -1: "back side off roll", 0: "even"}
    strata: dict[str, list[int]] = {}
    seen: set[bytes] = set()
    for i, b in enumerate(boards):
        key = np.asarray(b, np.int8).tobytes()
        if key in seen:
            continue
        seen.add(key)
        pos = Position(key)
        found = [c for c in classes if c in position_classes(pos)]
        if found:
            strata.setdefault(f"{found[0]} / {names[seat_code(pos)]}", []).append(i)
    rng = np.random.default_rng(seed)
    queues = [list(rng.permutation(strata[k])) for k in sorted(strata)]
    order: list[int] = []
    for i in range(max((len(q) for q in queues), default=0)):
        order += [int(q[i]) for q in queues if i < len(q)]
    order = order[:limit]
    idx = np.array(order, np.int64)
    return (np.asarray(boards, np.int8)[idx].reshape(-1, 64), np.asarray(games, np.int64)[idx],
            {k: len(strata[k]) for k in sorted(strata)})


SEAT_NAMES = {"on roll": 1, "off roll": -1, "even": 0}
"""The seats of a :func:`parse_weigh` rule: the side holding more checkers back is on roll (1), off roll
(-1), or neither side holds more (0)."""


def parse_weigh(spec: str) -> tuple[str, int | None, int]:
    """A fit's row weight by class and seat, ``CLASS[/SEAT]=TIMES``: the referee class (one of
    :func:`class_names`), optionally the seat of the back-checker side (``on roll``, ``off roll``,
    ``even``: :data:`SEAT_NAMES`), and how many times in all a matching row is given (an integer ≥ 1).
    ValueError for anything else.

    >>> parse_weigh("back game/on roll=3"), parse_weigh("on the bar=2")
    (('back game', 1, 3), ('on the bar', None, 2))
    >>> parse_weigh("back games=3")
    Traceback (most recent call last):
    ...
    ValueError: back games=3: unknown class 'back games'
    """
    what, sep, n = spec.rpartition("=")
    cls, _, seat = what.partition("/")
    cls, seat = cls.strip(), seat.strip()
    if not sep or not n.strip().isdigit() or int(n) < 1:
        raise ValueError(f"{spec}: expected CLASS[/SEAT]=TIMES with TIMES a whole number >= 1")
    if cls not in class_names():
        raise ValueError(f"{spec}: unknown class {cls!r}")
    if seat and seat not in SEAT_NAMES:
        raise ValueError(f"{spec}: unknown seat {seat!r} (one of {', '.join(SEAT_NAMES)})")
    return cls, SEAT_NAMES[seat] if seat else None, int(n)


def row_times(masks: NDArray[np.int16], seats: NDArray[np.int8],
              rules: list[tuple[str, int | None, int]]) -> NDArray[np.int64]:
    """How many times each row (its :func:`describe` mask and seat) is given: the largest ``TIMES`` of
    the :func:`parse_weigh` rules it matches, 1 where none does.

    >>> names = class_names()
    >>> m = np.array([1 << names.index("back game"), 1 << names.index("back game"), 0], np.int16)
    >>> row_times(m, np.array([1, -1, 1], np.int8), [("back game", 1, 3), ("back game", None, 2)]).tolist()
    [3, 2, 1]
    """
    names = class_names()
    out = np.ones(len(masks), np.int64)
    for cls, seat, n in rules:
        hit = (masks.astype(np.int64) & (1 << names.index(cls))) != 0
        if seat is not None:
            hit &= seats == seat
        out = np.where(hit, np.maximum(out, n), out)
    return out


def weigh_rows(boards: NDArray[np.int8], targets: NDArray[np.float32], games: NDArray[np.int64],
               groups: NDArray[np.int64] | None, rules: list[tuple[str, int | None, int]],
               eligible: NDArray[np.bool_] | None = None
               ) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.int64], NDArray[np.int64] | None,
                          dict[str, int]]:
    """The rows of a fit (``bglab.dataset.load_targets_and_groups``) with each ``eligible`` row (default:
    all) given :func:`row_times` times: the copies are appended, keep their game (so a held-out row's
    copies stay held out) and, for the rows of a decision (``groups`` ≥ 0), form whole decisions of their
    own (new ids), the decision's rows all given as often as its most weighted row. Each distinct board
    is classified once. Returns the rows and counts (rows matched per rule, rows added).

    >>> from analyzer.core.position import Position
    >>> s = np.frombuffer(Position.start().board, np.int8)
    >>> b = s.copy(); b[1] += 1; b[0] += 1  # the side off roll on the bar
    >>> boards = np.stack([s, b, b]); t = np.zeros((3, 6), np.float32)
    >>> out = weigh_rows(boards, t, np.arange(3), np.array([-1, 5, 5]), [("on the bar", None, 3)])
    >>> out[2].tolist(), out[3].tolist(), out[4]["added"]
    ([0, 1, 2, 1, 2, 1, 2], [-1, 5, 5, 11, 11, 17, 17], 4)
    """
    keep = np.ones(len(boards), np.bool_) if eligible is None else np.asarray(eligible, np.bool_)
    uniq, inv = np.unique(np.asarray(boards, np.int8)[keep], axis=0, return_inverse=True)
    masks, seats = describe(uniq)
    times = np.ones(len(boards), np.int64)
    times[keep] = row_times(masks, seats, rules)[inv.reshape(-1)]
    counts: dict[str, int] = {}
    names = class_names()
    for cls, seat, n in rules:
        hit = (masks.astype(np.int64)[inv.reshape(-1)] & (1 << names.index(cls))) != 0
        if seat is not None:
            hit &= seats[inv.reshape(-1)] == seat
        counts[f"{cls}/{seat}={n}"] = int(hit.sum())
    if groups is not None and (groups >= 0).any():
        dec = groups >= 0
        ids, ginv = np.unique(groups[dec], return_inverse=True)
        most = np.ones(len(ids), np.int64)
        np.maximum.at(most, ginv, times[dec])
        times[dec] = most[ginv]
    extra = [np.flatnonzero(times > k) for k in range(1, int(times.max()))]
    idx = np.concatenate([np.arange(len(boards))] + extra)
    new_groups = None
    if groups is not None:
        step = int(groups.max()) + 1 if len(groups) else 1
        copy = np.concatenate([np.zeros(len(boards), np.int64)] + [np.full(len(e), k + 1, np.int64)
                                                                    for k, e in enumerate(extra)])
        g = groups[idx]
        new_groups = np.where(g >= 0, g + copy * step, -1)
    counts["added"] = int(len(idx) - len(boards))
    return boards[idx], targets[idx], games[idx], new_groups, counts
