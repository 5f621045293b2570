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
from rich.console import Console

from analyzer.analysis.decisions import hint as cubeful_hint
from analyzer.cli.base import app
from analyzer.cli.common import (
    OutputFormat,
    fail,
    input_error,
    position_argument,
    variant_help,
)
from analyzer.cli.engines import check_ply, standard_engine, variant_engine
from analyzer.core.errors import InputError, printable
from analyzer.core.ids import parse_position_spec
from analyzer.core.match import MatchState
from analyzer.core.variants import draws
from analyzer.eval.met import met_by_name
from analyzer.render.terminal import (
    Col,
    fitted_table,
    hint_table,
    no_cube_note,
    print_view,
    variant_columns,
    variant_eval_table,
    variant_hint_table,
)
from analyzer.rules.listing import parse_dice_text

_PROB_COLS = ("win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon")
_HEAD = ("Win", "W g", "W bg", "Lose", "L g", "L bg")


def _load(position: str, variant: str | None) -> Any:
    try:
        return parse_position_spec(position_argument(position), variant=variant).position
    except InputError as e:
        input_error(e)


def _variant_fields(variant: str) -> tuple[str, ...]:
    return tuple(name for name, _ in variant_columns(variant))


def _variant_dict(probs: Any, variant: str) -> dict[str, Any]:
    """The chances of a variant result as in the standard output, plus ``draw`` in Mahbusa."""
    d: dict[str, Any] = probs.as_dict()
    if draws(variant):
        d["draw"] = probs.draw
    return d


def _print(renderable: Any) -> None:
    """Print a view of :mod:`analyzer.render.terminal` at the terminal's width."""
    print_view(Console(), renderable)


def _width() -> int:
    return Console().width


def _variant_eval(position: str, pos: Any, ply: int, fmt: OutputFormat) -> None:
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
    _print(variant_eval_table(evals, variant, width=_width()))


def _variant_hint(position: str, pos: Any, roll: tuple[int, int], ply: int, top: int, fmt: OutputFormat) -> None:
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
    _print(variant_hint_table(shown, roll, variant, total=len(ranked), width=_width()))


@app.command("eval")
def eval_cmd(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead (gnubg numbering: 0 = raw net).")] = 0,
    variant: Annotated[str | None, typer.Option(help=variant_help("Variant for IDs without one ({list})."))]
    = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
) -> None:
    """Cubeless probabilities and equity of a position for the side on roll (0..ply).

    Dutch and Mahbusa positions are evaluated by the variant engine (0..2 ply, no cube: equities
    are expected points of one game; Mahbusa adds the draw).
    """
    pos = _load(position, variant)
    check_ply(ply, pos.variant)
    if not pos.spec.has_cube:
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

    cols = [Col("ply"), *(Col(h, drop=2 if h in ("W bg", "L bg", "Lose") else 0) for h in _HEAD), Col("Equity")]
    rows_text = [[f"{r['ply']}-ply", *(f"{r[c]:.3f}" for c in _PROB_COLS), f"{r['equity']:+.3f}"] for r in rows]
    _print(fitted_table(cols, rows_text, width=_width(), title="Cubeless evaluation (side on roll)"))


@app.command()
def hint(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    dice: Annotated[str | None, typer.Option(
        "--dice", "-d", help="The roll, e.g. 31 or 6-6 (default: the roll an XGID or Match ID carries).")] = None,
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead for the filtered plays.")] = 2,
    top: Annotated[int, typer.Option("--top", "-n", help="Show this many plays.")] = 10,
    variant: Annotated[str | None, typer.Option(help=variant_help("Variant for IDs without one ({list})."))]
    = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
    cubeless: Annotated[bool, typer.Option(
        "--cubeless", help="Rank by cubeless equity instead of cubeful (standard only).")] = False,
) -> None:
    """Rank the legal plays of a roll (gnubg-style analysis filter: 16 plays within 0.32).

    The roll is --dice, or else the one a pasted XGID or PositionID:MatchID carries. The plays
    are ranked cubefully, as gnubg and XG rank them and as ``position --dice`` and ``analyze``
    do: at a match score (an XGID or Match ID of a match) by cubeful EMG at that score and cube;
    in money play by cubeful money equity per cube, with the cube position, Jacoby and beavers
    the ID sets (a bare Position ID: money, cube centred). ``--cubeless`` ranks by cubeless
    equity instead. Dutch and Mahbusa positions are ranked by the variant engine (0..2 ply) in
    cubeless expected points (no cube in these games; Mahbusa adds the draw).
    """
    try:
        spec = parse_position_spec(position_argument(position), variant=variant)
        roll = parse_dice_text(dice) if dice is not None else spec.dice
    except InputError as e:
        input_error(e)
    if roll is None:
        fail(f"no roll: {printable(position)} carries no dice; give --dice (e.g. --dice 31)")
    pos = spec.position
    check_ply(ply, pos.variant)
    if not pos.spec.has_cube:
        _variant_hint(position, pos, roll, ply, top, fmt)
        return
    eng = standard_engine()
    cubeful = not cubeless
    match = spec.match is not None and not spec.match.is_money
    plays: list[Any]
    if cubeful:
        state = spec.match if spec.match is not None else MatchState()
        me = spec.on_roll if spec.on_roll is not None else 0
        plays = cubeful_hint(eng, pos, roll, state, me, ply=ply, met=met_by_name() if match else None)
    else:
        plays = eng.rank_plays(pos, roll, ply)
    best = plays[0].equity
    rows: list[dict[str, Any]] = []
    for rp in plays[: max(top, 1)]:
        d: dict[str, Any] = {"play": rp.play, "ply": rp.ply, "equity": rp.equity, "diff": rp.equity - best}
        d.update({k: v for k, v in rp.probabilities.as_dict().items() if k != "equity"})
        rows.append(d)
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps({"position": position, "dice": list(roll),
                                     "equity": _equity_kind(cubeful, match), "plays": rows}) + "\n")
        return
    if fmt is OutputFormat.csv:
        sys.stdout.write("n,play,ply,equity,diff," + ",".join(_PROB_COLS) + "\n")
        for i, r in enumerate(rows, 1):
            sys.stdout.write(f"{i},{r['play']},{r['ply']},{r['equity']:+.4f},{r['diff']:+.4f},"
                             + ",".join(f"{r[c]:.4f}" for c in _PROB_COLS) + "\n")
        return

    _print(hint_table(plays[: max(top, 1)], roll, match=match, cubeful=cubeful, total=len(plays), width=_width()))


def _equity_kind(cubeful: bool, match: bool) -> str:
    """The unit of ``hint``'s equities in its JSON output.

    >>> _equity_kind(True, True), _equity_kind(True, False), _equity_kind(False, True)
    ('cubeful EMG', 'cubeful money', 'cubeless')
    """
    if not cubeful:
        return "cubeless"
    return "cubeful EMG" if match else "cubeful money"
