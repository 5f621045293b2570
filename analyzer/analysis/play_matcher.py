"""The legal play a recorded play text describes, found fast: the replay's matcher.

:func:`resolve_text` follows the rule of :meth:`analyzer.rules.Variant.resolve` (a text names the
play by the checkers it moves; hits are found by the engine) but compares every legal result with
the text's change of the mover's checkers in one compiled pass, and leaves only what that cannot
settle to :meth:`~analyzer.rules.Variant.resolve`. The move generator's workspace and the buffers
are per thread.

>>> from analyzer.rules import find_variant
>>> rules = find_variant("standard")
>>> hops, result = resolve_text(rules, Position.start(), (3, 1), "6/5 8/5")
>>> [(h.source, h.dest) for h in hops], result.mover[4]
([(8, 5), (6, 5)], 2)
>>> len(legal_rows(rules, Position.start(), (3, 1))) == len(rules.legal_plays(Position.start(), (3, 1)))
True
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from analyzer.core.layout import MOVER_RES as MOVER_RES_SLOT
from analyzer.core.layout import PIN0, VAR_DUTCH, VAR_MAHBUSA
from analyzer.core.play import BAR, OFF, RESERVE, Hop, parse_move
from analyzer.core.position import Position
from analyzer.rules import Variant, check_dice, kernel

__all__ = ["flipped", "legal_rows", "play_at", "resolve_text"]

_local = threading.local()


def _workspace() -> kernel.Workspace:
    ws: kernel.Workspace | None = getattr(_local, "ws", None)
    if ws is None:
        ws = kernel.Workspace()
        _local.ws = ws
    return ws


def legal_rows(rules: Variant, pos: Position, dice: tuple[int, int]) -> np.ndarray:
    """Pool rows of the legal results of ``dice`` in ``pos`` (valid until the next call)."""
    d1, d2 = check_dice(dice)
    ws = _workspace()
    n = ws.generate(np.frombuffer(pos.board, dtype=np.int8), d1, d2, rules.code, rules.options)
    rows: np.ndarray = ws.results[:n]
    return rows


def play_at(rules: Variant, idx: int) -> tuple[tuple[Hop, ...], Position]:
    """The hops and the result of pool row ``idx`` of the last :func:`legal_rows` of this thread."""
    ws = _workspace()
    m = int(kernel.extract_hops(idx, ws.parent, ws.hfrom, ws.hto, ws.hhit, ws.hops))
    hops = tuple(Hop(a, b, c) for a, b, c in ws.hops[:m].tolist())
    return hops, Position(ws.pool[idx].tobytes(), rules.name)


def flipped(pos: Position) -> Position:
    """``pos.flip()``, by the compiled kernel (the replay flips once per roll)."""
    buf: np.ndarray | None = getattr(_local, "flip", None)
    if buf is None:
        buf = np.zeros(64, dtype=np.int8)
        _local.flip = buf
    kernel.flip_into(np.frombuffer(pos.board, dtype=np.int8), buf)
    return Position(buf.tobytes(), pos.variant)


PIN_FIRST = PIN0 + 1  # pin slot of point 1


def _match_buffer(n: int) -> np.ndarray:
    buf: np.ndarray | None = getattr(_local, "match", None)
    if buf is None or len(buf) < n:
        buf = np.zeros(max(n, 1024), dtype=np.int64)
        _local.match = buf
    return buf


@njit(cache=True)
def _matching_rows(board: np.ndarray, pool: np.ndarray, rows: np.ndarray, cidx: np.ndarray,
                   cval: np.ndarray, variant: int, out: np.ndarray) -> int:
    """Write into ``out`` the indices (into ``rows``) of the results whose mover's checkers
    (points 1..24, bar + reserve, off; pinned ones included) equal ``board``'s changed by
    ``cval`` at ``cidx``; returns their number."""
    want = np.zeros(26, np.int16)
    for k in range(26):
        v = board[k + 1]
        want[k] = v if v > 0 else 0
    if variant == VAR_DUTCH:
        want[24] += board[MOVER_RES_SLOT]
    elif variant == VAR_MAHBUSA:
        for k in range(24):
            if board[PIN_FIRST + k] == -1:
                want[k] += 1
    for j in range(cidx.shape[0]):
        want[cidx[j]] += cval[j]
    m = 0
    for r in range(rows.shape[0]):
        row = pool[rows[r]]
        same = True
        for k in range(26):
            v = row[k + 1]
            c = v if v > 0 else 0
            if variant == VAR_DUTCH and k == 24:
                c += row[MOVER_RES_SLOT]
            elif variant == VAR_MAHBUSA and k < 24 and row[PIN_FIRST + k] == -1:
                c += 1
            if c != want[k]:
                same = False
                break
        if same:
            out[m] = r
            m += 1
    return m


@dataclass(frozen=True, slots=True)
class _TextPlay:
    """What a play text says: the change of the mover's checkers as indices and deltas on the
    index scheme of :func:`_matching_rows`, the points it names and the points it marks."""

    cidx: np.ndarray = field(compare=False)
    cval: np.ndarray = field(compare=False)
    named: frozenset[int]
    marked: frozenset[int]


_move = functools.lru_cache(maxsize=4096)(parse_move)


@functools.lru_cache(maxsize=8192)
def _text_play(text: str) -> _TextPlay:
    change: dict[int, int] = {}
    named: set[int] = set()
    marked: set[int] = set()
    for mv in map(_move, text.replace(",", " ").split()):
        src = 24 if mv.source in (BAR, RESERVE) else mv.source - 1
        dst = 25 if mv.dest == OFF else mv.dest - 1
        change[src] = change.get(src, 0) - mv.count
        change[dst] = change.get(dst, 0) + mv.count
        named.update(mv.via)
        if mv.dest != OFF:
            named.add(mv.dest)
        marked.update(mv.marked)
    items = sorted((k, v) for k, v in change.items() if v)
    return _TextPlay(np.array([k for k, _ in items], dtype=np.int64),
                     np.array([v for _, v in items], dtype=np.int16), frozenset(named), frozenset(marked))


def resolve_text(rules: Variant, pos: Position, dice: tuple[int, int],
                 text: str) -> tuple[tuple[Hop, ...], Position]:
    """The legal play that ``text`` describes (the rule of :meth:`Variant.resolve`, faster).

    Candidates are the results whose change of the mover's checkers equals the text's; when
    several remain (they differ by hits), the one whose hits all sit on points the text names,
    with the most marked and then named hits, is chosen. Anything else (no candidate, a tie) is
    left to :meth:`Variant.resolve`, which raises the precise error.
    """
    tp = _text_play(text)
    rows = legal_rows(rules, pos, dice)
    ws = _workspace()
    out = _match_buffer(len(rows))
    n = int(_matching_rows(np.frombuffer(pos.board, dtype=np.int8), ws.pool, rows, tp.cidx, tp.cval,
                           rules.code, out))
    if len(tp.cidx) and n == 1:
        return play_at(rules, int(rows[out[0]]))
    if len(tp.cidx) and n > 1:
        scored = []
        for i in out[:n].tolist():
            hops, result = play_at(rules, int(rows[i]))
            hits = {h.dest for h in hops if h.hit}
            if hits <= (tp.named | tp.marked):
                scored.append(((len(tp.marked & hits), len(tp.named & hits)), hops, result))
        if scored:
            best = max(sc for sc, _, _ in scored)
            top = [(h, r) for sc, h, r in scored if sc == best]
            if len(top) == 1:
                return top[0]
    play = rules.resolve(pos, dice, text)
    return play.hops, play.result
