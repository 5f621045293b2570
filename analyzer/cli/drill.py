"""``bgreview drill``: one of the player's own errors at a time, answered in play notation, rescheduled."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from analyzer.batch.drill import Schedule, check_answer, default_schedule_path, export_anki, load_cards
from analyzer.cli.base import app
from analyzer.cli.common import fail
from analyzer.render.board_ascii import draw_board


def _m(x: float | None) -> str:
    return "" if x is None or math.isnan(x) else f"{1000 * x:+.0f}"


@app.command()
def drill(
    source: Annotated[Path, typer.Argument(help="A batch dataset, or a review (the folder of `bgreview analyze`).")],
    player: Annotated[str, typer.Option("--player", "-p", help="Whose errors (names equal but for case are one).")],
    theme: Annotated[list[str] | None, typer.Option(help="Only positions of this theme (repeatable).")] = None,
    kind: Annotated[list[str] | None, typer.Option(help="checker, cube or take (repeatable).")] = None,
    min_loss: Annotated[float, typer.Option(help="Smallest error shown, in thousandths (mEMG).")] = 0.0,
    max_loss: Annotated[float | None, typer.Option(help="Largest error shown, in thousandths (mEMG).")] = None,
    count: Annotated[int, typer.Option("--count", "-n", help="Questions in this session.")] = 10,
    schedule: Annotated[Path | None, typer.Option(
        help="The schedule's SQLite file (default DATASET/drill.sqlite).")] = None,
    anki: Annotated[Path | None, typer.Option(
        help="Write the filtered cards as an Anki deck (.apkg) instead of drilling (needs genanki).")] = None,
) -> None:
    """Drill the player's own errors: shows the board, the score and the roll (or the cube decision),
    asks for the play in `bgreview play`'s notation (or d / nd, t / p), checks it by the resulting
    position through the rules engine, then shows the candidates with their equities and how they
    were valued. Right answers come back later and later (spaced repetition), wrong ones the same
    day. Type q to stop.

    Exit codes: 0 done, 2 not a dataset or review, no card, or genanki missing for --anki.
    """
    if count < 1:
        fail(f"--count {count}: give 1 or more")
    for k in kind or ():
        if k not in ("checker", "cube", "take"):
            fail(f"--kind {k!r}: choose checker, cube or take")
    try:
        cards = load_cards(source, player, themes=theme or (), kinds=kind or (), min_loss=min_loss / 1000,
                           max_loss=None if max_loss is None else max_loss / 1000)
    except FileNotFoundError as e:
        fail(str(e))
    if not cards:
        fail(f"{source}: no error of player {player!r} matches the filters")
    if anki is not None:
        try:
            n = export_anki(cards, anki)
        except ImportError:
            fail("--anki needs genanki: pip install 'bgreview[anki]'")
        except OSError as e:  # the deck is left as it was
            fail(f"{e.filename or anki}: {e.strerror or e}")
        typer.echo(f"{anki} ({n} cards)")
        return
    console = Console(highlight=False, markup=False, emoji=False)
    sched = Schedule(schedule or default_schedule_path(source))
    now = time.time()
    todo = sched.pick(cards, now, count)
    if not todo:
        typer.echo(f"nothing due: {len(cards)} cards, the next one later (schedule {sched.path})")
        return
    right = asked = 0
    try:
        for number, card in enumerate(todo, 1):
            header = [f"card {number} of {len(todo)}: {card.theme or ''}; {card.score_text()}",
                      f"{card.player} {card.question()}"]
            console.print(draw_board(card.position, header, dice=card.dice, names=(card.player, "")))
            while True:
                try:
                    text = input("your answer (q to stop): ").strip()
                except EOFError:
                    text = "q"
                if text.lower() in ("q", "quit"):
                    raise KeyboardInterrupt
                verdict = check_answer(card, text)
                if verdict.status in ("right", "wrong"):
                    break
                console.print(f"  {verdict.status}: {verdict.message}")
            asked += 1
            if verdict.status == "right":
                right += 1
                console.print(f"right: {verdict.answer} (best {card.best})")
            else:
                unit = "mEMG" if card.variant == "standard" else "millipoints"
                lost = "" if verdict.loss is None else f", losing {1000 * verdict.loss:.0f} {unit}"
                console.print(f"wrong: {verdict.answer}{lost}; best {card.best}")
                if verdict.answer != card.played:
                    console.print(f"  in the match: {card.played}, losing {1000 * card.equity_loss:.0f} {unit}")
            if card.kind == "checker":
                top = max((e for _, e in card.candidates), default=0.0)
                for play, equity in card.candidates[:6]:
                    console.print(f"  {play:<28} {equity:+.3f}  {1000 * (equity - top):+5.0f}")
            else:
                nd, dt, dp = card.cube_values
                console.print(f"  no double {_m(nd)}  double/take {_m(dt)}  double/pass {_m(dp)}  "
                              f"({card.cube_action or ''})")
            console.print(f"  valued by {card.valued}; {card.where}")
            sched.record(card.id, verdict.status == "right")
    except KeyboardInterrupt:
        pass
    finally:
        sched.close()
    typer.echo(f"{right} of {asked} right; schedule {sched.path}")
