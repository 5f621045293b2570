"""``bgreview analyze`` (a whole match) and ``bgreview position`` (hint or cube decision)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from analyzer.analysis.analyze import ConfirmSettings, NoEvaluatorError
from analyzer.analysis.confirm import CUBE_DOUBT, CUBE_FUTILITY, FUTILITY, LIMIT
from analyzer.analysis.decisions import hint
from analyzer.analysis.settings import ReviewSettings, RolloutReview, record_engines
from analyzer.analysis.thresholds import load_thresholds
from analyzer.cli.base import app
from analyzer.cli.common import (
    error_console,
    fail,
    input_error,
    position_argument,
    settings_error,
    variant_help,
)
from analyzer.cli.engines import check_ply, standard_engine, variant_engine
from analyzer.core.errors import InputError, SettingsError
from analyzer.core.files import OutputError, refuse_same_file
from analyzer.core.ids import parse_position_spec
from analyzer.core.match import MatchState
from analyzer.eval.cube_search import cube_decision_nply
from analyzer.eval.met import met_by_name
from analyzer.formats import read_any
from analyzer.render.position_text import show_position
from analyzer.render.tables import json_text
from analyzer.render.terminal import (
    analysis_view,
    cube_table,
    hint_table,
    print_view,
    variant_eval_table,
    variant_hint_table,
    written_text,
)
from analyzer.review import review_records
from analyzer.rules.listing import parse_dice_text

CONFIRM_LIMIT, CONFIRM_CUBE_DOUBT, CONFIRM_FUTILITY = LIMIT, CUBE_DOUBT, FUTILITY
CONFIRM_CUBE_FUTILITY = CUBE_FUTILITY
"""The confirmation pass's defaults the options show (:class:`~analyzer.analysis.confirm.ConfirmSettings`')."""

_OPTIONS = {"rollout.trials": "--trials", "rollout.truncate": "--truncate", "confirm.trials": "--confirm-trials",
            "confirm.max_trials": "--confirm-trials"}
"""The options of the settings whose names differ (the others: ``confirm.limit`` is ``--confirm-limit``)."""


class AnalyzeFormat(StrEnum):
    table = "table"
    json = "json"


@app.command()
def analyze(
    file: Annotated[str, typer.Argument(help="Match file (.mat, .txt, .sgf, .xg).")],
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead of the analysis (gnubg numbering).")] = 2,
    rollout: Annotated[bool, typer.Option("--rollout", help="Roll out the decisions instead of --ply.")]
    = False,
    trials: Annotated[int, typer.Option("--trials", help="Rollout trials (with --rollout).")] = 1296,
    truncate: Annotated[int | None, typer.Option("--truncate", help="Stop rollout trials after N plies.")]
    = None,
    thresholds: Annotated[str, typer.Option("--thresholds", "-t",
                                            help="Error classes: xg, gnubg or a JSON file.")] = "xg",
    out: Annotated[Path | None, typer.Option("--out", "-o",
                                             help="Output folder (default reports/<file stem>).")] = None,
    fmt: Annotated[AnalyzeFormat, typer.Option("--format", "-f", help="table or json (the summary).")]
    = AnalyzeFormat.table,
    html: Annotated[bool, typer.Option("--html/--no-html", help="Also write charts and the HTML report.")]
    = True,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress",
                                                  help="Progress bar (default: on a terminal).")] = None,
    confirm: Annotated[bool, typer.Option(
        "--confirm/--no-confirm",
        help="Value again, by rollouts, the decisions shown as errors, the close ones and every double "
             "(those whose error class is least certain first, at most --confirm-limit of them).")] = True,
    confirm_method: Annotated[str, typer.Option("--confirm-method", help="rollout or ply (a deeper n-ply).")]
    = "rollout",
    confirm_threshold: Annotated[float, typer.Option("--confirm-threshold",
                                                     help="Confirm checker plays losing at least this (EMG).")]
    = 0.02,
    confirm_trials: Annotated[int, typer.Option("--confirm-trials",
                                                help="Most rollout games per candidate in the confirmation.")]
    = 576,
    confirm_limit: Annotated[int, typer.Option(
        "--confirm-limit", help="Decisions per match the confirmation values again, the least certain first "
                                "(a double with its answer is one; more while the next could be among the "
                                "five worst; 0: every one it wants).")] = CONFIRM_LIMIT,
    confirm_cube_doubt: Annotated[float, typer.Option(
        "--confirm-cube-doubt", help="Cube decisions at least this doubtful (the chance, 0 to 1, that their error "
                                     "class changes) are valued past --confirm-limit; 1: none (faster on matches "
                                     "with many close cube decisions).")] = CONFIRM_CUBE_DOUBT,
    confirm_blunders: Annotated[bool, typer.Option(
        "--confirm-blunders/--limit-blunders",
        help="Value again every decision the first pass calls a blunder (the worst error class), past "
             "--confirm-limit; --limit-blunders leaves them to the limit.")] = True,
    confirm_futility: Annotated[float, typer.Option(
        "--confirm-futility", help="Stop rolling a decision out when the games left up to --confirm-trials would "
                                   "settle its error class with a chance below this (its loss lies on a class "
                                   "line); 0: play on to --confirm-trials.")] = CONFIRM_FUTILITY,
    confirm_cube_futility: Annotated[float, typer.Option(
        "--confirm-cube-futility", help="--confirm-futility for the cube decisions (doubles and their takes, "
                                        "played out with cube play); 0: play on to --confirm-trials.")]
    = CONFIRM_CUBE_FUTILITY,
    sgf: Annotated[Path | None, typer.Option(
        "--sgf", help="Also write the match with this analysis as gnubg SGF (gnubg's analysis properties).")]
    = None,
) -> None:
    """Analyse every checker play, cube decision and take/pass of a match, with luck and PR.

    Writes decisions.parquet, decisions.csv and summary.json (plus charts and report.html when
    those renderers are installed) into the output folder, then prints the per-player summary
    and the five worst decisions (or the summary as JSON). Exit codes: 0 ok, 1 some games could
    not be replayed (the others are analysed), 2 usage error, unreadable file or a variant
    whose evaluator is missing. Dutch and Mahbusa have no cube: checker plays only, in points;
    with --rollout their candidates are rolled out cubeless and played to the end.

    A confirmation pass (on unless --no-confirm) then values again the decisions the first pass
    would show as errors, the close ones and every double, those whose error class is least certain
    first and at most --confirm-limit of them, besides every cube decision at least
    --confirm-cube-doubt doubtful and every first-pass blunder: rollouts with variance
    reduction, in rounds until the error class of the action played is settled at 95% (or the
    loss is known to within 0.01, or 0.015 below the blunder line), or the games left would most likely not settle it
    (--confirm-futility; --confirm-cube-futility for the cube decisions), or --confirm-trials games are played; the
    rows say how each decision was valued (method, trials, loss_se) and the summary how many were confirmed and how
    many were left past the limit.
    """
    try:
        settings = ReviewSettings(
            ply=ply, thresholds=load_thresholds(thresholds),
            rollout=RolloutReview(trials=trials, truncate=truncate) if rollout else None,
            confirm=ConfirmSettings(method=confirm_method, threshold=confirm_threshold,
                                    trials=min(ConfirmSettings().trials, confirm_trials), max_trials=confirm_trials,
                                    limit=confirm_limit or None,
                                    cube_doubt=None if confirm_cube_doubt >= 1.0 else confirm_cube_doubt,
                                    blunders=confirm_blunders, futility=confirm_futility or None,
                                    cube_futility=confirm_cube_futility or None)
            if confirm and not rollout else None)
    except SettingsError as e:
        settings_error(e, _OPTIONS)
    except ValueError as e:  # the thresholds
        fail(str(e))
    if sgf is not None and not sgf.parent.is_dir():
        fail(f"{sgf}: no such directory to write the SGF in")
    if sgf is not None:
        try:
            refuse_same_file(sgf, file)
        except OSError as e:
            fail(str(e))
    try:
        records = list(read_any(file))
    except InputError as e:
        input_error(e)
    except OSError as e:
        fail(f"{file}: {e.strerror or 'cannot read the file'}")
    if not any(r.games for r in records):  # nothing to review: one line, the reader's first error
        errs = [e for r in records for e in r.errors]
        fail(str(errs[0]) if errs else f"{file}: no match in the file")
    engines = record_engines(records)
    try:  # what the match's engines cannot do (a ply deeper than a variant's, a truncated variant rollout)
        settings = settings.for_engines(engines)
    except SettingsError as e:
        settings_error(e, _OPTIONS)
    err = error_console()
    show = err.is_terminal if progress is None else progress
    engine = standard_engine() if any(e.cubeful for e in engines) else None  # variants: not needed
    bar = Progress(TextColumn("analyse"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   console=err, disable=not show, transient=True)
    task = bar.add_task("analyse", total=None)
    current = [0]

    def tick(match: int, done: int, total: int) -> None:
        if match != current[0]:  # the next match: the bar starts again
            current[0] = match
            bar.reset(task, total=None)
        bar.update(task, completed=done, total=total)

    def notice(level: str, message: str) -> None:
        err.print(f"{level}: {message}", markup=False, highlight=False, soft_wrap=True)

    try:
        with bar:
            review = review_records(records, settings, out=out, html=html, sgf=sgf, engine=engine, progress=tick,
                                    notice=notice)
    except NoEvaluatorError as e:
        fail(str(e))
    except OutputError as e:  # one line naming the file or folder; each file is whole or not there
        fail(f"{e.filename}: {e.strerror}")
    summaries = [m.summary() for m in review.matches]
    if fmt is AnalyzeFormat.json:
        sys.stdout.write(json_text(summaries[0] if len(summaries) == 1 else summaries))
    else:
        console = Console()
        for m in review.matches:
            print_view(console, analysis_view(m.analysis, width=console.width))
            print_view(console, written_text(m.files, width=console.width))
    if review.problems:
        raise typer.Exit(1)


@app.command()
def position(
    position: Annotated[str, typer.Argument(help="Position: gnubg ID, ID:MatchID, XGID, key or JSON.")],
    dice: Annotated[str | None, typer.Option("--dice", "-d", help="The roll (e.g. 31): show the plays.")]
    = None,
    ply: Annotated[int, typer.Option("--ply", "-p", help="Lookahead (gnubg numbering).")] = 2,
    top: Annotated[int, typer.Option("--top", "-n", help="Show this many plays.")] = 10,
    variant: Annotated[str | None, typer.Option(help=variant_help("Variant for IDs without one ({list})."))]
    = None,
) -> None:
    """Draw a position, then rank the plays of a roll (--dice) or analyse the cube decision.

    Equities are cubeful (money: per unit cube; match: EMG) for the side on roll, at the score
    and cube the identifier carries (money play with a centred cube when it carries none).
    Dutch and Mahbusa have no cube: their plays (0..2 ply) are ranked, and without --dice the
    position is evaluated, in cubeless expected points of one game by the variant engine.
    """
    try:
        spec = parse_position_spec(position_argument(position), variant=variant)
        roll = parse_dice_text(dice) if dice is not None else spec.dice
        board = show_position(spec)
    except InputError as e:
        input_error(e)
    name = spec.position.variant
    check_ply(ply, name)
    console = Console()
    width = console.width
    if not spec.position.spec.has_cube:
        veng = variant_engine(name)
        sys.stdout.write(board + "\n")
        if roll is not None:
            ranked = veng.rank_plays(spec.position, roll, ply)
            print_view(console, variant_hint_table(ranked[: max(top, 1)], roll, name, total=len(ranked), width=width))
        else:
            print_view(console, variant_eval_table([(ply, veng.evaluate(spec.position, ply))], name, width=width))
        return
    state = spec.match or MatchState()
    me = spec.on_roll if spec.on_roll is not None else 0
    met = None if state.is_money else met_by_name()
    engine = standard_engine()
    sys.stdout.write(board + "\n")
    if roll is not None:
        cands = hint(engine, spec.position, roll, state, me, ply=ply, met=met)
        print_view(console, hint_table(cands[: max(top, 1)], roll, match=not state.is_money, total=len(cands),
                                       width=width))
        return
    cd = cube_decision_nply(engine, spec.position, state, me, ply, met=met)
    print_view(console, cube_table(cd))
