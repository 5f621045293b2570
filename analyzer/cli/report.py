"""``bgreview report``: charts, tables and an HTML index of a batch dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from analyzer.batch import write_batch_report
from analyzer.batch.report import load_aliases
from analyzer.cli.base import app
from analyzer.cli.common import error_console, fail, input_error
from analyzer.core.errors import InputError, shorten


@app.command()
def report(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder written by `bgreview batch`.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Report folder (default DATASET/report).")]
    = None,
    match_reports: Annotated[bool, typer.Option("--match-reports/--no-match-reports",
                                                help="Also write the HTML report of every analysed match.")]
    = True,
    aliases: Annotated[Path | None, typer.Option(
        "--aliases", help="Player aliases: a JSON object {\"alias\": \"name\"} or lines alias<TAB>name.")] = None,
    profiles: Annotated[int | None, typer.Option(
        "--profiles", help="Profile pages for the N players with the most decisions (default: every "
        "player; 0: none).")] = None,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress",
                                                  help="Progress bar on stderr (default: on a terminal).")] = None,
) -> None:
    """Write the players table, PR-over-time charts, the error mix by game phase, each player's profile
    page (see `bgreview profile`) and index.html.

    Players whose names differ only in case are one player; --aliases joins other spellings.
    Exit codes: 0 written, 2 not a batch dataset or an unreadable alias file.
    """
    if profiles is not None and profiles < 0:
        fail(f"--profiles {profiles}: give 0 or more")
    names: dict[str, str] | None = None
    if aliases is not None:
        try:
            names = load_aliases(aliases)
        except InputError as e:
            input_error(e)
    err = error_console()
    show = err.is_terminal if progress is None else progress
    bar = Progress(TextColumn("report"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   console=err, disable=not show, transient=True)
    with bar:
        task = bar.add_task("report", total=None)

        def tick(done: int, total: int, _task: Any = task) -> None:
            bar.update(_task, completed=done, total=total)

        try:
            result = write_batch_report(dataset, out, match_reports=match_reports, aliases=names, progress=tick,
                                        profiles=profiles)
        except FileNotFoundError as e:
            fail(str(e))
        except OSError as e:  # a name too long, a folder that cannot be read or written (named by the error)
            fail(f"{shorten(str(e.filename or dataset), 300)}: {e.strerror or e}")
    typer.echo(f"{result.index} ({len(result.files)} files, {result.match_reports} match reports)")
