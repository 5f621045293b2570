"""Replay match files one after the other, as a stream of events (the driver of ``bgreview replay``).

:func:`replay_files` walks the paths, streams each file's matches (one game at a time: a huge
match stays small), replays their games and yields what happens, in order: a file started, a match
read, a game replayed, a decision (its output fields, :func:`decision_row`), an error with its
file, a file finished. A bad game, or a file that cannot be read, is an :class:`ErrorEvent` and the
stream goes on with the next game or file. Nothing is printed: the caller renders the events.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from analyzer.analysis.identifiers import decision_ids
from analyzer.analysis.replay import Decision, replay_games
from analyzer.core.errors import InputError
from analyzer.formats import stream_any

__all__ = ["DecisionEvent", "ErrorEvent", "FileDone", "FileStarted", "GameDone", "MatchStarted",
           "ReplayEvent", "decision_row", "replay_files"]


def decision_row(d: Decision) -> dict[str, Any]:
    """The output fields of one decision (file, game, move, player, side, kind, dice, the play as
    written and normalised, the gnubg IDs, XGID and key, the score).

    >>> from analyzer.formats.mat import read_match_text
    >>> [m] = read_match_text(" 3 point match\\n\\n Game 1\\n ann : 0    bob : 0\\n  1) 31: 8/5 6/5\\n")
    >>> [g] = replay_games(m)
    >>> row = decision_row(g.decisions[0])
    >>> row["player"], row["dice"], row["played"], row["score"], row["xgid"][:5]
    ('ann', '31', '8/5 6/5', '0-0', 'XGID=')
    """
    ids = decision_ids(d)
    return {"file": d.file, "game": d.game, "move": d.move, "player": d.player, "side": d.side,
            "kind": d.kind, "dice": f"{d.dice[0]}{d.dice[1]}" if d.dice else "", "played": d.played,
            "normalised": d.normalised, "position_id": ids.position_id, "match_id": ids.match_id,
            "xgid": ids.xgid, "key": ids.key, "score": f"{d.state.score[0]}-{d.state.score[1]}"}


@dataclass(frozen=True, slots=True)
class FileStarted:
    """The replay of ``path`` begins."""

    path: str


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """A match of ``path`` was read (its games follow)."""

    path: str


@dataclass(frozen=True, slots=True)
class GameDone:
    """A game of ``path`` was replayed (``failed``: it was unreadable and skipped)."""

    path: str
    failed: bool


@dataclass(frozen=True, slots=True)
class DecisionEvent:
    """One decision of a replayed game, as its output fields (:func:`decision_row`)."""

    path: str
    row: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """An error of ``path``: a bad game, a bad line, a file or folder that cannot be read."""

    path: str
    error: InputError


@dataclass(frozen=True, slots=True)
class FileDone:
    """The replay of ``path`` is over (whether it failed or not)."""

    path: str


ReplayEvent = FileStarted | MatchStarted | GameDone | DecisionEvent | ErrorEvent | FileDone


def replay_files(paths: Iterable[str],
                 unreadable: Mapping[str, InputError] | None = None) -> Iterator[ReplayEvent]:
    """Replay the match files ``paths`` one after the other and yield the events, in order.

    ``unreadable`` maps paths already known to be unreadable (a folder of the walk that could not
    be listed) to their error, reported in their turn. A file that cannot be read, or a bug of
    ours, is an :class:`ErrorEvent` of that file; the other files go on.

    >>> events = list(replay_files(["/nonexistent/m.mat"]))
    >>> [type(e).__name__ for e in events]
    ['FileStarted', 'ErrorEvent', 'FileDone']
    >>> print(events[1].error)
    /nonexistent/m.mat: no such file
    """
    for path in paths:
        yield FileStarted(path)
        if unreadable and path in unreadable:
            yield ErrorEvent(path, unreadable[path])
            yield FileDone(path)
            continue
        try:
            for match in stream_any(path):  # one game at a time: a huge match stays small
                yield MatchStarted(path)
                told = 0
                for g in replay_games(match.header, match.games):
                    for e in match.errors[told:]:
                        yield ErrorEvent(path, e)
                    told = len(match.errors)
                    if g.error is not None:
                        yield GameDone(path, failed=True)
                        yield ErrorEvent(path, g.error)
                        continue
                    yield GameDone(path, failed=False)
                    for d in g.decisions:
                        yield DecisionEvent(path, decision_row(d))
                    if g.score_error is not None:
                        yield ErrorEvent(path, g.score_error)
                for e in match.errors[told:]:
                    yield ErrorEvent(path, e)
        except InputError as e:  # not a regular file, unreadable, an unreadable folder
            yield ErrorEvent(path, e.located(file=path))
        except OSError as e:
            yield ErrorEvent(path, InputError(e.strerror or "cannot read the file", file=path))
        except Exception as e:  # a bug of ours: report it and go on with the other files
            yield ErrorEvent(path, InputError(f"internal error ({type(e).__name__}: {e}), please report it",
                                              file=path))
        yield FileDone(path)
