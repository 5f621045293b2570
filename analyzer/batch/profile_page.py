"""The report's page of one player's profile: charts (matplotlib SVG), tables, worst decisions with boards.

:func:`write_profile_pages` writes ``profiles/<player>.html`` for each player of a dataset (the
section ``bgreview report`` links from its players table): the summary in words, a chart of the
loss per decision by theme and one by decision kind and score situation (each bar with its 95%
interval and the other players' median), the trend, the tables of every dimension and, per class,
the worst decisions with their board and a link into their match report. Every name and every
text from the match files is escaped (the page is rendered with autoescape on; the charts show
names as plain text).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from analyzer.core.ids import decode_key
from analyzer.render.board_svg import board_svg
from analyzer.render.charts import RC, SVG_METADATA, plain
from analyzer.render.html import render_page

from .layout import atomic_write_bytes
from .profile import ClassFigure, Profile, ProfileData, WorstDecision, player_profile

__all__ = ["profile_charts", "write_profile_pages"]


def _svg(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata=SVG_METADATA)
    return buf.getvalue().decode("utf-8")


def _bars(ax: Any, classes: Sequence[ClassFigure], unit: str, title: str) -> None:
    shown = [c for c in classes if c.decisions > 0][:14]
    labels = [plain(f"{c.label} ({c.decisions})") for c in shown]
    y = list(range(len(shown)))
    values = [c.memg for c in shown]
    err_lo = [max(0.0, c.memg - c.ci_low) for c in shown]
    err_hi = [max(0.0, c.ci_high - c.memg) for c in shown]
    ax.barh(y, values, xerr=[err_lo, err_hi], color="#1f5fa8", ecolor="#555555", capsize=2, height=0.6,
            label="player (95% interval)")
    med = [(i, c.peer_median) for i, c in zip(y, shown, strict=True) if c.peer_median is not None]
    if med:
        ax.plot([m for _, m in med], [i for i, _ in med], "|", color="#c0392b", markersize=14,
                markeredgewidth=2, label="others' median")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"{unit} per decision")
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    ax.grid(True, axis="x", color="#e5e5e5", linewidth=0.6)


def profile_charts(p: Profile) -> dict[str, str]:
    """The profile's charts as SVG text: ``themes``, ``kinds`` (decision kind, cube errors, score
    situation) and ``trend``."""
    unit = "mEMG" if p.unit == "EMG" else "thousandths of a point"
    out: dict[str, str] = {}
    with matplotlib.rc_context(RC):
        themes = sorted(p.dimension("theme"), key=lambda c: -c.share)
        fig = Figure(figsize=(8.0, 0.9 + 0.32 * max(1, min(14, len(themes)))), dpi=100, layout="constrained")
        _bars(fig.add_subplot(), themes, unit, "Loss by theme")
        out["themes"] = _svg(fig)
        kinds = [*p.dimension("kind"), *p.dimension("cube error"), *p.dimension("score")]
        fig = Figure(figsize=(8.0, 0.9 + 0.32 * max(1, min(14, len(kinds)))), dpi=100, layout="constrained")
        _bars(fig.add_subplot(), kinds, unit, "Loss by decision kind, cube error and score")
        out["kinds"] = _svg(fig)
        fig = Figure(figsize=(8.0, 3.0), dpi=100, layout="constrained")
        ax = fig.add_subplot()
        x = list(range(len(p.trend)))
        ax.plot(x, [t.memg for t in p.trend], marker="o", color="#1f5fa8", linewidth=1.0, markersize=4)
        ax.fill_between(x, [t.ci_low for t in p.trend], [t.ci_high for t in p.trend], color="#1f5fa8", alpha=0.15,
                        linewidth=0)
        step = max(1, math.ceil(len(x) / 12))
        ax.set_xticks(x[::step], [plain(t.period) for t in p.trend][::step], rotation=30, ha="right")
        ax.set_ylabel(f"{unit} per decision")
        ax.set_title(f"Trend by {p.trend_by} (95% interval shaded)")
        ax.grid(True, axis="y", color="#e5e5e5", linewidth=0.6)
        out["trend"] = _svg(fig)
    return out


def _board(w: WorstDecision) -> str:
    try:
        pos = decode_key(w.key)
    except Exception:  # an unreadable key: the row still shows its IDs
        return ""
    dice = (int(w.dice[0]), int(w.dice[1])) if w.dice and len(w.dice) == 2 and w.dice.isdigit() else None
    action = None if w.kind == "checker" else ("to take or pass" if w.kind == "take" else "on roll")
    return board_svg(pos, dice=dice, cube=w.cube, size=300, action=action)


def _num(x: float | None, fmt: str = ".1f") -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.0f}%"


def _page(p: Profile, charts: Mapping[str, str], reports: bool) -> str:
    boards: dict[str, str] = {}
    dims: dict[str, list[dict[str, Any]]] = {}
    for c in p.classes:
        worst = []
        for w in c.worst:
            ident = f"{w.file}#{w.match_index}:{w.game}:{w.move_no}:{w.kind}"
            if ident not in boards:
                boards[ident] = _board(w)
            worst.append({"loss": _num(1000 * w.equity_loss), "played": f"{w.dice or ''} {w.played}".strip(),
                          "best": w.best, "where": f"{w.file} #{w.match_index}, game {w.game}, move {w.move_no}",
                          "ids": [x for x in (w.xgid, w.position_id and f"{w.position_id}:{w.match_id}", w.key) if x],
                          "link": f"../{w.link}" if reports and w.link else None, "board": boards[ident],
                          "score": (f"{w.score_me}-{w.score_opp} to {w.match_length}" if w.match_length
                                    else "money")})
        dims.setdefault(c.dimension, []).append({
            "label": c.label, "n": f"{c.decisions:,}", "memg": _num(c.memg),
            "ci": f"{_num(c.ci_low)} to {_num(c.ci_high)}", "share": _pct(c.share),
            "median": _num(c.peer_median), "peers": c.peers, "better": _pct(c.better_than),
            "early": _num(c.early), "late": _num(c.late), "worst": worst})
    return render_page("profile.html.j2", p=p, unit="mEMG" if p.unit == "EMG" else "mpt", charts=charts,
                       dims=dims, memg=_num(p.memg), ci=f"{_num(p.ci_low)} to {_num(p.ci_high)}",
                       median=_num(p.peer_median), better=_pct(p.better_than),
                       trend=[{"period": t.period, "matches": t.matches, "n": f"{t.decisions:,}",
                               "memg": _num(t.memg), "ci": f"{_num(t.ci_low)} to {_num(t.ci_high)}"}
                              for t in p.trend])


def write_profile_pages(data: ProfileData, out: Path, names: Sequence[str], *, reports: bool,
                        slug: Callable[[str], str], top: int = 2,
                        step: Callable[[], None] | None = None) -> dict[str, str]:
    """Write the profile page of each player of ``names`` (as the dataset spells them) into
    ``out/profiles/`` and return ``{name: relative link}``; ``reports`` says whether the match
    reports exist (the worst decisions link into them). A name without analysed decisions is skipped."""
    (out / "profiles").mkdir(parents=True, exist_ok=True)
    links: dict[str, str] = {}
    for name in names:
        try:
            p = player_profile(data, name, top=top)
        except LookupError:
            if step is not None:
                step()
            continue
        base = slug(name)
        rel = f"profiles/{base}.html"
        charts: dict[str, str] = {}
        for kind, svg in profile_charts(p).items():
            atomic_write_bytes(out / "profiles" / f"{base}-{kind}.svg", svg.encode("utf-8"))
            charts[kind] = f"{base}-{kind}.svg"
        atomic_write_bytes(out / rel, _page(p, charts, reports).encode("utf-8"))
        links[name] = rel
        if step is not None:
            step()
    return links
