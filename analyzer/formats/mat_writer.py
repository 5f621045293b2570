"""Writer of the JellyFish ``.mat`` text in one conservative dialect (``docs/formats.md`` §1.9).

Header tags in eXtreme Gammon's style (every tag of the record, in its order, the players and the
variation added when missing), gnubg's geometry (row prefix ``"%3d) "``, left cell padded to 27,
right cell at column 34, score line ``" %-31s%s : %d"``), actions as the record holds them.
To get ``bar``/``off``, ``*``, ``(n)`` and true ``Wins`` values, write the record returned by
:func:`analyzer.analysis.replay.normalise`.

>>> from analyzer.formats.records import GameRecord, MatchRecord, Roll, Double, Drop, Win
>>> acts = (Roll(0, (3, 1), "8/5 6/5"), Roll(1, (6, 4), "24/18 13/9"), Double(0, 2), Drop(1),
...         Win(0, 1))
>>> m = MatchRecord(players=("ann", "bob"), length=3, games=(GameRecord(1, 0, (0, 0), acts),))
>>> print(format_match(m))  # doctest: +NORMALIZE_WHITESPACE
; [Player 1 "ann"]
; [Player 2 "bob"]
; [Variation "Backgammon"]
<BLANKLINE>
 3 point match
<BLANKLINE>
 Game 1
 ann : 0                        bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
  3)  Wins 1 point
<BLANKLINE>
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO

from analyzer.core.variants import spec_by_name
from analyzer.formats.records import Action, CrawfordTracker, GameRecord, MatchRecord, Roll, write_records

__all__ = ["format_game", "format_match", "mat_chunks", "write_mat"]


def _cell(act: Action) -> str:
    if isinstance(act, Roll):
        return act.text
    return " " + act.text


def format_game(game: GameRecord, players: tuple[str, str], *, state_crawford: bool = False) -> list[str]:
    """The lines of one game, from ``Game N`` to its last action; ``state_crawford`` writes the
    game's Crawford flag as a tag (``; [CrawfordGame "Yes"]``), for a game whose flag a reader could
    not infer from the scores.

    >>> format_game(GameRecord(2, 0, (1, 0), (Roll(1, (5, 1), "24/23 13/8"),)), ("a", "b"))[2]
    '  1)                             51: 24/23 13/8'
    """
    names = (game.names[0] or players[0], game.names[1] or players[1])
    left = f"{names[0]} : {game.score[0]}"
    lines = [f" Game {game.number}"]
    if game.variation:
        lines.append(f'; [GameVariation "{game.variation}"]')
    if state_crawford and game.crawford is not None:
        lines.append(f'; [CrawfordGame "{"Yes" if game.crawford else "No"}"]')
    lines.append(f" {left:<31s}" + ("" if len(left) < 31 else " ") + f"{names[1]} : {game.score[1]}")
    rows: list[list[str | None]] = []
    for act in game.actions:
        cell = _cell(act)
        if act.side == 0 or not rows or rows[-1][1] is not None:
            if act.side == 0:
                rows.append([cell, None])
                continue
            rows.append([None, cell])
            continue
        rows[-1][1] = cell
    for n, (lcell, rcell) in enumerate(rows, start=1):
        text = f"{n:3d}) {lcell or '':<27s} {rcell or ''}"
        lines.append(text.rstrip())
    return lines


def format_match(record: MatchRecord) -> str:
    """The whole match as .mat text (ends with a newline)."""
    return "".join(mat_chunks(record, record.games))


def mat_chunks(header: MatchRecord, games: Iterable[GameRecord]) -> Iterator[str]:
    """The .mat text of a match, header first, then one game at a time (``header``'s own games are
    ignored; a long match is never whole in memory). The pieces end with a newline."""
    yield "\n".join(_header_lines(header)) + "\n"
    tracker = CrawfordTracker(header.length, header.crawford)
    for game in games:
        lines = format_game(game, header.players, state_crawford=tracker.needs_statement(game))
        yield "\n" + "\n".join(lines) + "\n"


def _header_lines(record: MatchRecord) -> Iterable[str]:
    tags = list(record.tags)
    keys = {k.lower() for k, _ in tags}
    if "player 1" not in keys:
        tags.append(("Player 1", record.players[0]))
    if "player 2" not in keys:
        tags.append(("Player 2", record.players[1]))
    if "variation" not in keys:
        spec = spec_by_name(record.variant)
        tags.append(("Variation", spec.record_name if spec is not None else record.variation or "Backgammon"))
    for key, value in tags:
        yield f'; [{key} "{value}"]'
    for comment in record.comments:
        yield f"; {comment}".rstrip()
    yield ""
    yield f" {record.length} point match"


def write_mat(records: Iterable[MatchRecord], out: str | os.PathLike[str] | IO[str]) -> int:
    """Write matches to a path or an open text handle, one after another; returns their number."""
    return write_records(records, out, format_match, separator="\n")
