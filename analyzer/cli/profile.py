"""``bgreview profile``: where a player's equity goes, from a batch dataset."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from analyzer.batch.profile import player_profile, profile_table
from analyzer.cli.base import app
from analyzer.cli.common import OutputFormat, fail
from analyzer.render.tables import json_text
from analyzer.render.terminal import Col, fitted_table, print_view, prose

SHOWN = 12
"""Classes of a dimension the terminal table shows (largest share first); csv and json have all."""

WORST_DIMENSIONS = ("kind", "cube error", "theme")
"""The dimensions whose worst decisions the terminal lists (the others' are the same decisions again)."""


def _f(x: float | None, fmt: str = ".1f") -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.0f}%"


@app.command()
def profile(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder written by `bgreview batch` (with analysis).")],
    player: Annotated[str, typer.Option("--player", "-p", help="The player (names equal but for case are one).")],
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
    variant: Annotated[str | None, typer.Option(
        help="standard, dutch or mahbusa (default: the game the player has most decisions in).")] = None,
    top: Annotated[int, typer.Option("--top", help="Worst decisions shown per class.")] = 3,
) -> None:
    """Where the player's equity goes, in mEMG per decision and share of the loss: by theme, decision kind,
    cube error, score situation, away score and game phase, beside the archive's other players (their
    median, the share of them who lose more), with the number of decisions, a 95% interval (normal
    approximation of the mean), the earlier and later halves of the player's matches, the trend by
    month, the worst decisions of each class (IDs and their match report) and a summary in words.

    Exit codes: 0 written, 2 not an analysed dataset or no decision of the player.
    """
    if top < 0:
        fail(f"--top {top}: give 0 or more")
    try:
        p = player_profile(dataset, player, variant=variant, top=top)
    except (FileNotFoundError, LookupError) as e:
        fail(str(e).strip("'\""))
    if fmt is OutputFormat.json:
        sys.stdout.write(json_text(p.as_dict()))
        return
    if fmt is OutputFormat.csv:
        sys.stdout.write(profile_table(p).write_csv())
        return


    console = Console(highlight=False, markup=False, emoji=False)
    unit = "mEMG" if p.unit == "EMG" else "mpt"
    head = (f"{p.player}: {p.decisions:,} unforced decisions in {p.matches:,} "
            f"match{'es' if p.matches != 1 else ''} ({p.variant}); "
            f"{_f(p.memg)} {unit}/decision [{_f(p.ci_low)}, {_f(p.ci_high)}], others' median "
            f"{_f(p.peer_median)} over {p.peers}, {_pct(p.better_than)} of them lose more")
    console.print(prose(head, console.width))
    console.print(prose(p.summary, console.width))
    cols = [Col("class", "left"), Col("n"), Col(f"{unit}/dec"), Col("95% interval"), Col("share"),
            Col("others"), Col("lose more"), Col("early"), Col("late")]
    dims: dict[str, list[list[str]]] = {}
    for dim in dict.fromkeys(c.dimension for c in p.classes):
        classes = sorted(p.dimension(dim), key=lambda c: (-c.share, -c.decisions, c.label))
        rows = dims.setdefault(dim, [])
        for c in classes[:SHOWN]:
            rows.append([c.label, f"{c.decisions:,}", _f(c.memg), f"{_f(c.ci_low)} to {_f(c.ci_high)}",
                         _pct(c.share), f"{_f(c.peer_median)} ({c.peers})" if c.peers else "",
                         _pct(c.better_than), _f(c.early), _f(c.late)])
        left = classes[SHOWN:]
        if left:
            rows.append([f"{len(left)} more (--format csv)", f"{sum(c.decisions for c in left):,}", "", "",
                         _pct(sum(c.share for c in left)), "", "", "", ""])
    for dim, rows in dims.items():
        print_view(console, fitted_table(cols, rows, width=console.width, title=f"by {dim}"))
    trend_cols = [Col(p.trend_by, "left"), Col("matches"), Col("n"), Col(f"{unit}/dec"), Col("95% interval")]
    print_view(console, fitted_table(trend_cols, [[t.period, str(t.matches), f"{t.decisions:,}", _f(t.memg),
                                                   f"{_f(t.ci_low)} to {_f(t.ci_high)}"] for t in p.trend],
                                     width=console.width, title="trend"))
    if top:
        lines = ["worst decisions by kind, cube error and theme (--format json: every class; bgreview report: "
                 "with boards and links into the match reports)"]
        for c in p.classes:
            if c.dimension not in WORST_DIMENSIONS or not c.worst:
                continue
            lines.append(f"{c.dimension}: {c.label}")
            for w in c.worst:
                made = f"{w.dice or ''} {w.played}".strip()
                lines.append(f"  {_f(1000 * w.equity_loss):>6} {unit}  played {made}, "
                             f"best {w.best}; {w.file} #{w.match_index} game {w.game} move {w.move_no}; "
                             f"{w.xgid or w.key}")
        console.print(Text("\n".join(lines), no_wrap=False, overflow="fold"))
