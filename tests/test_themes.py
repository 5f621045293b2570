"""Themes and phases of standard positions (analyzer.analysis.themes): one worked position per theme."""

from __future__ import annotations

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
