"""The ``bgreview`` command line: one thin module per command, each calling a library function.

Exit codes: 0 success, 1 some inputs failed, 2 usage error or unreadable input.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="bgreview",
    help="Review backgammon matches (standard, Dutch, Mahbusa) with our own engine.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)



def _version(value: bool) -> None:
    if value:
        from analyzer import __version__

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
                                     "rollout", "eval_cmds")

for _name in _COMMAND_MODULES:
    importlib.import_module(f"analyzer.cli.{_name}")


def main() -> None:
    """Entry point of the ``bgreview`` console script."""
    app()
