"""A plain-Python move generator: the reference the compiled kernel is tested against.

It implements ``docs/rules.md`` §0.3 directly, with no speed tricks: every order of every die
step is tried, the states reached after each number of dice are kept in dictionaries, and the
rules of §0.3 pick the plays. It shares no code with :mod:`analyzer.rules.kernel`, so the two
check each other (``tests/test_reference.py``). It is also what one-off command-line queries use,
because it answers a single roll without loading the compiler.

>>> from analyzer.core.position import Position
>>> plays = reference_plays(Position.start(), (6, 5))
>>> sorted(format_play(h) for h in plays.values())[:3]
['13/2', '13/7 8/3', '13/8 13/7']
"""

from __future__ import annotations

from analyzer.core import layout as L
from analyzer.core.play import BAR, OFF, RESERVE, Hop, format_play
from analyzer.core.position import Position

__all__ = ["format_play", "reference_plays"]


def _mover_may_hit(b: list[int], variant: int, opts: int) -> bool:
    if variant != L.VAR_DUTCH:
        return True
    if opts & L.OPT_DUTCH_UNLOCK_CURRENT:
        return any(b[p] > 0 for p in range(1, 7))
    return b[L.MOVER_CAN_HIT] != 0


def _everything_home(b: list[int], variant: int) -> bool:
    if b[L.MOVER_BAR] or (variant == L.VAR_DUTCH and b[L.MOVER_RES]):
        return False
    if any(b[p] > 0 for p in range(7, 25)):
        return False
    return not (variant == L.VAR_MAHBUSA and any(b[L.PIN0 + p] == -1 for p in range(1, 25)))


def _sources(b: list[int], variant: int, opts: int, entered_at_start: bool) -> list[int]:
    if b[L.MOVER_BAR]:
        return [BAR]
    out: list[int] = []
    board_moves = True
    if variant == L.VAR_DUTCH:
        if b[L.MOVER_RES]:
            out.append(RESERVE)
            if opts & L.OPT_DUTCH_ENTER_ALL_FIRST:
                board_moves = False
        if opts & L.OPT_DUTCH_TURN_START and not entered_at_start:
            board_moves = False
    if board_moves:
        out += [p for p in range(24, 0, -1) if b[p] > 0]
    return out


def _landing(b: list[int], src: int, die: int, variant: int, opts: int) -> int | None:
    """Where a checker from ``src`` lands with ``die`` (0 = off), or ``None`` if it may not."""
    dst = 25 - die if src in (BAR, RESERVE) else src - die
    if dst <= 0:
        if not _everything_home(b, variant):
            return None
        if dst < 0 and any(b[p] > 0 for p in range(src + 1, 25)):
            return None
        return OFF
    v = b[dst]
    if v >= 0:
        return dst
    if v < -1:
        return None
    if variant == L.VAR_DUTCH and not _mover_may_hit(b, variant, opts):
        return None
    if variant == L.VAR_MAHBUSA and b[L.PIN0 + dst] == -1:
        return None
    return dst


def _step(b: list[int], src: int, dst: int, variant: int, opts: int) -> tuple[list[int], int]:
    """The board after moving one checker from ``src`` to ``dst``; 1 for a hit, 2 for a pin."""
    n = list(b)
    if src == BAR:
        n[L.MOVER_BAR] -= 1
    elif src == RESERVE:
        n[L.MOVER_RES] -= 1
    else:
        n[src] -= 1
        if variant == L.VAR_MAHBUSA and n[src] == 0 and n[L.PIN0 + src] == 1:
            n[src], n[L.PIN0 + src] = -1, 0  # the pinned checker is free again
    mark = 0
    if dst == OFF:
        n[L.MOVER_OFF] += 1
    elif n[dst] == -1:
        n[dst] = 1
        if variant == L.VAR_MAHBUSA:
            n[L.PIN0 + dst] = 1
            mark = 2
        else:
            n[L.OPP_BAR] += 1
            mark = 1
    else:
        n[dst] += 1
    if variant == L.VAR_DUTCH and dst != OFF and dst <= 6 and not opts & L.OPT_DUTCH_UNLOCK_CURRENT:
        n[L.MOVER_CAN_HIT] = 1
    checked = not opts & L.OPT_MAHBUSA_ON_PIN or (mark == 2 and dst == 1)
    if variant == L.VAR_MAHBUSA and n[L.PIN0 + 1] == 1 and checked:
        own_mother_pinned = n[L.PIN0 + 24] == -1
        own_start_empty = n[24] <= 0 and not own_mother_pinned
        if own_mother_pinned or own_start_empty:
            n[L.GAME_END] = 1
    return n, mark


def reference_plays(pos: Position, dice: tuple[int, int], options: int = 0) -> dict[bytes, tuple[Hop, ...]]:
    """Every legal play of ``dice``: resulting board bytes -> the hops of one way to play it.

    An unplayable roll gives the unchanged board with no hops. ``options`` are the engine option
    bits of :mod:`analyzer.core.layout`.
    """
    variant = pos.spec.code
    start = [v - 256 if v > 127 else v for v in pos.board]
    if start[L.GAME_END] or start[L.MOVER_OFF] >= L.CHECKERS:
        return {pos.board: ()}
    entered = any(start[p] > 0 for p in range(1, 25))
    d1, d2 = dice
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    # (dice used, which order) -> {board: hops}; finished games count as using every die
    reached: dict[tuple[int, int], dict[bytes, tuple[Hop, ...]]] = {}
    finished: dict[bytes, tuple[Hop, ...]] = {}
    for k, order in enumerate(orders):
        level: dict[bytes, tuple[list[int], tuple[Hop, ...]]] = {pos.board: (start, ())}
        for used, die in enumerate(order, start=1):
            nxt: dict[bytes, tuple[list[int], tuple[Hop, ...]]] = {}
            for board, hops in level.values():
                for src in _sources(board, variant, options, entered):
                    dst = _landing(board, src, die, variant, options)
                    if dst is None:
                        continue
                    child, mark = _step(board, src, dst, variant, options)
                    key = bytes(v & 0xFF for v in child)
                    path = (*hops, Hop(src, dst, mark))
                    if child[L.GAME_END]:
                        finished.setdefault(key, path)
                    else:
                        nxt.setdefault(key, (child, path))
            if not nxt:
                break
            reached[(used, k)] = {key: hops for key, (_b, hops) in nxt.items()}
            level = nxt
    most = len(orders[0]) if finished else max((u for u, _k in reached), default=0)
    if most == 0:
        return {pos.board: ()}
    plays = dict(finished)
    if d1 != d2 and most == 1:
        larger = 0 if d1 > d2 else 1
        chosen = reached.get((1, larger)) or reached.get((1, 1 - larger), {})
        plays.update(chosen)
        return plays
    for (used, _k), states in reached.items():
        if used == most:
            for key, hops in states.items():
                plays.setdefault(key, hops)
    return plays
