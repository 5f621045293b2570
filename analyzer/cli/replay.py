"""``bgreview replay``: replay match files move by move and list every decision."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich import box
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from analyzer.analysis.replay_stream import (
    DecisionEvent,
    ErrorEvent,
    FileDone,
    FileStarted,
    GameDone,
    MatchStarted,
    replay_files,
)
from analyzer.cli.base import app
from analyzer.cli.common import error_console, fail
from analyzer.core.errors import InputError, printable
from analyzer.formats import MATCH_SUFFIXES, expand_inputs
from analyzer.render.terminal import Col, fitted_table


class ReplayFormat(StrEnum):
    table = "table"
    jsonl = "jsonl"


@dataclass
class _Tally:
    files: int = 0
    matches: int = 0
    games: int = 0
    decisions: int = 0
    failed_games: int = 0
    failed_files: set[str] = field(default_factory=set)
    errors: list[InputError] = field(default_factory=list)


_COLUMNS = ("file", "game", "move", "player", "side", "kind", "dice", "played", "normalised",
            "position_id", "match_id", "xgid", "key", "score")


def _table_line(row: dict[str, Any]) -> str:
    """One decision on one line (a wide terminal, a pipe): nothing is cut, long cells push on."""
    ident = f"{row['position_id']}:{row['match_id']}  {row['xgid']}" if row["position_id"] else row["key"]
    return printable(f"{row['file']}  {row['game']:>3} {row['move']:>3}  {row['player']:<16} {row['side']} "
                     f"{row['kind']:<6} {row['dice']:<2}  {row['played']:<28} {row['normalised']:<24} "
                     f"{row['score']:>5}  {ident}")


_NARROW_HEAD = "game move  player  side kind dice  played (normalised)  score"


def narrow_lines(row: dict[str, Any], last_file: str | None) -> list[str]:
    """One decision for a narrow terminal: the file when it changes, then the decision on one line
    and each ID whole on its own line (so that it can be pasted).

    >>> row = {"file": "m.mat", "game": 1, "move": 1, "player": "Bob", "side": 0, "kind": "move", "dice": "51",
    ...        "played": "24/23 13/8", "normalised": "24/23 13/8", "score": "0-0", "key": "S.x",
    ...        "position_id": "4HPwATDgc/ABMA", "match_id": "MIHmAAAAAAAE",
    ...        "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:51:0:0:0:7:10"}
    >>> print("\\n".join(narrow_lines(row, None)))
    m.mat
      1   1  Bob  0 move 51  24/23 13/8  0-0
             4HPwATDgc/ABMA:MIHmAAAAAAAE
             XGID=-b----E-C---eE---c-e----B-:0:0:1:51:0:0:0:7:10
    """
    lines = [] if row["file"] == last_file else [printable(str(row["file"]))]
    played = row["played"] + (f" ({row['normalised']})" if row["normalised"] != row["played"] else "")
    lines.append(printable(f"{row['game']:>3} {row['move']:>3}  {row['player']}  {row['side']} {row['kind']} "
                           f"{row['dice'] or '-'}  {played}  {row['score']}"))
    ids = [f"{row['position_id']}:{row['match_id']}", row["xgid"]] if row["position_id"] else [row["key"]]
    lines += ["         " + printable(i) for i in ids]
    return lines


def _terminal_width() -> int | None:
    """The width of the terminal the table goes to (``COLUMNS`` when set), ``None`` for a pipe."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


@app.command()
def replay(
    files: Annotated[list[str], typer.Argument(help="Match files (.mat, .txt, .sgf, .xg), directories or globs.")],
    fmt: Annotated[ReplayFormat, typer.Option("--format", "-f", help="table or jsonl.")] = ReplayFormat.table,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress",
                                                  help="Progress bar (default: on a terminal).")] = None,
) -> None:
    """Replay every move of every game and print one line per decision.

    Each line: file, game, move number, player, side (0 = first player), kind (move, double,
    take, drop, resign), dice, the play as written and normalised, the score, and the gnubg
    Position ID + Match ID and XGID (standard games) or the text key (Dutch, Mahbusa).
    Errors (file:line:column, the token, why) go to stderr; a bad game is skipped.
    Exit code 0 when everything replays, 1 when some games or files failed, 2 on usage errors
    and when no game could be read at all (an empty file, not a match file).
    """
    walk_errors: list[InputError] = []
    try:
        paths = expand_inputs(files, walk_errors=walk_errors)
    except InputError as e:
        fail(str(e))
    if not paths:
        fail(f"no match files ({', '.join(MATCH_SUFFIXES)}) in {_named(files)}")
    err = error_console()
    show = err.is_terminal if progress is None else progress
    tally = _Tally()
    out = sys.stdout
    width = _terminal_width()
    # a terminal narrower than the one-line form gets each ID whole on its own line
    narrow = fmt is ReplayFormat.table and width is not None and width < 180 + max(map(len, paths), default=0)
    head: list[str] = []  # the table's header, written before its first row (none when nothing replays)
    if narrow:
        head.append(_NARROW_HEAD)
    elif fmt is ReplayFormat.table:
        head.append(_table_line({"file": "file", "game": "gam", "move": "mov", "player": "player",
                                 "side": "s", "kind": "kind", "dice": "dd", "played": "played",
                                 "normalised": "normalised", "score": "score", "position_id": "",
                                 "match_id": "", "xgid": "", "key": "ids"}))
    bar = Progress(TextColumn("replay"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   TextColumn("{task.fields[name]}", markup=False), console=err, disable=not show,
                   transient=True)

    def report(e: InputError, path: str) -> None:
        tally.errors.append(e)
        tally.failed_files.add(path)
        bar.console.print(f"error: {e}", soft_wrap=True)

    try:
        _run(paths, fmt, bar, tally, out, report, narrow, head, {str(e.file): e for e in walk_errors})
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`)
        sys.stderr.close()
        raise typer.Exit(0) from None
    if tally.files > 1 or (tally.errors and tally.games):
        _summary(err, tally)
    if tally.errors:
        raise typer.Exit(1 if tally.games else 2)


def _run(paths: list[str], fmt: ReplayFormat, bar: Any, tally: _Tally, out: Any, report: Any,
         narrow: bool = False, head: list[str] | None = None,
         unreadable: dict[str, InputError] | None = None) -> None:
    """Render the events of :func:`replay_files`: the rows, the errors, the tally, the bar."""
    last_file: str | None = None
    with bar:
        task = bar.add_task("replay", total=len(paths), name="")
        for event in replay_files(paths, unreadable):
            match event:
                case FileStarted(path):
                    bar.update(task, name=path[-40:])
                    tally.files += 1
                case MatchStarted():
                    tally.matches += 1
                case GameDone(failed=failed):
                    tally.games += 1
                    tally.failed_games += failed
                case ErrorEvent(path, error):
                    report(error, path)
                case DecisionEvent(row=row):
                    tally.decisions += 1
                    if head:
                        out.write(head.pop() + "\n")
                    if narrow:
                        out.write("\n".join(narrow_lines(row, last_file)) + "\n")
                        last_file = row["file"]
                        continue
                    text = json.dumps(row) if fmt is ReplayFormat.jsonl else _table_line(row)
                    out.write(text + "\n")
                case FileDone():
                    bar.advance(task)


def _named(files: list[str]) -> str:
    """The inputs as an error line names them (the first few, each cut).

    >>> _named(["a", "b"]), _named(["x" * 500])[-11:]
    ('a, b', '(500 chars)')
    """
    shown = [f if len(f) <= 200 else f"{f[:199]}… ({len(f)} chars)" for f in files[:3]]
    return ", ".join(shown) + (f" and {len(files) - 3} more" if len(files) > 3 else "")


def _summary(console: Any, t: _Tally) -> None:
    rows = [["files", str(t.files)], ["matches", str(t.matches)], ["games", str(t.games)],
            ["decisions", str(t.decisions)], ["failed games", str(t.failed_games)],
            ["files with errors", str(len(t.failed_files))], ["errors", str(len(t.errors))]]
    # boxed: tools that read our stderr (bench/fuzz_inputs.py) tell its lines from error lines
    table = fitted_table([Col("", "left"), Col("")], rows, width=80, title="replay summary", show_header=False)
    table.box, table.show_edge, table.pad_edge, table.collapse_padding = box.SQUARE, True, True, False
    console.print(table)
