"""Match charts with matplotlib (Agg, object-oriented API): SVG and PNG, byte for byte reproducible.

Three charts, each over every decision of the match in order (``x`` = decision index, a dashed
line between games):

* ``winning-chances``: the match winning chance of the first player (MWC, in matches) or, in
  money play and when no MWC is known, his cubeless chance of winning the game;
* ``cumulative-error``: each player's cumulative equity loss (EMG), with a marker on every
  error sized by its loss, round for checker plays and square for cube decisions;
* ``luck``: each player's cumulative luck (EMG).

Reproducibility: ``svg.hashsalt`` is fixed, the SVG carries no date, glyphs are embedded as
paths (no fonts needed), and text from match files is shown literally (``$`` does not start
mathtext).

The analysis is any object with ``decisions`` (the polars decisions DataFrame) and ``summary``
(:class:`~analyzer.analysis.summary.AnalysisSummary`; see :class:`AnalysisLike`).

>>> import polars as pl
>>> from analyzer.analysis.summary import AnalysisSummary, PlayerStats
>>> class A:
...     decisions = pl.DataFrame({"game": [1, 1], "side": [0, 1], "kind": ["checker", "checker"],
...                               "win_prob": [0.5, 0.45], "equity_loss": [0.0, 0.1],
...                               "error_class": ["none", "blunder"], "luck": [0.2, -0.1]})
...     summary = AnalysisSummary(players=(PlayerStats("Ann", 0), PlayerStats("Bo", 1)))
>>> error_chart_svg(A()).count("<svg")
1
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import matplotlib
import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analyzer.analysis.stats import luck_at_stake
from analyzer.analysis.summary import AnalysisSummary
from analyzer.core.files import atomic_write, ensure_folder
from analyzer.core.variants import cubeless_only

RC: dict[Any, Any] = {  # rcParams for every chart (keys typed Any for matplotlib's Literal keys)
    "svg.hashsalt": "bgreview",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "text.usetex": False,
}
SVG_METADATA: dict[str, Any] = {"Date": None, "Creator": "bgreview (matplotlib)"}
PNG_METADATA: dict[str, Any] = {"Software": "bgreview (matplotlib)"}
PLAYER_COLOURS = ("#1f5fa8", "#c0392b")
FIGSIZE = (9.0, 3.6)
DPI = 100
CUBE_KINDS = ("cube", "take")


class AnalysisLike(Protocol):
    """What the renderers need of a match analysis (``analyzer.analysis.analyze.MatchAnalysis``)."""

    @property
    def decisions(self) -> pl.DataFrame: ...

    @property
    def summary(self) -> AnalysisSummary: ...


def plain(text: str) -> str:
    """Text from a match file made literal for matplotlib (no mathtext).

    >>> print(plain("$x$ & co"))
    \\$x\\$ & co
    """
    return text.replace("$", r"\$")


def player_names(analysis: AnalysisLike) -> tuple[str, str]:
    """The names of the players on sides 0 and 1 (summary first, then the decisions).

    >>> class A:
    ...     decisions = pl.DataFrame({"side": [1], "player": ["Bo"]})
    ...     summary = AnalysisSummary()
    >>> player_names(A())
    ('Player 1', 'Bo')
    """
    names = ["Player 1", "Player 2"]
    found = [False, False]
    for p in analysis.summary.players:
        if p.side in (0, 1):
            names[p.side] = p.name
            found[p.side] = True
    df = analysis.decisions
    if not all(found) and "player" in df.columns and "side" in df.columns:
        for side in (0, 1):
            if not found[side]:
                got = df.filter(pl.col("side") == side)["player"].head(1).to_list()
                if got and got[0] is not None:
                    names[side] = str(got[0])
    return names[0], names[1]


def _column(df: pl.DataFrame, name: str) -> list[Any]:
    return df[name].to_list() if name in df.columns else [None] * df.height


def _game_bounds(ax: Axes, games: Sequence[Any]) -> None:
    """Dashed lines between games and a label over each game."""
    if not games:
        return
    starts = [0] + [i for i in range(1, len(games)) if games[i] != games[i - 1]]
    ends = starts[1:] + [len(games)]
    for s in starts[1:]:
        ax.axvline(s - 0.5, color="#888888", linestyle="--", linewidth=0.8)
    trans = ax.get_xaxis_transform()
    if len(starts) <= 40:
        for s, e in zip(starts, ends, strict=True):
            ax.text((s + e - 1) / 2, 1.01, f"G{games[s]}", transform=trans, ha="center", va="bottom",
                    fontsize=8, color="#555555")
    ax.set_xlim(-0.5, len(games) - 0.5)


def _empty(ax: Axes) -> None:
    ax.text(0.5, 0.5, "no decisions", transform=ax.transAxes, ha="center", va="center", color="#777777")
    ax.set_xticks([])


def _new_figure() -> tuple[Figure, Axes]:
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.grid(True, axis="y", color="#e5e5e5", linewidth=0.6)
    ax.set_axisbelow(True)
    return fig, ax


def _uses_mwc(df: pl.DataFrame) -> bool:
    if "mwc" not in df.columns or df.height == 0 or df["mwc"].null_count() == df.height:
        return False
    return "match_length" not in df.columns or bool((df["match_length"].fill_null(0) > 0).any())


def equity_unit(df: pl.DataFrame) -> str:
    """``"points"`` for a table of cubeless variant games only (Dutch, Mahbusa: no cube, values
    in points of a game), else ``"EMG"``.

    >>> equity_unit(pl.DataFrame({"variant": ["dutch"], "cube": [None]}, schema={"variant": pl.String,
    ...                                                                         "cube": pl.Int32}))
    'points'
    """
    if df.height == 0 or "variant" not in df.columns:
        return "EMG"
    variants = set(df["variant"].drop_nulls().to_list())
    cubeless = "cube" not in df.columns or df["cube"].null_count() == df.height
    return "points" if cubeless_only(variants) and cubeless else "EMG"


def winning_chances_figure(analysis: AnalysisLike) -> Figure:
    """The first player's MWC (matches) or cubeless winning chance, decision by decision."""
    df = analysis.decisions
    names = player_names(analysis)
    fig, ax = _new_figure()
    use_mwc = _uses_mwc(df)
    what = "Match winning chance" if use_mwc else "Cubeless winning chance"
    ax.set_title(f"{what} of {plain(names[0])}", loc="left", fontsize=11, pad=16)
    if df.height == 0:
        _empty(ax)
        return fig
    values = _column(df, "mwc" if use_mwc else "win_prob")
    sides = _column(df, "side")
    ys = [None if v is None else (float(v) if s == 0 else 1.0 - float(v)) * 100 for v, s in
          zip(values, sides, strict=True)]
    xs = list(range(df.height))
    ax.axhline(50, color="#999999", linewidth=0.8)
    ax.plot(xs, [float("nan") if y is None else y for y in ys], color=PLAYER_COLOURS[0], linewidth=1.4,
            marker="o", markersize=2.5)
    ax.set_ylim(0, 100)
    ax.set_ylabel("%")
    ax.set_xlabel("decision (both players, in match order)")
    _game_bounds(ax, _column(df, "game"))
    return fig


def _per_side(df: pl.DataFrame, value: str, side: int) -> tuple[list[int], list[float]]:
    """Decision indices of ``side`` (rows where ``value`` is known) and the running sum of ``value``."""
    vals, sides = _column(df, value), _column(df, "side")
    xs: list[int] = []
    cum: list[float] = []
    total = 0.0
    for i, (v, s) in enumerate(zip(vals, sides, strict=True)):
        if s != side or v is None:
            continue
        total += float(v)
        xs.append(i)
        cum.append(total)
    return xs, cum


def marker_size(loss: float) -> float:
    """The area (points squared) of an error marker for an equity loss in EMG.

    >>> marker_size(0.0), marker_size(0.1), marker_size(5.0)
    (16.0, 116.0, 400.0)
    """
    return min(16.0 + 1000.0 * max(loss, 0.0), 400.0)


def _cumulative_figure(analysis: AnalysisLike, what: str) -> tuple[pl.DataFrame, tuple[str, str], Figure, Axes, str]:
    """The decisions, the names, a new figure titled ``what (unit)`` and the unit (EMG or points)."""
    df = analysis.decisions
    names = player_names(analysis)
    fig, ax = _new_figure()
    unit = equity_unit(df)
    ax.set_title(f"{what} ({unit})", loc="left", fontsize=11, pad=16)
    return df, names, fig, ax, unit


def _running_line(ax: Axes, df: pl.DataFrame, xs: Sequence[int], cum: Sequence[float], side: int,
                  name: str) -> Any:
    """One side's running total as steps over the whole match (0 before its first decision)."""
    (line,) = ax.plot([-0.5, *xs, df.height - 0.5], [0.0, *cum, cum[-1] if cum else 0.0], drawstyle="steps-post",
                      color=PLAYER_COLOURS[side], linewidth=1.4, label=plain(name))
    return line


def cumulative_error_figure(analysis: AnalysisLike) -> Figure:
    """Each player's cumulative equity loss; errors marked (round: checker, square: cube)."""
    df, names, fig, ax, unit = _cumulative_figure(analysis, "Cumulative error")
    if df.height == 0:
        _empty(ax)
        return fig
    kinds, classes, losses = _column(df, "kind"), _column(df, "error_class"), _column(df, "equity_loss")
    handles: list[Any] = []
    for side in (0, 1):
        xs, cum = _per_side(df, "equity_loss", side)
        colour = PLAYER_COLOURS[side]
        handles.append(_running_line(ax, df, xs, cum, side, names[side]))
        at = dict(zip(xs, cum, strict=True))
        for shape, wanted in (("o", False), ("s", True)):
            pts = [i for i in xs if (classes[i] or "none") != "none" and (kinds[i] in CUBE_KINDS) == wanted]
            if pts:
                ax.scatter(pts, [at[i] for i in pts], s=[marker_size(float(losses[i] or 0.0)) for i in pts],
                           marker=shape, color=colour, alpha=0.75, edgecolors="#000000", linewidths=0.5,
                           zorder=3)
    handles.append(Line2D([], [], linestyle="none", marker="o", color="#777777", label="checker error"))
    if unit == "EMG":
        handles.append(Line2D([], [], linestyle="none", marker="s", color="#777777", label="cube error"))
    ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=False)
    ax.set_ylabel(unit)
    ax.set_xlabel("decision (both players, in match order)")
    ax.set_ylim(bottom=0)
    _game_bounds(ax, _column(df, "game"))
    return fig


def luck_figure(analysis: AnalysisLike) -> Figure:
    """Each player's cumulative luck (EMG at the match's stake, or points in the cubeless variants) over
    the match (:func:`analyzer.analysis.stats.luck_at_stake`)."""
    df, names, fig, ax, unit = _cumulative_figure(analysis, "Cumulative luck")
    if df.height == 0:
        _empty(ax)
        return fig
    ax.axhline(0, color="#999999", linewidth=0.8)
    staked = df.with_columns(luck_at_stake(df).alias("luck")) if {"luck_mwc", "cube"} <= set(df.columns) else df
    for side in (0, 1):
        xs, cum = _per_side(staked, "luck", side)  # at the match's stake: the lines end at the players' totals
        _running_line(ax, df, xs, cum, side, names[side])
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.set_ylabel(unit)
    ax.set_xlabel("decision (both players, in match order)")
    _game_bounds(ax, _column(df, "game"))
    return fig


CHARTS: dict[str, Callable[[AnalysisLike], Figure]] = {
    "winning-chances": winning_chances_figure,
    "cumulative-error": cumulative_error_figure,
    "luck": luck_figure,
}


def _render(name: str, analysis: AnalysisLike, fmt: str) -> bytes:
    return render_charts(analysis, (fmt,), names=(name,))[name][fmt]


def render_charts(analysis: AnalysisLike, formats: Sequence[str] = ("svg", "png"),
                  names: Sequence[str] | None = None) -> dict[str, dict[str, bytes]]:
    """Every chart (or those in ``names``) drawn once and saved in each of ``formats``:
    ``{name: {fmt: bytes}}``, the same bytes as a chart drawn for each format apart.

    >>> from analyzer.analysis.summary import PlayerStats
    >>> class A:
    ...     decisions = pl.DataFrame({"game": [1], "side": [0], "kind": ["checker"], "win_prob": [0.5],
    ...                               "equity_loss": [0.0], "error_class": ["none"], "luck": [0.2]})
    ...     summary = AnalysisSummary(players=(PlayerStats("Ann", 0), PlayerStats("Bo", 1)))
    >>> charts = render_charts(A(), ("svg",))
    >>> sorted(charts), sorted(charts["luck"])
    (['cumulative-error', 'luck', 'winning-chances'], ['svg'])
    """
    out: dict[str, dict[str, bytes]] = {}
    for name in CHARTS if names is None else names:
        # matplotlib's UserWarnings (a glyph of a player's name missing from the font: drawn as a box)
        # would reach the user as a line naming our source file: library code never prints
        with matplotlib.rc_context(RC), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fig = CHARTS[name](analysis)
            out[name] = {}
            for fmt in formats:
                buf = io.BytesIO()
                fig.savefig(buf, format=fmt, dpi=DPI, metadata=SVG_METADATA if fmt == "svg" else PNG_METADATA)
                out[name][fmt] = buf.getvalue()
    return out


def chart_svg(name: str, analysis: AnalysisLike) -> str:
    """The SVG text of chart ``name`` (a key of :data:`CHARTS`)."""
    if name not in CHARTS:
        raise ValueError(f"unknown chart {name!r} (one of {', '.join(CHARTS)})")
    return _render(name, analysis, "svg").decode("utf-8")


def winning_chances_svg(analysis: AnalysisLike) -> str:
    """SVG text of the winning chances (or MWC) chart."""
    return chart_svg("winning-chances", analysis)


def error_chart_svg(analysis: AnalysisLike) -> str:
    """SVG text of the cumulative error chart."""
    return chart_svg("cumulative-error", analysis)


def luck_chart_svg(analysis: AnalysisLike) -> str:
    """SVG text of the cumulative luck chart."""
    return chart_svg("luck", analysis)


def write_charts(analysis: AnalysisLike, out_dir: Path | str,
                 rendered: Mapping[str, Mapping[str, bytes]] | None = None) -> list[Path]:
    """Write every chart as ``<name>.svg`` and ``<name>.png`` in ``out_dir``; return the paths.
    ``rendered`` (from :func:`render_charts`) saves drawing them again.

    Writing twice gives the same bytes. Each file is written whole or not at all (a temporary file renamed
    into place); raises :class:`~analyzer.core.files.OutputError` naming what cannot be written.
    """
    out = ensure_folder(out_dir)
    charts = rendered if rendered is not None else render_charts(analysis)
    paths: list[Path] = []
    for name in CHARTS:
        for fmt in ("svg", "png"):
            paths.append(atomic_write(out / f"{name}.{fmt}", charts[name][fmt], inside=out))
    return paths


_PROLOG = re.compile(r"\A\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", re.S)
_COMMENT = re.compile(r"<!--.*?-->|<metadata>.*?</metadata>\s*", re.S)
_ID = re.compile(r'\bid="([^"]+)"')


def inline_svg(svg: str, prefix: str) -> str:
    """``svg`` ready to sit inside an HTML page: no XML prolog, comments or RDF metadata, every id prefixed
    (several charts in one page would otherwise share glyph and clip ids).

    >>> inline_svg('<?xml version="1.0"?>\\n<svg><metadata>m</metadata><!-- x --><path id="a"/><use xlink:href="#a"/>'
    ...            '<g clip-path="url(#a)"/></svg>', "c1")
    '<svg><path id="c1-a"/><use xlink:href="#c1-a"/><g clip-path="url(#c1-a)"/></svg>'
    """
    text = _COMMENT.sub("", _PROLOG.sub("", svg, count=1))
    ids = set(_ID.findall(text))
    if not ids:
        return text

    def ref(mt: re.Match[str]) -> str:
        name = mt.group(2)
        return f"{mt.group(1)}{prefix}-{name}" if name in ids else mt.group(0)

    text = _ID.sub(lambda mt: f'id="{prefix}-{mt.group(1)}"', text)
    return re.sub(r'(href="#|url\(#)([^")]+)', ref, text)
