"""One Match ID per decision everywhere (issue 52): the XGID the review prints for a decision, read
back by ``bgreview show``, gives the decision's own Match ID -- the one gnubg prints for that
decision in the match -- not the same position with the players swapped. (gnubg's ``set xgid``
numbers the player on turn 1 whoever he is, so it cannot give player 0's IDs from any XGID; our
XGIDs put player 1 at the bottom and ``show`` reads them so.)"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from analyzer.analysis.identifiers import decision_ids
from analyzer.analysis.replay import replay_games
from analyzer.cli import app
from analyzer.core.ids import parse_position_spec
from analyzer.formats.mat import read_matches
from analyzer.render.position_text import position_identifiers

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "boardlord-llabba-7p.mat"


def _ids() -> list[tuple[int, str, str, str]]:
    [record] = list(read_matches(str(SAMPLE)))
    out = []
    for g in replay_games(record):
        for d in g.decisions:
            if d.kind in ("move", "double", "take", "drop"):
                ids = decision_ids(d)
                out.append((d.on_roll, ids.xgid, ids.position_id, ids.match_id))
    return out


def test_the_xgid_of_a_decision_gives_its_match_id() -> None:
    ids = _ids()
    assert {on_roll for on_roll, *_ in ids} == {0, 1} and len(ids) > 140
    for _, xgid, pid, mid in ids:
        shown = position_identifiers(parse_position_spec(xgid))
        assert (shown["position_id"], shown["match_id"], shown["xgid"]) == (pid, mid, xgid)


def test_show_prints_the_reports_match_id() -> None:
    on_roll, xgid, pid, mid = next(i for i in _ids() if i[0] == 0)  # player 0 on roll: swapped before
    res = CliRunner().invoke(app, ["show", xgid, "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["position_id"], doc["match_id"]) == (pid, mid)
