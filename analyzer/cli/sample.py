"""``bgreview sample``: list the sample matches shipped with bgreview, or copy one out to review it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Annotated

import typer

from analyzer._resources import copy_sample, sample_names, sample_path
from analyzer.cli.base import app
from analyzer.cli.common import OutputFormat, fail, stdout_write


@app.command()
def sample(
    name: Annotated[str | None, typer.Argument(help="A sample's file name (the .mat may be left out).")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder the sample is copied into.")] = Path("."),
    fmt: Annotated[OutputFormat, typer.Option("--format", help="Listing format: table, json or csv.")]
    = OutputFormat.table,
) -> None:
    """Without NAME: list the shipped sample matches and where they are installed. With NAME: copy that
    sample into --out (default: the current folder) and print the copy's path, ready for `bgreview analyze`.

    Exit codes: 0 done, 2 no such sample or the copy could not be written.
    """
    if name is None:
        rows = [(n, str(sample_path(n))) for n in sample_names()]
        if fmt is OutputFormat.json:
            stdout_write(json.dumps([{"name": n, "path": p} for n, p in rows]))
        elif fmt is OutputFormat.csv:
            buf = io.StringIO()
            writer = csv.writer(buf, lineterminator="\n")
            writer.writerow(["name", "path"])
            writer.writerows(rows)
            stdout_write(buf.getvalue())
        else:
            width = max((len(n) for n, _ in rows), default=0)
            stdout_write("\n".join(f"{n:<{width}}  {p}" for n, p in rows) or "no samples installed")
        return
    try:
        sample_path(name)
    except FileNotFoundError as e:
        fail(str(e))
    try:
        copy = copy_sample(name, out)
    except OSError as e:
        fail(f"{out}: cannot write the sample there: {e.strerror or e}")
    stdout_write(str(copy))
