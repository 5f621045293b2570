"""Helpers shared by the command modules: error reporting, output formats and the evaluators."""

from __future__ import annotations

import sys
from enum import Enum
from typing import TYPE_CHECKING, NoReturn

import typer

from analyzer.core.errors import InputError
from analyzer.core.variants import DEFAULT_VARIANT, variant_names, variant_spec

if TYPE_CHECKING:
    from rich.console import Console

    from analyzer.eval.engine import Engine
    from analyzer.eval.variants.engine import VariantEngine


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


MESSAGE_SHOWN = 1000
"""The longest error message printed: one that echoes a 100 kB input is cut there."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr (cut to :data:`MESSAGE_SHOWN` characters) and exit with ``code``."""
    from analyzer.core.errors import shorten

    typer.echo(f"error: {shorten(message, MESSAGE_SHOWN)}", err=True)
    raise typer.Exit(code)


def error_console() -> Console:
    """A console on stderr that prints text as it is: no markup, no emoji codes (``:100:`` in
    ``file:100:`` or a player called ``:cool:`` stay as written), no highlighting."""
    from rich.console import Console

    return Console(stderr=True, markup=False, emoji=False, highlight=False)


def input_error(err: InputError) -> NoReturn:
    fail(str(err), 2)


def position_argument(text: str) -> str:
    """The position argument of a command as given, or, when it names an eXtreme Gammon position
    file (``.xgp``; an ``.xg`` match file gives its last position), the XGID of that position.
    Raises :class:`~analyzer.core.errors.InputError` for a file that cannot be read as one.

    >>> position_argument("4HPwATDgc/ABMA")
    '4HPwATDgc/ABMA'
    >>> position_argument("tests/data/xg/position.xgp")
    'XGID=ab----E-C---eD---c-d----B-:1:1:-1:42:1:2:0:5:10'
    """
    import os

    if text.lower().endswith((".xgp", ".xg")) and os.path.lexists(text):  # unreadable, a FIFO: one error line
        from analyzer.formats.xg import xgp_xgid

        return str(xgp_xgid(text))
    return text


def stdout_write(text: str) -> None:
    sys.stdout.write(text)
    if not text.endswith("\n"):
        sys.stdout.write("\n")


def standard_engine() -> Engine:
    """The standard evaluator over the shipped nets; exits with code 2 when they are missing."""
    from analyzer.eval.engine import Engine

    try:
        return Engine()
    except FileNotFoundError as e:
        fail(f"evaluator weights not found: {e.filename}")


def variant_engine(variant: str) -> VariantEngine:
    """The shared evaluator of a cubeless variant (Dutch, Mahbusa) over its shipped net; exits with
    code 2 when there is none (:func:`analyzer.analysis.variants.load_variant_engine` says why)."""
    from analyzer.analysis.variants import NoEvaluatorError, load_variant_engine

    try:
        engine = load_variant_engine(variant)
    except NoEvaluatorError as e:
        fail(str(e))
    from analyzer.eval.variants.engine import VariantEngine

    if not isinstance(engine, VariantEngine):  # a stand-in without the whole engine surface
        fail(f"no evaluator for {variant}: {type(engine).__name__} is not a variant engine")
    return engine


def variant_help(template: str) -> str:
    """A ``--variant`` help text with the registered names in place of ``{names}`` (``"a, b or
    c"``) or ``{list}`` (``"a, b, c"``).

    >>> variant_help("{names} (for IDs without one).")
    'standard, dutch or mahbusa (for IDs without one).'
    """
    names = variant_names()
    joined = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)
    return template.format(names=joined, list=", ".join(names))


def check_workers(workers: int) -> None:
    """Exit with code 2 when ``--workers`` is below 1 (more than the cores are cut to the cores by
    :class:`~analyzer.eval.trials.RolloutSettings`).

    >>> check_workers(10**9)
    >>> try:
    ...     check_workers(0)
    ... except typer.Exit as e:
    ...     print(e.exit_code)
    2
    """
    if workers < 1:
        fail(f"--workers must be at least 1 (got {workers})")


def check_ply(ply: int, variant: str = DEFAULT_VARIANT) -> None:
    """Exit with code 2 unless ``0 <= ply <=`` the deepest search of the variant's evaluator.

    >>> check_ply(2, "dutch")
    >>> try:
    ...     check_ply(3, "mahbusa")
    ... except typer.Exit as e:
    ...     print(e.exit_code)
    2
    """
    cube = variant_spec(variant).has_cube  # a game with the cube is searched by the standard evaluator
    if cube:
        from analyzer.eval.engine import MAX_PLY
    else:
        from analyzer.eval.variants.engine import MAX_PLY
    if not 0 <= ply <= MAX_PLY:
        fail(f"--ply must be 0..{MAX_PLY}" + ("" if cube else f" for {variant}"))
