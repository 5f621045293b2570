"""The events of :func:`analyzer.analysis.replay_stream.replay_files`, in order."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis.replay_stream import (
    DecisionEvent,
    ErrorEvent,
    FileDone,
    FileStarted,
    GameDone,
    MatchStarted,
    replay_files,
)
from analyzer.core.errors import IllegalPlayError, InputError

MATCH = """ 3 point match

 Game 1
 ann : 0                        bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 ann : 1                        bob : 0
  1) 31: 8/1 6/5
  2)  Doubles => 2                Drops
      Wins 1 point

 Game 3
 ann : 1                        bob : 1
  1) 52: 13/8 13/11              64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""


def test_events_of_a_match_with_a_bad_game_then_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "m.mat"
    path.write_text(MATCH)
    missing = str(tmp_path / "missing.mat")
    events = list(replay_files([str(path), missing]))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["FileStarted", "MatchStarted",
                     "GameDone", *["DecisionEvent"] * 4,      # game 1: two plays, double, drop
                     "GameDone", "ErrorEvent",                # game 2: 8/1 with a 31 is illegal
                     "GameDone", *["DecisionEvent"] * 4,      # game 3 goes on after the bad game
                     "FileDone",
                     "FileStarted", "ErrorEvent", "FileDone"]
    assert all(e.path == str(path) for e in events[:15]) and all(e.path == missing for e in events[15:])
    assert [e.failed for e in events if isinstance(e, GameDone)] == [False, True, False]
    rows = [e.row for e in events if isinstance(e, DecisionEvent)]
    assert [(r["game"], r["kind"], r["player"]) for r in rows] == [
        (1, "move", "ann"), (1, "move", "bob"), (1, "double", "ann"), (1, "drop", "bob"),
        (3, "move", "ann"), (3, "move", "bob"), (3, "double", "ann"), (3, "drop", "bob")]
    bad, unread = [e for e in events if isinstance(e, ErrorEvent)]
    assert isinstance(bad.error, IllegalPlayError) and bad.error.line == 11
    assert str(unread.error).startswith(f"{missing}: ")
    assert isinstance(events[0], FileStarted) and isinstance(events[1], MatchStarted)
    assert isinstance(events[-1], FileDone)


def test_a_path_known_unreadable_is_reported_in_its_turn(tmp_path: Path) -> None:
    locked = str(tmp_path / "locked")
    why = InputError("cannot read the folder", file=locked)
    events = list(replay_files([locked], unreadable={locked: why}))
    assert events == [FileStarted(locked), ErrorEvent(locked, why), FileDone(locked)]
