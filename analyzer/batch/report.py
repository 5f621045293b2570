"""The report of a batch dataset: players table, PR over time, error mix by game phase, index.html.

:func:`write_batch_report` reads a dataset written by :func:`analyzer.batch.run_batch` and writes,
into ``<dataset>/report`` (or the folder given):

* ``players.csv`` — the players table (matches, wins, decisions, unforced decisions, errors, PR,
  error rate in mEMG per decision as ``bgreview analyze`` shows it, PR trend), one row per player:
  names that differ only in case ("Lasse", "lasse") are one player, and an alias file
  (:func:`load_aliases`) maps other spellings to one name;
* ``pr/<player>.svg`` — each player's PR per match over time (by match date; matches without
  a date are left out of the chart, not of the table);
* ``phase_mix.csv`` and ``phase_mix.svg`` — decisions, errors by class and PR by game phase
  (contact, race, bear-off: the ``phase`` column of the decisions, see
  :mod:`analyzer.batch.phase`), for all players together;
* ``matches/<part>/report.html`` — the full report of every analysed match (the same page as
  ``bgreview analyze``), unless ``match_reports=False``;
* ``profiles/<player>.html`` — each player's profile (:mod:`analyzer.batch.profile_page`: where the
  equity goes by theme, decision kind, score and phase beside the other players, charts, worst
  decisions with their boards linked into the match reports);
* ``index.html`` — all of the above, linked, with every name escaped, in the style of the match
  report.

``progress(done, total)``, when given, is called as the work goes on (the match reports take most
of the time); the library itself prints nothing.

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

import datetime as dt
import hashlib
import io
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from analyzer._read import read_limited
from analyzer.analysis.summary import AnalysisSummary
from analyzer.core.errors import InputError
from analyzer.core.files import check_inside, ensure_folder

from .layout import DECISIONS_DIR, ERRORS_TABLE, MANIFEST, MATCHES_TABLE, atomic_write_bytes, read_json, read_part_meta
from .phase import PHASES
from .profile import load_profile_data
from .tables import players_table

if TYPE_CHECKING:
    from .profile import ProfileData

__all__ = ["BatchReport", "Progress", "load_aliases", "merged_names", "phase_mix", "report_players",
           "write_batch_report"]

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while the report is written."""


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


MAX_ALIASES = 16 << 20
"""The largest alias file read (16 MiB: some hundred thousand aliases)."""

_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _slug(name: str) -> str:
    digest = hashlib.sha1(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{_SAFE.sub('_', name).strip('_')[:40] or 'player'}-{digest}"


def _svg(fig: Any) -> bytes:
    # the charts' imports here and below, not at the top: batch (and each of its workers, which import this
    # package) spares matplotlib, 0.4 s of CPU a process; report pays it once
    from analyzer.render.charts import SVG_METADATA

    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata=SVG_METADATA)
    return buf.getvalue()


def _pr_chart(name: str, points: pl.DataFrame) -> bytes:
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


@dataclass(frozen=True, slots=True)
class _PartAnalysis:
    """A match analysis read back from its part file (what the HTML report needs)."""

    decisions: pl.DataFrame
    summary: AnalysisSummary


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


def load_aliases(path: str | Path) -> dict[str, str]:
    """Player aliases from a file: a JSON object ``{"alias": "name", ...}`` or lines
    ``alias<TAB>name`` (blank lines and lines starting with ``#`` are skipped). The aliases are
    matched without regard to case; the result maps each alias, case-folded, to its name.

    Raises :class:`~analyzer.core.errors.InputError` naming the file, the line and the token that
    cannot be read, and for a file that is not a regular file or is larger than :data:`MAX_ALIASES`.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     tsv = os.path.join(tmp, "a.tsv")
    ...     _ = open(tsv, "w").write("# alias\\tname\\nLB\\tLasse B\\n\\nlasse_b\\tLasse B\\n")
    ...     js = os.path.join(tmp, "a.json")
    ...     _ = open(js, "w").write('{"BL": "BoardLord"}')
    ...     load_aliases(tsv), load_aliases(js)
    ({'lb': 'Lasse B', 'lasse_b': 'Lasse B'}, {'bl': 'BoardLord'})
    """
    name = str(path)
    raw = read_limited(path, MAX_ALIASES, what="alias file")  # a regular file only: a FIFO would hang
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        bad_line = raw[: e.start].count(b"\n") + 1
        raise InputError("not UTF-8 text", file=name, line=bad_line, token=repr(raw[e.start:e.start + 4])) from None
    pairs: list[tuple[str, str, int]] = []
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"not valid JSON: {e.msg}", file=name, line=e.lineno, column=e.colno,
                             token=text.splitlines()[e.lineno - 1][:40] if text.splitlines() else None) from None
        if not isinstance(data, dict):
            raise InputError("the JSON must be an object of alias: name", file=name, line=1)
        for alias, target in data.items():
            if not isinstance(target, str):
                raise InputError("an alias must map to a name (a string)", file=name, token=str(alias)[:40])
            pairs.append((alias, target, 0))
    else:
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 2:
                raise InputError("expected 'alias<TAB>name'", file=name, line=number, token=line.strip()[:40])
            pairs.append((fields[0], fields[1], number))
    out: dict[str, str] = {}
    for alias, target, number in pairs:
        if not alias.strip() or not target.strip():
            raise InputError("an empty alias or name", file=name, line=number or None,
                             token=f"{alias}\t{target}"[:40])
        out[alias.strip().casefold()] = target.strip()
    return out


def merged_names(counts: Mapping[str, int], aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """The name each spelling of a player is shown under: names equal but for case (and
    surrounding blanks) are one player, and an alias (:func:`load_aliases`) joins its name. A
    player is shown under his alias name, else under his most frequent spelling (``counts``:
    matches per spelling; ties: a spelling in mixed case, then the first in sorted order).

    >>> merged_names({"Lasse": 3, "lasse": 1, "LB": 2, "bob": 1}, {"lb": "Lasse"})
    {'Lasse': 'Lasse', 'lasse': 'Lasse', 'LB': 'Lasse', 'bob': 'bob'}
    >>> merged_names({"ann": 1, "ANN": 1, "Ann": 1})
    {'ann': 'Ann', 'ANN': 'Ann', 'Ann': 'Ann'}
    """
    aliases = aliases or {}
    groups: dict[str, list[str]] = {}
    target: dict[str, str] = {}
    for raw in counts:
        resolved = aliases.get(raw.strip().casefold())
        key = (resolved or raw.strip()).casefold()
        groups.setdefault(key, []).append(raw)
        if resolved is not None:
            target.setdefault(key, resolved)
    out: dict[str, str] = {}
    for key, spellings in groups.items():
        shown = target.get(key) or min(spellings, key=lambda n: (-counts[n], n.isupper() or n.islower(), n)).strip()
        for raw in spellings:
            out[raw] = shown
    return out


def _spellings(matches: pl.DataFrame) -> dict[str, int]:
    names = pl.concat([matches.select(pl.col(f"player_{s}").alias("player")) for s in (0, 1)])
    return {str(k): int(v) for k, v in names.group_by("player").len().iter_rows() if k is not None}


def _renamed(matches: pl.DataFrame, mapping: Mapping[str, str]) -> pl.DataFrame:
    return matches.with_columns(
        *[pl.col(f"player_{s}").replace_strict(dict(mapping), default=pl.col(f"player_{s}"), return_dtype=pl.String)
          for s in (0, 1)])


def report_players(matches: pl.DataFrame, aliases: Mapping[str, str] | None = None) -> pl.DataFrame:
    """The players table of the report: one row per player (names merged by :func:`merged_names`),
    with ``names`` (the spellings merged, ``; ``-joined), ``matches``, ``wins``, ``decisions``,
    ``unforced``, ``errors`` (decisions of an error class), ``total_error`` (EMG), ``mean_pr``
    (500 x total error / unforced), ``error_rate_memg`` (1000 x total error / unforced: the
    "error rate (mEMG/decision)" of ``bgreview analyze``), ``pr_trend`` and the first and last
    dates.

    >>> from analyzer.batch.tables import MATCHES_SCHEMA
    >>> m = pl.DataFrame([{"file": "a", "match_index": 0, "player_0": "Lasse", "player_1": "bob",
    ...                    "decisions_0": 10, "decisions_1": 12, "winner_side": 0, "unforced_0": 8,
    ...                    "unforced_1": 10, "total_error_0": 0.08, "total_error_1": 0.2, "errors_0": 1,
    ...                    "errors_1": 3, "pr_0": 5.0, "pr_1": 10.0},
    ...                   {"file": "b", "match_index": 0, "player_0": "bob", "player_1": "lasse",
    ...                    "decisions_0": 10, "decisions_1": 10, "winner_side": 0, "unforced_0": 10,
    ...                    "unforced_1": 12, "total_error_0": 0.1, "total_error_1": 0.04, "errors_0": 2,
    ...                    "errors_1": 0, "pr_0": 5.0, "pr_1": 1.67}], schema=MATCHES_SCHEMA)
    >>> p = report_players(m).with_columns(pl.col("error_rate_memg").round(6))
    >>> p.select("player", "names", "matches", "wins", "unforced", "error_rate_memg").rows()
    [('Lasse', 'Lasse; lasse', 2, 1, 20, 6.0), ('bob', 'bob', 2, 1, 20, 15.0)]
    """
    mapping = merged_names(_spellings(matches), aliases)
    renamed = _renamed(matches, mapping)
    base = players_table(renamed).drop("error_rate")
    extra = (pl.concat([renamed.select(pl.col(f"player_{s}").alias("player"), pl.col(f"player_{s}").alias("_raw"),
                                       pl.col(f"errors_{s}").cast(pl.Int64).alias("errors"),
                                       pl.col(f"total_error_{s}").alias("total_error"),
                                       pl.col(f"unforced_{s}").cast(pl.Int64).alias("_u")) for s in (0, 1)])
             .group_by("player").agg(pl.col("errors").sum(), pl.col("total_error").sum(),
                                     pl.when(pl.col("_u").sum() > 0)
                                     .then(1000.0 * pl.col("total_error").sum() / pl.col("_u").sum())
                                     .alias("error_rate_memg")))
    raw_names: dict[str, list[str]] = {}
    for raw, shown in sorted(mapping.items()):
        raw_names.setdefault(shown, []).append(raw)
    names = pl.DataFrame({"player": list(raw_names), "names": ["; ".join(v) for v in raw_names.values()]},
                         schema={"player": pl.String(), "names": pl.String()})
    out = base.join(extra, on="player", how="left").join(names, on="player", how="left")
    return out.select("player", "names", "matches", "wins", "decisions", "unforced", "errors", "total_error",
                      "mean_pr", "error_rate_memg", "pr_trend", "first_date", "last_date")


def write_batch_report(dataset: str | Path, out_dir: str | Path | None = None, *,
                       match_reports: bool = True, aliases: Mapping[str, str] | None = None,
                       progress: Progress | None = None, profiles: int | None = None) -> BatchReport:
    """Write the report of ``dataset`` (see the module docstring) and return what was written.
    ``aliases`` (:func:`load_aliases`) joins other spellings of a player's name to it; ``profiles``
    caps the profile pages (:mod:`analyzer.batch.profile_page`) to the players with the most
    decisions (``None``: every player of an analysed dataset, ``0``: none).

    Raises :class:`FileNotFoundError` when ``dataset`` holds no matches table.
    """
    from analyzer.render.html import render_page  # here: it imports the charts (see _svg)

    data = Path(dataset)
    out = Path(out_dir) if out_dir is not None else data / "report"
    matches_path = data / f"{MATCHES_TABLE}.parquet"
    if not matches_path.exists():
        raise FileNotFoundError(f"{matches_path}: not a batch dataset (run `bgreview batch` first)")
    ensure_folder(out)  # an OutputError naming it when it cannot be made
    written: list[Path] = []
    matches = pl.read_parquet(matches_path)
    errors = pl.read_parquet(data / f"{ERRORS_TABLE}.parquet")
    analysed = matches.filter(pl.col("pr_0").is_not_null())["part"].to_list() if match_reports else []
    pdata: ProfileData | None = None
    names: list[str] = []
    if profiles != 0:
        try:
            pdata = load_profile_data(data)
        except FileNotFoundError:  # a --replay-only dataset: nothing to profile
            pdata = None
        if pdata is not None:
            names = pdata.players()[:profiles] if profiles is not None else pdata.players()
    total = 3 + len(analysed) + len(names)  # known before the first step: the bar's end never moves
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    if progress is not None:
        progress(0, total)
    mapping = merged_names(_spellings(matches), aliases)
    players = report_players(matches, aliases)
    path = out / "players.csv"
    atomic_write_bytes(path, players.write_csv().encode("utf-8"))
    written.append(path)
    step()

    charts: dict[str, str] = {}
    (out / "pr").mkdir(exist_ok=True)
    renamed = _renamed(matches, mapping)
    long = pl.concat([renamed.select(pl.col(f"player_{s}").alias("player"), "date", "file", "match_index",
                                     pl.col(f"pr_{s}").alias("pr")) for s in (0, 1)])
    dated = long.filter(pl.col("pr").is_not_null() & pl.col("date").is_not_null()) \
        .sort(["player", "date", "file", "match_index"])
    for (name,), points in dated.group_by("player", maintain_order=True):
        rel = f"pr/{_slug(str(name))}.svg"
        atomic_write_bytes(out / rel, _pr_chart(str(name), points))
        charts[str(name)] = rel
        written.append(out / rel)
    step()

    mix = phase_mix(data)
    for rel, blob in (("phase_mix.csv", mix.write_csv().encode("utf-8")), ("phase_mix.svg", _phase_chart(mix))):
        atomic_write_bytes(out / rel, blob)
        written.append(out / rel)
    step()

    reports: dict[str, str] = {}
    if analysed:
        from analyzer.render.html import write_html_report  # here: it imports the charts (see _svg)

        for part in analysed:
            src = data / DECISIONS_DIR / part
            meta = read_part_meta(src) or {}
            if meta.get("summary"):
                folder = check_inside(out / "matches", out / "matches" / part.removesuffix(".parquet"))
                summary = AnalysisSummary.from_json(meta["summary"])
                written.append(write_html_report(_PartAnalysis(pl.read_parquet(src), summary), folder))
                reports[part] = f"matches/{folder.name}/report.html"
            step()

    profile_links: dict[str, str] = {}
    if pdata is not None:
        from .profile_page import write_profile_pages  # here: it imports the charts (see _svg)

        if names:
            got = write_profile_pages(pdata, out, names, reports=bool(reports), slug=_slug, step=step)
            profile_links = {k.strip().casefold(): v for k, v in got.items()}
            written.extend(out / rel for rel in got.values())

    manifest = read_json(data / MANIFEST) or {}
    html = render_page(
        "archive.html.j2",
        n_matches=matches.height, n_decisions=int(matches["decisions"].sum() or 0), n_errors=errors.height,
        options=", ".join(f"{k}={v}" for k, v in (manifest.get("options") or {}).items()),
        players=[{**p, "mean_pr": _num(p["mean_pr"], ".1f"), "error_rate": _num(p["error_rate_memg"], ".1f"),
                  "pr_trend": _num(p["pr_trend"], "+.2f"), "chart": charts.get(p["player"]),
                  "profile": profile_links.get(str(p["player"]).strip().casefold()),
                  "merged": p["names"] if p["names"] and p["names"] != p["player"] else ""}
                 for p in players.iter_rows(named=True)],
        phase_cols=mix.columns,
        phase_rows=[[_num(v, ".2f") if isinstance(v, float) else v for v in r] for r in mix.rows()],
        matches=[{**m, "date": m["date"] or m["date_raw"] or "", "winner": m["winner"] or "",
                  "pr": " / ".join(_num(m[f"pr_{s}"], ".1f") for s in (0, 1)) if m["pr_0"] is not None else "",
                  "report": reports.get(m["part"])}
                 for m in matches.sort(["date", "file", "match_index"], nulls_last=True).iter_rows(named=True)],
        errors=[{**e, "where": _where(e), "token": e["token"] or ""} for e in errors.iter_rows(named=True)],
        aliases=len(aliases or {}),
    )
    index = out / "index.html"
    atomic_write_bytes(index, html.encode("utf-8"))
    written.append(index)
    return BatchReport(index, written, len(reports))
