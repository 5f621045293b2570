"""The ``bgreview`` command line: one thin module per command, each calling a library function.

Exit codes: 0 success, 1 some inputs failed, 2 usage error or unreadable input.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import importlib
import re
import sys
from collections.abc import Iterator
from typing import Any

import typer
from typer.core import TyperGroup

from analyzer._version import __version__

_USAGE_SHOWN = 300  # the most characters of a usage error's message shown (an option may be 100 kB long)
# click's UsageError (an unknown option, a missing argument, a bad value: exit code 2), reached through
# typer's public BadParameter, which derives from it (typer carries its own copy of click)
_UsageError: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def usage_line(err: Exception) -> str:
    """A usage error as one line, like every other error of the command line: the message (blanks
    run together, cut when very long) and where the help is.

    >>> usage_line(typer.BadParameter("'x' is not a number\\nat all", param_hint="'--ply'"))
    "error: Invalid value for '--ply': 'x' is not a number at all"
    """
    from analyzer.core.errors import printable

    message = getattr(err, "format_message", None)
    text = " ".join((message() if callable(message) else str(err)).split())
    if len(text) > _USAGE_SHOWN:
        text = f"{text[:_USAGE_SHOWN]}… ({len(text):,} characters)"
    ctx = getattr(err, "ctx", None)
    where = f" (see '{ctx.command_path} --help')" if ctx is not None and ctx.command.get_help_option(ctx) else ""
    return printable(f"error: {text}{where}")


@contextlib.contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    try:
        yield
    except _UsageError as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # the help, as asked by no_args_is_help
            raise
        typer.echo(usage_line(err), err=True)
        raise typer.Exit(2) from None


class OneLineErrorsGroup(TyperGroup):
    """The command group: a usage error (an unknown option, a missing argument, a bad value) is one
    line on stderr and exit code 2, as every other error here, instead of click's usage box
    (``Typer(cls=...)``, typer's supported hook for the group class)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        with _one_line_usage_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage_errors():
            return super().invoke(ctx)


app = typer.Typer(
    cls=OneLineErrorsGroup,
    name="bgreview",
    help="Review backgammon matches (standard, Dutch, Mahbusa) with our own engine.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)



def _version(value: bool) -> None:
    if value:
        typer.echo(f"bgreview {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Review backgammon matches (standard, Dutch, Mahbusa) with our own engine."""


# Each module registers its commands on ``app`` when imported.
_COMMAND_MODULES: tuple[str, ...] = ("show", "moves", "replay", "convert", "analyze", "batch", "report", "cube",
                                     "rollout", "eval_cmds", "sample", "play", "profile", "drill")

for _name in _COMMAND_MODULES:
    importlib.import_module(f"analyzer.cli.{_name}")


# the commands that take a position: an XGID there may begin with "-" (an empty point 1)
_POSITION_COMMANDS = frozenset({"show", "hint", "eval", "cube", "position", "moves", "rollout"})
_XGID_ARG = re.compile(r"-[-a-oA-O]{25}:[0-9A-Za-z:-]*")


def xgid_safe_args(args: list[str]) -> list[str]:
    """``args`` with every XGID that begins with ``-`` moved after a ``--``, so that click takes it
    for the position and not for an unknown option (only for the commands that take a position,
    and only before a ``--`` the user wrote).

    >>> xgid_safe_args(["show", "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "--variant", "standard"])
    ['show', '--variant', 'standard', '--', '-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10']
    >>> xgid_safe_args(["show", "--", "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"])[1]
    '--'
    >>> xgid_safe_args(["replay", "-x"])
    ['replay', '-x']
    """
    if not args or args[0] not in _POSITION_COMMANDS:
        return list(args)
    end = args.index("--") if "--" in args else len(args)
    head, tail = args[:end], args[end + 1:]
    xgids = [a for a in head[1:] if _XGID_ARG.fullmatch(a)]
    if not xgids:
        return list(args)
    return [a for a in head if a not in xgids] + ["--", *xgids, *tail]


def command_app(args: list[str]) -> typer.Typer:
    """The app that runs ``args``: when they begin with a command's name, a copy of :data:`app` that holds
    that command alone (typer builds the options of every registered command before it parses, which
    costs a fresh process about a tenth of a second); else :data:`app` itself (the group's help, an
    unknown command, ``--version``). The command's help, options and errors are the same either way.

    >>> [c.callback.__name__ for c in command_app(["hint", "4HPwATDgc/ABMA"]).registered_commands]
    ['hint']
    >>> command_app(["eval", "x"]).registered_commands[0].name, command_app(["--help"]) is app
    ('eval', True)
    >>> command_app(["nope"]) is app
    True
    """
    if not args:
        return app
    for info in app.registered_commands:
        name = info.name or (typer.main.get_command_name(info.callback.__name__) if info.callback else None)
        if name == args[0]:
            one = copy.copy(app)
            one.registered_commands = [info]
            return one
    return app


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``bgreview`` console script (``argv``: the arguments, default ``sys.argv[1:]``).

    Called without ``argv`` it runs as the process (the console script, ``python -m analyzer``), and
    tunes the cyclic garbage collector for a short process: a larger young generation, so that the
    hundreds of thousands of objects the imports create (numba's, numpy's, polars') are not traversed
    again and again by full collections that find nothing to free (a review of the sample frees
    about 6,000 objects that way), and, when the command is done, :func:`gc.freeze`, so that the
    interpreter's shutdown does not traverse them once more either. Together that spares a fresh
    ``hint`` or ``analyze`` about a fifth of its CPU time; the results are the same, and cyclic garbage
    is still collected while a long command runs (young collections every 50,000 allocations).
    """
    from analyzer.cli.common import NOTICE_WANTED, finish_compiling

    process = argv is None
    if process:
        gc.set_threshold(50_000, 20, 10)
        NOTICE_WANTED[0] = True  # a first run says that it compiles the engine (stderr)
    args = xgid_safe_args(sys.argv[1:] if argv is None else argv)
    try:
        command_app(args)(args=args, prog_name="bgreview")
    finally:
        finish_compiling()
        if process:
            gc.freeze()
