"""``bgreview eval`` and ``bgreview hint``: cubeless evaluation and play ranking.

Standard positions go to the standard engine (0..3 ply); Dutch and Mahbusa positions (the JSON
form and keys carry the variant, ``--variant`` names it for gnubg IDs and XGIDs) to the variant
engine of :func:`analyzer.eval.variants.engine.engine_for` (0..2 ply). The variants have no cube:
their equities are cubeless expected points of one game, and the output says so.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from analyzer.cli import app
from analyzer.cli.common import (
    OutputFormat,
    check_ply,
    input_error,
    position_argument,
    standard_engine,
    variant_engine,
)
from analyzer.core.errors import InputError

_PROB_COLS = ("win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon")
_HEAD = ("Win", "W g", "W bg", "Lose", "L g", "L bg")


def _load(position: str, variant: str | None) -> Any:
    from analyzer.core.ids import parse_position_spec

    try:
        return parse_position_spec(position_argument(position), variant=variant).position
    except InputError as e:
        input_error(e)


def _variant_fields(variant: str) -> tuple[str, ...]:
    from analyzer.render.terminal import variant_columns

    return tuple(name for name, _ in variant_columns(variant))


def _variant_dict(probs: Any, variant: str) -> dict[str, Any]:
    """The chances of a variant result as in the standard output, plus ``draw`` in Mahbusa."""
    d: dict[str, Any] = probs.as_dict()
    if variant == "mahbusa":
        d["draw"] = probs.draw
    return d


def _print(renderable: Any) -> None:
    from rich.console import Console

    Console(width=max(Console().width, 110)).print(renderable)


def _variant_eval(position: str, pos: Any, ply: int, fmt: OutputFormat) -> None:
    from analyzer.render.terminal import no_cube_note, variant_eval_table

    variant = pos.variant
    eng = variant_engine(variant)
    evals = [(k, eng.evaluate(pos, k)) for k in range(ply + 1)]
    if fmt is OutputFormat.json:
        rows = [{**_variant_dict(p, variant), "ply": k} for k, p in evals]
        sys.stdout.write(json.dumps({"position": position, "variant": variant, "cube": None,
                                     "note": no_cube_note(variant), "evaluations": rows}) + "\n")
        return
    if fmt is OutputFormat.csv:
        cols = _variant_fields(variant)
        sys.stdout.write("ply," + ",".join(cols) + ",equity\n")
        for k, p in evals:
            sys.stdout.write(f"{k}," + ",".join(f"{getattr(p, c):.4f}" for c in cols) + f",{p.equity:+.4f}\n")
        return
    _print(variant_eval_table(evals, variant))


def _variant_hint(position: str, pos: Any, roll: tuple[int, int], ply: int, top: int, fmt: OutputFormat) -> None:
    from analyzer.render.terminal import no_cube_note, variant_hint_table

    variant = pos.variant
    ranked = variant_engine(variant).rank_plays(pos, roll, ply)
    shown = ranked[: max(top, 1)]
    best = ranked[0].equity
    if fmt is OutputFormat.json:
        rows = [{"play": r.play, "ply": r.ply, "equity": r.equity, "diff": r.equity - best,
                 **{k: v for k, v in _variant_dict(r.probabilities, variant).items() if k != "equity"}}
                for r in shown]
        sys.stdout.write(json.dumps({"position": position, "variant": variant, "cube": None,
                                     "note": no_cube_note(variant), "dice": list(roll), "plays": rows}) + "\n")
        return
    if fmt is OutputFormat.csv:
        cols = _variant_fields(variant)
        sys.stdout.write("n,play,ply,equity,diff," + ",".join(cols) + "\n")
        for i, r in enumerate(shown, 1):
            sys.stdout.write(f"{i},{r.play},{r.ply},{r.equity:+.4f},{r.equity - best:+.4f},"
                             + ",".join(f"{getattr(r.probabilities, c):.4f}" for c in cols) + "\n")
        return
    _print(variant_hint_table(shown, roll, variant, total=len(ranked)))


@app.command("eval")
def eval_cmd(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead (gnubg numbering: 0 = raw net).")] = 0,
    variant: Annotated[str | None, typer.Option(help="Variant for IDs without one (standard, dutch, mahbusa).")]
    = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
) -> None:
    """Cubeless probabilities and equity of a position for the side on roll (0..ply).

    Dutch and Mahbusa positions are evaluated by the variant engine (0..2 ply, no cube: equities
    are expected points of one game; Mahbusa adds the draw).
    """
    pos = _load(position, variant)
    check_ply(ply, pos.variant)
    if pos.variant != "standard":
        _variant_eval(position, pos, ply, fmt)
        return
    eng = standard_engine()
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
    variant: Annotated[str | None, typer.Option(help="Variant for IDs without one (standard, dutch, mahbusa).")]
    = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
) -> None:
    """Rank the legal plays of a roll (gnubg-style analysis filter: 16 plays within 0.32).

    Dutch and Mahbusa positions are ranked by the variant engine (0..2 ply) in cubeless expected
    points (no cube in these games; Mahbusa adds the draw).
    """
    from analyzer.rules.listing import parse_dice_text

    pos = _load(position, variant)
    check_ply(ply, pos.variant)
    try:
        roll = parse_dice_text(dice)
    except InputError as e:
        input_error(e)
    if pos.variant != "standard":
        _variant_hint(position, pos, roll, ply, top, fmt)
        return
    eng = standard_engine()
    ranked = eng.rank_plays(pos, roll, ply)
    best = ranked[0].equity
    rows: list[dict[str, Any]] = []
    for rp in ranked[: max(top, 1)]:
        d: dict[str, Any] = {"play": rp.play, "ply": rp.ply, "equity": rp.equity, "diff": rp.equity - best}
        d.update({k: v for k, v in rp.probabilities.as_dict().items() if k != "equity"})
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
