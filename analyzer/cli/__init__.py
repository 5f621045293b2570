"""The ``bgreview`` command line: one thin module per command, each calling a library function.

Exit codes: 0 success, 1 some inputs failed, 2 usage error or unreadable input.

A process loads only the module of the command it runs (:func:`command_app`, :data:`COMMANDS`), so each
command module imports what it needs at its top without slowing the others' start-up; ``analyzer.cli.app``,
the whole app with every command (the group's help, tests), loads them all on first use.
"""

from __future__ import annotations

import copy
import gc
import importlib
import re
import sys
from typing import Any

import typer

from analyzer.cli import base
from analyzer.cli.base import usage_line
from analyzer.cli.common import NOTICE_WANTED, finish_compiling

__all__ = ["COMMANDS", "app", "command_app", "main", "usage_line", "xgid_safe_args"]

COMMANDS: dict[str, str] = {
    "show": "show", "moves": "moves", "replay": "replay", "convert": "convert", "analyze": "analyze",
    "position": "analyze", "batch": "batch", "report": "report", "cube": "cube", "rollout": "rollout",
    "eval": "eval_cmds", "hint": "eval_cmds", "sample": "sample", "play": "play", "profile": "profile",
    "drill": "drill",
}
"""Each command's module in ``analyzer/cli`` (which registers it on :data:`analyzer.cli.base.app` when
imported), in the order of the group's help."""


def _command_name(info: Any) -> str | None:
    return info.name or (typer.main.get_command_name(info.callback.__name__) if info.callback else None)


def _whole_app() -> typer.Typer:
    """:data:`analyzer.cli.base.app` with every command module loaded, its commands in :data:`COMMANDS`' order."""
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(f"analyzer.cli.{module}")
    order = list(COMMANDS)
    base.app.registered_commands.sort(key=lambda info: order.index(_command_name(info) or ""))
    base.reflow_help(base.app.registered_commands)
    return base.app


def __getattr__(name: str) -> Any:
    """``app``: the whole app (PEP 562: loaded on first use, so that a process that runs one command
    does not import the others' modules)."""
    if name == "app":
        return _whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
    """The app that runs ``args``: when they begin with a command's name, a copy of the app that holds
    that command alone, with only its module loaded (:data:`COMMANDS`; typer also builds the options of
    every registered command before it parses); else the whole app (the group's help, an unknown
    command, ``--version``). The command's help, options and errors are the same either way.

    >>> [c.callback.__name__ for c in command_app(["hint", "4HPwATDgc/ABMA"]).registered_commands]
    ['hint']
    >>> command_app(["eval", "x"]).registered_commands[0].name, command_app(["--help"]) is base.app
    ('eval', True)
    >>> command_app(["nope"]) is base.app
    True
    """
    module = COMMANDS.get(args[0]) if args else None
    if module is None:
        return _whole_app()
    importlib.import_module(f"analyzer.cli.{module}")
    one = copy.copy(base.app)
    one.registered_commands = [info for info in base.app.registered_commands if _command_name(info) == args[0]]
    base.reflow_help(one.registered_commands)
    return one


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
