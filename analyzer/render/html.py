"""The HTML match report: one self-contained ``report.html`` (inline CSS, SVG, data and one
small script of our own; no network, no external fonts, no framework).

It holds

* the summary (per player: decisions, error counts by class, total and mean error, PR with the
  XG and gnubg scale names, checker play and cube decisions rated apart, luck and luck-adjusted
  result), per-game statistics and the luckiest and unluckiest rolls;
* the three charts of :mod:`analyzer.render.charts` inline;
* the game list: every roll, play and cube action of every game (cube decisions that were not
  close and not taken are folded into the play that follows), marked by error class and by
  lucky or unlucky roll. With JavaScript a click or the arrow keys show any decision's board,
  candidates (or cube table) and IDs, and filters keep the errors, one player or one game;
  boards are drawn from one static frame per layout and each decision's pieces
  (:func:`~analyzer.render.board_svg.board_svg` ``parts``), kept in the page's JSON, packed
  (:func:`pack`: about a tenth of their size);
* every error (``error_class != "none"``), largest first, each with an SVG board, the dice, the
  played and best plays, the candidates or the cube table and the IDs to paste into other tools;
* the analysis settings (engine, version, nets, ply, seed, thresholds, MET).

The summary, the game list as text and the error list need no JavaScript. Each player keeps one
checker colour through the report (the first player light, the second dark) and one side of the
board, whoever is to act: the first player at the bottom (``X``), as gnubg and eXtreme Gammon draw
a match; the viewer's toggle puts the second player there.

Everything that comes from a match file is escaped: Jinja2 runs with autoescape on, board
diagrams are built with :mod:`xml.etree`, chart text is drawn as paths and the JSON in the page
is written with ``<``, ``>`` and ``&`` as ``\\u`` escapes (:func:`script_json`).

>>> fmt_equity(0.1234), fmt_equity(-0.04), fmt_pct(0.5234), fmt_pr(0.0173)
('+0.123', '-0.040', '52.3%', '8.7')
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import polars as pl
from jinja2 import Environment, FileSystemBytecodeCache, PackageLoader, StrictUndefined
from jinja2.bccache import Bucket
from markupsafe import Markup

from analyzer._resources import cache_root
from analyzer.analysis.stats import XG_APPROXIMATE, gnubg_rating, xg_rating
from analyzer.analysis.summary import GameResult, PlayerStats
from analyzer.analysis.thresholds import Thresholds, thresholds_from
from analyzer.core.errors import AnalyzerError
from analyzer.core.files import atomic_write, ensure_folder
from analyzer.core.ids import decode_key, decode_match_id
from analyzer.core.position import Position
from analyzer.core.variants import cubeless_only, draws, has_cube, title_of
from analyzer.render.board_svg import HomeSide, board_layout, board_svg
from analyzer.render.charts import CHARTS, AnalysisLike, chart_svg, inline_svg, player_names
from analyzer.render.numbers import fixed
from analyzer.render.terminal import confirm_text, cube_error_rows, fibs_text, luck_text, search_text

# The templates are package data (``analyzer/render/templates``), found by jinja2's PackageLoader through the
# import system (no path built from __file__): a source checkout, an installed wheel or a zipped package alike.
TEMPLATE_PACKAGE = ("analyzer.render", "templates")
CLASS_ORDER = ("doubtful", "error", "bad", "blunder", "very bad", "howler")
CHART_TITLES = {"winning-chances": "Winning chances", "cumulative-error": "Cumulative error",
                "luck": "Luck"}
SETTING_LABELS = (
    ("engine", "Engine"), ("version", "Version"), ("engine_version", "Engine version"),
    ("evaluator", "Evaluator"), ("nets", "Nets"), ("nets_feature_version", "Net features"),
    ("ply", "Ply"), ("variant_ply", "Ply of the Dutch and Mahbusa engines"), ("luck_ply", "Luck ply"),
    ("move_filter", "Move filter"), ("deep_filter", "Deep move filter (2-ply and deeper)"),
    ("rollout", "Rollouts"), ("variant_engines", "Dutch and Mahbusa engines"), ("seed", "Seed"),
    ("thresholds", "Error thresholds"), ("met", "Match equity table"), ("equity", "Equity"),
    ("cube_model", "Cube model"), ("confirm", "Confirmation pass"), ("bearoff", "Bear-off databases"),
    ("schema_version", "Schema version"),
)
PR_NOTE = ("PR (Performance Rating, XG style) = 500 \u00d7 mean equity loss (EMG) per unforced decision; "
           "lower is better")
CUBELESS_NOTE = ("Dutch backgammon and Mahbusa have no doubling cube: every decision is a checker play, and "
                 "equities are the cubeless expected points of the game (single 1, mars or mother win 2, "
                 "draw 0). PR = 500 \u00d7 mean equity loss (points) per unforced decision; lower is better")
END_WORDS = {"bearoff": "bore off", "mother": "pinned the mother", "drop": "double passed",
             "resign": "resignation"}


def fmt_equity(x: float | None, digits: int = 3) -> str:
    """An equity with its sign and ``digits`` decimals (``-`` when unknown).

    >>> fmt_equity(None), fmt_equity(0.0)
    ('-', '+0.000')
    """
    if x is None:
        return "-"
    return fixed(x, f"+.{digits}f")


def fmt_emg(x: float | None, digits: int = 3) -> str:
    """A non-negative amount of equity (an error) without sign.

    >>> fmt_emg(0.1049), fmt_emg(0.01504, 4)
    ('0.105', '0.0150')
    """
    return "-" if x is None else fixed(x, f".{digits}f")


def fmt_pct(x: float | None) -> str:
    """A probability as a percentage with one decimal (``-`` when unknown)."""
    return "-" if x is None else fixed(100 * x, ".1f") + "%"


def fmt_signed_pct(x: float | None) -> str:
    """A change of probability (MWC, luck) as a signed percentage.

    >>> fmt_signed_pct(-0.0412), fmt_signed_pct(0.1)
    ('-4.1%', '+10.0%')
    >>> fmt_signed_pct(-0.00004)  # no negative zero
    '+0.0%'
    """
    return "-" if x is None else fixed(100 * x, "+.1f") + "%"


def fmt_pr(pr_raw: float | None) -> str:
    """PR = 500 x the mean EMG loss per unforced decision, one decimal."""
    return "-" if pr_raw is None else f"{500 * pr_raw:.1f}"


def fmt_millipoints(x: float | None) -> str:
    """An equity in millipoints (thousandths of a point).

    >>> fmt_millipoints(0.1236)
    '124'
    """
    return "-" if x is None else f"{1000 * x:.0f}"


def fmt_rate(x: float | None) -> str:
    """A mean error per decision in thousandths (mEMG, or millipoints), one decimal, as gnubg shows it.

    >>> fmt_rate(0.01534), fmt_rate(None)
    ('15.3', '-')
    """
    return "-" if x is None else f"{1000 * x:.1f}"


class _CompiledTemplates(FileSystemBytecodeCache):
    """The templates' compiled code kept between processes under :func:`analyzer._resources.cache_root`
    (jinja2 compiles a template's source to Python the first time a process uses it: about a tenth of a
    second for the report's templates). jinja2 checks the source's checksum before it uses a cached
    compilation; a folder that cannot be read or written costs only the saving."""

    def __init__(self) -> None:
        super().__init__(str(cache_root() / f"templates-jinja2-{jinja2.__version__}"))

    def load_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):  # jinja2 passes over only some of them (not a folder that is a file)
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)


def _environment() -> Environment:
    env = Environment(loader=PackageLoader(*TEMPLATE_PACKAGE), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                      bytecode_cache=_CompiledTemplates())
    env.filters["equity"] = fmt_equity
    env.filters["emg"] = fmt_emg
    env.filters["pct"] = fmt_pct
    env.filters["spct"] = fmt_signed_pct
    env.filters["pr"] = fmt_pr
    env.filters["mp"] = fmt_millipoints
    env.filters["rate"] = fmt_rate
    return env


@cache
def _env() -> Environment:
    return _environment()


def threshold_levels(thresholds: Any) -> list[tuple[str, float]]:
    """``(class, bound)`` pairs from mild to severe, from the thresholds in the metadata: the
    ``levels`` list of ``Thresholds.as_dict()`` or a ``values`` mapping.

    >>> threshold_levels({"name": "xg", "levels": [["error", 0.02], ["blunder", 0.08]]})
    [('error', 0.02), ('blunder', 0.08)]
    >>> threshold_levels({"name": "x", "values": {"blunder": 0.08, "error": 0.02}})
    [('error', 0.02), ('blunder', 0.08)]
    >>> threshold_levels(None)
    []
    """
    if not isinstance(thresholds, Mapping):
        return []
    pairs: list[tuple[str, float]] = []
    levels = thresholds.get("levels")
    values = thresholds.get("values")
    if isinstance(levels, list | tuple):
        for item in levels:
            if isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[1], int | float):
                pairs.append((str(item[0]), float(item[1])))
    elif isinstance(values, Mapping):
        pairs = [(str(k), float(v)) for k, v in values.items() if isinstance(v, int | float)]
    return sorted(pairs, key=lambda kv: kv[1])


def _class_order(names: Iterable[str], thresholds: Any) -> list[str]:
    """Error classes (``none`` left out) from mild to severe: threshold order, then the usual one."""
    seen = {n for n in names if n and n != "none"}
    order = [name for name, _bound in threshold_levels(thresholds)]
    order += [c for c in CLASS_ORDER if c not in order]
    return [c for c in order if c in seen] + sorted(seen - set(order))


def _settings(analysis: AnalysisLike) -> tuple[list[tuple[str, str]], Any]:
    meta = analysis.summary.metadata.as_dict()  # every setting recorded, by its JSON key
    rows: list[tuple[str, str]] = []
    labels = SETTING_LABELS
    for key, label in labels:
        if key in meta and meta[key] is not None:
            rows.append((label, _describe(key, meta[key])))
    for key in sorted(k for k in meta if k not in dict(labels)):
        if meta[key] is not None:
            rows.append((human_label(str(key)), _describe(str(key), meta[key])))
    return rows, meta.get("thresholds")


def human_label(key: str) -> str:
    """A label for a metadata key that has none of its own: words, not the raw key.

    >>> human_label("deep_filter"), human_label("luck_prune"), human_label("")
    ('Deep filter', 'Luck prune', '')
    """
    words = key.replace("_", " ").replace("-", " ").split()
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


def _describe(key: str, value: Any) -> str:
    """A metadata value as text.

    >>> _describe("thresholds", {"name": "xg", "levels": [["error", 0.02]], "strict": False})
    'xg: error \u2265 0.020'
    >>> _describe("nets", ["contact", "race"])
    'contact, race'
    """
    if key == "thresholds" and isinstance(value, Mapping):
        sign = ">" if value.get("strict") else "\u2265"
        parts = [f"{name} {sign} {bound:.3f}" for name, bound in threshold_levels(value)]
        for k, label, rel in (("close_cube", "close cube", "<"), ("lucky", "lucky", ">"),
                              ("very_lucky", "very lucky", ">")):
            if isinstance(value.get(k), int | float):
                parts.append(f"{label} {rel} {value[k]:.3f}")
        name = str(value.get("name", ""))
        return f"{name}: " + ", ".join(parts) if name else ", ".join(parts)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: ({_describe(str(k), v)})" if isinstance(v, Mapping) else f"{k}: {_describe(str(k), v)}"
                         for k, v in value.items() if v is not None)
    return str(value)


def _match_info(analysis: AnalysisLike, names: tuple[str, str]) -> dict[str, Any]:
    match = analysis.summary.match
    length: int | None = None if "length" in match.missing else match.length
    df = analysis.decisions
    if length is None and "match_length" in df.columns and df.height:
        length = df["match_length"][0]
    kind = "Money session" if not length else f"{length}-point match"
    variants = sorted(set(df["variant"].drop_nulls().to_list())) if "variant" in df.columns else []
    rows = [("Players", f"{names[0]} vs {names[1]}"), ("Match", kind)]
    if variants:
        rows.append(("Variant", ", ".join(variants)))
    for value, label in ((match.event, "Event"), (match.round, "Round"), (match.date, "Date"), (match.site, "Site"),
                         (match.file, "File")):
        if value:
            rows.append((label, str(value)))
    if match.games is not None:
        analysed = match.games_analysed
        text = str(match.games) if analysed in (None, match.games) else f"{analysed} of {match.games} analysed"
        rows.append(("Games", text))
    final = match.score_final
    if final is not None and len(final) == 2:
        rows.append(("Final score", f"{names[0]} {final[0]}, {names[1]} {final[1]}"))
    results = _results_text(match.results, names)
    if results:
        rows.append(("Game results", results))
    problems = list(match.errors)
    cubeless = not match.cube or cubeless_only(variants)
    return {"rows": rows, "money": not length, "event": match.event or "", "problems": problems,
            "cubeless": cubeless, "length": length or 0}


def _depth_text(analysis: AnalysisLike, cubeless: bool) -> str:
    """How deep the analysis looked and how it confirmed, for the report's header: a quick 0-ply
    review must not read like a 2-ply one."""
    summary = analysis.summary
    meta = summary.metadata
    how = search_text(meta, cubeless=cubeless)
    text = f"Analysed at {how}" if meta.rollout is None else f"Analysed with {how}"
    if how == "0-ply":
        text += " (a quick review: no lookahead)"
    confirm = meta.confirm
    counts = summary.match.confirmed
    if confirm is None:
        return text + "; no confirmation pass."
    by = f"rollouts of up to {confirm.max_trials} games" if confirm.method == "rollout" else f"{confirm.ply}-ply"
    done = f"{counts.decisions} decisions" if counts is not None else "the doubtful decisions"
    limit = f", at most {confirm.limit} a match" if confirm.limit is not None else ""
    return text + f"; confirmation pass: {done} valued again by {by}{limit}."


def _results_text(results: Sequence[GameResult], names: tuple[str, str]) -> str:
    """How each game ended, from ``summary.match.results``.

    >>> from analyzer.analysis.summary import GameResult
    >>> _results_text([GameResult(1, "mahbusa", "mother", 1, "bob", 2),
    ...                GameResult(2, "mahbusa", "draw", None, None, 0)], ("ann", "bob"))
    'game 1: bob +2 (pinned the mother); game 2: draw (both mothers pinned)'
    """
    parts = []
    for r in results:
        winner, end = r.winner, r.end
        if end == "draw":
            what = "draw (both mothers pinned)"
        elif winner in (0, 1):
            what = f"{names[winner]} +{r.points} ({END_WORDS.get(end, end)})"
        else:
            what = END_WORDS.get(end, end) or "unfinished"
        parts.append(f"game {r.game}: {what}")
    return "; ".join(parts)


def fmt_result(x: float | None, unit: str | None) -> str:
    """A match result (or luck-adjusted result) in its unit: MWC as a signed percentage, points
    with three decimals.

    >>> fmt_result(0.1234, "mwc"), fmt_result(-2.0, "points"), fmt_result(None, "mwc")
    ('+12.3% MWC', '-2.000 points', '-')
    """
    if x is None:
        return "-"
    if unit == "mwc":
        return fixed(100 * x, "+.1f") + "% MWC"
    if unit == "points":
        return fixed(x, "+.3f") + " points"
    return fmt_equity(x)


def ratings(mean_error: float | None, *, cubeless: bool = False, variants: Iterable[str] = ()) -> dict[str, str]:
    """The XG and gnubg names of a mean error per decision, or the note that says why there are
    none: no decision counted, or a game (Dutch backgammon, Mahbusa) that has no such scale.

    >>> ratings(0.007)  # PR 3.5
    {'xg': 'World Class', 'gnubg': 'Expert', 'note': ''}
    >>> ratings(0.03)["xg"], ratings(None)["note"]
    ('Intermediate (approximate band)', 'no decision counted')
    >>> ratings(0.01, cubeless=True, variants=["dutch"])["note"]
    'no XG or gnubg rating scale exists for Dutch backgammon'
    """
    if cubeless:
        names = " and ".join(title_of(v) for v in sorted(set(variants)) if not has_cube(v))
        return {"xg": "", "gnubg": "", "note": f"no XG or gnubg rating scale exists for {names or 'this game'}"}
    if mean_error is None:
        return {"xg": "", "gnubg": "", "note": "no decision counted"}
    xg = xg_rating(mean_error)
    return {"xg": xg + (" (approximate band)" if xg in XG_APPROXIMATE else ""), "gnubg": gnubg_rating(mean_error),
            "note": ""}


def _counted(df: pl.DataFrame) -> pl.Expr:
    """Decisions that count in the rates: unforced checker plays, close or actual cube decisions."""
    checker = pl.col("kind") == "checker"
    cube_counted = pl.col("close").fill_null(False) if "close" in df.columns else ~pl.col("forced").fill_null(False)
    return (checker & ~pl.col("forced").fill_null(False)) | (~checker & cube_counted)


def _split_rates(df: pl.DataFrame, side: int) -> dict[str, tuple[int, float]]:
    """(counted decisions, total error) of a side's checker plays and cube decisions."""
    if df.height == 0 or "equity_loss" not in df.columns:
        return {"checker": (0, 0.0), "cube": (0, 0.0)}
    mine = df.filter(pl.col("side") == side)
    out = {}
    for name, kind in (("checker", pl.col("kind") == "checker"), ("cube", pl.col("kind") != "checker")):
        part = mine.filter(kind)
        n = int(part.select(_counted(df).sum()).item() or 0) if part.height else 0
        out[name] = (n, float(part["equity_loss"].fill_null(0.0).sum() or 0.0))
    return out


def _stored_rating(p: PlayerStats | None, cubeless: bool, variants: list[str]) -> dict[str, str]:
    """The ratings of a summary's player: the names the analysis stored, else those of its mean."""
    if p is None or cubeless or not p.rating_xg:
        return ratings(None if p is None else p.pr_raw, cubeless=cubeless, variants=variants)
    approx = " (approximate band)" if p.rating_xg_approximate else ""
    return {"xg": p.rating_xg + approx, "gnubg": p.rating_gnubg or "-", "note": ""}


def _player_rows(analysis: AnalysisLike, names: tuple[str, str], classes: list[str],
                 cube_classes: list[str], cubeless: bool, variants: list[str], length: int = 0
                 ) -> list[dict[str, Any]]:
    by_side = {p.side: p for p in analysis.summary.players if p.side in (0, 1)}
    cube_rows = cube_error_rows(list(by_side.values()))
    out: list[dict[str, Any]] = []
    for side in (0, 1):
        p = by_side.get(side)
        split = _split_rates(analysis.decisions, side)
        parts = {}
        for part, (n, total) in split.items():
            if p is not None:
                stored_n = p.checker_unforced if part == "checker" else p.cube_decisions
                stored_total = p.checker_error if part == "checker" else p.cube_error
                n = stored_n if stored_n is not None else n
                total = stored_total if stored_total is not None else total
            mean = total / n if n else None
            parts[part] = {"n": n, "total": total, "mean": mean,
                           **ratings(mean, cubeless=cubeless, variants=variants)}
        if p is None:
            out.append({"name": names[side], "decisions": "-", "unforced": "-", "checker_unforced": None,
                        "cube_decisions": None, "checker": [0] * len(classes), "cube": [0] * len(cube_classes),
                        "cube_errors": [], "total_error": None, "mean_error": None, "pr_raw": None,
                        "rating": _stored_rating(None, cubeless, variants), "parts": parts, "luck": None,
                        "luck_mwc": None, "actual_result": fmt_result(None, None), "has_actual": False,
                        "fibs": None, "luck_rating": None,
                        "luck_adjusted_result": fmt_result(None, None)})
            continue
        out.append({
            "name": p.name,
            "decisions": "-" if "decisions" in p.missing else p.decisions,
            "unforced": "-" if "unforced" in p.missing else p.unforced,
            "checker_unforced": p.checker_unforced,
            "cube_decisions": p.cube_decisions,
            "checker": [p.checker.get(c, 0) for c in classes],
            "cube": [p.cube.get(c, 0) for c in cube_classes],
            "cube_errors": [p.cube_errors.get(key, 0) for key, _label in cube_rows] if p.cube_errors else [],
            "fibs": fibs_text(p, length) if length and not cubeless else None,
            "luck_rating": luck_text(p) if not cubeless else None,
            "total_error": None if "total_error" in p.missing else p.total_error,
            "mean_error": p.mean_error,
            "pr_raw": p.pr_raw,
            "rating": _stored_rating(p, cubeless, variants),
            "parts": parts,
            "luck": None if "luck" in p.missing else p.luck,
            "luck_mwc": p.luck_mwc,
            "actual_result": fmt_result(p.actual_result, p.result_unit),
            "has_actual": p.actual_result is not None,
            "luck_adjusted_result": fmt_result(p.luck_adjusted_result, p.result_unit),
        })
    return out


def _dice(text: Any) -> tuple[int, int] | None:
    """``"31"`` -> ``(3, 1)``; anything else -> ``None``.

    >>> _dice("31"), _dice("7"), _dice(None)
    ((3, 1), None, None)
    """
    if not isinstance(text, str) or len(text) != 2 or not all(c in "123456" for c in text):
        return None
    return int(text[0]), int(text[1])


def _cube_owner(match_id: Any) -> tuple[bool, int | None]:
    """(known, owner relative to the side to act: 0 it, 1 the other, None centred)."""
    if not isinstance(match_id, str) or not match_id:
        return False, None
    try:
        mid = decode_match_id(match_id)
    except (AnalyzerError, ValueError):
        return False, None
    if mid.cube_owner is None:
        return True, None
    return True, 0 if mid.cube_owner == mid.turn else 1


def _board_args(row: Mapping[str, Any], names: tuple[str, str], bottom: int = 0
                ) -> tuple[Position, dict[str, Any]] | None:
    """The position of a decision and the :func:`board_svg` arguments that draw it: player
    ``bottom`` (0: the first player of the file) at the bottom whoever decides, as gnubg and
    eXtreme Gammon draw a match, each player in his own colour (the first light, the second
    dark), the taker of a double captioned as such. ``None`` when the key is unreadable."""
    try:
        pos = decode_key(str(row.get("key") or ""))
    except (AnalyzerError, ValueError):
        return None
    side = row.get("side")
    me = str(row.get("player") or (names[side] if side in (0, 1) else ""))
    opp = names[1 - side] if side in (0, 1) else ""
    known, owner = _cube_owner(row.get("match_id"))
    cube = row.get("cube")
    kind = row.get("kind")
    action = "to take or pass" if kind == "take" else None
    args = {"dice": _dice(row.get("dice")), "cube": cube if (cube is not None and (known or cube == 1)) else None,
            "cube_owner": owner if known else None, "names": (me, opp), "mover_dark": side == 1, "action": action,
            "mover_top": side in (0, 1) and side != bottom}
    return pos, args


def _board(row: Mapping[str, Any], names: tuple[str, str], home_side: HomeSide) -> Markup | None:
    got = _board_args(row, names)
    if got is None:
        return None
    pos, args = got
    svg = board_svg(pos, home_side=home_side, size=380, **args)
    return Markup(svg)  # built with xml.etree: every text node and attribute escaped


def _candidate_rows(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    cands = [{**c, "variant": row.get("variant")} for c in row.get("candidates") or []]
    if not cands:
        return []
    best = max(float(c["equity"]) for c in cands)
    out = []
    for rank, c in enumerate(sorted(cands, key=lambda c: -float(c["equity"])), start=1):
        win = c.get("win")
        out.append({
            "rank": rank, "play": c.get("play", ""), "equity": c["equity"],
            "diff": None if rank == 1 else float(c["equity"]) - best,
            "win": win, "win_gammon": c.get("win_gammon"), "win_backgammon": c.get("win_backgammon"),
            "lose": None if win is None else _lose(c), "lose_gammon": c.get("lose_gammon"),
            "lose_backgammon": c.get("lose_backgammon"), "draw": None if win is None else _draw(c),
            "played": c.get("play") == row.get("played"), "best": c.get("play") == row.get("best"),
        })
    return out


def _draw(c: Mapping[str, Any]) -> float:
    """The chance of a draw after a candidate: its stored ``draw``; in tables written before
    candidates stored it, the draws of a Mahbusa candidate follow from its ``equity``, the
    expected points ``2 win - 1 + draw + win 2 - lose 2`` (a standard candidate's equity is
    cubeful, and it has no draws).

    >>> _draw({"win": 0.5, "equity": 0.1, "draw": 0.2}), _draw({"win": 0.5, "equity": 0.1, "draw": None})
    (0.2, 0.0)
    >>> _draw({"win": 0.5, "equity": 0.1, "win_gammon": 0.0, "lose_gammon": 0.0, "variant": "mahbusa"})
    0.1
    """
    stored = c.get("draw")
    if stored is not None:
        return float(stored)
    win = float(c["win"])
    if draws(c.get("variant")) and c.get("equity") is not None:
        gammons = float(c.get("win_gammon") or 0.0) - float(c.get("lose_gammon") or 0.0)
        draw = float(c["equity"]) - (2 * win - 1) - gammons
        if 1e-6 < draw <= 1.0 - win + 1e-9:
            return round(draw, 12)
    return 0.0


def _lose(c: Mapping[str, Any]) -> float:
    """The chance of losing after a candidate: ``1 - win - draw`` (:func:`_draw`).

    >>> _lose({"win": 0.5, "equity": 0.1, "win_gammon": 0.0, "lose_gammon": 0.0, "variant": "mahbusa"})
    0.4
    >>> _lose({"win": 0.5, "equity": 0.3, "draw": 0.25})
    0.25
    """
    return round(max(0.0, 1.0 - float(c["win"]) - _draw(c)), 12)


def _cube_rows(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    nd, dt, dp = row.get("cube_nd"), row.get("cube_dt"), row.get("cube_dp")
    if nd is None and dt is None and dp is None:
        return []
    doubled = [v for v in (dt, dp) if v is not None]
    best_after = min(doubled) if doubled else None
    known = [v for v in (nd, best_after) if v is not None]
    best = max(known) if known else None
    out = []
    for label, value in (("No double", nd), ("Double, take", dt), ("Double, pass", dp)):
        diff = None if value is None or best is None or value == best else float(value) - best
        out.append({"label": label, "equity": value, "diff": diff})
    return out


def valued_words(row: Mapping[str, Any]) -> str | None:
    """How a decision's loss was valued, in words: the method (with a rollout's games and the
    loss's standard error) and, when the confirmation pass valued it again, the first pass's loss.

    >>> valued_words({"method": "rollout", "trials": 288, "equity_loss": 0.084, "loss_se": 0.0081,
    ...               "equity_loss_first": 0.101, "ply": 2})
    'Rollout, 288 games: -0.084 \u00b1 0.008 (2-ply: -0.101)'
    >>> valued_words({"method": "2-ply", "equity_loss": 0.0, "ply": 2})
    '2-ply: +0.000'
    >>> valued_words({"method": None, "equity_loss": None}) is None
    True
    """
    loss = _finite(row.get("equity_loss"))
    method = str(row.get("method") or "")
    if loss is None or not method:
        return None
    value = fmt_equity(0.0 - loss)
    if method == "rollout":
        games = row.get("trials")
        head = f"Rollout, {games} games" if games is not None else "Rollout"
    else:
        head = method
    se = _finite(row.get("loss_se"))
    text = f"{head}: {value}" + (f" \u00b1 {se:.3f}" if se is not None else "")
    first = _finite(row.get("equity_loss_first"))
    if first is not None:
        ply = row.get("ply")
        where = f"{ply}-ply" if ply is not None else "first pass"
        text += f" ({where}: {fmt_equity(0.0 - first)})"
    return text


def _cube_info(row: Mapping[str, Any], names: tuple[str, str]) -> dict[str, Any] | None:
    """What a cube or take row shows beside its three equities: the doubler's cubeless chances,
    the take point, both sides' gammon values and, on a take row, the cube offered."""
    side = row.get("side")
    kind = row.get("kind")
    doubler_side = side if kind == "cube" else (1 - side if side in (0, 1) else None)
    who = (names[doubler_side], names[1 - doubler_side]) if doubler_side in (0, 1) else ("", "")
    win = _finite(row.get("cube_win"))
    chances = None
    if win is not None:
        chances = {"win": win, "win_gammon": _finite(row.get("cube_win_gammon")),
                   "win_backgammon": _finite(row.get("cube_win_backgammon")), "lose": 1.0 - win,
                   "lose_gammon": _finite(row.get("cube_lose_gammon")),
                   "lose_backgammon": _finite(row.get("cube_lose_backgammon"))}
    cube = row.get("cube")
    return {"doubler": who[0], "taker": who[1], "chances": chances, "take_point": _finite(row.get("take_point")),
            "gammon_value": _finite(row.get("gammon_value")),
            "gammon_value_taker": _finite(row.get("gammon_value_taker")),
            "offered": 2 * int(cube) if kind == "take" and cube is not None else None}


def _ids(row: Mapping[str, Any]) -> list[tuple[str, str]]:
    pos_id, match_id = row.get("position_id"), row.get("match_id")
    ids = []
    if pos_id:
        ids.append(("Position ID:Match ID", f"{pos_id}:{match_id}" if match_id else str(pos_id)))
    if row.get("xgid"):
        ids.append(("XGID", str(row["xgid"])))
    ids.append(("Key", str(row.get("key") or "")))
    return ids


def _entry(row: Mapping[str, Any], names: tuple[str, str], max_candidates: int | None = None) -> dict[str, Any]:
    """What the details of one decision show (without its board)."""
    side = row.get("side")
    kind = row.get("kind") or "checker"
    doubler = row.get("player") if kind == "cube" else (names[1 - side] if side in (0, 1) else "")
    cands = _candidate_rows(row) if kind == "checker" else []
    if max_candidates is not None and len(cands) > max_candidates:
        cands = [c for c in cands if c["rank"] <= max_candidates or c["played"]]
    return {
        "row": row, "kind": kind, "doubler": doubler,
        "opponent": names[1 - side] if side in (0, 1) else "",
        "cube_error": row.get("cube_error"), "mwc_loss": row.get("mwc_loss"), "dice": _dice(row.get("dice")),
        "candidates": cands, "more_candidates": len(row.get("candidates") or []) - len(cands),
        "draws": draws(row.get("variant")),
        "cube_rows": _cube_rows(row) if kind in ("cube", "take") else [],
        "ids": _ids(row),
        "valued_by": valued_words(row),
        "cube": _cube_info(row, names) if kind in ("cube", "take") else None,
        "cube_note": None, "luck": _finite(row.get("luck")), "luck_mwc": _finite(row.get("luck_mwc")),
        "luck_mark": "",
    }


def _errors(analysis: AnalysisLike, names: tuple[str, str], home_side: HomeSide,
            max_errors: int | None, listed: Mapping[int, int], thresholds: Thresholds) -> list[dict[str, Any]]:
    df = analysis.decisions
    if df.height == 0 or "error_class" not in df.columns:
        return []
    df = df.with_row_index("_index")
    errs = df.filter(pl.col("error_class").fill_null("none") != "none")
    errs = errs.sort(["equity_loss", "_index"], descending=[True, False], nulls_last=True)
    if max_errors is not None:
        errs = errs.head(max_errors)
    out = []
    for n, row in enumerate(errs.iter_rows(named=True), start=1):
        e = _entry(row, names)
        if e["luck"] is not None:
            e["luck_mark"] = thresholds.luck_mark(e["luck"])
        out.append({**e, "n": n, "anchor": f"error-{n}", "board": _board(row, names, home_side),
                    "listed": listed.get(int(row["_index"]))})
    return out


def script_json(data: Any) -> Markup:
    """``data`` as JSON to put inside ``<script type="application/json">``: ``<``, ``>`` and ``&``
    (and the two JavaScript line separators) written as ``\\u`` escapes, so that no text from a
    match file can close the script element or start markup; ``JSON.parse`` reads it back as it was.

    >>> print(script_json({"name": "</script><b>&"}))
    {"name":"\\u003c/script\\u003e\\u003cb\\u003e\\u0026"}
    >>> json.loads(str(script_json(["</script>"])))
    ['</script>']
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"),
                         ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return Markup(text)


def _finite(x: Any) -> float | None:
    """A float for JSON, ``None`` when unknown or not finite."""
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


def _thresholds(meta: Any) -> Thresholds:
    """The analysis' thresholds (for the luck marks), gnubg's luck cuts when the metadata lacks them."""
    if isinstance(meta, Mapping) and isinstance(meta.get("levels"), list | tuple):
        try:
            return thresholds_from(dict(meta))
        except ValueError:
            pass
    levels = tuple(threshold_levels(meta)) or (("error", 0.02),)
    return Thresholds("report", levels)


def _trivial_cube(row: Mapping[str, Any]) -> bool:
    """A cube decision that was neither close nor doubled nor an error: folded into the play after it."""
    if row.get("kind") != "cube" or (row.get("error_class") or "none") != "none":
        return False
    if str(row.get("played") or "") not in ("no double", "no redouble"):
        return False
    close = row.get("close")
    return (not close) if close is not None else bool(row.get("forced"))


def _action_text(row: Mapping[str, Any]) -> str:
    """What was done, as the game list shows it.

    >>> _action_text({"kind": "checker", "played": ""}), _action_text({"kind": "take", "played": "pass"})
    ('(no legal play)', 'Pass')
    """
    played = str(row.get("played") or "")
    if row.get("kind") == "checker":
        return played or "(no legal play)"
    return played[:1].upper() + played[1:]


def _game_list(analysis: AnalysisLike, names: tuple[str, str], home_side: HomeSide, unit: str,
               thresholds: Thresholds) -> tuple[list[dict[str, Any]], dict[str, str], dict[int, int]]:
    """Every decision the game list shows, in match order: one entry each (with the data the
    viewer needs), the static board drawing of each layout, and the list index of each row of
    the decisions table that is listed (a trivial cube decision is folded into the next play)."""
    df = analysis.decisions
    if df.height == 0:
        return [], {}, {}
    details = _env().get_template("decision.html.j2").module.details  # type: ignore[attr-defined]
    entries: list[dict[str, Any]] = []
    layouts: dict[str, str] = {}
    listed: dict[int, int] = {}
    folded: str | None = None
    for index, row in enumerate(df.iter_rows(named=True)):
        if _trivial_cube(row):
            action = str(row.get("cube_action") or "")
            folded = f"{row.get('played')} (proper action: {action}; not close)" if action else None
            continue
        kind = row.get("kind") or "checker"
        side = row.get("side")
        loss = _finite(row.get("equity_loss"))
        cls = str(row.get("error_class") or "none")
        luck = _finite(row.get("luck"))
        mark = thresholds.luck_mark(luck) if luck is not None else ""
        entry: dict[str, Any] = {
            "i": len(entries), "game": row.get("game"), "move": row.get("move_no"), "side": side,
            "player": row.get("player") or (names[side] if side in (0, 1) else ""), "kind": kind,
            "dice": row.get("dice") or "", "action": _action_text(row), "cls": cls,
            "loss": fmt_millipoints(loss) if loss else "", "forced": bool(row.get("forced")),
            "luck": "" if luck is None else fmt_equity(luck), "mark": mark,
            "key": str(row.get("key") or ""), "layout": None, "pieces": None,
        }
        e = _entry(row, names, max_candidates=10)
        e["cube_note"] = folded if kind == "checker" else None
        e["luck_mark"] = mark
        folded = None
        entry["html"] = details(e, unit, _money_row(row), unit == "points", True)
        drawn = [got for got in (_board_args(row, names, bottom) for bottom in (0, 1)) if got is not None]
        if len(drawn) == 2:
            entry["layout"], entry["pieces"] = [], []
            for pos, args in drawn:  # one drawing with each player at the bottom (the viewer's toggle)
                lay = board_layout(pos, args["cube"])
                top = bool(args["mover_top"])
                lid = f"{pos.variant}-{int(lay.legend)}-{int(lay.cube_x is not None)}-{int(top)}"
                if lid not in layouts:
                    layouts[lid] = board_svg(pos, home_side=home_side, size=380, parts="static", cube=args["cube"],
                                             mover_top=top)
                entry["layout"].append(lid)
                entry["pieces"].append(str(board_svg(pos, home_side=home_side, size=380, parts="pieces",
                                                     styled=False, **args)))  # built with xml.etree: escaped
        listed[index] = len(entries)
        entries.append(entry)
    return entries, layouts, listed


def _money_row(row: Mapping[str, Any]) -> bool:
    return not row.get("match_length")


def pack(data: Any) -> str:
    """``data`` as gzip-compressed JSON in base64, byte for byte reproducible (no time stamp): the
    viewer's boards and details take a tenth of their size so (the page unpacks them with the
    browser's ``DecompressionStream``). :func:`unpack` reads it back.

    >>> unpack(pack({"a": ["<g/>", 1]}))
    {'a': ['<g/>', 1]}
    >>> pack([1]) == pack([1])
    True
    """
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(text: str) -> Any:
    """The data of :func:`pack`.

    >>> unpack("H4sIAAAAAAACA4s2jAUAuDIvTAMAAAA=")
    [1]
    """
    return json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))


def _viewer_data(entries: list[dict[str, Any]], layouts: dict[str, str], names: tuple[str, str]) -> Markup:
    """The viewer's JSON: the names, the static drawing of each board layout and, per decision,
    where it is and which layout it uses with the first and with the second player at the bottom;
    ``packed`` (:func:`pack`) holds each decision's board pieces (SVG, the two drawings) and
    details (HTML), all escaped when they were built."""
    keep = ("i", "game", "move", "side", "kind", "cls", "key", "layout")
    packed = pack({"pieces": [e["pieces"] for e in entries],
                   "details": [str(e["html"]) for e in entries]})
    return script_json({"names": list(names), "layouts": layouts,
                        "decisions": [{k: e[k] for k in keep if k in e} for e in entries], "packed": packed})


def _game_stats(analysis: AnalysisLike, names: tuple[str, str]) -> list[dict[str, Any]]:
    """Per game and player: counted decisions, errors, total error, PR and luck (EMG), and how the
    game ended."""
    df = analysis.decisions
    if df.height == 0 or "game" not in df.columns:
        return []
    counted = _counted(df)
    is_error = pl.col("error_class").fill_null("none") != "none"
    agg = (df.group_by("game", "side").agg(
        counted.sum().alias("unforced"), is_error.sum().alias("errors"),
        pl.col("equity_loss").fill_null(0.0).sum().alias("total"), pl.col("luck").sum().alias("luck"),
        pl.len().alias("decisions")).sort("game", "side"))
    results = {r.game: r for r in analysis.summary.match.results}
    games: dict[Any, dict[str, Any]] = {}
    for r in agg.iter_rows(named=True):
        g = games.setdefault(r["game"], {"game": r["game"], "sides": [None, None],
                                         "result": _results_text([results[r["game"]]], names)
                                         .split(": ", 1)[-1] if r["game"] in results else ""})
        if r["side"] in (0, 1):
            n = int(r["unforced"] or 0)
            g["sides"][int(r["side"])] = {
                "decisions": int(r["decisions"]), "unforced": n, "errors": int(r["errors"] or 0),
                "total": float(r["total"] or 0.0), "pr": (float(r["total"] or 0.0) / n) if n else None,
                "luck": r["luck"]}
    return [games[k] for k in sorted(games)]


def _luck_rolls(entries: list[dict[str, Any]], analysis: AnalysisLike, listed: Mapping[int, int],
                n: int = 5) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``n`` luckiest and the ``n`` unluckiest rolls of the match (checker rows with luck)."""
    df = analysis.decisions
    if df.height == 0 or "luck" not in df.columns:
        return [], []
    rolls = df.with_row_index("_index").filter(pl.col("luck").is_not_null() & (pl.col("kind") == "checker"))
    cols = ["_index", "luck"] + (["luck_mwc"] if "luck_mwc" in df.columns else [])

    def pick(frame: pl.DataFrame) -> list[dict[str, Any]]:
        out = []
        for r in frame.select(cols).iter_rows(named=True):
            i = listed.get(int(r["_index"]))
            if i is None:
                continue
            e = entries[i]
            out.append({"i": i, "player": e["player"], "game": e["game"], "move": e["move"], "dice": e["dice"],
                        "luck": r["luck"], "luck_mwc": r.get("luck_mwc"), "mark": e["mark"]})
        return out

    lucky = pick(rolls.filter(pl.col("luck") > 0).sort(["luck", "_index"], descending=[True, False]).head(n))
    unlucky = pick(rolls.filter(pl.col("luck") < 0).sort(["luck", "_index"]).head(n))
    return lucky, unlucky


def _charts(analysis: AnalysisLike, svgs: Mapping[str, str] | None) -> list[dict[str, Any]]:
    out = []
    for i, name in enumerate(CHARTS, start=1):
        svg = inline_svg(svgs[name] if svgs is not None else chart_svg(name, analysis), f"chart{i}")
        out.append({"name": name, "title": CHART_TITLES.get(name, name), "svg": Markup(svg)})
    return out


def render_html_report(analysis: AnalysisLike, *, home_side: HomeSide = "right",
                       max_errors: int | None = None, charts: bool = True,
                       chart_svgs: Mapping[str, str] | None = None) -> str:
    """The report as HTML text (see the module docstring). ``max_errors`` caps the error list
    (the game list always holds every decision); ``chart_svgs`` are the charts' SVG texts when they
    are drawn already (:func:`analyzer.render.charts.render_charts`)."""
    names = player_names(analysis)
    settings, thresholds = _settings(analysis)
    players = analysis.summary.players
    classes = _class_order((c for p in players for c in p.checker), thresholds)
    cube_classes = _class_order((c for p in players for c in p.cube), thresholds)
    info = _match_info(analysis, names)
    unit = "points" if info["cubeless"] else "EMG"
    df = analysis.decisions
    variants = sorted(set(df["variant"].drop_nulls().to_list())) if "variant" in df.columns else []
    marks = _thresholds(thresholds)
    entries, layouts, listed = _game_list(analysis, names, home_side, unit, marks)
    errors = _errors(analysis, names, home_side, max_errors, listed, marks)
    total_errors = int(df.filter(pl.col("error_class").fill_null("none") != "none").height) \
        if "error_class" in df.columns else 0
    lucky, unlucky = _luck_rolls(entries, analysis, listed)
    list_classes = _class_order((e["cls"] for e in entries), thresholds)
    title = f"{names[0]} vs {names[1]}"
    return _env().get_template("report.html.j2").render(
        title=title, names=names, info=info, settings=settings, classes=classes, cube_classes=cube_classes,
        players=_player_rows(analysis, names, classes, cube_classes, info["cubeless"], variants, info["length"]),
        pr_note=PR_NOTE, depth=_depth_text(analysis, info["cubeless"]),
        charts=_charts(analysis, chart_svgs) if charts else [], errors=errors, total_errors=total_errors,
        money=info["money"], cube_error_types=[label for _key, label in cube_error_rows(players)],
        cubeless=info["cubeless"],
        unit=unit, cubeless_note=CUBELESS_NOTE,
        confirm_line=confirm_text(analysis.summary), entries=entries, list_classes=list_classes,
        games=_game_stats(analysis, names), lucky=lucky, unlucky=unlucky,
        viewer_data=_viewer_data(entries, layouts, names) if entries else None,
        game_numbers=sorted({e["game"] for e in entries if e["game"] is not None}),
    )


def render_page(template: str, **context: Any) -> str:
    """Render another page of bgreview (``template`` in ``analyzer/render/templates``) with the
    report's environment: autoescape on, the same filters and style sheet (``archive.html.j2`` is
    the index of ``bgreview report``; a file of macros renders nothing).

    >>> render_page("decision.html.j2")
    ''
    """
    return _env().get_template(template).render(**context)


def write_html_report(analysis: AnalysisLike, out_dir: Path | str, *, home_side: HomeSide = "right",
                      max_errors: int | None = None, charts: bool = True,
                      chart_svgs: Mapping[str, str] | None = None) -> Path:
    """Write ``report.html`` in ``out_dir`` (created if needed) and return its path (``charts`` and
    ``chart_svgs``: as for :func:`render_html_report`), whole or not at all; raises
    :class:`~analyzer.core.files.OutputError` naming what cannot be written."""
    text = render_html_report(analysis, home_side=home_side, max_errors=max_errors, charts=charts,
                              chart_svgs=chart_svgs)
    out = ensure_folder(out_dir)
    return atomic_write(out / "report.html", text, inside=out)
