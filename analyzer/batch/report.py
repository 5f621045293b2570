"""The report of a batch dataset: players table, PR over time, error mix by game phase, index.html.

:func:`write_batch_report` reads a dataset written by :func:`analyzer.batch.run_batch` and writes,
into ``<dataset>/report`` (or the folder given):

* ``players.csv`` — the players table (matches, wins, decisions, mean PR, error rate, PR trend);
* ``pr/<player>.svg`` — each player's PR per match over time (by match date; matches without
  a date are left out of the chart, not of the table);
* ``phase_mix.csv`` and ``phase_mix.svg`` — decisions, errors by class and PR by game phase
  (contact, race, bear-off: the ``phase`` column of the decisions, see
  :mod:`analyzer.batch.phase`), for all players together;
* ``matches/<part>/report.html`` — the full report of every analysed match (the same page as
  ``bgreview analyze``), unless ``match_reports=False``;
* ``index.html`` — all of the above, linked, with every name escaped.

A ``--replay-only`` dataset has no PR: its report shows the players table, decisions by phase
and the match list without per-match reports.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     write_batch_report(tmp)
Traceback (most recent call last):
...
FileNotFoundError: ...matches.parquet: not a batch dataset (run `bgreview batch` first)
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .layout import DECISIONS_DIR, ERRORS_TABLE, MANIFEST, MATCHES_TABLE, atomic_write_bytes, read_json, read_part_meta
from .phase import PHASES
from .tables import players_table

__all__ = ["BatchReport", "phase_mix", "write_batch_report"]


@dataclass(frozen=True)
class BatchReport:
    """What :func:`write_batch_report` wrote: the index page and every other file."""

    index: Path
    files: list[Path]
    match_reports: int


def _decisions(dataset: Path) -> pl.LazyFrame | None:
    if not any((dataset / DECISIONS_DIR).glob("*.parquet")):
        return None
    return pl.scan_parquet(dataset / DECISIONS_DIR / "*.parquet")


def phase_mix(dataset: str | Path) -> pl.DataFrame:
    """Decisions by game phase over the whole dataset: ``decisions`` (all), and for an analysis
    dataset ``unforced``, ``errors`` (decisions of an error class), ``total_error`` (EMG),
    ``pr`` and one count column per error class (``class_<name>``, mildest first)."""
    lf = _decisions(Path(dataset))
    if lf is None:
        return pl.DataFrame(schema={"phase": pl.String(), "decisions": pl.UInt32()})
    names = lf.collect_schema().names()
    analysed = "error_class" in names
    cols = ["phase", "error_class", "equity_loss", "forced"] if analysed else ["phase"]
    frame = lf.select(cols).with_columns(pl.col("phase").fill_null("unknown")).collect()
    order = pl.DataFrame({"phase": [*PHASES, "unknown"], "_o": [0, 1, 2, 3]})
    if not analysed:
        out = frame.group_by("phase").agg(pl.len().alias("decisions"))
        return out.join(order, on="phase").sort("_o").drop("_o")
    unforced = ~pl.col("forced").fill_null(False)
    is_error = pl.col("error_class").fill_null("none") != "none"
    severity = (frame.filter(is_error).group_by("error_class").agg(pl.col("equity_loss").min().alias("m"))
                .sort(["m", "error_class"]))
    classes = severity["error_class"].to_list()  # mildest class first
    out = frame.group_by("phase").agg(
        pl.len().alias("decisions"), unforced.sum().alias("unforced"),
        (is_error & unforced).sum().alias("errors"),
        pl.col("equity_loss").filter(unforced).sum().alias("total_error"),
        *[(pl.col("error_class") == c).sum().alias(f"class_{c}") for c in classes])
    out = out.with_columns(pl.when(pl.col("unforced") > 0)
                           .then(500.0 * pl.col("total_error") / pl.col("unforced")).alias("pr"))
    return out.join(order, on="phase").sort("_o").drop("_o")


_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _slug(name: str) -> str:
    digest = hashlib.sha1(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{_SAFE.sub('_', name).strip('_')[:40] or 'player'}-{digest}"


def _svg(fig: Any) -> bytes:
    from analyzer.render.charts import SVG_METADATA

    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata=SVG_METADATA)
    return buf.getvalue()


def _pr_chart(name: str, points: pl.DataFrame) -> bytes:
    import datetime as dt

    import matplotlib
    from matplotlib.figure import Figure

    from analyzer.render.charts import RC, plain

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(8.0, 3.2), dpi=100, layout="constrained")
        ax = fig.add_subplot()
        epoch = dt.date.fromisoformat(str(matplotlib.rcParams["date.epoch"])[:10])
        days = [float((dt.date.fromisoformat(d) - epoch).days) for d in points["date"].to_list()]
        ax.plot(days, points["pr"].to_list(), marker="o", linewidth=1.0, markersize=4, color="#1f5fa8")
        ax.xaxis_date()
        ax.set_title(f"PR per match: {plain(name)}")
        ax.set_ylabel("PR (lower is better)")
        ax.grid(True, axis="y", color="#e5e5e5", linewidth=0.6)
        fig.autofmt_xdate()
        return _svg(fig)


def _phase_chart(mix: pl.DataFrame) -> bytes:
    import matplotlib
    from matplotlib.figure import Figure

    from analyzer.render.charts import RC

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(7.0, 3.2), dpi=100, layout="constrained")
        ax = fig.add_subplot()
        phases = mix["phase"].to_list()
        cols = [c for c in mix.columns if c.startswith("class_")]
        if cols:
            bottom = [0.0] * len(phases)
            for c in cols:
                share = [100.0 * v / u if u else 0.0 for v, u in zip(mix[c].to_list(), mix["unforced"].to_list(),
                                                                       strict=True)]
                ax.bar(phases, share, bottom=bottom, label=c.removeprefix("class_"))
                bottom = [b + s for b, s in zip(bottom, share, strict=True)]
            ax.set_ylabel("% of unforced decisions")
            ax.legend(frameon=False)
            ax.set_title("Errors by game phase")
        else:
            ax.bar(phases, mix["decisions"].to_list(), color="#1f5fa8")
            ax.set_ylabel("decisions")
            ax.set_title("Decisions by game phase")
        return _svg(fig)


class _PartAnalysis:
    """A match analysis read back from its part file (what the HTML report needs)."""

    def __init__(self, decisions: pl.DataFrame, summary: Mapping[str, Any]) -> None:
        self.decisions = decisions
        self.summary = summary
        self.metadata: Mapping[str, Any] = summary.get("metadata") or {}


_INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>bgreview batch report</title>
<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin:0.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td.l,th.l{text-align:left}</style></head>
<body><h1>bgreview batch report</h1>
<p>{{ n_matches }} matches, {{ n_decisions }} decisions, {{ n_errors }} input errors.
{% if options %}Options: {{ options }}.{% endif %}</p>
<h2>Players</h2>
<p>Files: <a href="players.csv">players.csv</a>. PR = 500 &times; mean EMG error per unforced decision;
trend in PR per match (negative = improving).</p>
<table><tr><th class="l">player</th><th>matches</th><th>wins</th><th>decisions</th><th>mean PR</th>
<th>error rate</th><th>PR trend</th><th class="l">chart</th></tr>
{% for p in players %}<tr><td class="l">{{ p.player }}</td><td>{{ p.matches }}</td><td>{{ p.wins }}</td>
<td>{{ p.decisions }}</td><td>{{ p.mean_pr }}</td><td>{{ p.error_rate }}</td><td>{{ p.pr_trend }}</td>
<td class="l">{% if p.chart %}<a href="{{ p.chart }}">PR over time</a>{% endif %}</td></tr>
{% endfor %}</table>
<h2>Game phases</h2>
<p><img src="phase_mix.svg" alt="error mix by game phase"> <a href="phase_mix.csv">phase_mix.csv</a></p>
<table><tr>{% for c in phase_cols %}<th>{{ c }}</th>{% endfor %}</tr>
{% for r in phase_rows %}<tr>{% for v in r %}<td>{{ v }}</td>{% endfor %}</tr>{% endfor %}</table>
<h2>Matches</h2>
<table><tr><th class="l">date</th><th class="l">players</th><th>length</th><th class="l">winner</th>
<th>PR</th><th class="l">file</th><th class="l">report</th></tr>
{% for m in matches %}<tr><td class="l">{{ m.date }}</td><td class="l">{{ m.player_0 }} &ndash; {{ m.player_1 }}</td>
<td>{{ m.length }}</td><td class="l">{{ m.winner }}</td><td>{{ m.pr }}</td><td class="l">{{ m.file }}</td>
<td class="l">{% if m.report %}<a href="{{ m.report }}">report</a>{% endif %}</td></tr>
{% endfor %}</table>
<h2>Input errors</h2>
<table><tr><th class="l">where</th><th class="l">token</th><th class="l">reason</th><th class="l">kind</th></tr>
{% for e in errors %}<tr><td class="l">{{ e.where }}</td><td class="l">{{ e.token }}</td>
<td class="l">{{ e.reason }}</td><td class="l">{{ e.kind }}</td></tr>{% endfor %}</table>
</body></html>
"""


def _num(x: Any, fmt: str) -> str:
    return "" if x is None else format(x, fmt)


def _where(e: Mapping[str, Any]) -> str:
    out = str(e["file"])
    for k in ("line", "column"):
        if e.get(k) is not None:
            out += f":{e[k]}"
    if e.get("game") is not None:
        out += f" (game {e['game']})"
    return out


def write_batch_report(dataset: str | Path, out_dir: str | Path | None = None, *,
                       match_reports: bool = True) -> BatchReport:
    """Write the report of ``dataset`` (see the module docstring) and return what was written.

    Raises :class:`FileNotFoundError` when ``dataset`` holds no matches table.
    """
    from jinja2 import Environment

    data = Path(dataset)
    out = Path(out_dir) if out_dir is not None else data / "report"
    matches_path = data / f"{MATCHES_TABLE}.parquet"
    if not matches_path.exists():
        raise FileNotFoundError(f"{matches_path}: not a batch dataset (run `bgreview batch` first)")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    matches = pl.read_parquet(matches_path)
    errors = pl.read_parquet(data / f"{ERRORS_TABLE}.parquet")
    players = players_table(matches)
    path = out / "players.csv"
    atomic_write_bytes(path, players.write_csv().encode("utf-8"))
    written.append(path)

    charts: dict[str, str] = {}
    (out / "pr").mkdir(exist_ok=True)
    long = pl.concat([matches.select(pl.col(f"player_{s}").alias("player"), "date", "file", "match_index",
                                     pl.col(f"pr_{s}").alias("pr")) for s in (0, 1)])
    dated = long.filter(pl.col("pr").is_not_null() & pl.col("date").is_not_null()) \
        .sort(["player", "date", "file", "match_index"])
    for (name,), points in dated.group_by("player", maintain_order=True):
        rel = f"pr/{_slug(str(name))}.svg"
        atomic_write_bytes(out / rel, _pr_chart(str(name), points))
        charts[str(name)] = rel
        written.append(out / rel)

    mix = phase_mix(data)
    for rel, blob in (("phase_mix.csv", mix.write_csv().encode("utf-8")), ("phase_mix.svg", _phase_chart(mix))):
        atomic_write_bytes(out / rel, blob)
        written.append(out / rel)

    reports: dict[str, str] = {}
    if match_reports:
        from analyzer.render.html import write_html_report

        for part in matches.filter(pl.col("pr_0").is_not_null())["part"].to_list():
            src = data / DECISIONS_DIR / part
            meta = read_part_meta(src) or {}
            if not meta.get("summary"):
                continue
            folder = out / "matches" / part.removesuffix(".parquet")
            written.append(write_html_report(_PartAnalysis(pl.read_parquet(src), meta["summary"]), folder))
            reports[part] = f"matches/{folder.name}/report.html"

    manifest = read_json(data / MANIFEST) or {}
    env = Environment(autoescape=True)
    html = env.from_string(_INDEX).render(
        n_matches=matches.height, n_decisions=int(matches["decisions"].sum() or 0), n_errors=errors.height,
        options=", ".join(f"{k}={v}" for k, v in (manifest.get("options") or {}).items()),
        players=[{**p, "mean_pr": _num(p["mean_pr"], ".2f"), "error_rate": _num(p["error_rate"], ".3f"),
                  "pr_trend": _num(p["pr_trend"], "+.2f"), "chart": charts.get(p["player"])}
                 for p in players.iter_rows(named=True)],
        phase_cols=mix.columns,
        phase_rows=[[_num(v, ".2f") if isinstance(v, float) else v for v in r] for r in mix.rows()],
        matches=[{**m, "date": m["date"] or m["date_raw"] or "", "winner": m["winner"] or "",
                  "pr": " / ".join(_num(m[f"pr_{s}"], ".2f") for s in (0, 1)) if m["pr_0"] is not None else "",
                  "report": reports.get(m["part"])}
                 for m in matches.sort(["date", "file", "match_index"], nulls_last=True).iter_rows(named=True)],
        errors=[{**e, "where": _where(e), "token": e["token"] or ""} for e in errors.iter_rows(named=True)],
    )
    index = out / "index.html"
    atomic_write_bytes(index, html.encode("utf-8"))
    written.append(index)
    return BatchReport(index, written, len(reports))
