"""Writer of the JellyFish ``.mat`` text in one conservative dialect (``docs/formats.md`` §1.9).

Header tags in eXtreme Gammon's style (every tag of the record, in its order, the players and the
variation added when missing), gnubg's geometry (row prefix ``"%3d) "``, left cell padded to 27,
right cell at column 34, score line ``" %-31s%s : %d"``), actions as the record holds them.
To get ``bar``/``off``, ``*``, ``(n)`` and true ``Wins`` values, write the record returned by
:func:`analyzer.analysis.replay.normalise`.

What is written reads back as it was (:mod:`analyzer.formats.mat` is the judge): a tag or comment with a line
break or another control character (the reader takes a line of them for binary data), or too long for a
line, is refused (:class:`WriteRefused`, naming the game and the field); a name on a
score line that the reader would take apart (``ann : 3``) is written plainly there when the ``Player`` tag
holds it (the tag is what names the player), refused otherwise; after a long first name the right cells move
right, where the reader looks for them.

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
import re
from collections.abc import Iterable, Iterator
from typing import IO

from analyzer.core.errors import InputError
from analyzer.core.variants import spec_by_name
from analyzer.formats.mat import _SCORE_RE, _TAG_RE, MAX_LINE
from analyzer.formats.records import Action, CrawfordTracker, GameRecord, MatchRecord, Roll, write_records

__all__ = ["WriteRefused", "format_game", "format_match", "mat_chunks", "write_mat"]


class WriteRefused(InputError):
    """A record the ``.mat`` text cannot hold so that it reads back the same (a line break in a name, ...)."""


_BREAKS = re.compile(r"[\x00-\x08\x0a-\x1f]")
_PLAIN = re.compile(r"[\x00-\x1f\x7f:,]+|\s+")


def _checked(text: str, what: str, game: GameRecord | None = None) -> str:
    """``text`` when it can stand on a line of the file; else :class:`WriteRefused`."""
    where = f"game {game.number}: " if game is not None else ""
    if _BREAKS.search(text):
        raise WriteRefused(f"{where}{what} holds a line break or a control character, which a .mat file cannot "
                           "hold", token=text[:60],
                           line=game.line if game is not None else None)
    if len(text) > MAX_LINE - 40:
        raise WriteRefused(f"{where}{what} is longer than a line of a .mat file ({MAX_LINE} characters)",
                           token=text[:60] + "...", line=game.line if game is not None else None)
    return text


def _tag(key: str, value: str, game: GameRecord | None = None) -> str:
    _checked(key, f"the tag name {key!r}", game)
    line = f'; [{key} "{_checked(value, f"the {key} tag", game)}"]'
    m = _TAG_RE.match(line)
    if m is None or m.group(1) != key.strip() or m.group(2) != value:
        raise WriteRefused(f"the tag name {key!r} cannot be written in a .mat file", token=key[:60])
    return line


def _plain_name(name: str) -> str:
    """A name that a score line holds as it is: no colon, comma or control character, single spaces.

    >>> _plain_name("ann : 3\tbob, jr")
    'ann 3 bob jr'
    """
    return " ".join(_PLAIN.sub(" ", name).split())


def _score_line(game: GameRecord, names: tuple[str, str], exact: tuple[bool, bool]) -> tuple[str, int]:
    """The score line of ``game`` and the column where the reader splits its rows into the two cells.
    ``exact[side]``: that side's name must read back as it is (no ``Player`` tag names the player)."""
    written = tuple(n if ex else _plain_name(n) for n, ex in zip(names, exact, strict=True))
    left = f"{written[0]} : {game.score[0]}"
    line = f" {left:<31s}" + ("" if len(left) < 31 else " ") + f"{written[1]} : {game.score[1]}"
    m = _SCORE_RE.match(line)
    read = (m.group(2).split(",")[0].strip(), m.group(5).split(",")[0].strip()) if m is not None else None
    if (m is None or (int(m.group(3)), int(m.group(6))) != game.score or len(line) > MAX_LINE
            or any(ex and r != n for ex, r, n in zip(exact, read or ("", ""), names, strict=True))):
        side = next((i for i in (0, 1) if exact[i]), 0)
        raise WriteRefused(f"game {game.number}: the name of player {side + 1} cannot be written on a score line "
                           "of a .mat file so that it reads back the same", token=names[side][:60], line=game.line)
    right = m.start(5) if m.group(5) else m.start(6) - 3
    return line, (6 + right) // 2


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
    lines = [f" Game {game.number}"]
    if game.variation:
        lines.append(_tag("GameVariation", game.variation, game))
    if state_crawford and game.crawford is not None:
        lines.append(f'; [CrawfordGame "{"Yes" if game.crawford else "No"}"]')
    score, split = _score_line(game, names, (not players[0], not players[1]))
    lines.append(score)
    width = max(27, split - 6)  # the right cell at or past the split (a long first name moves it)
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
        text = f"{n:3d}) {lcell or '':<{width}s} {rcell or ''}"
        lines.append(text.rstrip())
    return lines


def format_match(record: MatchRecord) -> str:
    """The whole match as .mat text (ends with a newline)."""
    return "".join(mat_chunks(record, record.games))


def mat_chunks(header: MatchRecord, games: Iterable[GameRecord]) -> Iterator[str]:
    """The .mat text of a match, header first, then one game at a time (``header``'s own games are
    ignored; a long match is never whole in memory). The pieces end with a newline. Raises
    :class:`WriteRefused`, naming the record's file, for what the text cannot hold."""
    try:
        yield "\n".join(_header_lines(header)) + "\n"
        tracker = CrawfordTracker(header.length, header.crawford)
        for game in games:
            lines = format_game(game, header.players, state_crawford=tracker.needs_statement(game))
            yield "\n" + "\n".join(lines) + "\n"
    except WriteRefused as e:
        raise e.located(file=header.source or None, line=header.line or None) from None


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
        yield _tag(key, value)
    for comment in record.comments:
        line = f"; {_checked(comment, 'a comment')}".rstrip()
        if _TAG_RE.match(line):
            raise WriteRefused("a comment that reads as a tag cannot be written in a .mat file", token=comment[:60])
        yield line
    yield ""
    yield f" {record.length} point match"


def write_mat(records: Iterable[MatchRecord], out: str | os.PathLike[str] | IO[str]) -> int:
    """Write matches to a path or an open text handle, one after another; returns their number."""
    return write_records(records, out, format_match, separator="\n")
