"""Rendering of positions and reports (text only here; never prints).

>>> from analyzer.core.position import Position
>>> draw_board(Position.start("mahbusa")).splitlines()[0]
' bgreview  Mahbusa (Plakoto)'
"""

from __future__ import annotations

from analyzer.render.board_ascii import draw_board

__all__ = ["draw_board"]
