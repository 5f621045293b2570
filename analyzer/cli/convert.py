"""``bgreview convert``: rewrite a match file as .mat or .sgf, after replaying it."""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Iterator
from enum import StrEnum
from typing import IO, Annotated

import typer

from analyzer._read import check_regular
from analyzer.analysis.normalise import normalised_games
from analyzer.cli.base import app
from analyzer.cli.common import fail
from analyzer.core.errors import InputError
from analyzer.core.files import OutputError, atomic_writer, refuse_same_file
from analyzer.formats import stream_any
from analyzer.formats.mat_writer import mat_chunks
from analyzer.formats.records import GameRecord, MatchStream
from analyzer.formats.sgf_writer import sgf_chunks


class TargetFormat(StrEnum):
    mat = "mat"
    sgf = "sgf"


@app.command()
def convert(
    file: Annotated[str, typer.Argument(help="A match file (.mat, .txt, .sgf or .xg).")],
    to: Annotated[TargetFormat, typer.Option("--to", help="Output format: mat or sgf.")],
    output: Annotated[str | None,
                      typer.Option("--output", "-o", help="Output file (default: stdout).")] = None,
) -> None:
    """Convert a match file to gnubg's .mat (or .sgf), every game replayed and normalised.

    Every game is written in normalised form (one hop per
    die, bar/off, * on hits, true 'Wins' values). Games that do not replay are left out and
    reported on stderr (exit code 1); what is written replays to the same decisions as the games
    kept (a Crawford flag the scores no longer show is written as a tag). A file with no
    readable game gives one error line, exit code 2, and no output."""
    try:  # a regular file only: a FIFO or a device would hang or never end
        check_regular(file)
    except InputError as e:
        fail(str(e))
    if output:
        try:
            refuse_same_file(output, file)
        except OutputError as e:
            fail(str(e))
    chunks = mat_chunks if to is TargetFormat.mat else sgf_chunks
    errors: list[InputError] = []
    handle: IO[str] | None = None
    read_games = 0
    try:
        with contextlib.ExitStack() as stack:  # the output goes in place at its end, or not at all
            for match in stream_any(file):  # one game at a time: a huge match stays small
                found: list[InputError] = []
                seen = [0]

                def good(match: MatchStream = match, found: list[InputError] = found,
                         seen: list[int] = seen) -> Iterator[GameRecord]:
                    for item in normalised_games(match.header, match.games):
                        seen[0] += 1
                        if isinstance(item, InputError):
                            found.append(item)
                        else:
                            yield item

                games = good()
                first = next(games, None)
                if first is not None:
                    if handle is None:
                        handle = _open(output, stack)
                    elif to is TargetFormat.mat:
                        handle.write("\n")
                    for piece in chunks(match.header, itertools.chain([first], games)):
                        handle.write(piece)
                read_games += seen[0]
                errors.extend(sorted([*match.errors, *found], key=lambda e: e.line or 0))
    except OSError as e:  # reading, or writing the output (then left as it was)
        fail(f"{e.filename or file}: {e.strerror or e}")
    except InputError as e:  # a game the output format cannot hold (a name with a line break, ...)
        fail(str(e))
    if not read_games:
        fail(str(errors[0]) if errors else f"{file}: no match in the file")
    for problem in errors:
        typer.echo(f"error: {problem}", err=True)
    if errors:
        raise typer.Exit(1)


def _open(output: str | None, stack: contextlib.ExitStack) -> IO[str]:
    """stdout, or a temporary file beside ``output`` renamed onto it once all is written (a device or a pipe
    is written into)."""
    if not output:
        return sys.stdout

    return stack.enter_context(atomic_writer(output, special_ok=True))
