"""No cube decision where doubling cannot gain (issue 52): a dead cube, the Crawford game, a 1-point
match, a cube at its limit. The analysis counts, ``--sgf`` and ``play`` follow gnubg's rule
(``GetDPEq``: a player's cube is live while his score plus the cube is below the match length).

``tests/data/gnubg_decisions_boardlord.json`` holds the key of every decision of GNU Backgammon
1.07's 2-ply analysis of the shipped sample (made with ``tools/gnubg_review.py``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from played import one_point_match

from analyzer.core.match import MatchState, can_double, cube_available, cube_is_dead, cube_refusal

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "samples" / "boardlord-llabba-7p.mat"
GNUBG = Path(__file__).parent / "data" / "gnubg_decisions_boardlord.json"


@pytest.mark.parametrize(("state", "player", "why"), [
    (MatchState(length=7, score=(4, 2), cube=4, cube_owner=0), 0, "the cube is dead"),  # needs 3, cube 4
    (MatchState(length=7, score=(4, 2), cube=4, cube_owner=0), 1, "player 1 does not own the cube"),
    (MatchState(length=7, score=(4, 3), cube=2, cube_owner=1), 1, None),  # needs 4: live
    (MatchState(length=7, score=(5, 3), cube=2, cube_owner=0), 0, "the cube is dead"),  # needs exactly 2
    (MatchState(length=1), 0, "the cube is dead"),
    (MatchState(length=5, score=(4, 2), crawford=True), 1, "no doubling in the Crawford game"),
    (MatchState(length=5, score=(4, 2), post_crawford=True), 0, "the cube is dead"),  # the leader
    (MatchState(length=5, score=(4, 2), post_crawford=True), 1, None),  # the trailer
    (MatchState(cube=64, cube_owner=0, cube_limit=64), 0, "the cube is at its limit"),
    (MatchState(cube=64, cube_owner=0), 0, None),  # money: never dead
])
def test_cube_refusal(state: MatchState, player: int, why: str | None) -> None:
    assert cube_refusal(state, player) == why
    assert cube_available(state, player) == (why is None)
    # a dead cube may still be doubled (a file can hold such a double): it is legal, only useless
    assert can_double(state, player) == (why in (None, "the cube is dead"))
    assert cube_is_dead(state, player) == (why == "the cube is dead")


def _keys(rows: list[dict[str, object]]) -> Counter[tuple[int, int, int, str]]:
    return Counter((int(r["game"]), int(r["move_no"]), int(r["side"]), str(r["kind"]))  # type: ignore[call-overload]
                   for r in rows)


@pytest.mark.integration
def test_sample_has_gnubgs_decisions() -> None:
    """The shipped 7-point sample: BoardLord takes a 4-cube at 4-2 (he needs 3), and from then on
    his turns are no cube decisions; every decision of ours is one of gnubg's and the reverse (129
    for BoardLord before the fix, 114 for gnubg)."""
    from analyzer.analysis.analyze import analyze_match
    from analyzer.formats.mat import read_matches

    [record] = list(read_matches(str(SAMPLE)))
    analysis = analyze_match(record, engine=None, ply=0)
    ours = _keys(analysis.decisions.select("game", "move_no", "side", "kind").to_dicts())
    ref = json.loads(GNUBG.read_text())
    theirs = Counter((g, m, s, k) for g, m, s, k in ref["decisions"])
    assert sorted((ours - theirs).elements()) == [] and sorted((theirs - ours).elements()) == []
    per_side = Counter(k[2] for k in ours.elements())
    assert per_side == Counter(k[2] for k in theirs.elements())


def test_play_one_point_match_never_offers_the_cube(tmp_path: Path) -> None:
    """``play --length 1``: the person is never stopped before his roll to double (gnubg: "The
    cube is dead"); his dice are rolled for him and no double is ever recorded."""
    s, moves = one_point_match(tmp_path / "m.mat")
    assert moves > 3
    assert not any(type(a).__name__ == "Double" for g in s.record().games for a in g.actions)


@pytest.mark.integration
def test_one_point_match_has_no_cube_decision(tmp_path: Path) -> None:
    from analyzer.analysis.analyze import analyze_match

    rows = analyze_match(one_point_match(tmp_path / "m.mat")[0].record(), engine=None, ply=0).decisions
    assert rows.height > 6 and set(rows["kind"]) == {"checker"}
