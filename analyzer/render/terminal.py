"""Terminal views (rich) of an analysis, a hint and a cube decision.

Functions build rich renderables and never print; :func:`render_text` turns them into plain
text (for tests and pipes). This is where raw numbers become display units: PR = 500 x the mean
EMG error, gnubg's rate in mEMG (x1000), equities with three decimals, MWC in percent. Names
from match files are shown as text, never as rich markup.

>>> from analyzer.eval.cube import cube_decision
>>> from analyzer.core.match import MatchState
>>> cd = cube_decision([0.7, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
>>> for line in render_text(cube_table(cd), width=60).splitlines()[-3:]:
...     print(line)
Proper cube action: double, take
Take point: 21.4% (the taker's cubeless winning chances; he has 30.0%)
Gammon values: doubler 0.50, taker 0.50
"""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from analyzer.core.errors import printable
from analyzer.core.ids import encode_key, encode_position_id
from analyzer.core.variants import draws, spec_by_name, title_of
from analyzer.render.numbers import fixed

if TYPE_CHECKING:
    from analyzer.analysis.analyze import MatchAnalysis
    from analyzer.analysis.summary import AnalysisMetadata, AnalysisSummary, PlayerStats
    from analyzer.eval.cube import CubeDecision
    from analyzer.eval.probabilities import Probabilities
    from analyzer.eval.rollout import RolloutCandidate, RolloutResult
    from analyzer.eval.variants.rollout import VariantRolloutResult


__all__ = ["analysis_view", "cube_table", "hint_table", "no_cube_note", "render_text", "summary_table",
           "variant_columns", "variant_eval_table", "variant_hint_table", "variant_rollout_table", "worst_table"]


def render_text(renderable: RenderableType, *, width: int = 110) -> str:
    """Render to plain text (no colours) at ``width`` columns, as the commands print: tables fit
    the width, lines of text are never broken (the terminal wraps them, so that an identifier
    stays one line that can be pasted)."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False, legacy_windows=False)
    print_view(console, renderable)
    return buf.getvalue()


def print_view(console: Console, renderable: RenderableType) -> None:
    """Print a view of this module on ``console`` (the command line's; :func:`render_text`'s):
    text lines soft-wrapped, never cut or broken, as plain text (no markup, no emoji codes)."""
    console.print(renderable, soft_wrap=True, markup=False, emoji=False, highlight=False)


@dataclass(frozen=True, slots=True)
class Col:
    """A column of a :func:`fitted_table`: its heading, alignment, whether its text may wrap at
    spaces (plays, names) and when it goes: ``drop`` 0 always stays, higher numbers are left out
    first when the table is wider than the terminal."""

    header: str
    justify: Literal["left", "right"] = "right"
    drop: int = 0
    wrap: bool = False


def fitted_table(columns: Sequence[Col], rows: Sequence[Sequence[str | Text]], *, width: int,
                 title: str | Text | None = None, caption: str | None = None, unwrap_drop: int = 1,
                 show_header: bool = True) -> Table:
    """A table that fits ``width`` columns without cutting a cell: the columns that do not fit
    are left out (highest ``drop`` first), numbers and headings are never wrapped, and only the
    ``wrap`` columns wrap, at spaces (a word longer than its column is folded, never cut with
    an ellipsis). Before a ``wrap`` column wraps, the columns with ``drop >= unwrap_drop`` go.
    Cells are plain text (a :class:`~rich.text.Text` keeps its style).

    >>> cols = [Col("play", "left", wrap=True), Col("equity"), Col("extra", drop=1)]
    >>> rows = [["24/18 13/11", "+0.123", "x" * 30]]
    >>> "extra" in render_text(fitted_table(cols, rows, width=80), width=80)
    True
    >>> text = render_text(fitted_table(cols, rows, width=30), width=30)
    >>> "extra" in text, "+0.123" in text, "…" in text
    (False, True, False)
    """
    keep = list(range(len(columns)))
    cells = [[c if isinstance(c, Text) else Text(str(c)) for c in row] for row in rows]

    def build(kept: list[int], with_title: bool) -> Table:
        table = Table(title=title if with_title else None, caption=caption if with_title else None,
                      title_justify="left", caption_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                      show_edge=False, collapse_padding=True, show_header=show_header)
        for i in kept:
            col = columns[i]
            natural = max([cell_len(col.header)] + [r[i].cell_len for r in cells])
            longest = max([cell_len(col.header)] + [cell_len(w) for r in cells for w in r[i].plain.split()])
            table.add_column(Text(col.header), justify=col.justify, no_wrap=not col.wrap, overflow="fold",
                             min_width=longest if col.wrap else natural)
        for r in cells:
            table.add_row(*(r[i] for i in kept))
        return table

    measure = Console(file=io.StringIO(), width=10_000, color_system=None, legacy_windows=False)

    def rendered(table: Table) -> int:
        """The widest line of ``table`` printed at ``width`` (rich's minimum measurement of a table
        with wrapping columns can be narrower than what it prints)."""
        text = render_text(table, width=width)
        return max((cell_len(line.rstrip()) for line in text.splitlines()), default=0)

    # first the columns that may go to keep the wrapping ones whole, then any to fit at all
    for least, need in ((unwrap_drop, "maximum"), (1, "rendered")):
        while True:
            table = build(keep, False)
            size = rendered(table) if need == "rendered" else Measurement.get(measure, measure.options, table).maximum
            droppable = [i for i in keep if columns[i].drop >= least]
            if size <= width or not droppable:
                break
            keep.remove(max(droppable, key=lambda i: (columns[i].drop, i)))
    return build(keep, True)


def id_lines(ids: Sequence[tuple[str, str]], *, indent: int = 0) -> Text:
    """Identifiers, each whole on its own line after its label (left-aligned to the widest), so
    that it can be pasted: :func:`print_view` never breaks a line of text (a terminal narrower than
    the line wraps it on screen, and a copy of it is still one line).

    >>> ids = [("1", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"), ("", "4HPwATDgc/ABMA:cAkAAAAAAAAE")]
    >>> print(render_text(id_lines(ids), width=30), end="")
    1  XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10
       4HPwATDgc/ABMA:cAkAAAAAAAAE
    """
    pad = max((len(label) for label, _ in ids), default=0)
    lines = [" " * indent + (f"{label:<{pad}}  " if pad else "") + value for label, value in ids if value]
    return Text("\n".join(lines))


def _num(value: float | None, fmt: str, scale: float = 1.0) -> str:
    return "n/a" if value is None else fixed(value * scale, fmt)


def _counts(counts: Mapping[str, int], classes: Sequence[str]) -> str:
    """The number of errors of each class, in the order of ``classes`` (missing ones are 0)."""
    return " ".join(str(counts.get(c, 0)) for c in classes)


def search_text(meta: AnalysisMetadata, *, cubeless: bool = False) -> str:
    """How an analysis valued its decisions: ``N-ply`` (a Dutch or Mahbusa match: the ply its
    variant engine searched) or the rollouts' trial count.

    >>> from analyzer.analysis.summary import AnalysisMetadata as M
    >>> search_text(M.from_json({"ply": 3, "variant_ply": 2}), cubeless=True)
    '2-ply'
    >>> search_text(M.from_json({"ply": None, "rollout": {"trials": 36, "truncate": None, "workers": 1,
    ...                                                    "plays": 4, "threshold": 0.08}}))
    'rollouts of 36 trials'
    """
    if meta.rollout is not None:
        return f"rollouts of {meta.rollout.trials} trials"
    ply = meta.variant_ply if cubeless and meta.variant_ply is not None else \
        "?" if "ply" in meta.missing else meta.ply
    return f"{ply}-ply"


CUBE_ERROR_ROWS = (("missed double below CP", "missed doubles below CP"),
                   ("missed double above CP", "missed doubles above CP"),
                   ("wrong double below DP", "wrong doubles below DP"),
                   ("wrong double above TG", "wrong doubles above TG"),
                   ("wrong take", "wrong takes"), ("wrong pass", "wrong passes"))
"""gnubg's cube error counts (its "Cube statistics"), by summary key and label: missed doubles
below and above the cash point, wrong doubles below the double point and above too good."""

PLAIN_CUBE_ERROR_ROWS = (("missed double", "missed doubles"), ("wrong double", "wrong doubles"),
                         ("wrong take", "wrong takes"), ("wrong pass", "wrong passes"))
"""The same without the split, for a summary written before the split was kept."""


def cube_error_rows(players: Sequence[PlayerStats]) -> tuple[tuple[str, str], ...]:
    """The cube error rows the players' counts can fill: gnubg's split when every summary has it.

    >>> from analyzer.analysis.summary import PlayerStats
    >>> cube_error_rows([PlayerStats("ann", 0, cube_errors={"missed double": 1})])[0]
    ('missed double', 'missed doubles')
    """
    split = all(all(k in p.cube_errors for k, _ in CUBE_ERROR_ROWS) for p in players)
    return CUBE_ERROR_ROWS if split else PLAIN_CUBE_ERROR_ROWS


def luck_text(p: PlayerStats) -> str:
    """gnubg's luck rating of a player (from his mean luck per roll in EMG), or ``n/a``; gnubg's "None"
    (neither lucky nor unlucky) is spelt out, so that it does not read as a missing value.

    >>> from analyzer.analysis.summary import PlayerStats
    >>> luck_text(PlayerStats("ann", 0, rolls=10, luck_gnubg_emg=-0.5))
    'Bad dice, man!'
    >>> luck_text(PlayerStats("bob", 1, rolls=10, luck_gnubg_emg=0.1))
    'None (average dice)'
    """
    from analyzer.analysis.stats import luck_rating  # here: polars, 0.1 s of CPU that moves, hint, show spare

    total = p.luck_gnubg_emg if p.luck_gnubg_emg is not None else p.luck
    if not p.rolls:
        return "n/a"
    name = luck_rating(total / p.rolls)
    return "None (average dice)" if name == "None" else name


def fibs_text(p: PlayerStats, length: int) -> str:
    """The estimated FIBS rating of a player in a ``length``-point match, or ``n/a``.

    >>> from analyzer.analysis.summary import PlayerStats
    >>> fibs_text(PlayerStats("ann", 0, unforced=66, checker_mean_error=0.419 / 60, cube_mean_error=0.196 / 6), 7)
    '1937'
    """
    from analyzer.analysis.stats import fibs_rating  # here: polars (see luck_text)

    if not p.unforced or (p.checker_mean_error is None and p.cube_mean_error is None):
        return "n/a"
    return f"{fibs_rating(p.checker_mean_error, p.cube_mean_error, length):.0f}"


def summary_table(analysis: MatchAnalysis) -> Table:
    """Per-player table: decisions, error counts, PR with the XG name, gnubg's rate and name, luck."""
    summary = analysis.summary
    meta = summary.metadata
    thr = meta.thresholds or {}
    classes = [str(n) for n, _ in thr.get("levels", [])]
    match = summary.match
    length = match.length or 0
    what = f"{length}-point match" if length else "money session"
    cubeless = not match.cube
    if cubeless:
        what = f"{title_of(match.variant)} (no cube), {what}"
    unit = "points" if cubeless else "EMG"
    title = Text(f"{what}, {search_text(meta, cubeless=cubeless)}, thresholds {thr.get('name', '?')}"
                 f" ({'/'.join(classes)})")
    table = Table(title=title, title_justify="left")
    table.add_column("", no_wrap=True)
    players = summary.players
    for p in players:
        table.add_column(Text(printable(p.name)), justify="right", overflow="fold")

    def row(label: str, values: Sequence[str]) -> None:
        table.add_row(Text(label), *(Text(v) for v in values))

    row("decisions (unforced)", [f"{p.decisions} ({p.unforced})" for p in players])
    for c in classes:  # one count a row, each named: "checker plays: blunder  1"
        row(f"checker plays: {c}", [str(p.checker.get(c, 0)) for p in players])
    if not cubeless:
        for c in classes:
            row(f"cube decisions: {c}", [str(p.cube.get(c, 0)) for p in players])
        for kind, label in cube_error_rows(players):
            row(label, [str(p.cube_errors.get(kind, 0)) for p in players])
    row(f"total error ({unit})", [f"{p.total_error:.3f}" for p in players])

    def pr(p: PlayerStats) -> str:
        if p.pr_raw is None:
            return "n/a"
        if cubeless:  # XG's rating names are a scale of backgammon PRs, not of these games
            return f"{500 * p.pr_raw:.1f}"
        approx = " ~" if p.rating_xg_approximate else ""
        return f"{500 * p.pr_raw:.1f}  XG: {p.rating_xg}{approx}"

    def rate(p: PlayerStats) -> str:
        if p.mean_error is None:
            return "n/a"
        if cubeless:
            return f"{1000 * p.mean_error:.1f}"
        return f"{1000 * p.mean_error:.1f}  gnubg: {p.rating_gnubg}"

    row(f"PR (500 x mean {unit})", [pr(p) for p in players])
    if not cubeless and length:
        row("FIBS rating (estimate)", [fibs_text(p, length) for p in players])
    row("error rate (mEMG/decision)" if not cubeless else "error rate (millipoints/decision)",
        [rate(p) for p in players])
    row(f"luck ({unit})", [fixed(p.luck, "+.3f") for p in players])
    if not cubeless:
        row("luck rating (gnubg)", [luck_text(p) for p in players])
    unit = (players[0].result_unit or "mwc") if players else "mwc"

    def result(v: float | None) -> str:
        if v is None:
            return "n/a"
        return fixed(100 * v, "+.1f") + "% MWC" if unit == "mwc" else fixed(v, "+.3f") + " pts"

    if unit == "mwc":
        row("luck (MWC)", [result(p.luck_mwc) for p in players])
    row("actual result", [result(p.actual_result) for p in players])
    row("luck-adjusted result", [result(p.luck_adjusted_result) for p in players])
    if cubeless:
        table.caption = "no XG or gnubg rating names: those scales are of backgammon"
    elif any(p.rating_xg_approximate for p in players):
        table.caption = "~ XG band below Advanced: bounds not confirmed"
    return table


def worst_table(analysis: MatchAnalysis, n: int = 5, *, width: int = 110) -> Group:
    """The ``n`` decisions that lost the most equity, in a table that fits ``width`` columns
    (the less needed columns go first), then the XGID and Position ID:Match ID (a Dutch or
    Mahbusa key) of each, whole on its own line."""
    worst = analysis.worst(n)
    match = worst.height > 0 and worst["mwc_loss"].null_count() < worst.height
    cubeless = worst.height > 0 and worst["cube"].null_count() == worst.height
    confirmed = (worst.height > 0 and "equity_loss_first" in worst.columns
                 and worst["equity_loss_first"].null_count() < worst.height)
    cols = [Col("#"), Col("game"), Col("move"), Col("player", "left", drop=2, wrap=True),
            Col("kind", "left", drop=5),
            Col("dice", "left"), Col("played", "left", wrap=True), Col("best", "left", wrap=True),
            Col("loss")]
    cols += [Col("MWC", drop=3)] if match else []
    cols += [Col("valued by", "left", drop=4, wrap=True)] if confirmed else []
    cols += [Col("class", "left", drop=1)]
    rows: list[list[str]] = []
    ids: list[tuple[str, str]] = []
    undecided = "rank_decided" in worst.columns and not worst["rank_decided"].all()
    for i, r in enumerate(worst.iter_rows(named=True), 1):
        rank = str(i) if r.get("rank_decided", True) else f"{i}?"
        cells = [rank, str(r["game"]), str(r["move_no"]), printable(str(r["player"])), str(r["kind"]),
                 r["dice"] or "", r["played"] or "(no move)", r["best"] or "(no move)",
                 f"{1000 * r['equity_loss']:.0f}"]
        if match:
            cells.append(_num(r["mwc_loss"], ".2f", -100.0) + "%")
        if confirmed:
            cells.append(valued_by(r))
        cells.append(str(r["error_class"]))
        rows.append(cells)
        if r["xgid"]:
            ids.append((str(i), str(r["xgid"])))
            if r["position_id"]:
                ids.append(("", f"{r['position_id']}:{r['match_id']}"))
        elif r["key"]:
            ids.append((str(i), str(r["key"])))
    unit = "millipoints" if cubeless else "mEMG"
    table = fitted_table(cols, rows, width=width, title=f"{n} worst decisions (loss in {unit})", unwrap_drop=5)
    if undecided:
        # short enough for 80 columns (rich does not wrap a caption wider than its table)
        table.caption = "?: undecided rank (within a standard error of its neighbour's loss)"
    if not ids:
        return Group(table)
    return Group(table, Text("Their IDs (XGID, Position ID:Match ID):" if match or not cubeless else "Their keys:"),
                 id_lines(ids))


def written_text(paths: Sequence[str | os.PathLike[str]], *, width: int = 80) -> Text:
    """The files an analysis wrote, shortly: the HTML report first (the one to open, its path
    whole on one line), then the names of the others in its folder, broken to ``width`` columns.

    >>> print(written_text(["r/m/decisions.parquet", "r/m/decisions.csv", "r/m/summary.json", "r/m/luck.svg",
    ...                     "r/m/luck.png", "r/m/report.html"]))
    written: r/m/report.html
      and in that folder: decisions.parquet, decisions.csv, summary.json, 1 chart
      (each as .svg and .png)
    """
    files = [Path(p) for p in paths]
    if not files:
        return Text("written: nothing")
    html = [p for p in files if p.suffix == ".html"]
    charts = [p for p in files if p.suffix in (".svg", ".png")]
    tables = [p for p in files if p not in html and p not in charts]
    folder = files[0].parent
    if any(p.parent != folder for p in files):  # not one folder: every path
        return Text("written: " + ", ".join(printable(str(p)) for p in html + tables + charts))
    first = printable(str(html[0])) if html else printable(str(folder)) + "/"
    rest = [p.name for p in (html[1:] + tables)]
    if charts:  # count the charts, not their files: each is written in every format
        formats = sorted({p.suffix for p in charts}, reverse=True)
        n = len({p.stem for p in charts})
        each = f"each as {' and '.join(formats)}" if len(formats) > 1 else formats[0]
        rest.append(f"{n} chart{'s' if n != 1 else ''} ({each})")
    lines = [f"written: {first}"]
    if rest:
        lines.append(textwrap.fill("and in that folder: " + ", ".join(printable(r) for r in rest),
                                   width=max(width, 40) - 1, initial_indent="  ", subsequent_indent="  ",
                                   break_long_words=False, break_on_hyphens=False))
    return Text("\n".join(lines))


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


def confirm_text(summary: AnalysisSummary) -> str | None:
    """One paragraph, in plain words, on the confirmation pass of an analysis (``None`` when it
    did not run).

    >>> from analyzer.analysis.summary import AnalysisSummary
    >>> print(confirm_text(AnalysisSummary.from_json({
    ...     "metadata": {"ply": 2, "confirm": {"method": "rollout", "max_trials": 576, "limit": 10,
    ...                  "cube_doubt": 0.1, "blunders": True}},
    ...     "match": {"confirmed": {"decisions": 12, "downgraded": 4, "upgraded": 1, "wanted": 31}}})))
    ... # doctest: +NORMALIZE_WHITESPACE
    Confirmation pass: 12 decisions, those whose error class the 2-ply pass was least sure of, were valued
    again by rollouts of up to 576 games each; 4 of them came out as smaller errors and 1 as a bigger one.
    19 more were left at their 2-ply values: the pass takes 10 decisions a match (a double and its answer
    count as one), and beyond that only doubtful cube decisions, blunders and decisions that could be
    among the five worst.
    """
    meta = summary.metadata.confirm
    counts = summary.match.confirmed
    if meta is None or counts is None:
        return None
    first = "the first" if "ply" in summary.metadata.missing or summary.metadata.ply is None else \
        f"the {summary.metadata.ply}-ply"
    how = f"rollouts of up to {meta.max_trials} games each" if meta.method == "rollout" else f"{meta.ply}-ply"
    left = 0 if counts.wanted is None else counts.wanted - counts.decisions
    always = [w for w, on in (("doubtful cube decisions", meta.cube_doubt is not None), ("blunders", meta.blunders))
              if on] + ["decisions that could be among the five worst"]
    values = "first-pass" if first == "the first" else first.removeprefix("the ")
    past = (f" {left} more were left at their {values} values: the pass takes {meta.limit} decisions a match "
            f"(a double and its answer count as one), and beyond that only {', '.join(always[:-1])}"
            f"{' and ' if len(always) > 1 else ''}{always[-1]}."
            if left > 0 and meta.limit is not None else "")
    n = counts.decisions
    return (f"Confirmation pass: {n} decision{'s' if n != 1 else ''}, those whose error class {first} pass was "
            f"least sure of, {'were' if n != 1 else 'was'} valued again by {how}; {counts.downgraded} of them "
            f"came out as smaller errors and {counts.upgraded} as a bigger one.{past}")


def analysis_view(analysis: MatchAnalysis, *, worst: int = 5, width: int = 110) -> Group:
    """The terminal report at ``width`` columns: the per-player table, the confirmation line and
    the worst decisions with their IDs."""
    line = confirm_text(analysis.summary)
    parts: list[RenderableType] = [summary_table(analysis)]
    if line is not None:  # printed soft-wrapped (print_view): wrapped here at the width
        parts.append(Text("\n".join(textwrap.wrap(line, width))))
    return Group(*parts, worst_table(analysis, worst, width=width))


_CHANCE_COLS = (Col("Win"), Col("W g"), Col("W bg", drop=2), Col("Lose", drop=3), Col("L g"), Col("L bg", drop=1))


def hint_table(plays: Sequence[RankedLike], dice: tuple[int, int], *, match: bool = False, cubeful: bool = True,
               total: int | None = None, width: int = 110) -> Table:
    """Ranked plays: equity (cubeful: EMG in a match, money equity per cube; or cubeless), the
    difference from the best and the chances, in a table that fits ``width`` columns (the
    backgammon and losing chances go first, then the ply; the play wraps, never cut).

    >>> from analyzer.eval.engine import RankedPlay
    >>> from analyzer.eval.probabilities import Probabilities
    >>> from analyzer.core.position import Position
    >>> p = Probabilities(0.6, 0.1, 0.0, 0.1, 0.0)
    >>> plays = [RankedPlay("24/16* 13/5*(2)", Position.start(), 0.3, p, 2)]
    >>> text = render_text(hint_table(plays, (4, 4), match=True, width=60), width=60)
    >>> "24/16* 13/5*(2)" in text and "+0.300" in text and "W bg" not in text and "…" not in text
    True
    """
    unit = "EMG" if match and cubeful else "equity"
    count = len(plays) if total is None else total
    kind = ("cubeful EMG" if match else "cubeful equity") if cubeful else "cubeless equity"
    cols = [Col("#"), Col("ply", drop=4), Col("play", "left", wrap=True), Col(unit), Col("diff"), *_CHANCE_COLS]
    best = plays[0].equity if plays else 0.0
    rows = []
    for i, c in enumerate(plays, 1):
        p = c.probabilities
        rows.append([str(i), f"{c.ply}", c.play or "(no move)", fixed(c.equity, "+.3f"),
                     "" if i == 1 else fixed(c.equity - best, "+.3f"), f"{p.win:.3f}", f"{p.win_gammon:.3f}",
                     f"{p.win_backgammon:.3f}", f"{1 - p.win:.3f}", f"{p.lose_gammon:.3f}", f"{p.lose_backgammon:.3f}"])
    return fitted_table(cols, rows, width=width,
                        title=f"{count} plays for the roll {dice[0]}{dice[1]} ({kind}, side on roll)")


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
    spec = spec_by_name(variant)
    two = spec.two_points if spec is not None else "mars 2"
    return (f"{title_of(variant)} has no doubling cube: equities are cubeless expected "
            f"points of one game (single 1, {two}).")


def variant_columns(variant: str) -> tuple[tuple[str, str], ...]:
    """``(field, heading)`` of the chances shown for a cubeless variant: wins and losses, the
    2-point ones (mars, mother win) and, in Mahbusa, the draw.

    >>> [f for f, _ in variant_columns("mahbusa")]
    ['win', 'win_gammon', 'lose', 'lose_gammon', 'draw']
    """
    cols = (("win", "Win"), ("win_gammon", "W 2"), ("lose", "Lose"), ("lose_gammon", "L 2"))
    return cols + ((("draw", "Draw"),) if draws(variant) else ())


def _chances(p: Probabilities, variant: str) -> list[str]:
    return [f"{float(getattr(p, name)):.3f}" for name, _ in variant_columns(variant)]


def prose(text: str, width: int) -> Text:
    """A sentence broken at spaces to ``width`` columns (views print lines as they are).

    >>> print(prose("there is no doubling cube in the games of this variant", 24))
    there is no doubling
    cube in the games of
    this variant
    """
    return Text(textwrap.fill(text, width=max(width, 20) - 1, break_long_words=False, break_on_hyphens=False))


def _variant_chance_cols(variant: str) -> list[Col]:
    return [Col(head, drop=2 if name in ("lose", "draw") else 0) for name, head in variant_columns(variant)]


def variant_eval_table(rows: Sequence[tuple[int, Probabilities]], variant: str, *, width: int = 110) -> Group:
    """Cubeless chances and expected points of a variant position for the side on roll, one row
    per ``(ply, probabilities)``, and a line that says that there is no cube.

    >>> from analyzer.eval.probabilities import Probabilities
    >>> text = render_text(variant_eval_table([(0, Probabilities(0.5, 0.1, 0.0, 0.1, 0.0))], "dutch"))
    >>> "+0.000" in text and "no doubling cube" in text
    True
    """
    cols = [Col("ply"), *_variant_chance_cols(variant), Col("Points")]
    table = fitted_table(cols, [[f"{ply}-ply", *_chances(p, variant), fixed(p.equity, "+.3f")] for ply, p in rows],
                         width=width,
                         title=f"Cubeless evaluation (side on roll), {title_of(variant)}")
    return Group(table, prose(no_cube_note(variant), width))


def variant_hint_table(plays: Sequence[RankedLike], dice: tuple[int, int], variant: str, *,
                       total: int | None = None, width: int = 110) -> Group:
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
    cols = [Col("#"), Col("ply", drop=4), Col("play", "left", wrap=True), Col("Points"), Col("diff"),
            *_variant_chance_cols(variant)]
    best = plays[0].equity if plays else 0.0
    rows = [[str(i), f"{r.ply}", r.play or "(no move)", fixed(r.equity, "+.3f"),
             "" if i == 1 else fixed(r.equity - best, "+.3f"),
             *_chances(r.probabilities, variant)] for i, r in enumerate(plays, 1)]
    table = fitted_table(cols, rows, width=width, title=f"{count} plays for the roll {dice[0]}{dice[1]} "
                                                        f"(cubeless points, side on roll), {title_of(variant)}")
    return Group(table, prose(no_cube_note(variant), width))


def variant_rollout_table(r: VariantRolloutResult, *, width: int = 110) -> Group:
    """A Dutch or Mahbusa rollout: one row per candidate (or the position), best first, with
    points and their standard error, the difference from the best over the same dice and its
    standard error, the outcome frequencies and the games counted; then how it was played and
    a line that says that there is no cube. The position's key is printed whole on its own line.

    >>> from analyzer.core.position import Position
    >>> from analyzer.eval.variants.engine import engine_for
    >>> from analyzer.eval.rollout import RolloutSettings, rollout
    >>> r = rollout(engine_for("dutch"), Position.start("dutch"), RolloutSettings(trials=36, workers=1, max_plays=2),
    ...             dice=(2, 1))
    >>> text = render_text(variant_rollout_table(r), width=140)
    >>> "36 trials" in text and "no doubling cube" in text and "+-SE" in text
    True
    """
    variant = r.variant
    what = f"dice {r.dice[0]}{r.dice[1]}" if r.dice else "before the roll"
    cols = [Col("#"), Col("play", "left", wrap=True), Col("Points"), Col("+-SE"), Col("diff"), Col("+-SE "),
            *_variant_chance_cols(variant), Col("games", drop=3, wrap=True)]
    rows = []
    for i, c in enumerate(r.candidates, 1):
        name = "(position)" if c.play is None else (c.play or "(no move)")
        rows.append([str(i), name, fixed(c.equity, "+.3f"), f"{c.equity_se:.3f}",
                     "" if i == 1 else fixed(c.diff, "+.3f"), "" if i == 1 else f"{c.diff_se:.3f}",
                     *_chances(c.probabilities, variant),
                     str(c.games) + (f" ({c.dropped} dropped)" if c.dropped else "")])
    table = fitted_table(cols, rows, width=width)
    head = Text(f"Rollout ({title_of(variant)}), {what}, of the position")
    how = (f"{r.trials} trials" + (f" (stopped at SE {r.target_se:g})" if r.stopped_early else "")
           + ", cubeless, played out by the 0-ply net, no variance reduction, same dice for every candidate"
           + f", seed {r.seed}, net {r.net}")
    return Group(head, id_lines([("", encode_key(r.position))], indent=2), table, prose(how, width),
                 prose(no_cube_note(variant), width))


def rollout_view(r: RolloutResult, *, width: int = 110, ids: Sequence[str] = ()) -> Group:
    """A standard rollout: how it was played, the position's IDs whole on their own line (``ids``,
    default its Position ID), one row per candidate (or the position) with the chances, the
    cubeless and cubeful equities, the difference from the best and the 95% confidence interval,
    and under it a row of standard errors; then the cube decision (before the roll, cubeful).

    >>> from analyzer.core.position import Position
    >>> from analyzer.eval.engine import Engine
    >>> from analyzer.eval.rollout import RolloutSettings, rollout
    >>> r = rollout(Engine(), Position.start(), RolloutSettings(trials=36, truncate=2, workers=1, max_plays=3,
    ...                                                         threshold=1.0), dice=(3, 1))
    >>> text = render_text(rollout_view(r, width=80), width=80)
    >>> "dice 31: 36 trials" in text and "4HPwATDgc/ABMA" in text and "…" not in text
    True
    """
    head = (f"Rollout, {'dice ' + str(r.dice[0]) + str(r.dice[1]) if r.dice else 'before the roll'}"
            f": {r.trials} trials" + (" (stopped early)" if r.stopped_early else "")
            + (f", truncated at {r.truncate} plies" if r.truncate else ", played out")
            + (", variance reduction" if r.variance_reduction else "")
            + (", cube played" if r.best.cubeful_se is not None else "") + f", seed {r.seed}, of the position")
    cubeful = any(c.cubeful_equity is not None for c in r.candidates)
    cols = [Col("#"), Col("play", "left", wrap=True), Col("Win"), Col("W g"), Col("W bg", drop=3), Col("L g"),
            Col("L bg", drop=2), Col("Cubeless"), Col("+-SE")]
    cols += [Col("Cubeful")] if cubeful else []
    cols += [Col("diff"), Col("95% CI", "left", drop=1)]

    def value(c: RolloutCandidate) -> float:
        return c.cubeful_equity if c.cubeful_equity is not None else c.equity

    rows: list[list[str]] = []
    for i, c in enumerate(r.candidates, 1):
        p = c.probabilities
        name = "(position)" if c.play is None else (c.play or "(no move)")
        chances = [p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon]
        row = [str(i), name, *(fixed(100 * x, ".1f") + "%" for x in chances), fixed(c.equity, "+.3f"),
               f"{c.equity_se:.3f}"]
        row += [_num(c.cubeful_equity, "+.3f")] if cubeful else []
        row += ["" if i == 1 else fixed(value(c) - value(r.best), "+.3f"),
                fixed(c.equity_ci[0], "+.3f") + ".." + fixed(c.equity_ci[1], "+.3f")]
        rows.append(row)
        se = ["", "  +-SE", *(fixed(100 * x, ".1f") + "%" for x in c.probabilities_se), "", ""]
        se += [_num(c.cubeful_se, ".3f") if c.cubeful_se is not None else ""] if cubeful else []
        rows.append(se + ["", ""])
    shown = ids or [encode_position_id(r.position)]
    parts: list[RenderableType] = [prose(head, width), id_lines([("", i) for i in shown], indent=2),
                                   fitted_table(cols, rows, width=width)]
    if r.cube is not None:
        cd = r.cube
        if cd.available and cd.dt is not None and cd.dp is not None:
            parts.append(prose(f"Cube: No double {cd.nd:+.3f}   Double, take {cd.dt:+.3f}   "
                               f"Double, pass {cd.dp:+.3f}", width))
        else:
            parts.append(Text(f"Cube: no double possible, cubeful equity {cd.nd:+.3f}"))
        parts.append(Text(f"Proper cube action: {cd.action[:1].upper() + cd.action[1:]}"))
    return Group(*parts)


def cube_table(cd: CubeDecision) -> Group:
    """gnubg's cube analysis: the three cubeful equities, their difference from the best, the
    cubeless chances and the proper action."""
    p = cd.probabilities
    head = Text(f"Cubeless: win {p.win:.3f} (g {p.win_gammon:.3f}, bg {p.win_backgammon:.3f}),\n"
                f"          lose {p.lose:.3f} (g {p.lose_gammon:.3f}, bg {p.lose_backgammon:.3f}); "
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
    lines = [f"Proper cube action: {cd.action}"]
    if cd.available and cd.take_point is not None:
        lines.append(f"Take point: {100 * cd.take_point:.1f}% (the taker's cubeless winning chances; he has "
                     f"{100 * p.lose:.1f}%)")
    g = cd.gammons
    lines.append(f"Gammon values: doubler {g.me_gammon:.2f}, taker {g.opp_gammon:.2f}")
    return Group(head, table, Text("\n".join(lines)))
