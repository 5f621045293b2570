"""A hand-made match analysis in the exact decisions/summary schema, for the render tests.

``make_analysis()`` returns a frozen object with ``decisions`` (polars DataFrame) and ``summary``
(an :class:`~analyzer.analysis.summary.AnalysisSummary` read from the hand-made JSON of
``make_summary()``, the summary's agreed keys plus some of the stats' extras): two games of a
5-point match (or money play), checker plays with candidates, a cube and a take decision, errors
of several classes, forced moves and null luck.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from analyzer.analysis.summary import AnalysisSummary
from analyzer.core.ids import MatchID, encode_key, encode_position_id
from analyzer.core.position import Position

CANDIDATE = pl.Struct({"play": pl.String, "equity": pl.Float64, "win": pl.Float64,
                       "win_gammon": pl.Float64, "win_backgammon": pl.Float64,
                       "lose_gammon": pl.Float64, "lose_backgammon": pl.Float64})

SCHEMA: dict[str, Any] = {
    "file": pl.String, "game": pl.Int32, "move_no": pl.Int32, "player": pl.String, "side": pl.Int8,
    "kind": pl.String, "variant": pl.String, "dice": pl.String, "position_id": pl.String,
    "match_id": pl.String, "xgid": pl.String, "key": pl.String, "match_length": pl.Int32,
    "score_me": pl.Int32, "score_opp": pl.Int32, "cube": pl.Int32, "played": pl.String, "best": pl.String,
    "equity_played": pl.Float64, "equity_best": pl.Float64, "equity_loss": pl.Float64,
    "mwc_loss": pl.Float64, "error_class": pl.String, "forced": pl.Boolean, "luck": pl.Float64,
    "win_prob": pl.Float64, "mwc": pl.Float64, "candidates": pl.List(CANDIDATE),
    "cube_nd": pl.Float64, "cube_dt": pl.Float64, "cube_dp": pl.Float64, "cube_action": pl.String,
    "cube_error": pl.String,  # one of the analysis' added columns: the report shows it when present
    # the cube's chances and values (added columns too)
    "cube_win": pl.Float64, "cube_win_gammon": pl.Float64, "cube_win_backgammon": pl.Float64,
    "cube_lose_gammon": pl.Float64, "cube_lose_backgammon": pl.Float64, "take_point": pl.Float64,
    "gammon_value": pl.Float64, "gammon_value_taker": pl.Float64,
}

POSITIONS = {
    "standard": ["P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2",
                 "P 24:1 13:4 8:3 6:5 5:2 | O 19:5 17:3 12:5 1:2 | bar O0",
                 "P 13:3 8:2 6:5 5:3 4:2 | O 24:2 19:4 17:3 12:4 1:2",
                 "P 6:5 5:4 4:3 3:3 | O 22:4 21:5 20:6",
                 "P 24:2 13:7 8:3 6:1 | O 19:5 17:3 12:5 1:1 | bar P1 O1"],
    "dutch": ["P 20:3 | O 3:2 | res P12 O13", "P 20:3 5:1 | O 3:2 | res P11 O13"],
    "mahbusa": ["P 14:1 10:1+o 1:12 | O 21:6+p 16:8", "P 24:15 | O 1:15"],
}


@dataclass(frozen=True)
class SampleAnalysis:
    decisions: pl.DataFrame
    summary: AnalysisSummary

    def with_summary(self, summary: dict[str, Any]) -> SampleAnalysis:
        """The same decisions with the summary read from ``summary`` (its JSON form)."""
        return SampleAnalysis(self.decisions, AnalysisSummary.from_json(summary))


def _cand(play: str, equity: float, win: float) -> dict[str, Any]:
    return {"play": play, "equity": equity, "win": win, "win_gammon": 0.12, "win_backgammon": 0.01,
            "lose_gammon": 0.1, "lose_backgammon": 0.005}


def make_rows(variant: str = "standard", length: int = 5, names: tuple[str, str] = ("Alice", "Bob"),
              file: str = "sample.mat") -> list[dict[str, Any]]:
    """The decision rows: 2 games, 14 decisions, 5 of them errors (3 checker, 1 cube, 1 take)."""
    keys = [encode_key(Position.from_notation(t, variant)) for t in POSITIONS[variant]]
    rows: list[dict[str, Any]] = []
    losses = [0.0, 0.031, 0.0, 0.0, 0.0, 0.124, 0.0, 0.0, 0.085, 0.0, 0.02, 0.0, 0.0, 0.25]
    kinds = ["checker"] * 14
    kinds[8], kinds[9], kinds[13] = "cube", "take", "checker"
    kinds[10] = "take"
    for i, loss in enumerate(losses):
        side = i % 2
        game = 1 if i < 8 else 2
        kind = kinds[i]
        cls = "none"
        if loss >= 0.2:
            cls = "very bad"
        elif loss >= 0.08:
            cls = "blunder"
        elif loss >= 0.02:
            cls = "error"
        checker = kind == "checker"
        best_eq = 0.05 * (i % 3) - 0.04
        cands = [] if not checker else [
            _cand("13/10 6/5", best_eq, 0.52),
            _cand("24/21 13/12", best_eq - 0.031, 0.5),
            _cand("24/20", best_eq - loss if loss > 0.031 else best_eq - 0.05, 0.48),
        ]
        played = "no double" if kind == "cube" else ("take" if kind == "take" else
                                                     ("13/10 6/5" if loss == 0 else
                                                      ("24/21 13/12" if loss == 0.031 else "24/20")))
        best = {"cube": "double", "take": "pass"}.get(kind, "13/10 6/5")
        if kind == "take" and loss == 0.0:
            played = best = "take"
        forced = i == 3
        if forced:
            cands = cands[:1]
        std = variant == "standard"
        rows.append({
            "file": file, "game": game, "move_no": i // 2 + 1, "player": names[side], "side": side,
            "kind": kind, "variant": variant,
            "dice": None if not checker else f"{i % 6 + 1}{(i * 5) % 6 + 1}",
            "position_id": encode_position_id(Position.from_notation(POSITIONS[variant][i % len(keys)], variant))
            if std else None,
            "match_id": MatchID(length=length, cube=2 if i >= 9 else 1,
                                cube_owner=(1 - side) if i >= 9 else None).encode() if std else None,
            "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:5:10" if std else None,
            "key": keys[i % len(keys)], "match_length": length, "score_me": 0,
            "score_opp": 1 if game == 2 else 0,
            "cube": 2 if i >= 9 else 1, "played": played, "best": best,
            "equity_played": best_eq - loss, "equity_best": best_eq, "equity_loss": loss,
            "mwc_loss": loss / 2.5 if length else None, "error_class": cls, "forced": forced,
            "luck": None if not checker else (0.31 if i % 4 == 0 else -0.12),
            "win_prob": 0.5 + 0.03 * ((i % 5) - 2), "mwc": (0.5 + 0.02 * ((i % 7) - 3)) if length else None,
            "candidates": cands,
            "cube_nd": 0.61 if not checker else None, "cube_dt": 0.74 if not checker else None,
            "cube_dp": 1.0 if not checker else None,
            "cube_action": "Double, take" if not checker else None,
            "cube_error": {"cube": "missed double", "take": "wrong pass"}.get(kind) if loss else None,
            **({"cube_win": 0.705, "cube_win_gammon": 0.181, "cube_win_backgammon": 0.012, "cube_lose_gammon": 0.062,
                "cube_lose_backgammon": 0.004, "take_point": 0.262, "gammon_value": 0.48, "gammon_value_taker": 0.65}
               if not checker else {}),
        })
    return rows


def make_analysis(variant: str = "standard", length: int = 5, names: tuple[str, str] = ("Alice", "Bob"),
                  event: str = "Club night", file: str = "sample.mat") -> SampleAnalysis:
    summary = make_summary(variant, length, names, event, file)
    # the settings the report lists: the summary's, and the file analysed
    summary["metadata"] = {**summary["metadata"], "file": file}
    df = pl.DataFrame(make_rows(variant, length, names, file), schema=SCHEMA)
    return SampleAnalysis(df, AnalysisSummary.from_json(summary))


def make_summary(variant: str = "standard", length: int = 5, names: tuple[str, str] = ("Alice", "Bob"),
                 event: str = "Club night", file: str = "sample.mat") -> dict[str, Any]:
    """The summary of :func:`make_rows` in its JSON form (``summary.json``), made by hand."""
    df = pl.DataFrame(make_rows(variant, length, names, file), schema=SCHEMA)
    players = []
    for side in (0, 1):
        mine = df.filter(pl.col("side") == side)
        unforced = mine.filter(~pl.col("forced"))
        total = float(unforced["equity_loss"].sum())
        checker: dict[str, int] = {}
        cube: dict[str, int] = {}
        for kind, cls in zip(mine["kind"].to_list(), mine["error_class"].to_list(), strict=True):
            target = checker if kind == "checker" else cube
            target[cls] = target.get(cls, 0) + 1
        pr_raw = total / unforced.height
        players.append({
            "name": names[side], "side": side, "decisions": mine.height, "unforced": unforced.height,
            "checker": checker, "cube": cube, "total_error": total, "mean_error": pr_raw, "pr_raw": pr_raw,
            "rating_xg": "Advanced" if side == 0 else "Intermediate",
            "rating_gnubg": "Casual player", "luck": float(mine["luck"].sum()),
            "luck_adjusted_result": 0.42 if side == 0 else -0.42,
            # what analyzer.analysis.stats adds to the agreed keys
            "checker_unforced": unforced.filter(pl.col("kind") == "checker").height,
            "cube_decisions": unforced.filter(pl.col("kind") != "checker").height,
            "cube_errors": {"missed double": 1 if side == 0 else 0, "wrong double": 0,
                            "wrong take": 0, "wrong pass": 1 if side == 0 else 0},
            "rating_xg_approximate": side == 1,
            "luck_mwc": 0.05 if side == 0 else -0.05,
            "actual_result": 1.0 - side if length else 2.0 * (1 - 2 * side),
            "result_unit": "mwc" if length else "points",
        })
    thresholds = {"name": "xg", "levels": [["error", 0.02], ["blunder", 0.08], ["very bad", 0.2]],
                  "strict": False, "close_cube": 0.16, "lucky": 0.3, "very_lucky": 0.6}
    metadata = {"engine": "bgreview", "engine_version": "0.1.0", "nets": ["contact-34k", "race-34k"], "ply": 2,
                "move_filter": {"count": 8, "threshold": 0.16}, "bearoff": True,
                "seed": 7, "thresholds": thresholds,
                "met": "Kazaross XG2"}
    summary = {"metadata": metadata,
               "match": {"file": file, "players": list(names), "length": length, "event": event,
                         "date": "2026-11-29", "site": "Home", "round": "Final", "games": 3,
                         "games_analysed": 2, "score_final": [5, 3],
                         "errors": ["game 3, line 40: illegal play '<b>13/2</b>'"]},
               "players": players}
    return summary
