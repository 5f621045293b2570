"""The ``bgreview`` app: the Typer group every command module registers its commands on, with one-line usage
errors (:class:`OneLineErrorsGroup`) and ``--version``. :mod:`analyzer.cli` loads the command modules.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

import typer
from typer.core import TyperGroup

from analyzer._version import __version__
from analyzer.core.errors import printable

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
    message = getattr(err, "format_message", None)
    text = " ".join((message() if callable(message) else str(err)).split())
    if len(text) > _USAGE_SHOWN:
        text = f"{text[:_USAGE_SHOWN]}… ({len(text):,} characters)"
    ctx = getattr(err, "ctx", None)
    where = f" (see '{ctx.command_path} --help')" if ctx is not None and ctx.command.get_help_option(ctx) else ""
    return printable(f"error: {text}{where}")


def reflowed(text: str) -> str:
    r"""A command's help as paragraphs without their source line breaks: the help is drawn in the
    terminal's width, and a docstring's own breaks would leave a short ragged line after each
    wrapped one in a narrow terminal (typer keeps a help text's single line breaks). Paragraphs
    stay apart; one that begins with ``\b`` (click's "do not rewrap") is kept as written.

    >>> reflowed("Analyse a match\nwith luck.\n\nExit codes:\n0 ok.")
    'Analyse a match with luck.\n\nExit codes: 0 ok.'
    """
    paragraphs = text.strip().split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines())
                       for p in paragraphs)


def reflow_help(infos: list[Any]) -> None:
    """Give each registered command (typer's ``CommandInfo``) its help :func:`reflowed`: its own
    ``help`` or, where it has none, its function's docstring."""
    for info in infos:
        text = info.help if info.help is not None else inspect.getdoc(info.callback) if info.callback else None
        if text:
            info.help = reflowed(text)


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
