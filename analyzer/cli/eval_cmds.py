"""``bgreview eval`` and ``bgreview hint``: cubeless evaluation and play ranking (standard)."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from analyzer.cli import app
from analyzer.cli.common import OutputFormat, fail, input_error
from analyzer.core.errors import InputError

_PROB_COLS = ("win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon")
_HEAD = ("Win", "W g", "W bg", "Lose", "L g", "L bg")


def _load(position: str, variant: str | None) -> Any:
    from analyzer.core.ids import parse_position_spec

    try:
        pos = parse_position_spec(position, variant=variant).position
    except InputError as e:
        input_error(e)
    if pos.variant != "standard":
        fail(f"the evaluator handles standard backgammon only (got {pos.variant})")
    return pos


def _engine() -> Any:
    from analyzer.eval.engine import Engine

    try:
        return Engine()
    except FileNotFoundError as e:
        fail(f"evaluator weights not found: {e.filename}")


def _check_ply(ply: int) -> None:
    from analyzer.eval.engine import MAX_PLY

    if not 0 <= ply <= MAX_PLY:
        fail(f"--ply must be 0..{MAX_PLY}")


@app.command("eval")
def eval_cmd(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead (gnubg numbering: 0 = raw net).")] = 0,
    variant: Annotated[str | None, typer.Option(help="Variant for IDs without one (standard only).")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
) -> None:
    """Cubeless probabilities and equity of a position for the side on roll (0..ply)."""
    _check_ply(ply)
    pos = _load(position, variant)
    eng = _engine()
    rows = []
    for k in range(ply + 1):
        d = eng.evaluate(pos, k).as_dict()
        d["ply"] = k
        rows.append(d)
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps({"position": position, "evaluations": rows}) + "\n")
        return
    if fmt is OutputFormat.csv:
        sys.stdout.write("ply," + ",".join(_PROB_COLS) + ",equity\n")
        for r in rows:
            sys.stdout.write(f"{r['ply']}," + ",".join(f"{r[c]:.4f}" for c in _PROB_COLS)
                             + f",{r['equity']:+.4f}\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Cubeless evaluation (side on roll)")
    table.add_column("ply", justify="right")
    for h in _HEAD:
        table.add_column(h, justify="right")
    table.add_column("Equity", justify="right")
    for r in rows:
        table.add_row(f"{r['ply']}-ply", *(f"{r[c]:.3f}" for c in _PROB_COLS), f"{r['equity']:+.3f}")
    Console(width=max(Console().width, 110)).print(table)


@app.command()
def hint(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    dice: Annotated[str, typer.Option("--dice", "-d", help="The roll, e.g. 31 or 6-6.")],
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead for the filtered plays.")] = 2,
    top: Annotated[int, typer.Option("--top", "-n", help="Show this many plays.")] = 10,
    variant: Annotated[str | None, typer.Option(help="Variant for IDs without one (standard only).")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
) -> None:
    """Rank the legal plays of a roll (gnubg-style analysis filter: 16 plays within 0.32)."""
    from analyzer.rules.listing import parse_dice_text

    _check_ply(ply)
    pos = _load(position, variant)
    try:
        roll = parse_dice_text(dice)
    except InputError as e:
        input_error(e)
    eng = _engine()
    ranked = eng.rank_plays(pos, roll, ply)
    best = ranked[0].equity
    rows = []
    for r in ranked[: max(top, 1)]:
        d: dict[str, Any] = {"play": r.play, "ply": r.ply, "equity": r.equity, "diff": r.equity - best}
        d.update({k: v for k, v in r.probabilities.as_dict().items() if k != "equity"})
        rows.append(d)
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps({"position": position, "dice": list(roll), "plays": rows}) + "\n")
        return
    if fmt is OutputFormat.csv:
        sys.stdout.write("n,play,ply,equity,diff," + ",".join(_PROB_COLS) + "\n")
        for i, r in enumerate(rows, 1):
            sys.stdout.write(f"{i},{r['play']},{r['ply']},{r['equity']:+.4f},{r['diff']:+.4f},"
                             + ",".join(f"{r[c]:.4f}" for c in _PROB_COLS) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(ranked)} plays of {roll[0]}{roll[1]} (cubeless equity, side on roll)")
    table.add_column("#", justify="right")
    table.add_column("ply", justify="right")
    table.add_column("play", no_wrap=True)
    table.add_column("Equity", justify="right")
    table.add_column("diff", justify="right")
    for h in _HEAD:
        table.add_column(h, justify="right")
    for i, r in enumerate(rows, 1):
        table.add_row(str(i), f"{r['ply']}", r["play"] or "(no move)", f"{r['equity']:+.3f}",
                      "" if i == 1 else f"{r['diff']:+.3f}", *(f"{r[c]:.3f}" for c in _PROB_COLS))
    Console(width=max(Console().width, 110)).print(table)
