"""The ASCII board: a hand-checked snapshot of the standard start and structural checks for every
variant (reserves and lock flags in Dutch, pins in Mahbusa, the mirrored home side)."""

from __future__ import annotations

import pytest

from analyzer.core.position import Position
from analyzer.render import draw_board

# Hand-checked against rules.md §1.1: X (on roll) 24:2 13:5 8:3 6:5, O on X's 1:2 12:5 17:3 19:5.
START = """\
 bgreview  Backgammon
 Position ID: 4HPwATDgc/ABMA
 +13-14-15-16-17-18------19-20-21-22-23-24-+     O  pips 167
 | X           O    |   | O              X |     off 0
 | X           O    |   | O              X |
 | X           O    |   | O                |
 | X                |   | O                |
 | X                |   | O                |
v|                  |BAR|                  |     X on roll
 | O                |   | X                |
 | O                |   | X                |
 | O           X    |   | X                |
 | O           X    |   | X              O |
 | O           X    |   | X              O |     off 0
 +12-11-10--9--8--7-------6--5--4--3--2--1-+     X  pips 167"""

TOP = " +13-14-15-16-17-18------19-20-21-22-23-24-+"
BOTTOM = " +12-11-10--9--8--7-------6--5--4--3--2--1-+"
TOP_LEFT = " +24-23-22-21-20-19------18-17-16-15-14-13-+"
BOTTOM_LEFT = " +-1--2--3--4--5--6-------7--8--9-10-11-12-+"


def board_lines(text: str) -> list[str]:
    """The 13 lines from the top frame to the bottom frame."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(" +"))
    return lines[top : top + 13]


def cell_grid(text: str) -> list[list[str]]:
    """Per board line between the frames, the 13 three-character cells (6 points, bar, 6 points)."""
    grid = []
    for line in board_lines(text)[1:12]:
        body = line[:44].ljust(44)
        cells = [body[2 + 3 * i : 5 + 3 * i] for i in range(6)] + [body[21:24]]
        cells += [body[25 + 3 * i : 28 + 3 * i] for i in range(6)]
        grid.append(cells)
    return grid


def column(text: str, half: str, index: int) -> list[str]:
    """The stripped cells of one column, from the edge of the board inwards."""
    grid = cell_grid(text)
    rows = grid[0:5] if half == "top" else grid[10:5:-1]
    return [row[index].strip() for row in rows]


def margin(text: str) -> str:
    return "\n".join(line[44:] for line in board_lines(text))


def test_standard_start_snapshot() -> None:
    assert draw_board(Position.start(), ["Position ID: 4HPwATDgc/ABMA"]) == START


def test_frame_width_and_layout() -> None:
    lines = board_lines(draw_board(Position.start()))
    assert lines[0].startswith(TOP) and lines[-1].startswith(BOTTOM)
    assert all(len(line[:44]) == 44 for line in lines)
    assert lines[6].startswith("v|                  |BAR|                  |")
    for line in lines[1:6] + lines[7:12]:
        assert line[1] == "|" and line[20] == "|" and line[24] == "|" and line[43] == "|"


def test_returns_text_and_never_prints(capsys: pytest.CaptureFixture[str]) -> None:
    out = draw_board(Position.start("dutch"), ["Score: 0-0"])
    assert isinstance(out, str) and "Score: 0-0" in out.splitlines()[1]
    assert capsys.readouterr() == ("", "")


def test_tall_stacks_show_their_count() -> None:
    text = draw_board(Position.from_notation("P 6:13 1:2 | O 19:15"))
    assert column(text, "bottom", 12) == ["X", "X", "", "", ""]  # point 1: two checkers
    assert column(text, "bottom", 7) == ["X", "X", "X", "X", "13"]  # point 6
    assert column(text, "top", 7) == ["O", "O", "O", "O", "15"]  # point 19
    assert "pips 80" in board_lines(text)[-1]  # 6*13 + 2
    assert "pips 90" in board_lines(text)[0]  # O's 19 is his 6


def test_bar_and_off_counts() -> None:
    pos = Position.from_notation("P 19:5 | O 6:4 | bar P2 O1 | off P8 O10")
    text = draw_board(pos)
    assert column(text, "top", 6) == ["O", "", "", "", ""]  # O's bar checker, top half
    assert column(text, "bottom", 6) == ["X", "X", "", "", ""]
    lines = board_lines(text)
    assert lines[1].endswith("off 10") and lines[11].endswith("off 8")


def test_dutch_shows_reserves_and_lock_flags() -> None:
    pos = Position.from_notation("P 20:1 4:1 | O 16:1 | res P13 O14 | unlocked | olocked", "dutch")
    lines = board_lines(draw_board(pos))
    assert lines[2].endswith("reserve 14") and lines[3].endswith("locked: may not hit yet")
    assert lines[10].endswith("reserve 13") and lines[9].endswith("unlocked: may hit")
    start = margin(draw_board(Position.start("dutch")))
    assert start.count("reserve 15") == 2 and start.count("locked: may not hit yet") == 2


def test_standard_has_no_reserve_lock_or_legend() -> None:
    text = draw_board(Position.start())
    assert "reserve" not in text and "lock" not in text and "pinned" not in text


def test_mahbusa_pins_are_drawn_under_the_stack() -> None:
    pos = Position.from_notation("P 24:13 10:1+o | O 20:1+p 1:13", "mahbusa")
    text = draw_board(pos)
    assert column(text, "bottom", 2) == ["o", "X", "", "", ""]  # point 10: O pinned under X
    assert column(text, "top", 7 + 1) == ["x", "O", "", "", ""]  # point 20: X pinned under O
    assert "pinned" in text.splitlines()[-1]  # the legend
    assert "pinned" not in draw_board(Position.start("mahbusa"))


def test_pinned_tall_stack_counts_the_pinners() -> None:
    pos = Position.from_notation("P 24:7 1:6+o | O 12:14", "mahbusa")
    assert column(draw_board(pos), "bottom", 12) == ["o", "X", "X", "X", "6"]


def test_game_over_is_shown() -> None:
    won = Position.from_notation("P 8:14 1:1+o | O 20:14 | over", "mahbusa")
    assert "game over: X wins 2 (mother)" in draw_board(won)
    gammon = Position.from_notation("P | O 19:15 | off P15")
    assert "game over: X wins 2 (gammon)" in draw_board(gammon)


def test_dice_and_names() -> None:
    text = draw_board(Position.start(), dice=(6, 5), names=("ann", "bob"))
    lines = board_lines(text)
    assert lines[6].endswith("X to play 6-5")
    assert "X: ann" in lines[12] and "O: bob" in lines[0]


@pytest.mark.parametrize("variant", ["standard", "dutch", "mahbusa"])
def test_home_side_left_mirrors_the_drawing_only(variant: str) -> None:
    pos = Position.from_notation("P 24:1 13:4 8:3 6:5 | O 19:5 17:3 12:4 1:2 | bar P2 O1", "standard")
    if variant == "dutch":
        pos = Position.from_notation("P 21:1 13:4 6:5 | O 12:4 1:2 | bar P1 | res P4 O9", "dutch")
    if variant == "mahbusa":
        pos = Position.from_notation("P 24:10 13:3 4:1+o | O 20:2+p 1:12", "mahbusa")
    right = draw_board(pos)
    left = draw_board(pos, home_side="left")
    assert board_lines(left)[0].startswith(TOP_LEFT) and board_lines(left)[-1].startswith(BOTTOM_LEFT)
    for r, l in zip(cell_grid(right), cell_grid(left), strict=True):
        assert l == r[::-1]
    assert margin(left) == margin(right)


def test_drawn_from_the_other_side() -> None:
    pos = Position.from_notation("P 24:2 13:5 8:3 6:4 | O 19:5 17:3 12:5 1:2")
    text = draw_board(pos, on_roll_at_bottom=False)
    lines = board_lines(text)
    assert lines[6].startswith("^|") and lines[6].endswith("X on roll")
    # O's view: O's 6-point (X's 19) is bottom right, with 5 O checkers; X's 6-point is O's 19.
    assert column(text, "bottom", 7) == ["O", "O", "O", "O", "O"]
    assert column(text, "top", 7) == ["X", "X", "X", "X", ""]
    assert "X  pips 161" in lines[0] and "O  pips 167" in lines[12]


def test_bad_home_side() -> None:
    with pytest.raises(ValueError):
        draw_board(Position.start(), home_side="up")  # type: ignore[arg-type]
