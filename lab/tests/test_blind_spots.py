"""``bench/blind_spots.py``, the standard net's errors by theme against its rollouts: a benchmark that reads the
lab's records and checkpoints and samples positions with the lab's code (moved from tests/test_themes.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from analyzer.analysis.themes import position_theme
from analyzer.core.position import Position

ROOT = Path(__file__).resolve().parents[2]
BLITZ = "P 6:4 5:3 4:3 8:3 13:2 | O 2:1 12:5 17:4 19:5"
RACE = "P 6:5 5:5 4:5 | O 19:5 20:5 21:5"


def test_blind_spot_breakdown_pairs_engines_and_splits_by_theme(bench_script: Callable[[str], ModuleType]) -> None:
    from analyzer.core.ids import encode_position_id

    bs = bench_script("blind_spots")
    blitz = encode_position_id(Position.from_notation(BLITZ))
    race = encode_position_id(Position.from_notation(RACE))
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
    made_by = bs.ROOT / "lab" / "checkpoints" / "standard_v05.npz"
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
    folder = ROOT / "tests" / "data" / "corpus"
    names = bs.expand_inputs([str(folder)])
    themed = list(bs.corpus_positions(folder, 7, "crashed", 12))
    assert themed and all(position_theme(pos) == "crashed" for _, pos in themed)
    games = [label.rsplit(":", 1)[0] for label, _ in themed]
    assert len(games) == len(set(games))  # one per game
    first = {Path(n).relative_to(folder).as_posix() for n in names[:12]}
    assert {g.rsplit(":", 1)[0] for g in games} <= first
    plain = {label.rsplit(":", 1)[0] for label, _ in bs.corpus_positions(folder, 7, files=12)}
    assert set(games) <= plain  # every game with a crashed position is in the plain sample too


def test_the_back_checker_themes_are_split_by_seat(bench_script: Callable[[str], ModuleType]) -> None:
    from analyzer.core.ids import encode_position_id
    from bglab.classes import seat_code

    bs = bench_script("blind_spots")
    back = Position.from_notation("P 24:2 22:2 20:2 13:4 8:3 6:2 | O 23:2 21:3 19:3 18:3 17:2 12:2")
    theme = position_theme(back)
    assert theme in bs.SPLIT_THEMES and seat_code(back) == 1
    recs = [{"engine": "ours", "index": 0, "position": encode_position_id(back), "eq0": -0.4, "rollout": -0.1},
            {"engine": "ours", "index": 1, "position": encode_position_id(back.flip()), "eq0": 0.5, "rollout": 0.3}]
    seats = bs.breakdown(recs)["ours"]["seats"]
    assert seats[f"{theme}: back side on roll"]["bias"] == pytest.approx(-0.3)
    flipped = f"{position_theme(back.flip())}: back side off roll"
    assert seats[flipped]["bias"] == pytest.approx(0.2) and seats[flipped]["n"] == 1
    assert any(line.startswith(f"{theme}: back side on roll") for line in bs._lines(bs.breakdown(recs)))
