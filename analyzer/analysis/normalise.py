"""Records rewritten from their replay: one hop per die, cube values and results filled in.

What :func:`normalise` writes is what every ``.mat`` reader accepts and what the writers
(:mod:`analyzer.formats.mat_writer`, :mod:`analyzer.formats.sgf_writer`) expect.

>>> plain_play([])
''
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator
from dataclasses import replace

from analyzer.analysis.replay import replay_games
from analyzer.core.errors import InputError
from analyzer.core.play import Hop, format_play
from analyzer.formats.records import Action, Double, Drop, GameRecord, MatchRecord, Roll, Take, Win

__all__ = ["normalise", "normalised_games", "plain_play"]


def plain_play(hops: Iterable[Hop]) -> str:
    """A play written one hop per die, the way every .mat reader accepts it: ``bar`` and ``off``,
    ``*`` on hits, equal hops counted ``(n)``, sources descending (Dutch entries as ``bar/..``).

    >>> plain_play([Hop(25, 22, 1), Hop(13, 10), Hop(13, 10), Hop(6, 0)])
    'bar/22* 13/10(2) 6/off'
    """
    return format_play(hops, merge=False, reserve="bar", pin_marks=False)


def normalise(record: MatchRecord) -> MatchRecord:
    """The record rewritten from its replay: plays one hop per die (:func:`plain_play`), cube
    values filled in, resignations as ``????`` after a roll or a ``Wins`` line with the true
    value, ``and the match`` on the deciding game. Games that do not replay are left out and their
    errors added to ``errors``; the record's metadata is kept.

    >>> from analyzer.formats.mat import read_match_text
    >>> [m] = read_match_text(" 1 point match\\n Game 1\\n a : 0      b : 0\\n 1) 41: 24/23 13/9\\n")
    >>> normalise(m).games[0].actions[0].play
    '24/23 13/9'
    """
    games: list[GameRecord] = []
    errors = list(record.errors)
    for item in normalised_games(record):
        if isinstance(item, InputError):
            errors.append(item)
        else:
            games.append(item)
    return replace(record, games=tuple(games), errors=tuple(errors))


def normalised_games(record: MatchRecord,
                     games: Iterable[GameRecord] | None = None) -> Iterator[GameRecord | InputError]:
    """Each game of ``record`` (or of ``games``, streamed) rewritten as :func:`normalise` does, or
    the error of a game that does not replay, in order, one game at a time."""
    keep = _Kept()
    for g in replay_games(record, keep.feed(record.games if games is None else games)):
        game = keep.take()
        if g.error is not None:
            yield g.error
            continue
        acts: list[Action] = []
        for d in g.decisions:
            if d.kind == "move":
                assert d.dice is not None
                acts.append(Roll(side=d.side, dice=d.dice, play=plain_play(d.hops)))
            elif d.kind == "double":
                acts.append(Double(side=d.side, value=int(d.normalised)))
            elif d.kind == "take":
                acts.append(Take(side=d.side))
            elif d.kind == "drop":
                acts.append(Drop(side=d.side))
            elif d.kind == "resign" and d.dice is not None:
                acts.append(Roll(side=d.side, dice=d.dice, play="", note="????"))
        if g.winner is not None:
            total = game.score[g.winner] + g.points
            decided = bool(record.length) and total >= record.length
            acts.append(Win(side=g.winner, points=g.points, match=decided))
        yield replace(game, actions=tuple(acts), line=0, score_line=0, resigned=g.end == "resign",
                      crawford=g.state.crawford if record.length else None)


class _Kept:
    """The games a replay has read and not yet answered (the replay reads one game ahead)."""

    def __init__(self) -> None:
        self._games: collections.deque[GameRecord] = collections.deque()

    def feed(self, games: Iterable[GameRecord]) -> Iterator[GameRecord]:
        for game in games:
            self._games.append(game)
            yield game

    def take(self) -> GameRecord:
        return self._games.popleft()
