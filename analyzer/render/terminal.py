"""Terminal views (rich) of an analysis, a hint and a cube decision.

Functions build rich renderables and never print; :func:`render_text` turns them into plain
text (for tests and pipes). This is where raw numbers become display units: PR = 500 x the mean
EMG error, gnubg's rate in mEMG (x1000), equities with three decimals, MWC in percent. Names
from match files are shown as text, never as rich markup.

>>> from analyzer.eval.cube import cube_decision
>>> from analyzer.core.match import MatchState
>>> cd = cube_decision([0.7, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
>>> print(render_text(cube_table(cd), width=60).splitlines()[-1])
Proper cube action: double, take
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from analyzer.analysis.analyze import MatchAnalysis
    from analyzer.analysis.decisions import Candidate
    from analyzer.eval.cube import CubeDecision
    from analyzer.eval.probabilities import Probabilities
    from analyzer.eval.variants.rollout import VariantRolloutResult

VARIANT_TITLES = {"dutch": "Dutch backgammon", "mahbusa": "Mahbusa"}

__all__ = ["analysis_view", "cube_table", "hint_table", "no_cube_note", "render_text", "summary_table",
           "variant_columns", "variant_eval_table", "variant_hint_table", "variant_rollout_table", "worst_table"]


def render_text(renderable: RenderableType, *, width: int = 110) -> str:
    """Render to plain text (no colours) at ``width`` columns."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False, legacy_windows=False)
    console.print(renderable)
    return buf.getvalue()


def _num(value: float | None, fmt: str, scale: float = 1.0) -> str:
    return "n/a" if value is None else format(value * scale, fmt)


def _counts(counts: dict[str, int], classes: Sequence[str]) -> str:
    """The number of errors of each class, in the order of ``classes`` (missing ones are 0)."""
    return " ".join(str(counts.get(c, 0)) for c in classes)


def search_text(meta: dict[str, Any], *, cubeless: bool = False) -> str:
    """How an analysis valued its decisions: ``N-ply`` (a Dutch or Mahbusa match: the ply its
    variant engine searched) or the rollouts' trial count.

    >>> search_text({"ply": 3, "variant_ply": 2}, cubeless=True), search_text({"ply": None, "rollout": {"trials": 36}})
    ('2-ply', 'rollouts of 36 trials')
    """
    ro = meta.get("rollout")
    if isinstance(ro, dict):
        return f"rollouts of {ro.get('trials', '?')} trials"
    ply = meta.get("variant_ply") if cubeless and meta.get("variant_ply") is not None else meta.get("ply", "?")
    return f"{ply}-ply"


def summary_table(analysis: MatchAnalysis) -> Table:
    """Per-player table: decisions, error counts, PR with the XG name, gnubg's rate and name, luck."""
    summary = analysis.summary
    meta = summary.get("metadata", {})
    thr = meta.get("thresholds", {})
    classes = [str(n) for n, _ in thr.get("levels", [])]
    match = summary.get("match", {})
    length = match.get("length") or 0
    what = f"{length}-point match" if length else "money session"
    cubeless = match.get("cube") is False
    if cubeless:
        what = f"{VARIANT_TITLES.get(str(match.get('variant')), str(match.get('variant')))} (no cube), {what}"
    unit = "points" if cubeless else "EMG"
    title = Text(f"{what}, {search_text(meta, cubeless=cubeless)}, thresholds {thr.get('name', '?')}"
                 f" ({'/'.join(classes)})")
    table = Table(title=title, title_justify="left")
    table.add_column("", no_wrap=True)
    players = summary.get("players", [])
    for p in players:
        table.add_column(Text(str(p["name"])), justify="right")

    def row(label: str, values: Sequence[str]) -> None:
        table.add_row(Text(label), *(Text(v) for v in values))

    row("decisions (unforced)", [f"{p['decisions']} ({p['unforced']})" for p in players])
    row(f"checker errors {'/'.join(classes)}", [_counts(p["checker"], classes) for p in players])
    if not cubeless:
        row(f"cube errors {'/'.join(classes)}", [_counts(p["cube"], classes) for p in players])
        row("missed/wrong doubles", [f"{p['cube_errors']['missed double']}/{p['cube_errors']['wrong double']}"
                                     for p in players])
        row("wrong takes/passes", [f"{p['cube_errors']['wrong take']}/{p['cube_errors']['wrong pass']}"
                                   for p in players])
    row(f"total error ({unit})", [f"{p['total_error']:.3f}" for p in players])

    def pr(p: dict[str, Any]) -> str:
        if p["pr_raw"] is None:
            return "n/a"
        approx = " ~" if p.get("rating_xg_approximate") else ""
        return f"{500 * p['pr_raw']:.1f}  XG: {p['rating_xg']}{approx}"

    def rate(p: dict[str, Any]) -> str:
        if p["mean_error"] is None:
            return "n/a"
        return f"{1000 * p['mean_error']:.1f}  gnubg: {p['rating_gnubg']}"

    row(f"PR (500 x mean {unit})", [pr(p) for p in players])
    row("error rate (mEMG/decision)" if not cubeless else "error rate (millipoints/decision)",
        [rate(p) for p in players])
    row(f"luck ({unit})", [f"{p['luck']:+.3f}" for p in players])
    unit = players[0].get("result_unit", "mwc") if players else "mwc"

    def result(v: float | None) -> str:
        if v is None:
            return "n/a"
        return f"{100 * v:+.1f}% MWC" if unit == "mwc" else f"{v:+.3f} pts"

    if unit == "mwc":
        row("luck (MWC)", [result(p.get("luck_mwc")) for p in players])
    row("actual result", [result(p.get("actual_result")) for p in players])
    row("luck-adjusted result", [result(p.get("luck_adjusted_result")) for p in players])
    if any(p.get("rating_xg_approximate") for p in players):
        table.caption = "~ XG band below Advanced: bounds not confirmed"
    return table


def worst_table(analysis: MatchAnalysis, n: int = 5) -> Table:
    """The ``n`` decisions that lost the most equity."""
    worst = analysis.worst(n)
    match = worst.height > 0 and worst["mwc_loss"].null_count() < worst.height
    table = Table(title=f"{n} worst decisions", title_justify="left")
    cubeless = worst.height > 0 and worst["cube"].null_count() == worst.height
    cols = [("game", "right"), ("move", "right"), ("player", "left"), ("kind", "left"), ("dice", "left"),
            ("played", "left"), ("best", "left"), ("loss (millipoints)" if cubeless else "loss (mEMG)", "right")]
    cols += [("MWC", "right")] if match else []
    confirmed = (worst.height > 0 and "equity_loss_first" in worst.columns
                 and worst["equity_loss_first"].null_count() < worst.height)
    cols += [("valued by", "left")] if confirmed else []
    cols += [("class", "left"), ("XGID / key", "left")]
    for col, just in cols:
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for r in worst.iter_rows(named=True):
        cells = [str(r["game"]), str(r["move_no"]), str(r["player"]), str(r["kind"]), r["dice"] or "",
                 r["played"] or "(no move)", r["best"] or "(no move)", f"{1000 * r['equity_loss']:.0f}"]
        if match:
            cells.append(_num(r["mwc_loss"], ".2f", -100.0) + "%")
        if confirmed:
            cells.append(valued_by(r))
        cells += [str(r["error_class"]), r["xgid"] or r["key"] or ""]
        table.add_row(*(Text(c) for c in cells))
    return table


def valued_by(row: Mapping[str, Any]) -> str:
    """How a decision row was valued, for a table cell: its method, the games of a rollout with the
    loss's standard error, and the first pass's loss when the confirmation pass valued it again.

    >>> valued_by({"method": "rollout", "trials": 288, "loss_se": 0.0042, "equity_loss_first": 0.295})
    'rollout 288 (±4; first 295)'
    >>> valued_by({"method": "2-ply", "trials": None, "loss_se": None, "equity_loss_first": None})
    '2-ply'
    """
    text = str(row.get("method") or "")
    if row.get("trials") is not None:
        text += f" {row['trials']}"
    extra = []
    if row.get("loss_se") is not None:
        extra.append(f"±{1000 * row['loss_se']:.0f}")
    if row.get("equity_loss_first") is not None:
        extra.append(f"first {1000 * row['equity_loss_first']:.0f}")
    return text + (f" ({'; '.join(extra)})" if extra else "")


def confirm_text(summary: Mapping[str, Any]) -> str | None:
    """One line on the confirmation pass of an analysis (``None`` when it did not run).

    >>> print(confirm_text({"metadata": {"confirm": {"method": "rollout", "max_trials": 576}},
    ...                     "match": {"confirmed": {"decisions": 9, "downgraded": 4, "upgraded": 1}}}))
    ... # doctest: +NORMALIZE_WHITESPACE
    Confirmation pass: 9 decisions valued again by rollout (at most 576 games each): 4 to a smaller error
    class, 1 to a bigger one.
    """
    meta = summary.get("metadata", {}).get("confirm")
    counts = summary.get("match", {}).get("confirmed")
    if not isinstance(meta, dict) or not isinstance(counts, dict):
        return None
    how = (f"rollout (at most {meta.get('max_trials')} games each)" if meta.get("method") == "rollout"
           else f"{meta.get('ply')}-ply")
    return (f"Confirmation pass: {counts.get('decisions', 0)} decisions valued again by {how}: "
            f"{counts.get('downgraded', 0)} to a smaller error class, {counts.get('upgraded', 0)} to a bigger one.")


def analysis_view(analysis: MatchAnalysis, *, worst: int = 5) -> Group:
    """The terminal report: the per-player table, the confirmation line and the worst decisions."""
    line = confirm_text(analysis.summary)
    parts: list[RenderableType] = [summary_table(analysis)]
    if line is not None:
        parts.append(Text(line))
    return Group(*parts, worst_table(analysis, worst))


def hint_table(candidates: Sequence[Candidate], dice: tuple[int, int], *, match: bool = False) -> Table:
    """Ranked plays: equity (EMG, or money equity per cube), difference from the best, chances."""
    unit = "EMG" if match else "equity"
    table = Table(title=f"Plays of {dice[0]}{dice[1]} (cubeful {unit}, side on roll)", title_justify="left")
    for col in ("#", "ply", "play", unit, "diff", "Win", "W g", "W bg", "Lose", "L g", "L bg"):
        table.add_column(col, justify="left" if col == "play" else "right", no_wrap=col == "play")
    best = candidates[0].equity if candidates else 0.0
    for i, c in enumerate(candidates, 1):
        p = c.probabilities
        table.add_row(str(i), f"{c.ply}", Text(c.play or "(no move)"), f"{c.equity:+.3f}",
                      "" if i == 1 else f"{c.equity - best:+.3f}", f"{p.win:.3f}", f"{p.win_gammon:.3f}",
                      f"{p.win_backgammon:.3f}", f"{1 - p.win:.3f}", f"{p.lose_gammon:.3f}",
                      f"{p.lose_backgammon:.3f}")
    return table


class RankedLike(Protocol):
    """A ranked play as the engines give it (:class:`analyzer.eval.engine.RankedPlay`,
    :class:`analyzer.analysis.decisions.Candidate`)."""

    @property
    def play(self) -> str: ...
    @property
    def equity(self) -> float: ...
    @property
    def probabilities(self) -> Probabilities: ...
    @property
    def ply(self) -> int: ...


def no_cube_note(variant: str) -> str:
    """What the numbers of a cubeless variant mean (Dutch backgammon and Mahbusa have no cube).

    >>> no_cube_note("dutch")
    'Dutch backgammon has no doubling cube: equities are cubeless expected points of one game (single 1, mars 2).'
    """
    two = "mars or mother win 2, double-mother draw 0" if variant == "mahbusa" else "mars 2"
    return (f"{VARIANT_TITLES.get(variant, variant)} has no doubling cube: equities are cubeless expected "
            f"points of one game (single 1, {two}).")


def variant_columns(variant: str) -> tuple[tuple[str, str], ...]:
    """``(field, heading)`` of the chances shown for a cubeless variant: wins and losses, the
    2-point ones (mars, mother win) and, in Mahbusa, the draw.

    >>> [f for f, _ in variant_columns("mahbusa")]
    ['win', 'win_gammon', 'lose', 'lose_gammon', 'draw']
    """
    cols = (("win", "Win"), ("win_gammon", "W 2"), ("lose", "Lose"), ("lose_gammon", "L 2"))
    return cols + ((("draw", "Draw"),) if variant == "mahbusa" else ())


def _chances(p: Probabilities, variant: str) -> list[str]:
    return [f"{float(getattr(p, name)):.3f}" for name, _ in variant_columns(variant)]


def variant_eval_table(rows: Sequence[tuple[int, Probabilities]], variant: str) -> Group:
    """Cubeless chances and expected points of a variant position for the side on roll, one row
    per ``(ply, probabilities)``, and a line that says that there is no cube.

    >>> from analyzer.eval.probabilities import Probabilities
    >>> text = render_text(variant_eval_table([(0, Probabilities(0.5, 0.1, 0.0, 0.1, 0.0))], "dutch"))
    >>> "+0.000" in text and "no doubling cube" in text
    True
    """
    table = Table(title=f"Cubeless evaluation (side on roll), {VARIANT_TITLES.get(variant, variant)}",
                  title_justify="left")
    table.add_column("ply", justify="right")
    for _, head in variant_columns(variant):
        table.add_column(head, justify="right")
    table.add_column("Points", justify="right")
    for ply, p in rows:
        table.add_row(f"{ply}-ply", *_chances(p, variant), f"{p.equity:+.3f}")
    return Group(table, Text(no_cube_note(variant)))


def variant_hint_table(plays: Sequence[RankedLike], dice: tuple[int, int], variant: str, *,
                       total: int | None = None) -> Group:
    """Ranked plays of a variant roll: expected points, difference from the best, the chances
    (``total``: how many legal plays there are, when only some are shown), and a line that says
    that there is no cube.

    >>> from analyzer.eval.engine import RankedPlay
    >>> from analyzer.eval.probabilities import Probabilities
    >>> from analyzer.core.position import Position
    >>> p = Probabilities(0.6, 0.1, 0.0, 0.1, 0.0, draw=0.1)
    >>> text = render_text(variant_hint_table([RankedPlay("24/21", Position.start("mahbusa"), p.equity, p, 0)],
    ...                                       (3, 1), "mahbusa"), width=120)
    >>> "Draw" in text and "+0.300" in text and "no doubling cube" in text
    True
    """
    count = len(plays) if total is None else total
    table = Table(title=f"{count} plays of {dice[0]}{dice[1]} (cubeless points, side on roll), "
                        f"{VARIANT_TITLES.get(variant, variant)}", title_justify="left")
    for col in ("#", "ply", "play", "Points", "diff", *(h for _, h in variant_columns(variant))):
        table.add_column(col, justify="left" if col == "play" else "right", no_wrap=col == "play")
    best = plays[0].equity if plays else 0.0
    for i, r in enumerate(plays, 1):
        table.add_row(str(i), f"{r.ply}", Text(r.play or "(no move)"), f"{r.equity:+.3f}",
                      "" if i == 1 else f"{r.equity - best:+.3f}", *_chances(r.probabilities, variant))
    return Group(table, Text(no_cube_note(variant)))


def variant_rollout_table(r: VariantRolloutResult) -> Group:
    """A Dutch or Mahbusa rollout: one row per candidate (or the position), best first, with
    points and their standard error, the difference from the best over the same dice and its
    standard error, the outcome frequencies and the games counted; then how it was played and
    a line that says that there is no cube.

    >>> from analyzer.core.position import Position
    >>> from analyzer.eval.variants.engine import engine_for
    >>> from analyzer.eval.variants.rollout import variant_rollout
    >>> r = variant_rollout(engine_for("dutch"), Position.start("dutch"), dice=(2, 1), trials=36, max_plays=2)
    >>> text = render_text(variant_rollout_table(r), width=140)
    >>> "36 trials" in text and "no doubling cube" in text and "+-SE" in text
    True
    """
    variant = r.variant
    what = f"dice {r.dice[0]}{r.dice[1]}" if r.dice else "before the roll"
    table = Table(title=f"Rollout of {r.position.key()} ({VARIANT_TITLES.get(variant, variant)}), {what}",
                  title_justify="left")
    for col in ("#", "play", "Points", "+-SE", "diff", "+-SE", *(h for _, h in variant_columns(variant)), "games"):
        table.add_column(col, justify="left" if col == "play" else "right", no_wrap=col == "play")
    for i, c in enumerate(r.candidates, 1):
        name = "(position)" if c.play is None else (c.play or "(no move)")
        table.add_row(str(i), Text(name), f"{c.equity:+.3f}", f"{c.equity_se:.3f}",
                      "" if i == 1 else f"{c.diff:+.3f}", "" if i == 1 else f"{c.diff_se:.3f}",
                      *_chances(c.probabilities, variant),
                      str(c.games) + (f" ({c.dropped} dropped)" if c.dropped else ""))
    how = (f"{r.trials} trials" + (f" (stopped at SE {r.target_se:g})" if r.stopped_early else "")
           + ", cubeless, played out by the 0-ply net, no variance reduction, same dice for every candidate"
           + f", seed {r.seed}, net {r.net}")
    return Group(table, Text(how), Text(no_cube_note(variant)))


def cube_table(cd: CubeDecision) -> Group:
    """gnubg's cube analysis: the three cubeful equities, their difference from the best, the
    cubeless chances and the proper action."""
    p = cd.probabilities
    head = Text(f"Cubeless: win {p.win:.3f} (g {p.win_gammon:.3f}, bg {p.win_backgammon:.3f}), "
                f"lose {p.lose:.3f} (g {p.lose_gammon:.3f}, bg {p.lose_backgammon:.3f}); "
                f"cube life {cd.cube_life:.2f}")
    word = "Redouble" if cd.redouble else "Double"
    table = Table(title="Cubeful equities", title_justify="left")
    table.add_column("action")
    table.add_column("EMG" if cd.nd_mwc is not None else "equity", justify="right")
    table.add_column("diff", justify="right")
    if cd.nd_mwc is not None:
        table.add_column("MWC", justify="right")
    best = cd.best
    rows: list[tuple[str, float | None, float | None]] = [(f"No {word.lower()}", cd.nd, cd.nd_mwc)]
    if cd.available:
        rows += [(f"{word}, take", cd.dt, cd.dt_mwc), (f"{word}, pass", cd.dp, cd.dp_mwc)]
    for name, eq, mwc in rows:
        cells = [name, _num(eq, "+.3f"), "" if eq is None or abs(eq - best) < 1e-12 else _num(eq - best, "+.3f")]
        if cd.nd_mwc is not None:
            cells.append(_num(mwc, ".1f", 100.0) + "%")
        table.add_row(*cells)
    action = Text(f"Proper cube action: {cd.action}")
    return Group(head, table, action)
