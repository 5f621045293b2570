"""Checker plays: hops, the notation players expect, and parsing of every spelling in match files.

Points are numbered from the mover's side: 25 is the bar, 26 the Dutch reserve (written ``bar`` as
in the match records; ``in`` is read too), 0 is off. A :class:`Hop` moves one checker by one die.

>>> hops = (Hop(24, 18), Hop(18, 13))
>>> format_play(hops)
'24/13'
>>> format_play((Hop(13, 10, 1), Hop(10, 8)))
'13/10*/8'
>>> format_play((Hop(8, 5), Hop(8, 5), Hop(6, 3), Hop(6, 3)))
'8/5(2) 6/3(2)'
>>> [(m.source, m.dest, m.count) for m in parse_play("bar/22 13/7*/5 6/off(2)")]
[(25, 22, 1), (13, 5, 1), (6, 0, 2)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from analyzer.core.errors import ParseError

BAR = 25
RESERVE = 26
OFF = 0


@dataclass(frozen=True, slots=True)
class Hop:
    """One checker moved by one die: ``source`` to ``dest``; ``hit`` is 1 for a hit, 2 for a pin."""

    source: int
    dest: int
    hit: int = 0


def _pt(p: int) -> str:
    if p == BAR:
        return "bar"
    if p == RESERVE:
        return "in"
    if p == OFF:
        return "off"
    return str(p)


def format_play(hops: Iterable[Hop], *, merge: bool = True, reserve: str = "bar", pin_marks: bool = True) -> str:
    """Format hops (in play order) the way gnubg and eXtreme Gammon write a play.

    Sources descend (for one source, the checker that goes furthest first, as gnubg writes
    ``13/7 13/10(2)``), hops of one checker are merged (keeping a point where it hit or pinned on
    the way), ``*`` marks a hit, ``^`` a pin, equal moves are counted ``(n)``, and two checkers
    on the same path of which one hits are counted too (``8/2*(2)``, not ``8/2 8/2*``). The
    empty play is ``""``. A Dutch entry from the reserve is written ``bar/..`` as in the match
    records (``reserve`` names another word). ``merge=False`` writes one hop per die (the plain
    ``.mat`` form: equal hops are still counted, a hit and a quiet hop are not merged);
    ``pin_marks=False`` leaves pins unmarked.

    >>> format_play([Hop(25, 22, 1), Hop(6, 5)])
    'bar/22* 6/5'
    >>> format_play([Hop(9, 3), Hop(9, 3), Hop(8, 2), Hop(8, 2, 1)])
    '9/3(2) 8/2*(2)'
    >>> format_play([Hop(13, 7), Hop(13, 7)])
    '13/7(2)'
    >>> format_play([Hop(13, 10), Hop(10, 7), Hop(13, 10), Hop(13, 10)])
    '13/7 13/10(2)'
    >>> format_play([Hop(26, 22), Hop(22, 16)])
    'bar/16'
    >>> format_play([Hop(26, 22), Hop(22, 16)], merge=False, reserve="in")
    'in/22 22/16'
    """
    return _format(tuple(hops), merge, reserve, pin_marks)


@lru_cache(maxsize=1 << 16)
def _format(hops: tuple[Hop, ...], merge: bool, reserve: str, pin_marks: bool) -> str:
    """:func:`format_play`, remembered: the same few thousand plays come back in every match."""
    chains: list[list[tuple[int, int]]] = []  # each: [(point, mark)...], mark for the landing
    # gnubg's order: hops by source, then destination, both descending; a hop continues the first
    # checker that stands on its source; the checkers are written in that order
    for h in sorted(hops, key=lambda h: (-h.source, -h.dest)):
        for ch in chains if merge else ():
            if ch[-1][0] == h.source and h.source != OFF:
                ch.append((h.dest, h.hit))
                break
        else:
            chains.append([(h.source, 0), (h.dest, h.hit)])
    # one group per path (every point a checker touched); with merge, the checkers of a group share
    # its marks (at most one of them can hit on a point) and are counted together, as gnubg does
    def mark(m: int) -> int:
        return m if m == 1 or (m == 2 and pin_marks) else 0

    groups: dict[tuple[int, ...], list[list[int]]] = {}
    for ch in chains:
        path = tuple(p for p, _ in ch)
        marks = [mark(m) for _, m in ch]
        groups.setdefault(path if merge else path + tuple(marks), []).append(marks)
    texts: list[tuple[int, int, str, int]] = []
    for key, members in groups.items():
        path = key[: len(members[0])]
        marks = [max(m[i] for m in members) for i in range(len(path))]
        parts = [(reserve if p == RESERVE else _pt(p)) + ("*" if mk == 1 else "^" if mk == 2 else "")
                 for i, (p, mk) in enumerate(zip(path, marks, strict=True)) if mk or i in (0, len(path) - 1)]
        texts.append((path[0], path[-1], "/".join(parts), len(members)))
    if not merge:
        texts.sort(key=lambda t: (-t[0], -t[1], t[2]))
    return " ".join(text + (f"({n})" if n > 1 else "") for _, _, text, n in texts)


@dataclass(frozen=True, slots=True)
class Move:
    """One parsed move token: a checker (or ``count`` checkers) from ``source`` to ``dest``.

    ``via`` lists intermediate points named in a chain; ``marked`` the points marked with ``*``
    or ``^`` (hits or pins), intermediate or final.
    """

    source: int
    dest: int
    count: int = 1
    via: tuple[int, ...] = ()
    marked: tuple[int, ...] = ()
    text: str = ""


_POINT_RE = re.compile(r"^(bar|ba|b|in|off|of|o|\d{1,2})([*^]*)$", re.IGNORECASE)


def _parse_point(tok: str, whole: str) -> tuple[int, bool]:
    m = _POINT_RE.match(tok)
    if not m:
        raise ParseError("unreadable point in move", token=whole)
    word, marks = m.group(1).lower(), m.group(2)
    if word in ("bar", "ba", "b"):
        p = BAR
    elif word == "in":
        p = RESERVE
    elif word in ("off", "of", "o"):
        p = OFF
    else:
        p = int(word)
        if p > 25:
            raise ParseError("point out of range in move", token=whole)
    return p, bool(marks)


def parse_move(token: str) -> Move:
    """Parse one move token such as ``13/7*/5``, ``bar/22``, ``25/22``, ``6/off(2)`` or ``8/5(2)``.

    >>> parse_move("13/7*/5")
    Move(source=13, dest=5, count=1, via=(7,), marked=(7,), text='13/7*/5')
    """
    tok = token.strip()
    count = 1
    m = re.match(r"^(.*?)\((\d+)\)([*^]*)$", tok)
    body = tok
    if m:
        body = m.group(1) + m.group(3)
        count = int(m.group(2))
        if not 1 <= count <= 4:
            raise ParseError("bad repeat count in move", token=token)
    parts = body.split("/")
    if len(parts) < 2 or any(not p for p in parts):
        raise ParseError("unreadable move", token=token)
    pts = [_parse_point(p, token) for p in parts]
    source = pts[0][0]
    if pts[0][1]:
        raise ParseError("a hit mark cannot stand on the starting point", token=token)
    if source == OFF:
        raise ParseError("a move cannot start from off", token=token)
    for p, _ in pts[1:]:
        if p in (BAR, RESERVE):
            raise ParseError("a move cannot end on the bar", token=token)
    for a, b in zip(pts, pts[1:], strict=False):
        if b[0] >= a[0]:
            raise ParseError("a move must go from a higher point to a lower one", token=token)
    for p, _ in pts[1:-1]:
        if p == OFF:
            raise ParseError("off can only end a move", token=token)
    return Move(
        source=source,
        dest=pts[-1][0],
        count=count,
        via=tuple(p for p, _ in pts[1:-1]),
        marked=tuple(p for p, mk in pts[1:] if mk),
        text=token,
    )


def parse_play(text: str) -> list[Move]:
    """Parse a whole play: move tokens separated by spaces or commas, in any order.

    >>> len(parse_play("24/22(2) 13/11*(2)"))
    2
    """
    toks = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    return [parse_move(t) for t in toks]
