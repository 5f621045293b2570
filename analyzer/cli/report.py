"""``bgreview report``: charts, tables and an HTML index of a batch dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from analyzer.cli import app
from analyzer.cli.common import fail


@app.command()
def report(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder written by `bgreview batch`.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Report folder (default DATASET/report).")]
    = None,
    match_reports: Annotated[bool, typer.Option("--match-reports/--no-match-reports",
                                                help="Also write the HTML report of every analysed match.")]
    = True,
) -> None:
    """Write the players table, PR-over-time charts, the error mix by game phase and index.html.

    Exit codes: 0 written, 2 not a batch dataset.
    """
    from analyzer.batch import write_batch_report

    try:
        result = write_batch_report(dataset, out, match_reports=match_reports)
    except FileNotFoundError as e:
        fail(str(e))
    typer.echo(f"{result.index} ({len(result.files)} files, {result.match_reports} match reports)")
