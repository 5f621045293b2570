"""``bgreview rollout``: roll a position out (before the roll, or each candidate play of a roll)."""

from __future__ import annotations

import csv
import io
import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from analyzer.cli.base import app
from analyzer.cli.common import (
    OutputFormat,
    check_workers,
    error_console,
    fail,
    position_argument,
    stdout_write,
    variant_help,
)
from analyzer.cli.engines import standard_engine, variant_engine
from analyzer.core.errors import InputError
from analyzer.core.ids import parse_position_spec
from analyzer.core.match import MatchState
from analyzer.eval.rollout import RolloutResult, RolloutSettings, rollout
from analyzer.render.position_text import position_identifiers
from analyzer.render.terminal import print_view, render_text, rollout_view, variant_columns, variant_rollout_table
from analyzer.rules import find_variant
from analyzer.rules.listing import parse_dice_text


def render_rollout(r: RolloutResult, *, width: int = 110, ids: tuple[str, ...] = ()) -> str:
    """Text of a rollout at ``width`` columns (:func:`analyzer.render.terminal.rollout_view`)."""
    return render_text(rollout_view(r, width=width, ids=ids), width=width)


def _csv(r: RolloutResult) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["n", "play", "win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity",
                "equity_se", "cubeful_equity", "cubeful_se"])
    for i, c in enumerate(r.candidates, 1):
        p = c.probabilities
        w.writerow([i, c.play or "", *(f"{x:.4f}" for x in (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon,
                                                           p.lose_backgammon)),
                    f"{c.equity:+.4f}", f"{c.equity_se:.4f}",
                    "" if c.cubeful_equity is None else f"{c.cubeful_equity:+.4f}",
                    "" if c.cubeful_se is None else f"{c.cubeful_se:.4f}"])
    return buf.getvalue()


def fewer_plays_note(got: int, wanted: int, legal: int, threshold: float, unit: str = "") -> str | None:
    """Why a rollout of a roll has fewer candidates than ``--plays`` asked (``None`` when it has
    them all).

    >>> fewer_plays_note(2, 8, 2, 0.16)
    'only 2 plays: the roll has 2 legal plays'
    >>> fewer_plays_note(3, 8, 16, 0.16)
    'only 3 of the 8 plays asked: the other legal plays are more than 0.16 below the best at 0-ply (--within)'
    """
    if got >= wanted:
        return None
    if got >= legal:
        return f"only {got} play{'s' if got != 1 else ''}: the roll has {legal} legal play{'s' if legal != 1 else ''}"
    return (f"only {got} of the {wanted} plays asked: the other legal plays are more than {threshold:g}{unit} below "
            f"the best at 0-ply (--within)")


def _legal_count(pos: Any, roll: tuple[int, int]) -> int:
    return len(find_variant(pos.variant).legal_plays(pos, roll))


def _variant_rollout(pos: Any, roll: tuple[int, int] | None, *, trials: int, truncate: int | None,
                     cubeful: bool | None, cube_play: bool, seed: int, variance_reduction: bool | None,
                     target_se: float | None, workers: int, max_plays: int, threshold: float,
                     fmt: OutputFormat) -> None:
    """``bgreview rollout`` of a Dutch or Mahbusa position (cubeless, played out)."""
    name = pos.variant
    if truncate is not None:
        fail(f"{name} rollouts play every game out: --truncate is for standard backgammon")
    if cube_play or cubeful:
        fail(f"{name} has no doubling cube: --cubeful and --cube-play are for standard backgammon")
    if variance_reduction:
        fail(f"{name} rollouts have no variance reduction: --vr is for standard backgammon")
    try:
        settings = RolloutSettings(trials=trials, seed=seed, workers=workers, target_se=target_se,
                                   max_plays=max(1, max_plays), threshold=threshold)
        result = rollout(variant_engine(name), pos, settings, dice=roll)
    except ValueError as e:
        fail(str(e))
    note = None if roll is None else fewer_plays_note(len(result.candidates), max(1, max_plays),
                                                          _legal_count(pos, roll), threshold, " points")
    if fmt is OutputFormat.json:
        doc = result.as_dict()
        if note is not None:
            doc["note"] = note
        stdout_write(json.dumps(doc))
        return
    if note is not None:
        error_console().print(f"note: {note}", soft_wrap=True)
    if fmt is OutputFormat.csv:
        cols = [f for f, _ in variant_columns(name)]
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["n", "play", "equity", "equity_se", "diff", "diff_se", *cols, "games"])
        for i, c in enumerate(result.candidates, 1):
            w.writerow([i, c.play or "", f"{c.equity:+.4f}", f"{c.equity_se:.4f}", f"{c.diff:+.4f}",
                        f"{c.diff_se:.4f}", *(f"{getattr(c.probabilities, f):.4f}" for f in cols), c.games])
        stdout_write(buf.getvalue())
    else:
        print_view(Console(), variant_rollout_table(result, width=Console().width))


@app.command("rollout")
def rollout_cmd(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    dice: Annotated[str | None, typer.Option("--dice", "-d", help="Roll out the plays of this roll, e.g. 31.")] = None,
    trials: Annotated[int, typer.Option("--trials", "-n", help="Number of games.")] = 1296,
    truncate: Annotated[int | None, typer.Option("--truncate", help="Stop each game after N plies.")] = None,
    cubeful: Annotated[bool | None, typer.Option("--cubeful/--cubeless",
                                                 help="Add cube-model equities (standard; default on).")] = None,
    cube_play: Annotated[bool, typer.Option(
        "--cube-play", help="Play the cube in the rollout games (money or match).")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Dice seed (same seed, same result).")] = 0,
    variance_reduction: Annotated[bool | None, typer.Option(
        "--vr/--no-vr", help="Variance reduction (standard; default on).")] = None,
    target_se: Annotated[float | None, typer.Option("--target-se", help="Stop once the equity SE is below.")] = None,
    max_plays: Annotated[int | None, typer.Option(
        "--plays", help="With --dice: roll out this many plays, the best at 0-ply (default 8 within --within).")]
    = None,
    threshold: Annotated[float | None, typer.Option(
        "--within", help="With --dice: only plays within this 0-ply equity of the best (default 0.16; none with "
                         "--plays alone).")] = None,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress",
                                                  help="Progress bar on stderr (default: on a terminal, table).")]
    = None,
    workers: Annotated[int, typer.Option("--workers", "-j", help="Worker processes.")] = 2,
    variant: Annotated[str | None, typer.Option(help=variant_help("Variant for IDs without one ({list})."))]
    = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="table, json or csv.")]
    = OutputFormat.table,
) -> None:
    """Roll a position out at 0-ply: chances and equity with standard errors (and the cube decision).

    Dutch and Mahbusa positions are rolled out cubeless by the variant net, every game played to
    the end (no --truncate, no variance reduction): expected points of one game.
    """
    if trials < 1:
        fail("--trials must be >= 1")
    if truncate is not None and truncate < 1:
        fail("--truncate must be >= 1")
    check_workers(workers)
    if threshold is not None and not threshold >= 0:  # NaN too
        fail(f"--within is an equity difference: 0 or more (got {threshold})")
    try:
        spec = parse_position_spec(position_argument(position), variant=variant)
        roll = parse_dice_text(dice) if dice is not None else spec.dice
    except InputError as e:
        fail(str(e))
    # --plays N alone asks for N plays: no equity window unless --within names one
    if max_plays is not None and max_plays < 1:
        fail("--plays must be >= 1")
    wanted = 8 if max_plays is None else max_plays
    window = threshold if threshold is not None else (0.16 if max_plays is None else float("inf"))
    if not spec.position.spec.has_cube:
        _variant_rollout(spec.position, roll, trials=trials, truncate=truncate, cubeful=cubeful, cube_play=cube_play,
                         seed=seed, variance_reduction=variance_reduction, target_se=target_se, workers=workers,
                         max_plays=wanted, threshold=window, fmt=fmt)
        return
    cubeful = True if cubeful is None else cubeful
    variance_reduction = True if variance_reduction is None else variance_reduction
    engine = standard_engine()
    state = spec.match if spec.match is not None else MatchState()
    err = error_console()
    show = (err.is_terminal and fmt is OutputFormat.table) if progress is None else progress
    bar = Progress(TextColumn("rollout"), BarColumn(), MofNCompleteColumn(), TextColumn("trials"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=err, disable=not show,
                   transient=True)
    with bar:
        task = bar.add_task("rollout", total=trials)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            settings = RolloutSettings(trials=trials, truncate=truncate, seed=seed, workers=workers, cubeful=cubeful,
                                       cube_play=cube_play and cubeful, variance_reduction=variance_reduction,
                                       target_se=target_se, max_plays=wanted, threshold=window)
            result = rollout(engine, spec.position, settings, dice=roll, match=state, player=spec.on_roll or 0,
                             progress=tick)
        except ValueError as e:
            fail(str(e))
    note = None if roll is None else fewer_plays_note(len(result.candidates), wanted,
                                                          _legal_count(spec.position, roll), window)
    if fmt is OutputFormat.json:
        out: dict[str, Any] = result.as_dict()
        if note is not None:
            out["note"] = note
        stdout_write(json.dumps(out))
        return
    if note is not None:
        err.print(f"note: {note}", soft_wrap=True)
    if fmt is OutputFormat.csv:
        stdout_write(_csv(result))
        return


    ident = position_identifiers(spec)
    ids = (f"{ident['position_id']}:{ident['match_id']}", ident["xgid"])
    console = Console()
    print_view(console, rollout_view(result, width=console.width, ids=ids))
