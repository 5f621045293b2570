"""``bgreview batch``: replay or analyse whole archives into a Parquet dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Group
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from analyzer.batch import BatchError, BatchOptions, BatchProgress, BatchResult, run_batch
from analyzer.cli.base import app
from analyzer.cli.common import error_console, fail, settings_error
from analyzer.core.errors import InputError, SettingsError, printable
from analyzer.render.terminal import Col, fitted_table


@app.command()
def batch(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Match files, folders (walked, sorted) or globs; with --resume, default: the earlier run's.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help=(
        "Dataset folder. One run at a time: a run into a folder another run is writing into is refused "
        "(exit 2), it does not wait."))] = Path("reports/batch"),
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead of the analysis (gnubg numbering).")] = 2,
    replay_only: Annotated[bool, typer.Option("--replay-only", help="Only replay (check) the matches.")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Local worker processes (default: cores).")]
    = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Dask scheduler address (tcp://host:8786) to run on instead of local cores; "
                            "'local' starts a local Dask cluster of --jobs workers for the run.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted run in --out.")] = False,
    thresholds: Annotated[str, typer.Option("--thresholds", "-t", help="Error classes: xg, gnubg or a JSON file.")]
    = "xg",
    seed: Annotated[int, typer.Option("--seed", help="Seed recorded with the outputs.")] = 0,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress",
                                                  help="Progress bar (default: on a terminal).")] = None,
    confirm: Annotated[bool, typer.Option(
        "--confirm/--no-confirm",
        help="The confirmation pass of analyze (rollouts of the decisions shown as errors, the close ones and "
             "every double, at most 10 a match); off here by default: it adds about half a minute a match.")]
    = False,
) -> None:
    """Replay or analyse every match of PATHS and write a dataset into --out.

    The dataset: decisions/ (one Parquet part per match), matches, players and errors tables
    (Parquet and CSV) and manifest.json. See docs/batch.md for the columns, Dask clusters and
    example queries. Exit codes: 0 every input read, 1 some inputs failed (listed in the errors
    table; everything else is in the dataset), 2 usage error or --out in use by another run.
    """


    if jobs is not None and jobs < 1:
        fail("--jobs must be at least 1")
    options = BatchOptions(ply=0 if replay_only else ply, replay_only=replay_only, seed=seed, thresholds=thresholds,
                           confirm=confirm and not replay_only)
    if not replay_only:  # the review each worker makes of a match, checked once here
        try:
            options.review()
        except SettingsError as e:
            settings_error(e)
        except ValueError as e:  # the thresholds
            fail(str(e))
    err = error_console()
    show = err.is_terminal if progress is None else progress
    bar, callback = _progress_bar(err, show)
    try:
        with bar:
            result = run_batch(paths or [], out, options=options, jobs=jobs, scheduler=scheduler, resume=resume,
                               progress=callback)
    except (BatchError, InputError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"{e.filename or out}: {e.strerror or e}")
    except KeyboardInterrupt:
        fail(f"interrupted: `bgreview batch ... --out {out} --resume` continues the run", code=130)
    err.print(_summary(result), soft_wrap=True)
    if not result.ok:
        raise typer.Exit(1)


def _progress_bar(console: Any, show: bool) -> tuple[Any, Any]:
    bar = Progress(TextColumn("batch"), BarColumn(), DownloadColumn(), TextColumn("{task.fields[files]} files"),
                   TextColumn("{task.fields[matches]} matches ({task.fields[rate]}/min)"), TimeElapsedColumn(),
                   TimeRemainingColumn(), console=console, disable=not show, transient=True)
    task = bar.add_task("batch", total=None, files="0/0", matches=0, rate="-")

    def callback(p: BatchProgress) -> None:
        elapsed = bar.tasks[task].elapsed or 0.0
        rate = f"{60.0 * p.matches_done / elapsed:.0f}" if elapsed > 1 else "-"
        bar.update(task, total=max(p.bytes_total, 1), completed=p.bytes_done, matches=p.matches_done,
                   files=f"{p.files_done}/{p.files_total}", rate=rate)

    return bar, callback


def _summary(r: BatchResult) -> Any:
    """The run's figures, one per line (fits any terminal; the output folder whole on its line)."""
    rate = 60.0 * r.written / r.seconds if r.seconds > 0 else 0.0
    rows = [["files", str(r.files)], ["done before (skipped)", str(r.files_skipped)], ["matches", str(r.matches)],
            ["done now", str(r.written)], ["decisions", str(r.decisions)], ["files with errors", str(r.failed_files)],
            ["errors", str(r.errors)], ["seconds", f"{r.seconds:.1f}"], ["matches/min", f"{rate:.0f}"]]
    table = fitted_table([Col("", "left"), Col("")], rows, width=80, show_header=False)
    parts: list[Any] = [Text(f"batch summary ({printable(str(r.out))})"), table]
    failed = _failures(r.tables.errors)
    if failed:
        parts.append(Text(f"files with errors (all in {printable(str(r.out / 'errors.csv'))}):"))
        parts += [Text(f"  {printable(line)}") for line in failed]
    return Group(*parts)


def _failures(errors: Any, most: int = 20) -> list[str]:
    """Each input with errors and why, one line each: its path, its first error (where and what)
    and how many more it has; at most ``most`` files, then how many are left out."""
    if errors is None or errors.height == 0:
        return []
    lines: list[str] = []
    files = sorted(set(errors["file"].to_list()))
    for path in files[:most]:
        mine = errors.filter(errors["file"] == path)
        first = mine.row(0, named=True)
        where = ", ".join(f"{k} {first[k]}" for k in ("game", "line") if first.get(k) is not None)
        more = f" (and {mine.height - 1} more)" if mine.height > 1 else ""
        lines.append(f"{path}: {where + ': ' if where else ''}{first.get('reason') or first.get('kind')}{more}")
    if len(files) > most:
        lines.append(f"... and {len(files) - most} more files")
    return lines
