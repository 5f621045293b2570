"""ASCII boards in the familiar gnubg layout, for every variant.

The side on roll is ``X`` and its opponent ``O``. By default ``X`` sits at the bottom with its
home board bottom right, as gnubg draws it::

     +13-14-15-16-17-18------19-20-21-22-23-24-+     O  pips 167
     | X           O    |   | O              X |     off 0
     ...
    v|                  |BAR|                  |     X on roll
     ...
     +12-11-10--9--8--7-------6--5--4--3--2--1-+     X  pips 167

Each point shows up to five checkers; a taller stack shows its count in the fifth row. The bar
column holds the checkers on the bar (the top player's in the top half). To the right of the
board stand each side's pip count and borne-off count and, in Dutch backgammon, its reserve
(checkers not yet entered) and its hitting lock. In Mahbusa a pinned checker is drawn under the
stack that pins it, at the edge of the board, in lower case (``x`` or ``o``), and a legend says
so. ``home_side="left"`` mirrors the drawing only; the numbering never changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from analyzer.core.position import Position
from analyzer.rules import find_variant

STACK_ROWS = 5
MARGIN = "     "
PIN_LEGEND = " x / o: a pinned X / O checker, drawn under the stack that pins it"

HomeSide = Literal["right", "left"]


def draw_board(
    pos: Position,
    header: Sequence[str] = (),
    *,
    home_side: HomeSide = "right",
    on_roll_at_bottom: bool = True,
    dice: tuple[int, int] | None = None,
    names: tuple[str, str] = ("", ""),
) -> str:
    """Draw ``pos`` as text; returns the board (lines joined by newlines, no final newline).

    ``header`` lines (position IDs, score, cube text) are printed under the title line.
    ``names`` are the names of the side on roll (``X``) and of its opponent (``O``). ``dice``,
    when given, is shown as the roll to play. ``home_side="left"`` draws the board mirrored;
    ``on_roll_at_bottom=False`` draws it from ``O``'s side, with ``X`` at the top.

    >>> board = draw_board(Position.start(), ["Position ID: 4HPwATDgc/ABMA"])
    >>> print(board.splitlines()[2])
     +13-14-15-16-17-18------19-20-21-22-23-24-+     O  pips 167
    >>> print(board.splitlines()[8])
    v|                  |BAR|                  |     X on roll
    >>> print(draw_board(Position.start(), home_side="left").splitlines()[-1])
     +-1--2--3--4--5--6-------7--8--9-10-11-12-+     X  pips 167
    """
    if home_side not in ("right", "left"):
        raise ValueError(f"home_side must be 'right' or 'left', not {home_side!r}")
    # ``view`` is the position seen from the side drawn at the bottom.
    view = pos if on_roll_at_bottom else pos.flip()
    low, high = ("X", "O") if on_roll_at_bottom else ("O", "X")
    low_name, high_name = names if on_roll_at_bottom else (names[1], names[0])

    top_points = list(range(13, 25))  # left to right with the home board on the right
    bottom_points = list(range(12, 0, -1))
    top_cols = [_point_column(view, p, low, high) for p in top_points]
    bottom_cols = [_point_column(view, p, low, high) for p in bottom_points]
    top_bar = [high] * view.opponent_bar
    bottom_bar = [low] * view.mover_bar

    notes = _notes(pos, view, low, high, low_name, high_name, dice)
    lines = [f" bgreview  {pos.spec.board_title}"]
    lines += [f" {h}" for h in header]
    lines.append(_frame(top_points, home_side) + _note(notes, 0))
    for row in range(STACK_ROWS):
        lines.append(" " + _row(top_cols, top_bar, row, home_side) + _note(notes, 1 + row))
    arrow = "v" if on_roll_at_bottom else "^"
    lines.append(arrow + "|" + " " * 18 + "|BAR|" + " " * 18 + "|" + _note(notes, 6))
    for row in range(STACK_ROWS - 1, -1, -1):
        lines.append(" " + _row(bottom_cols, bottom_bar, row, home_side) + _note(notes, 11 - row))
    lines.append(_frame(bottom_points, home_side) + _note(notes, 12))
    if view.pinned_mover or view.pinned_opponent:
        lines.append(PIN_LEGEND)
    return "\n".join(line.rstrip() for line in lines)


def _point_column(view: Position, p: int, low: str, high: str) -> list[str]:
    """Glyphs of point ``p`` from the edge of the board inwards (a pinned checker first)."""
    own, other = view.mover[p - 1], view.opponent[p - 1]
    if p in view.pinned_opponent:  # an ``high`` checker under the bottom side's stack
        return [high.lower()] + [low] * own
    if p in view.pinned_mover:
        return [low.lower()] + [high] * other
    if own:
        return [low] * own
    return [high] * other


def _cell(col: list[str], row: int) -> str:
    """The 3-character cell of ``col`` in ``row`` (0 = at the edge of the board)."""
    if len(col) > STACK_ROWS and row == STACK_ROWS - 1:
        stacked = len(col) - (1 if col[0].islower() else 0)
        return str(stacked).center(3)
    if row < len(col):
        return f" {col[row]} "
    return "   "


def _row(cols: list[list[str]], bar: list[str], row: int, home_side: HomeSide) -> str:
    cells = [_cell(c, row) for c in cols]
    left, right = "".join(cells[:6]), "".join(cells[6:])
    if home_side == "left":
        left, right = "".join(reversed(cells[6:])), "".join(reversed(cells[:6]))
    return "|" + left + "|" + _cell(bar, row) + "|" + right + "|"


def _frame(points: list[int], home_side: HomeSide) -> str:
    if home_side == "left":
        points = points[::-1]
    labels = [f"{p:->2}" for p in points]
    return " +" + "-".join(labels[:6]) + "------" + "-".join(labels[6:]) + "-+"


def _note(notes: dict[int, str], line: int) -> str:
    text = notes.get(line)
    return MARGIN + text if text else ""


def _notes(pos: Position, view: Position, low: str, high: str, low_name: str, high_name: str,
           dice: tuple[int, int] | None) -> dict[int, str]:
    """The right-hand margin: line index (0 = top frame, 6 = bar row, 12 = bottom frame) -> text."""
    m_pips, o_pips = view.pips()
    notes = {
        0: _side_title(high, high_name, o_pips),
        1: f"off {view.opponent_off}",
        11: f"off {view.mover_off}",
        12: _side_title(low, low_name, m_pips),
    }
    if pos.spec.reserve:
        notes[2] = f"reserve {view.opponent_reserve}"
        notes[10] = f"reserve {view.mover_reserve}"
    if pos.spec.hit_lock:
        notes[3] = _lock_text(view.opponent_can_hit)
        notes[9] = _lock_text(view.mover_can_hit)
    notes[6] = _turn_text(pos, dice)
    return notes


def _side_title(glyph: str, name: str, pips: int) -> str:
    return f"{glyph}{': ' + name if name else ''}  pips {pips}"


def _lock_text(can_hit: bool) -> str:
    return "unlocked: may hit" if can_hit else "locked: may not hit yet"


def _turn_text(pos: Position, dice: tuple[int, int] | None) -> str:
    outcome = find_variant(pos.variant).outcome(pos)
    if outcome is not None:
        if outcome.kind == "draw":
            return "game over: draw"
        winner = "X" if outcome.winner == 0 else "O"
        return f"game over: {winner} wins {outcome.points} ({outcome.kind})"
    if dice is not None:
        return f"X to play {dice[0]}-{dice[1]}"
    return "X on roll"
