"""``bgreview show``: a position as an ASCII board with its identifiers."""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Annotated

import typer

from analyzer.cli.base import app
from analyzer.cli.common import input_error, position_argument, variant_help
from analyzer.core.errors import InputError
from analyzer.core.ids import parse_position_spec
from analyzer.render.position_text import show_position, show_position_data


class HomeSideOpt(str, Enum):
    right = "right"
    left = "left"


class ShowFormat(str, Enum):
    table = "table"
    json = "json"


@app.command()
def show(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    variant: Annotated[str | None, typer.Option(help=variant_help("{names} (for IDs without one)."))] = None,
    home_side: Annotated[HomeSideOpt, typer.Option("--home-side", help="Draw the home board on this side.")]
    = HomeSideOpt.right,
    fmt: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
) -> None:
    """Draw a position with pip counts, turn, cube, score and its IDs (a finished game too: it says so)."""
    try:
        # a finished game can be drawn (the result of a game-ending play), not played
        spec = parse_position_spec(position_argument(position), variant=variant, allow_finished=True)
        over = spec.game_over()
        if fmt is ShowFormat.json:
            data = show_position_data(spec)
            if over is not None:
                data["game_over"] = over
            sys.stdout.write(json.dumps(data) + "\n")
            return
        text = show_position(spec, home_side="left" if home_side is HomeSideOpt.left else "right")
    except InputError as e:
        input_error(e)
    if over is not None:
        text += f"\nGame over: {over}."
    sys.stdout.write(text + "\n")
