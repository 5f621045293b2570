"""The Match ID of the first move of a game says "playing", as the ID gnubg holds there (issue 27).

``tests/data/gnubg_first_move_ids.json`` holds gnubg's own Position ID:Match ID at the first record
of every game of 23 matches (``tools/make_first_move_ids.py``, run inside GNU Backgammon).
"""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.analysis.identifiers import decision_ids
from analyzer.analysis.replay import replay_games
from analyzer.core.ids import GameState, decode_match_id
from analyzer.formats.mat import read_matches

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads((ROOT / "tests" / "data" / "gnubg_first_move_ids.json").read_text(encoding="utf-8"))


def test_first_move_of_every_game_matches_gnubg() -> None:
    checked = 0
    for path, expected in sorted(FIXTURE["files"].items()):
        [record] = list(read_matches(ROOT / path))
        got = []
        for game in replay_games(record):
            assert game.error is None, (path, game.error)
            first = game.decisions[0]
            assert first.kind == "move" and first.move == 1
            ids = decision_ids(first)
            got.append(f"{ids.position_id}:{ids.match_id}")
        assert got == expected, path
        checked += len(got)
    assert checked == 92


def test_every_decision_is_playing() -> None:
    [record] = list(read_matches(ROOT / "data" / "samples" / "boardlord-llabba-7p.mat"))
    states = {decode_match_id(decision_ids(d).match_id).game_state
              for g in replay_games(record) for d in g.decisions}
    assert states == {GameState.PLAYING}
