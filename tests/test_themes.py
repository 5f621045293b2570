"""Themes and phases of standard positions (analyzer.analysis.themes): one worked position per theme."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from analyzer.analysis.themes import THEMES, game_phase, position_theme, side_shape
from analyzer.core.position import Position

# Notation of docs/rules.md §0.2: both sides' checkers on the mover's points (the mover bears off from 1..6,
# the opponent from 19..24).
WORKED = {
    "race": "P 6:5 5:5 4:5 | O 19:5 20:5 21:5",
    "crashed": "P 1:8 2:5 24:2 | O 12:3 17:3 19:3 20:3 21:3",
    "bear-off vs contact": "P 2:4 3:3 4:3 5:3 6:2 | O 1:2 19:13",
    # three home points made against a blot in the mover's board, no anchor there
    "blitz": "P 6:4 5:3 4:3 8:3 13:2 | O 2:1 12:5 17:4 19:5",
    # two anchors in the opponent's board, 61 pips behind
    "back game": "P 20:2 23:2 6:3 5:3 4:3 3:2 | O 19:4 21:4 22:4 17:3",
    # the opponent's ace point only, 51 pips behind
    "ace-point game": "P 24:2 13:2 6:4 5:4 4:3 | O 19:5 20:5 21:4 17:1",
    # a 5-prime each, with a checker of the other side behind it
    "prime vs prime": "P 6:2 7:2 8:2 9:2 10:2 13:3 22:2 | O 3:2 12:2 15:2 16:2 17:2 18:2 19:3",
    "containment": "P 4:2 5:2 6:2 7:2 8:2 13:5 | O 2:2 12:3 17:3 19:4 20:3",
    # an anchor on the opponent's 5-point, the opponent with nothing back
    "holding": "P 20:2 13:4 8:3 6:4 5:2 | O 19:5 21:3 17:3 12:4",
}


@pytest.mark.parametrize("theme", list(WORKED))
def test_worked_position_of_each_theme(theme: str) -> None:
    pos = Position.from_notation(WORKED[theme])
    assert position_theme(pos) == theme
    # a theme is a property of the position, not of who is on roll
    assert position_theme(pos.flip()) == theme


def test_every_theme_has_a_worked_position() -> None:
    assert set(WORKED) | {"middle game"} == set(THEMES)
    assert position_theme(Position.start()) == "middle game"


def test_a_blitz_needs_no_anchor_for_the_defender() -> None:
    # the blitz position with the blot covered: an anchor on the mover's 2-point
    pos = Position.from_notation("P 6:4 5:3 4:3 8:3 13:2 | O 2:2 12:4 17:4 19:5")
    assert position_theme(pos) != "blitz"


def test_side_shape_counts() -> None:
    s = side_shape(Position.from_notation(WORKED["prime vs prime"]))
    assert (s.prime, s.prime_low, s.behind) == (5, 6, 2)
    assert s.anchors == (22,) and s.back == 2 and s.home_points == 1


def test_phases_follow_the_pips() -> None:
    assert game_phase(Position.start()) == "opening"
    assert game_phase(Position.from_notation(WORKED["blitz"])) == "middle"  # 251 pips together
    assert game_phase(Position.from_notation(WORKED["race"])) == "late"


def test_themes_are_for_standard_positions_only() -> None:
    with pytest.raises(ValueError, match="dutch"):
        position_theme(Position.start("dutch"))


def test_blind_spot_breakdown_pairs_engines_and_splits_by_theme(bench_script: Callable[[str], ModuleType]) -> None:
    from analyzer.core.ids import encode_position_id

    bs = bench_script("blind_spots")
    blitz = encode_position_id(Position.from_notation(WORKED["blitz"]))
    race = encode_position_id(Position.from_notation(WORKED["race"]))
    recs = [
        {"engine": "ours", "index": 0, "position": blitz, "eq0": 0.50, "rollout": 0.30},
        {"engine": "ours", "index": 1, "position": blitz, "eq0": 0.10, "rollout": 0.20},
        {"engine": "ours", "index": 2, "position": race, "eq0": 0.00, "rollout": 0.02},
        {"engine": "gnubg", "index": 0, "position": blitz, "eq0": 0.35, "rollout": 0.30},
    ]
    res = bs.breakdown(recs)
    ours = res["ours"]
    assert ours["themes"]["blitz"]["n"] == 2
    assert ours["themes"]["blitz"]["mean_abs"] == pytest.approx(0.15)
    assert ours["themes"]["blitz"]["bias"] == pytest.approx(0.05)
    assert ours["contact"]["n"] == 2 and ours["all"]["n"] == 3
    assert ours["phases"]["middle"]["n"] == 2  # the race is left out of the phases
    assert res["gnubg"]["themes"]["blitz"]["mean_abs"] == pytest.approx(0.05)
    lines = bs._lines(res)
    assert any(line.startswith("blitz") for line in lines)


def test_the_shipped_nets_screened_as_a_candidate_repeat_their_recorded_figures(
        bench_script: Callable[[str], ModuleType]) -> None:
    from analyzer._resources import data_dir

    bs = bench_script("blind_spots")
    records = [r for r in bs.read_records(bs.DEFAULT_RECORDS) if r["engine"] == "ours"][:12]
    assert len(records) == 12
    made_by = bs.ROOT / "training" / "checkpoints" / "standard_v05.npz"
    res = bs.breakdown(bs.with_candidate(records, made_by))
    # the records were made with the v0.5 nets: screened as a candidate, their 0-ply equities are the recorded ones
    assert res["candidate"]["all"]["mean_abs"] == pytest.approx(res["ours"]["all"]["mean_abs"], abs=1e-4)
    assert res["candidate"]["all"]["n"] == res["ours"]["all"]["n"]
    # the shipped nets (v0.6) are another net: the same screen gives their own figure
    shipped = bs.breakdown(bs.with_candidate(records, data_dir() / "nets" / "standard.npz"))
    assert shipped["candidate"]["all"]["n"] == res["ours"]["all"]["n"]
    assert shipped["candidate"]["all"]["mean_abs"] != pytest.approx(res["ours"]["all"]["mean_abs"], abs=1e-4)


def test_a_themed_corpus_sample_takes_that_theme_from_the_first_files_only(
        bench_script: Callable[[str], ModuleType]) -> None:
    """``--theme``/``--files``: one position of the theme per game that reaches it, from the first files
    of the walk only; the same games' plain draw is another pick of the same game."""
    from pathlib import Path

    bs = bench_script("blind_spots")
    folder = Path(__file__).parent / "data" / "corpus"
    names = bs.expand_inputs([str(folder)])
    themed = list(bs.corpus_positions(folder, 7, "crashed", 12))
    assert themed and all(position_theme(pos) == "crashed" for _, pos in themed)
    games = [label.rsplit(":", 1)[0] for label, _ in themed]
    assert len(games) == len(set(games))  # one per game
    first = {Path(n).relative_to(folder).as_posix() for n in names[:12]}
    assert {g.rsplit(":", 1)[0] for g in games} <= first
    plain = {label.rsplit(":", 1)[0] for label, _ in bs.corpus_positions(folder, 7, files=12)}
    assert set(games) <= plain  # every game with a crashed position is in the plain sample too
