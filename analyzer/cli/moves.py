"""``bgreview moves``: every legal play of a roll."""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import Annotated

import typer
from rich.console import Console

from analyzer._read import bounded_lines
from analyzer.cli.base import app
from analyzer.cli.common import OutputFormat, fail, input_error, position_argument, variant_help
from analyzer.core.errors import InputError, printable
from analyzer.core.ids import parse_position_spec
from analyzer.render.terminal import Col, fitted_table, print_view
from analyzer.rules.listing import legal_play_rows, moves_batch_line, parse_dice_text


@app.command()
def moves(
    position: Annotated[str | None, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")] = None,
    dice: Annotated[str | None, typer.Option(
        "--dice", "-d", help="The roll, e.g. 31 or 6-6 (default: the roll an XGID or Match ID carries).")] = None,
    variant: Annotated[str | None, typer.Option(help=variant_help("{names} (for IDs without one)."))] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
    batch: Annotated[str | None, typer.Option(
        help="JSON-lines file of {position, dice} (- for stdin): one JSON line out per line in.")] = None,
) -> None:
    """List every legal play of a roll with its resulting position."""
    if batch is not None:
        if position is not None or dice is not None:
            fail("--batch takes no POSITION or --dice")
        try:
            # bytes: lines end at \n only, and a line that is not UTF-8 fails alone
            handle = sys.stdin.buffer if batch == "-" else open(batch, "rb")  # noqa: SIM115
        except OSError as e:
            fail(f"{batch}: {e.strerror}")

        try:  # a line longer than 64 KiB (an endless one: /dev/zero) ends the batch with an error
            for number, line in enumerate(bounded_lines(handle, name="<stdin>" if batch == "-" else batch), 1):
                sys.stdout.write(json.dumps(moves_batch_line(line, variant, number)) + "\n")
                sys.stdout.flush()
        except InputError as e:
            input_error(e)
        except OSError as e:
            fail(f"{batch}: {e.strerror}")
        finally:
            if batch != "-":
                handle.close()
        return
    if position is None:
        fail("give a POSITION and --dice (or --batch FILE)")
    try:
        spec = parse_position_spec(position_argument(position), variant=variant)
        roll = parse_dice_text(dice) if dice is not None else spec.dice  # an XGID or Match ID may carry it
        if roll is None:
            fail(f"no roll: {printable(position)} carries no dice; give --dice (e.g. --dice 31)")
        pos = spec.position
        # one query: the reference generator answers without loading the compiler
        rows = legal_play_rows(pos, roll, compiled=False)
    except InputError as e:
        input_error(e)
    shown = f"{roll[0]}{roll[1]}"
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps({"plays": rows}) + "\n")
        return
    idcol = "position_id" if pos.spec.gnubg_ids else "key"
    if fmt is OutputFormat.csv:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["n", "play", idcol])
        for i, r in enumerate(rows, 1):
            w.writerow([i, r["play"], r[idcol]])
        sys.stdout.write(buf.getvalue())
        return


    console = Console()
    head = "result " + ("Position ID" if idcol == "position_id" else "key")
    cols = [Col("#"), Col("play", "left", wrap=True), Col(head, "left")]
    table = fitted_table(cols, [[str(i), r["play"], r[idcol]] for i, r in enumerate(rows, 1)], width=console.width,
                         title=f"{len(rows)} legal plays for the roll {shown}" if rows else f"{shown}: no legal play")
    print_view(console, table)
