"""``bgreview play``: a match against the engine in the terminal (terminal I/O only: the play loop is
:class:`analyzer.analysis.play.PlaySession`)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum, StrEnum
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.prompt import Confirm, Prompt
from rich.table import Table
from rich.text import Text

from analyzer.analysis.analyze import analyze_match
from analyzer.analysis.play import HintRow, PlayOptions, PlaySession, review_plan
from analyzer.analysis.settings import EngineCapabilities, ReviewSettings
from analyzer.cli.base import app
from analyzer.cli.common import fail
from analyzer.core.errors import InputError
from analyzer.core.variants import DEFAULT_VARIANT, variant_names, variant_spec
from analyzer.formats.mat import read_matches
from analyzer.render.board_ascii import HomeSide, draw_board
from analyzer.render.terminal import analysis_view, render_text

if TYPE_CHECKING:
    VariantOpt = str
else:  # the registered variants, read when the command is made (typer shows them as choices)
    VariantOpt = StrEnum("VariantOpt", [(name, name) for name in variant_names()])


class LevelOpt(str, Enum):
    beginner = "beginner"
    intermediate = "intermediate"
    advanced = "advanced"
    world_class = "world-class"


class HomeSideOpt(str, Enum):
    right = "right"
    left = "left"


_HELP = (
    "Play a match against the engine in the terminal: standard backgammon, Dutch backgammon or Mahbusa.",
    "Type plays in gnubg notation (24/18 13/11, bar/20, 6/off, 8/5(2); Dutch entries bar/20 or in/20). A part of "
    "a play is completed when only one legal play contains it, or kept until the rest is typed ('undo' takes it "
    "back). Other commands: hint, roll, double, take, pass, resign (single, gammon or backgammon), quit.",
    "Every action is written at once to the match file (--save), so an interrupted match can be continued with "
    "--resume FILE and reviewed with 'bgreview analyze FILE'. At the end the review is offered.",
    "Levels (our engine at 0-ply with noise on its equities, or its best play at 2-ply), measured against each "
    "other by bench/play_levels.py (duplicate dice, cubeless, points per game with its standard error):",
)


def _level_help() -> str:
    return "\n\n".join([*_HELP, *(f"{name}: {text}" for name, text in _LEVEL_FIGURES.items())])


_LEVEL_FIGURES: dict[str, str] = {
    "beginner": "0-ply, noise 0.12. Against advanced: standard -0.70 +- 0.04 ppg (1,000 games), Dutch "
                "-1.59 +- 0.04 (400), Mahbusa -0.88 +- 0.07 (400).",
    "intermediate": "0-ply, noise 0.05. Against advanced: standard -0.23 +- 0.04 ppg (1,000 games), Dutch "
                    "-0.65 +- 0.07 (400), Mahbusa -0.36 +- 0.07 (400).",
    "advanced": "0-ply, noise 0.015. Against world class: standard -0.28 +- 0.12 ppg (120 games); in Dutch "
                "and Mahbusa the 2-ply search takes 1-6 s a move, too slow to measure that gap closely: "
                "Dutch -0.33 +- 0.38 (12 games), Mahbusa -0.81 +- 0.38 (16 games).",
    "world-class": "2-ply, no noise: it plays hint's best play.",
}


def _header(session: PlaySession) -> list[str]:
    """Two lines over the board: the game, the match and the cube; the players and the score."""
    v = session.view()
    s = v.state
    kind = "money game" if s.is_money else f"{s.length}-point match" + (", Crawford game" if s.crawford else "")
    first = f"Game {v.game}  {kind}"
    if session.rules.has_cube:
        owner = "centred" if s.cube_owner is None else ("yours" if s.cube_owner == 0 else "theirs")
        first += f"  cube {s.cube} {owner}"
    if s.is_money:
        return [first, f"X: {v.names[0]}   O: {v.names[1]}"]
    return [first, f"X: {v.names[0]} {s.score[0]}   O: {v.names[1]} {s.score[1]}"]


def _board(session: PlaySession, home_side: str) -> str:
    v = session.view()
    side: HomeSide = "left" if home_side == "left" else "right"
    # short names beside the board, so that it fits 80 columns (the header has them whole)
    names = (v.names[0] if len(v.names[0]) <= 12 else v.names[0][:11] + "~", "bgreview")
    return draw_board(v.position, _header(session), home_side=side, dice=v.dice, names=names)


def _hint_table(rows: list[HintRow], standard: bool) -> str:
    table = Table(title="hint: " + ("cubeful equity (EMG)" if standard else "cubeless points of the game"))
    table.add_column("#", justify="right")
    table.add_column("play", no_wrap=True)
    table.add_column("equity", justify="right")
    table.add_column("diff", justify="right")
    table.add_column("ply", justify="right")
    for r in rows[:10]:
        table.add_row(str(r.rank), r.play or "(no move)", f"{r.equity:+.3f}", "" if r.rank == 1 else f"{r.diff:+.3f}",
                      str(r.ply))
    return render_text(table, width=80)


def _say(console: Console, text: str, *, wrap: bool = True) -> None:
    """Print plain text (names come from files: no markup, no emoji codes); ``wrap`` breaks long
    lines at the console's width (boards and tables are drawn to fit and are not wrapped)."""
    console.print(text, markup=False, highlight=False, emoji=False, soft_wrap=not wrap)


class HeldInterrupt:
    """Ctrl-C for the play loop: raised at once at the prompt, held while the program works.

    A ``KeyboardInterrupt`` raised inside numba-compiled code does not unwind cleanly (it surfaces as
    a ``SystemError``, "returned a result with an exception set"), and one raised while rich holds a
    lock of its live status can hang the program. So while :meth:`installed` is active, a Ctrl-C
    pressed outside :meth:`prompt` only sets :attr:`pressed`; :meth:`check`, called between the
    engine's steps, and the next prompt raise it. Outside the main thread (no signal handlers there)
    nothing is installed and Ctrl-C keeps its default.

    >>> import os
    >>> ctrl_c, steps = HeldInterrupt(), []
    >>> try:
    ...     with ctrl_c.installed():
    ...         os.kill(os.getpid(), signal.SIGINT)  # while the engine works
    ...         steps.append("step finished")
    ...         ctrl_c.check()
    ...         steps.append("never")
    ... except KeyboardInterrupt:
    ...     steps.append("interrupted")
    >>> steps
    ['step finished', 'interrupted']
    """

    def __init__(self) -> None:
        self.pressed = False
        self.at_prompt = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.at_prompt:
            raise KeyboardInterrupt
        self.pressed = True

    def check(self) -> None:
        """Raise the held Ctrl-C, if one was pressed."""
        if self.pressed:
            self.pressed = False
            raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Hold Ctrl-C inside the block (the previous handler comes back after it)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(signal.SIGINT, self._handle)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)

    @contextmanager
    def prompt(self) -> Iterator[None]:
        """Let Ctrl-C through while the person types (a held one is raised first)."""
        self.check()
        self.at_prompt = True
        try:
            yield
        finally:
            self.at_prompt = False


def _review(console: Console, session: PlaySession, requested: int | None) -> None:
    records = list(read_matches(str(session.path)))
    if not records or not records[0].games:
        _say(console, "nothing to review yet")
        return
    cube = session.rules.has_cube  # a game with the cube is reviewed by the standard evaluator
    engines = {} if cube else {session.options.variant: session.engine.var}
    std = session.engine.std if cube else None
    ply, words = review_plan(session.options.hint_ply, requested)
    engine = session.engine.std if cube else session.engine.var
    settings = ReviewSettings(ply=ply, engines=(EngineCapabilities.of(engine),))
    _say(console, words)
    with console.status(f"reviewing the match at {ply}-ply"):
        analysis = analyze_match(records[0], settings, engine=std, variant_engines=engines)
    console.print(analysis_view(analysis))
    _say(console, f"the full report: bgreview analyze {session.path}")


@app.command(help=_level_help())
def play(
    variant: Annotated[VariantOpt, typer.Option(help="The game.")] = DEFAULT_VARIANT,
    length: Annotated[int, typer.Option("--length", "-n", help="Match length in points.")] = 3,
    money: Annotated[bool, typer.Option("--money", help="A money session (standard only) instead of a match.")]
    = False,
    level: Annotated[LevelOpt, typer.Option(help="The engine's strength (see above).")] = LevelOpt.advanced,
    home_side: Annotated[HomeSideOpt, typer.Option("--home-side", help="Draw your home board on this side.")]
    = HomeSideOpt.right,
    seed: Annotated[int | None, typer.Option(help="Seed of the dice (default: from the clock; it is saved).")]
    = None,
    save: Annotated[Path | None, typer.Option("--save", help=(
        "The match file (default: bgreview-play-*.mat here); an existing file is refused (--resume continues it).")
    )]
    = None,
    manual_dice: Annotated[bool, typer.Option("--manual-dice", help="Type every roll (a game on a real board).")]
    = False,
    resume: Annotated[Path | None, typer.Option("--resume", help="Continue the match saved in this file.")] = None,
    name: Annotated[str, typer.Option("--name", help="Your name in the match file.")] = "you",
    hint_ply: Annotated[int, typer.Option("--hint-ply", help="Depth of 'hint' (0-2).")] = 2,
    review: Annotated[bool | None, typer.Option("--review/--no-review",
                                                help="Review the match at the end (default: ask).")] = None,
    review_ply: Annotated[int | None, typer.Option(
        "--review-ply", help="Depth of that review (0-2; default: the depth of 'hint').")] = None,
) -> None:
    if money and not variant_spec(variant).has_cube:
        fail("--money is for standard backgammon: Dutch and Mahbusa have no cube")
    if review_ply is not None and not 0 <= review_ply <= 2:
        fail("--review-ply must be 0..2")
    console = Console(highlight=False, emoji=False)
    try:
        if resume is not None:
            session = PlaySession.resume(resume, save_to=save, level=None)
        else:
            path = save or Path(f"bgreview-play-{variant}-{time.strftime('%Y%m%d-%H%M%S')}.mat")
            opts = PlayOptions(variant=variant, length=0 if money else length, level=level.value,
                               seed=int(time.time()) if seed is None else seed, manual_dice=manual_dice,
                               player=name, hint_ply=hint_ply)
            session = PlaySession.new(opts, path)
    except InputError as e:
        fail(str(e))
    except OSError as e:
        fail(f"{save or resume}: {e.strerror or 'cannot write the match file'}")
    _say(console, f"match file: {session.path} (every action is saved; --resume {session.path} continues it)")
    for line in session.greeting:
        _say(console, line)
    shown: object = None
    ctrl_c = HeldInterrupt()
    try:
        with ctrl_c.installed():
            while session.awaiting != "over":
                while session.awaiting == "engine":
                    with console.status(f"{session.names[1]} thinks"):
                        reply = session.advance()
                    for line in reply.messages:
                        _say(console, line)
                    ctrl_c.check()
                if session.awaiting == "over":
                    break
                view = session.view()
                key = (view.position, view.dice, view.state, view.awaiting)
                if key != shown:
                    _say(console, _board(session, home_side.value), wrap=False)
                    shown = key
                with ctrl_c.prompt():
                    text = Prompt.ask(Text(session.prompt()), console=console, default="", show_default=False)
                reply = session.handle(text)
                for line in reply.messages:
                    _say(console, line)
                if reply.hint is not None:
                    if reply.hint:
                        _say(console, _hint_table(reply.hint, session.rules.has_cube), wrap=False)
                    else:
                        _say(console, "no hint here")
    except (KeyboardInterrupt, EOFError):
        _say(console, f"\ninterrupted: the match so far is in {session.path} (bgreview play --resume "
                      f"{session.path} continues it)")
        raise typer.Exit(130) from None
    if session.quit and not session.games and not session.actions:
        return
    try:
        if review is not None:
            wanted = review
        else:  # a Ctrl-C held through the last engine step answers "no"
            wanted = not ctrl_c.pressed and Confirm.ask("Review the match now?", console=console, default=True)
    except (KeyboardInterrupt, EOFError):
        wanted = False
    if wanted:
        _review(console, session, review_ply)
