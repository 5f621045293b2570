"""Writer of gnubg's backgammon SGF (``GM[6]``): one game tree per game, only the properties gnubg
needs (``FF GM CA AP MI PW PB DT RU RE`` and the moves), see ``docs/formats.md`` §2.

Plays must be written one hop per die (as :func:`analyzer.analysis.replay.normalise` leaves them);
a resignation is the ``R`` of ``RE``, taken from ``GameRecord.resigned``.

>>> from analyzer.formats.records import GameRecord, MatchRecord, Roll, Double, Drop, Win
>>> acts = (Roll(0, (3, 1), "8/5 6/5"), Roll(1, (4, 1), "24/23 13/9"), Double(0, 2), Drop(1), Win(0, 1))
>>> m = MatchRecord(players=("ann", "bob"), length=3, games=(GameRecord(1, 0, (0, 0), acts),))
>>> print(format_sgf(m))
(;FF[4]GM[6]CA[UTF-8]AP[bgreview]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]RU[Crawford]RE[W+1]
;W[31hefe];B[41ablp];W[double];B[drop])
<BLANKLINE>
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO

from analyzer.core.errors import ParseError
from analyzer.core.play import BAR, OFF, RESERVE, parse_play
from analyzer.formats.records import Double, Drop, GameRecord, MatchRecord, Roll, Take, Win, write_records

__all__ = ["format_sgf", "sgf_letter", "write_sgf"]

_RULES = {"dutch": "Dutch", "mahbusa": "Plakoto"}


def sgf_letter(point: int, side: int) -> str:
    """The SGF letter of our point ``point`` (mover's view) for ``side`` (0 = White).

    >>> sgf_letter(6, 0), sgf_letter(13, 1), sgf_letter(25, 1), sgf_letter(0, 0)
    ('f', 'l', 'y', 'z')
    """
    if point in (BAR, RESERVE):
        return "y"
    if point == OFF:
        return "z"
    if not 1 <= point <= 24:
        raise ParseError("point out of range for SGF", token=str(point))
    k = point - 1 if side == 0 else 24 - point
    return chr(ord("a") + k)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _move(roll: Roll) -> str:
    letters = []
    for mv in parse_play(roll.play):
        if mv.via:
            raise ParseError("SGF moves are one hop per die; normalise the record first", token=mv.text)
        letters.append((sgf_letter(mv.source, roll.side) + sgf_letter(mv.dest, roll.side)) * mv.count)
    return f"{roll.dice[0]}{roll.dice[1]}" + "".join(letters)


def format_game(record: MatchRecord, game: GameRecord, first: bool) -> str:
    """One game tree."""
    root = (f"(;FF[4]GM[6]CA[UTF-8]AP[bgreview]MI[length:{record.length}][game:{game.number - 1}]"
            f"[ws:{game.score[0]}][bs:{game.score[1]}]PW[{_escape(record.players[0])}]"
            f"PB[{_escape(record.players[1])}]")
    if first and record.date:
        root += f"DT[{record.date.replace('.', '-')}]"
    if first and record.event:
        root += f"EV[{_escape(record.event)}]"
    rules = []
    if record.length and record.crawford is not False:
        rules.append("Crawford")
        if game.crawford:
            rules.append("CrawfordGame")
    variant = _RULES.get(record.variant if game.variation is None else game.variation.lower())
    if variant:
        rules.append(variant)
    if rules:
        root += f"RU[{':'.join(rules)}]"
    nodes: list[str] = []
    for act in game.actions:
        colour = "W" if act.side == 0 else "B"
        if isinstance(act, Roll):
            nodes.append(f";{colour}[{_move(act)}]")
        elif isinstance(act, Double):
            nodes.append(f";{colour}[double]")
        elif isinstance(act, Take):
            nodes.append(f";{colour}[take]")
        elif isinstance(act, Drop):
            nodes.append(f";{colour}[drop]")
        elif isinstance(act, Win) and act.points is not None:
            root += f"RE[{colour}+{act.points}{'R' if game.resigned else ''}]"
    return root + "\n" + "".join(nodes) + ")\n"


def format_sgf(record: MatchRecord) -> str:
    """The whole match as SGF text."""
    return "".join(sgf_chunks(record, record.games))


def sgf_chunks(header: MatchRecord, games: Iterable[GameRecord]) -> Iterator[str]:
    """The SGF text of a match, one game tree at a time (``header``'s own games are ignored)."""
    for i, g in enumerate(games):
        yield format_game(header, g, i == 0)


def write_sgf(records: Iterable[MatchRecord], out: str | os.PathLike[str] | IO[str]) -> int:
    """Write matches to a path or an open text handle; returns their number."""
    return write_records(records, out, format_sgf)
