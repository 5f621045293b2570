"""Match charts: the files written (SVG + PNG), byte-for-byte reproducible, what each chart plots
(perspective of the first player, cumulative sums, marker shapes and sizes, game boundaries) and
untrusted names."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest
from matplotlib.collections import PathCollection
from matplotlib.lines import Line2D
from render_sample import SampleAnalysis, make_analysis

from analyzer.render.charts import (
    CHARTS,
    chart_svg,
    cumulative_error_figure,
    error_chart_svg,
    inline_svg,
    luck_chart_svg,
    luck_figure,
    player_names,
    winning_chances_figure,
    winning_chances_svg,
    write_charts,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def sample() -> SampleAnalysis:
    return make_analysis()


def data_lines(fig_lines: list[Line2D]) -> list[Line2D]:
    """Plotted series (not the axhline/axvline helpers, whose data has two points)."""
    return [ln for ln in fig_lines if len(ln.get_xdata()) > 2]


def vertical_lines(fig_lines: list[Line2D]) -> list[float]:
    out = []
    for ln in fig_lines:
        xs = list(ln.get_xdata())
        if len(xs) == 2 and xs[0] == xs[1] and list(ln.get_ydata()) == [0, 1]:
            out.append(float(xs[0]))
    return out


def test_write_charts_files_and_reproducible(sample: SampleAnalysis, tmp_path: Path) -> None:
    first = write_charts(sample, tmp_path / "a")
    second = write_charts(sample, tmp_path / "b")
    assert [p.name for p in first] == [f"{n}.{ext}" for n in CHARTS for ext in ("svg", "png")]
    assert len(first) == 6
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
        if a.suffix == ".svg":
            root = ET.fromstring(a.read_bytes())
            assert root.tag == "{http://www.w3.org/2000/svg}svg"
            text = a.read_text()
            assert "<dc:date>" not in text  # no timestamp
            assert "<image" not in text and "@font-face" not in text  # glyphs as paths, nothing external
        else:
            assert a.read_bytes().startswith(PNG_MAGIC)


def test_svg_functions_match_the_files(sample: SampleAnalysis, tmp_path: Path) -> None:
    write_charts(sample, tmp_path)
    assert winning_chances_svg(sample) == (tmp_path / "winning-chances.svg").read_text()
    assert error_chart_svg(sample) == (tmp_path / "cumulative-error.svg").read_text()
    assert luck_chart_svg(sample) == (tmp_path / "luck.svg").read_text()
    with pytest.raises(ValueError, match="unknown chart"):
        chart_svg("pips", sample)


def test_winning_chances_from_the_first_player(sample: SampleAnalysis) -> None:
    fig = winning_chances_figure(sample)
    ax = fig.axes[0]
    assert ax.get_title(loc="left").startswith("Match winning chance of Alice")
    (line,) = data_lines(ax.get_lines())
    df = sample.decisions
    want = [100 * (m if s == 0 else 1 - m) for m, s in zip(df["mwc"], df["side"], strict=True)]
    assert list(line.get_ydata()) == pytest.approx(want)
    assert list(line.get_xdata()) == list(range(df.height))
    assert vertical_lines(ax.get_lines()) == [7.5]  # game 2 starts at decision 8
    money = make_analysis(length=0)
    ax0 = winning_chances_figure(money).axes[0]
    assert ax0.get_title(loc="left").startswith("Cubeless winning chance of Alice")
    (line0,) = data_lines(ax0.get_lines())
    dfm = money.decisions
    want0 = [100 * (w if s == 0 else 1 - w) for w, s in zip(dfm["win_prob"], dfm["side"], strict=True)]
    assert list(line0.get_ydata()) == pytest.approx(want0)


def test_cumulative_error_lines_and_markers(sample: SampleAnalysis) -> None:
    ax = cumulative_error_figure(sample).axes[0]
    df = sample.decisions
    lines = data_lines(ax.get_lines())
    assert [ln.get_label() for ln in lines] == ["Alice", "Bob"]
    for side, line in enumerate(lines):
        total = float(df.filter(pl.col("side") == side)["equity_loss"].sum())
        assert list(line.get_ydata())[-1] == pytest.approx(total)
        assert line.get_drawstyle() == "steps-post"
    errors = df.filter(pl.col("error_class") != "none")
    scatters = [c for c in ax.collections if isinstance(c, PathCollection)]
    # one collection per player and shape: circles have many vertices, squares five
    shapes = {}
    for c in scatters:
        n = len(c.get_paths()[0].vertices)
        shapes.setdefault("square" if n <= 5 else "round", []).append(c)
    n_checker = errors.filter(pl.col("kind") == "checker").height
    n_cube = errors.filter(pl.col("kind").is_in(["cube", "take"])).height
    assert sum(len(c.get_offsets()) for c in shapes["round"]) == n_checker == 3
    assert sum(len(c.get_offsets()) for c in shapes["square"]) == n_cube == 2
    # markers sized by the loss: the biggest loss gets the biggest marker
    sizes = {}
    for c in scatters:
        for (x, _y), s in zip(c.get_offsets(), c.get_sizes(), strict=True):
            sizes[int(x)] = float(s)
    losses = {i: loss for i, loss in enumerate(df["equity_loss"]) if df["error_class"][i] != "none"}
    assert set(sizes) == set(losses)
    by_loss = sorted(losses, key=lambda i: losses[i])
    assert [sizes[i] for i in by_loss] == sorted(sizes.values())
    assert vertical_lines(ax.get_lines()) == [7.5]


def test_luck_is_cumulative_per_player(sample: SampleAnalysis) -> None:
    ax = luck_figure(sample).axes[0]
    df = sample.decisions
    for side, line in enumerate(data_lines(ax.get_lines())):
        luck = df.filter((pl.col("side") == side) & pl.col("luck").is_not_null())["luck"].to_list()
        ys = list(line.get_ydata())
        running = [sum(luck[: k + 1]) for k in range(len(luck))]
        assert ys[1:-1] == pytest.approx(running)  # a leading 0 and a trailing copy of the total
        assert ys[-1] == pytest.approx(running[-1])


def test_untrusted_names_are_literal_and_inert(tmp_path: Path) -> None:
    names = ("$\\frac{a}{", "<script>alert(1)</script> -->")
    a = make_analysis(names=names)
    assert player_names(a) == names
    ax = cumulative_error_figure(a).axes[0]
    labels = [ln.get_label() for ln in data_lines(ax.get_lines())]
    assert labels[0] == r"\$\frac{a}{"  # dollar escaped: no mathtext, no parse error
    for path in write_charts(a, tmp_path):
        data = path.read_bytes()
        assert b"<script" not in data
        if path.suffix == ".svg":
            ET.fromstring(data)


def test_empty_match_still_draws(tmp_path: Path) -> None:
    a = make_analysis()
    empty = SampleAnalysis(a.decisions.head(0), a.summary)
    paths = write_charts(empty, tmp_path)
    assert all(p.stat().st_size > 0 for p in paths)


def test_inline_svg_prefixes_ids_so_charts_can_share_a_page(sample: SampleAnalysis) -> None:
    one = inline_svg(winning_chances_svg(sample), "c1")
    two = inline_svg(error_chart_svg(sample), "c2")
    assert not one.startswith("<?xml") and "<!DOCTYPE" not in one and "<!--" not in one
    ids1 = set(re.findall(r'id="([^"]+)"', one))
    ids2 = set(re.findall(r'id="([^"]+)"', two))
    assert ids1 and ids2 and not ids1 & ids2
    assert all(i.startswith("c1-") for i in ids1)
    for ref in re.findall(r'(?:href="#|url\(#)([^")]+)', one):
        assert ref in ids1
    ET.fromstring(one)
