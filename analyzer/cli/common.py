"""Helpers shared by the command modules: error reporting and output formats."""

from __future__ import annotations

import sys
from enum import Enum
from typing import NoReturn

import typer

from analyzer.core.errors import InputError


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def input_error(err: InputError) -> NoReturn:
    fail(str(err), 2)


def stdout_write(text: str) -> None:
    sys.stdout.write(text)
    if not text.endswith("\n"):
        sys.stdout.write("\n")
