"""``bgreview rollout``: roll a position out (before the roll, or each candidate play of a roll)."""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from analyzer.cli import app
from analyzer.cli.common import OutputFormat, fail, standard_engine, stdout_write
from analyzer.core.errors import InputError

if TYPE_CHECKING:
    from analyzer.eval.rollout import RolloutCandidate, RolloutResult


def render_rollout(r: RolloutResult) -> str:
    """Text table of a rollout: one row per candidate, chances and equities with standard errors."""
    head = (f"Rollout of {r.position.gnubg_id()}"
            + (f", dice {r.dice[0]}{r.dice[1]}" if r.dice else ", before the roll")
            + f": {r.trials} trials" + (" (stopped early)" if r.stopped_early else "")
            + (f", truncated at {r.truncate} plies" if r.truncate else ", played out")
            + (", variance reduction" if r.variance_reduction else "")
            + (", cube played" if r.best.cubeful_se is not None else "") + f", seed {r.seed}")
    lines = [head, ""]
    cols = f"{'#':>2} {'play':<22}{'Win':>7}{'W g':>7}{'W bg':>7}{'L g':>7}{'L bg':>7}{'Cubeless':>10}" \
           f"{'+-SE':>7}{'Cubeful':>9}"
    lines.append(cols)
    best = r.candidates[0]
    for i, c in enumerate(r.candidates, 1):
        p = c.probabilities
        cf = "" if c.cubeful_equity is None else f"{c.cubeful_equity:+.3f}"
        cf_se = "" if c.cubeful_se is None else f"  cubeful +-{c.cubeful_se:.3f}"
        name = c.play if c.play is not None else "(position)"
        lines.append(f"{i:>2} {name or '(no move)':<22}{100 * p.win:>6.1f}%{100 * p.win_gammon:>6.1f}%"
                     f"{100 * p.win_backgammon:>6.1f}%{100 * p.lose_gammon:>6.1f}%"
                     f"{100 * p.lose_backgammon:>6.1f}%{c.equity:>+10.3f}{c.equity_se:>7.3f}{cf:>9}")
        se = c.probabilities_se
        lines.append(f"{'':>2} {'  standard errors':<22}" + "".join(f"{100 * s:>6.1f}%" for s in se)
                     + f"   95% CI [{c.equity_ci[0]:+.3f}, {c.equity_ci[1]:+.3f}]{cf_se}")
        if i > 1:
            lines[-2] += f"  ({_value(c) - _value(best):+.3f})"
    if r.cube is not None:
        cd = r.cube
        lines.append("")
        if cd.available and cd.dt is not None and cd.dp is not None:
            lines.append(f"Cube: No double {cd.nd:+.3f}   Double, take {cd.dt:+.3f}   Double, pass {cd.dp:+.3f}")
        else:
            lines.append(f"Cube: no double possible, cubeful equity {cd.nd:+.3f}")
        lines.append(f"Proper cube action: {cd.action[:1].upper() + cd.action[1:]}")
    return "\n".join(lines)


def _value(c: RolloutCandidate) -> float:
    return c.cubeful_equity if c.cubeful_equity is not None else c.equity


def _variant_rollout(pos: Any, roll: tuple[int, int] | None, *, trials: int, truncate: int | None,
                     cubeful: bool | None, cube_play: bool, seed: int, variance_reduction: bool | None,
                     target_se: float | None, workers: int, max_plays: int, threshold: float,
                     fmt: OutputFormat) -> None:
    """``bgreview rollout`` of a Dutch or Mahbusa position (cubeless, played out)."""
    from analyzer.cli.common import variant_engine
    from analyzer.eval.variants.rollout import variant_rollout
    from analyzer.render.terminal import render_text, variant_columns, variant_rollout_table

    name = pos.variant
    if truncate is not None:
        fail(f"{name} rollouts play every game out: --truncate is for standard backgammon")
    if cube_play or cubeful:
        fail(f"{name} has no doubling cube: --cubeful and --cube-play are for standard backgammon")
    if variance_reduction:
        fail(f"{name} rollouts have no variance reduction: --vr is for standard backgammon")
    try:
        result = variant_rollout(variant_engine(name), pos, dice=roll, trials=trials, seed=seed,
                                 max_plays=max(1, max_plays), threshold=threshold, target_se=target_se,
                                 workers=max(1, workers))
    except ValueError as e:
        fail(str(e))
    if fmt is OutputFormat.json:
        stdout_write(json.dumps(result.as_dict()))
    elif fmt is OutputFormat.csv:
        cols = [f for f, _ in variant_columns(name)]
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["n", "play", "equity", "equity_se", "diff", "diff_se", *cols, "games"])
        for i, c in enumerate(result.candidates, 1):
            w.writerow([i, c.play or "", f"{c.equity:+.4f}", f"{c.equity_se:.4f}", f"{c.diff:+.4f}",
                        f"{c.diff_se:.4f}", *(f"{getattr(c.probabilities, f):.4f}" for f in cols), c.games])
        stdout_write(buf.getvalue())
    else:
        stdout_write(render_text(variant_rollout_table(result), width=140))


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
    max_plays: Annotated[int, typer.Option("--plays", help="With --dice: candidates rolled out.")] = 8,
    threshold: Annotated[float, typer.Option("--within", help="With --dice: only plays within this 0-ply equity "
                                                              "of the best.")] = 0.16,
    workers: Annotated[int, typer.Option("--workers", "-j", help="Worker processes.")] = 2,
    variant: Annotated[str | None, typer.Option(help="Variant for IDs without one (standard, dutch, mahbusa).")]
    = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="table, json or csv (variants).")]
    = OutputFormat.table,
) -> None:
    """Roll a position out at 0-ply: chances and equity with standard errors (and the cube decision).

    Dutch and Mahbusa positions are rolled out cubeless by the variant net, every game played to
    the end (no --truncate, no variance reduction): expected points of one game.
    """
    from analyzer.core.ids import parse_position_spec
    from analyzer.core.match import MatchState
    from analyzer.eval.rollout import rollout
    from analyzer.rules.listing import parse_dice_text

    if trials < 1:
        fail("--trials must be >= 1")
    if truncate is not None and truncate < 1:
        fail("--truncate must be >= 1")
    try:
        spec = parse_position_spec(position, variant=variant)
        roll = parse_dice_text(dice) if dice is not None else spec.dice
    except InputError as e:
        fail(str(e))
    if spec.position.variant != "standard":
        _variant_rollout(spec.position, roll, trials=trials, truncate=truncate, cubeful=cubeful, cube_play=cube_play,
                         seed=seed, variance_reduction=variance_reduction, target_se=target_se, workers=workers,
                         max_plays=max_plays, threshold=threshold, fmt=fmt)
        return
    cubeful = True if cubeful is None else cubeful
    variance_reduction = True if variance_reduction is None else variance_reduction
    engine = standard_engine()
    state = spec.match if spec.match is not None else MatchState()
    try:
        result = rollout(engine, spec.position, dice=roll, trials=trials, truncate=truncate, cubeful=cubeful,
                         match=state, player=spec.on_roll or 0, seed=seed, variance_reduction=variance_reduction,
                         target_se=target_se, workers=workers, max_plays=max_plays, threshold=threshold,
                         cube_play=cube_play and cubeful)
    except ValueError as e:
        fail(str(e))
    if fmt is OutputFormat.json:
        out: dict[str, Any] = result.as_dict()
        stdout_write(json.dumps(out))
    else:
        stdout_write(render_rollout(result))
