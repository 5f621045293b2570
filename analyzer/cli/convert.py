"""``bgreview convert``: rewrite a match file as .mat or .sgf, after replaying it."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer

from analyzer.cli import app
from analyzer.cli.common import fail
from analyzer.core.errors import InputError


class TargetFormat(StrEnum):
    mat = "mat"
    sgf = "sgf"


@app.command()
def convert(
    file: Annotated[str, typer.Argument(help="A match file (.mat, .txt or .sgf).")],
    to: Annotated[TargetFormat, typer.Option("--to", help="Output format: mat or sgf.")],
    output: Annotated[str | None,
                      typer.Option("--output", "-o", help="Output file (default: stdout).")] = None,
) -> None:
    """Convert a match file: every game is replayed and written in normalised form (one hop per
    die, bar/off, * on hits, true 'Wins' values). Games that do not replay are left out and
    reported on stderr (exit code 1)."""
    import os

    from analyzer.analysis.replay import normalise
    from analyzer.formats import read_any
    from analyzer.formats.mat_writer import format_match
    from analyzer.formats.sgf_writer import format_sgf

    if not os.path.isfile(file):
        fail(f"{file}: no such file")
    writer = format_match if to is TargetFormat.mat else format_sgf
    errors: list[InputError] = []
    try:
        handle = open(output, "w", encoding="utf-8", newline="\n") if output else sys.stdout  # noqa: SIM115
    except OSError as e:
        fail(f"{output}: {e.strerror}")
    try:
        for n, record in enumerate(read_any(file)):
            norm = normalise(record)
            errors.extend(norm.errors)
            if n and to is TargetFormat.mat:
                handle.write("\n")
            handle.write(writer(norm))
    finally:
        if output:
            handle.close()
    for problem in errors:
        typer.echo(f"error: {problem}", err=True)
    if errors:
        raise typer.Exit(1)
