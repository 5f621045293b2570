"""The HTML match report: one self-contained ``report.html`` (inline CSS and SVG, no scripts, no
network, no external fonts).

It holds the summary (per player: decisions, error counts by class, total and mean error, PR with
the XG and gnubg scale names, luck and luck-adjusted result), the analysis settings (engine,
version, nets, ply, seed, thresholds, MET), the three charts of :mod:`analyzer.render.charts`
inline, and every error (``error_class != "none"``), largest first, each with an SVG board, the
dice, the played and best plays, the candidates or the cube table and the IDs to paste into
other tools.

Everything that comes from a match file is escaped: Jinja2 runs with autoescape on, board
diagrams are built with :mod:`xml.etree` and chart text is drawn as paths.

>>> fmt_equity(0.1234), fmt_equity(-0.04), fmt_pct(0.5234), fmt_pr(0.0173)
('+0.123', '-0.040', '52.3%', '8.7')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from analyzer.core.errors import AnalyzerError
from analyzer.core.ids import decode_key, decode_match_id
from analyzer.render.board_svg import HomeSide, board_svg
from analyzer.render.charts import CHARTS, AnalysisLike, chart_svg, inline_svg, player_names
from analyzer.render.terminal import confirm_text, valued_by

TEMPLATES = Path(__file__).parent / "templates"
CLASS_ORDER = ("doubtful", "error", "bad", "blunder", "very bad", "howler")
CHART_TITLES = {"winning-chances": "Winning chances", "cumulative-error": "Cumulative error",
                "luck": "Luck"}
SETTING_LABELS = (
    ("engine", "Engine"), ("version", "Version"), ("engine_version", "Engine version"),
    ("evaluator", "Evaluator"), ("nets", "Nets"), ("nets_feature_version", "Net features"),
    ("ply", "Ply"), ("luck_ply", "Luck ply"), ("move_filter", "Move filter"), ("seed", "Seed"),
    ("thresholds", "Error thresholds"), ("met", "Match equity table"), ("equity", "Equity"),
    ("cube_model", "Cube model"), ("confirm", "Confirmation pass"), ("bearoff", "Bear-off databases"),
    ("schema_version", "Schema version"),
)
CUBE_ERROR_TYPES = ("missed double", "wrong double", "wrong take", "wrong pass")
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
    return f"{x:+.{digits}f}"


def fmt_emg(x: float | None, digits: int = 3) -> str:
    """A non-negative amount of equity (an error) without sign.

    >>> fmt_emg(0.1049), fmt_emg(0.01504, 4)
    ('0.105', '0.0150')
    """
    return "-" if x is None else f"{x:.{digits}f}"


def fmt_pct(x: float | None) -> str:
    """A probability as a percentage with one decimal (``-`` when unknown)."""
    return "-" if x is None else f"{100 * x:.1f}%"


def fmt_signed_pct(x: float | None) -> str:
    """A change of probability (MWC, luck) as a signed percentage.

    >>> fmt_signed_pct(-0.0412), fmt_signed_pct(0.1)
    ('-4.1%', '+10.0%')
    """
    return "-" if x is None else f"{100 * x:+.1f}%"


def fmt_pr(pr_raw: float | None) -> str:
    """PR = 500 x the mean EMG loss per unforced decision, one decimal."""
    return "-" if pr_raw is None else f"{500 * pr_raw:.1f}"


def fmt_millipoints(x: float | None) -> str:
    """An equity in millipoints (thousandths of a point).

    >>> fmt_millipoints(0.1236)
    '124'
    """
    return "-" if x is None else f"{1000 * x:.0f}"


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["equity"] = fmt_equity
    env.filters["emg"] = fmt_emg
    env.filters["pct"] = fmt_pct
    env.filters["spct"] = fmt_signed_pct
    env.filters["pr"] = fmt_pr
    env.filters["mp"] = fmt_millipoints
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
    meta: dict[str, Any] = {}
    meta.update(analysis.summary.get("metadata") or {})
    for k, v in (analysis.metadata or {}).items():
        meta.setdefault(k, v)
    rows: list[tuple[str, str]] = []
    labels = SETTING_LABELS
    for key, label in labels:
        if key in meta and meta[key] is not None:
            rows.append((label, _describe(key, meta[key])))
    for key in sorted(k for k in meta if k not in dict(labels)):
        if meta[key] is not None:
            rows.append((str(key), _describe(str(key), meta[key])))
    return rows, meta.get("thresholds")


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
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


def _match_info(analysis: AnalysisLike, names: tuple[str, str]) -> dict[str, Any]:
    match = dict(analysis.summary.get("match") or {})
    length = match.get("length")
    df = analysis.decisions
    if length is None and "match_length" in df.columns and df.height:
        length = df["match_length"][0]
    kind = "Money session" if not length else f"{length}-point match"
    variants = sorted(set(df["variant"].drop_nulls().to_list())) if "variant" in df.columns else []
    rows = [("Players", f"{names[0]} vs {names[1]}"), ("Match", kind)]
    if variants:
        rows.append(("Variant", ", ".join(variants)))
    for key, label in (("event", "Event"), ("round", "Round"), ("date", "Date"), ("site", "Site"),
                       ("file", "File")):
        if match.get(key):
            rows.append((label, str(match[key])))
    if match.get("games") is not None:
        analysed = match.get("games_analysed")
        text = str(match["games"]) if analysed in (None, match["games"]) else f"{analysed} of {match['games']} analysed"
        rows.append(("Games", text))
    final = match.get("score_final")
    if isinstance(final, list | tuple) and len(final) == 2:
        rows.append(("Final score", f"{names[0]} {final[0]}, {names[1]} {final[1]}"))
    results = _results_text(match.get("results"), names)
    if results:
        rows.append(("Game results", results))
    problems = [str(e) for e in match.get("errors") or []]
    cubeless = match.get("cube") is False or (bool(variants) and "standard" not in variants)
    return {"rows": rows, "money": not length, "event": match.get("event") or "", "problems": problems,
            "cubeless": cubeless}


def _results_text(results: Any, names: tuple[str, str]) -> str:
    """How each game ended, from ``summary["match"]["results"]``.

    >>> _results_text([{"game": 1, "end": "mother", "winner": 1, "points": 2},
    ...                {"game": 2, "end": "draw", "winner": None, "points": 0}], ("ann", "bob"))
    'game 1: bob +2 (pinned the mother); game 2: draw (both mothers pinned)'
    """
    if not isinstance(results, list | tuple):
        return ""
    parts = []
    for r in results:
        if not isinstance(r, Mapping):
            continue
        winner, end = r.get("winner"), str(r.get("end") or "")
        if end == "draw":
            what = "draw (both mothers pinned)"
        elif winner in (0, 1):
            what = f"{names[winner]} +{r.get('points')} ({END_WORDS.get(end, end)})"
        else:
            what = END_WORDS.get(end, end) or "unfinished"
        parts.append(f"game {r.get('game')}: {what}")
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
        return f"{100 * x:+.1f}% MWC"
    if unit == "points":
        return f"{x:+.3f} points"
    return fmt_equity(x)


def _player_rows(analysis: AnalysisLike, names: tuple[str, str], classes: list[str],
                 cube_classes: list[str]) -> list[dict[str, Any]]:
    by_side: dict[int, Mapping[str, Any]] = {}
    for p in analysis.summary.get("players") or []:
        if p.get("side") in (0, 1):
            by_side[int(p["side"])] = p
    out = []
    for side in (0, 1):
        p = by_side.get(side, {})
        checker = p.get("checker") or {}
        cube = p.get("cube") or {}
        cube_errors = p.get("cube_errors") or {}
        approx = " (approximate band)" if p.get("rating_xg_approximate") else ""
        out.append({
            "name": p.get("name", names[side]),
            "decisions": p.get("decisions", "-"),
            "unforced": p.get("unforced", "-"),
            "checker_unforced": p.get("checker_unforced"),
            "cube_decisions": p.get("cube_decisions"),
            "checker": [checker.get(c, 0) for c in classes],
            "cube": [cube.get(c, 0) for c in cube_classes],
            "cube_errors": [cube_errors.get(t, 0) for t in CUBE_ERROR_TYPES] if cube_errors else [],
            "total_error": p.get("total_error"),
            "mean_error": p.get("mean_error"),
            "pr_raw": p.get("pr_raw"),
            "rating_xg": (p.get("rating_xg") or "-") + approx,
            "rating_gnubg": p.get("rating_gnubg") or "-",
            "luck": p.get("luck"),
            "luck_mwc": p.get("luck_mwc"),
            "actual_result": fmt_result(p.get("actual_result"), p.get("result_unit")),
            "has_actual": p.get("actual_result") is not None,
            "luck_adjusted_result": fmt_result(p.get("luck_adjusted_result"), p.get("result_unit")),
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


def _board(row: Mapping[str, Any], names: tuple[str, str], home_side: HomeSide) -> Markup | None:
    try:
        pos = decode_key(str(row.get("key") or ""))
    except (AnalyzerError, ValueError):
        return None
    side = row.get("side")
    me = str(row.get("player") or (names[side] if side in (0, 1) else ""))
    opp = names[1 - side] if side in (0, 1) else ""
    known, owner = _cube_owner(row.get("match_id"))
    cube = row.get("cube")
    draw_cube = cube if (cube is not None and (known or cube == 1)) else None
    svg = board_svg(pos, dice=_dice(row.get("dice")), cube=draw_cube, cube_owner=owner if known else None,
                    home_side=home_side, size=380, names=(me, opp))
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
    if c.get("variant") == "mahbusa" and c.get("equity") is not None:
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


def _errors(analysis: AnalysisLike, names: tuple[str, str], home_side: HomeSide,
            max_errors: int | None) -> list[dict[str, Any]]:
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
        side = row.get("side")
        kind = row.get("kind") or "checker"
        doubler = row.get("player") if kind == "cube" else (names[1 - side] if side in (0, 1) else "")
        pos_id, match_id = row.get("position_id"), row.get("match_id")
        ids = []
        if pos_id:
            ids.append(("Position ID:Match ID", f"{pos_id}:{match_id}" if match_id else str(pos_id)))
        if row.get("xgid"):
            ids.append(("XGID", str(row["xgid"])))
        ids.append(("Key", str(row.get("key") or "")))
        out.append({
            "n": n, "anchor": f"error-{n}", "row": row, "kind": kind, "doubler": doubler,
            "cube_error": row.get("cube_error"), "mwc_loss": row.get("mwc_loss"),
            "board": _board(row, names, home_side), "dice": _dice(row.get("dice")),
            "candidates": _candidate_rows(row) if kind == "checker" else [],
            "draws": row.get("variant") == "mahbusa",
            "cube_rows": _cube_rows(row) if kind in ("cube", "take") else [],
            "ids": ids,
            "valued_by": valued_by(row) if row.get("equity_loss_first") is not None else None,
        })
    return out


def _charts(analysis: AnalysisLike) -> list[dict[str, Any]]:
    out = []
    for i, name in enumerate(CHARTS, start=1):
        svg = inline_svg(chart_svg(name, analysis), f"chart{i}")
        out.append({"name": name, "title": CHART_TITLES.get(name, name), "svg": Markup(svg)})
    return out


def render_html_report(analysis: AnalysisLike, *, home_side: HomeSide = "right",
                       max_errors: int | None = None, charts: bool = True) -> str:
    """The report as HTML text (see the module docstring). ``max_errors`` caps the error list."""
    names = player_names(analysis)
    settings, thresholds = _settings(analysis)
    players_raw = [p for p in analysis.summary.get("players") or [] if isinstance(p, Mapping)]
    classes = _class_order((c for p in players_raw for c in (p.get("checker") or {})), thresholds)
    cube_classes = _class_order((c for p in players_raw for c in (p.get("cube") or {})), thresholds)
    info = _match_info(analysis, names)
    errors = _errors(analysis, names, home_side, max_errors)
    total_errors = int(analysis.decisions.filter(pl.col("error_class").fill_null("none") != "none").height) \
        if "error_class" in analysis.decisions.columns else 0
    title = f"{names[0]} vs {names[1]}"
    return _env().get_template("report.html.j2").render(
        title=title, names=names, info=info, settings=settings, classes=classes, cube_classes=cube_classes,
        players=_player_rows(analysis, names, classes, cube_classes), pr_note=PR_NOTE,
        charts=_charts(analysis) if charts else [], errors=errors, total_errors=total_errors,
        money=info["money"], cube_error_types=CUBE_ERROR_TYPES, cubeless=info["cubeless"],
        unit="points" if info["cubeless"] else "EMG", cubeless_note=CUBELESS_NOTE,
        confirm_line=confirm_text(analysis.summary),
    )


def write_html_report(analysis: AnalysisLike, out_dir: Path | str, *, home_side: HomeSide = "right",
                      max_errors: int | None = None) -> Path:
    """Write ``report.html`` in ``out_dir`` (created if needed) and return its path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.html"
    text = render_html_report(analysis, home_side=home_side, max_errors=max_errors)
    path.write_text(text, encoding="utf-8")
    return path

