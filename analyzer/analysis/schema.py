"""The decisions table: one row per checker play, cube decision and take/pass decision.

:data:`DECISIONS_SCHEMA` is the fixed polars schema of :attr:`MatchAnalysis.decisions
<analyzer.analysis.analyze.MatchAnalysis.decisions>`, written unchanged to ``decisions.parquet``
(``decisions.csv`` holds the same columns, ``candidates`` as JSON text). Columns may be added,
never renamed or removed. ``docs/decisions-schema.md`` explains every column; in short:

* identity: ``file``, ``game``, ``move_no`` (the decision's number within the game, as replayed),
  ``player`` (name), ``side`` (0 = the first player of the record), ``kind``: ``"checker"``,
  ``"cube"`` (the player on roll with access to the cube: doubled or did not) or ``"take"`` (the
  answer to a double, scored from the taker's side), ``variant``, ``dice`` (``"31"``; null for
  cube and take rows);
* position: ``position_id``, ``match_id``, ``xgid`` (standard only, as gnubg shows the decision),
  ``key`` (our text key of the position before the decision, from the side that decides);
* match: ``match_length`` (0 = money), ``score_me``/``score_opp`` (before the game, the decider's
  side first), ``cube`` (value before the decision);
* equities (EMG, from the decider's side; money: per unit of the current cube): ``equity_played``,
  ``equity_best``, ``equity_loss`` (>= 0), ``mwc_loss`` (match-winning chance, null in money),
  ``error_class`` (``"none"`` or a class of the thresholds used), ``forced`` (excluded from the
  rates), ``close`` (a close or actual cube decision), ``luck`` (EMG of the roll, checker rows),
  ``luck_mwc``, ``win_prob`` (cubeless), ``mwc`` (null in money);
* ``candidates``: the ranked plays of a checker row (best first), empty for cube rows; each with
  the mover's chances after it (``win``, ``win_gammon``, ... and ``draw``, :data:`CANDIDATE_STRUCT`);
* cube: ``cube_nd``, ``cube_dt``, ``cube_dp`` (the doubler's normalised equities, also on take
  rows), ``cube_action`` (the proper action in gnubg's words), ``cube_error`` (``"missed double"``,
  ``"wrong double"``, ``"wrong take"``, ``"wrong pass"`` or null);
* ``ply``: the lookahead the row's first pass was evaluated at;
* confirmation: ``method`` (how the row's values were finally obtained: ``"2-ply"``, ``"rollout"``,
  ``"3-ply"``), ``trials`` (games per candidate of a rollout, else null), ``loss_se`` (standard
  error of ``equity_loss``, null for n-ply), ``rank_trials`` (the games of ``trials`` played to
  settle the row's rank in the worst list, else null) and ``equity_loss_first`` (the first pass's loss of a
  row the confirmation pass valued again, else null);
* the cube's chances and values (cube and take rows, from the doubler's side as gnubg prints them):
  ``cube_win``, ``cube_win_gammon``, ``cube_win_backgammon``, ``cube_lose_gammon``,
  ``cube_lose_backgammon`` (cubeless, before the roll), ``take_point`` (the taker's lowest cubeless
  winning chance that takes), ``gammon_value`` and ``gammon_value_taker`` (each side's gammon value at
  the cube before the double).

>>> list(DECISIONS_SCHEMA)[:6]
['file', 'game', 'move_no', 'player', 'side', 'kind']
>>> empty_decisions().height
0
>>> list(CANDIDATE_STRUCT.to_schema())[-2:]
['lose_backgammon', 'draw']
"""

from __future__ import annotations

import polars as pl

__all__ = ["CANDIDATE_STRUCT", "DECISIONS_SCHEMA", "KINDS", "empty_decisions"]

KINDS = ("checker", "cube", "take")

CANDIDATE_STRUCT = pl.Struct({
    "play": pl.String,
    "equity": pl.Float64,
    "win": pl.Float64,
    "win_gammon": pl.Float64,
    "win_backgammon": pl.Float64,
    "lose_gammon": pl.Float64,
    "lose_backgammon": pl.Float64,
    "draw": pl.Float64,
})
"""One candidate play: its text, cubeful equity (EMG; in the cubeless variants expected points) and
cubeless chances of the mover after it; ``draw`` is the Mahbusa double-mother draw (0 in games
that cannot be drawn), so that the chance of losing is ``1 - win - draw``."""

DECISIONS_SCHEMA: dict[str, pl.DataType] = {
    "file": pl.String(),
    "game": pl.Int32(),
    "move_no": pl.Int32(),
    "player": pl.String(),
    "side": pl.Int8(),
    "kind": pl.String(),
    "variant": pl.String(),
    "dice": pl.String(),
    "position_id": pl.String(),
    "match_id": pl.String(),
    "xgid": pl.String(),
    "key": pl.String(),
    "match_length": pl.Int32(),
    "score_me": pl.Int32(),
    "score_opp": pl.Int32(),
    "cube": pl.Int32(),
    "played": pl.String(),
    "best": pl.String(),
    "equity_played": pl.Float64(),
    "equity_best": pl.Float64(),
    "equity_loss": pl.Float64(),
    "mwc_loss": pl.Float64(),
    "error_class": pl.String(),
    "forced": pl.Boolean(),
    "luck": pl.Float64(),
    "win_prob": pl.Float64(),
    "mwc": pl.Float64(),
    "candidates": pl.List(CANDIDATE_STRUCT),
    "cube_nd": pl.Float64(),
    "cube_dt": pl.Float64(),
    "cube_dp": pl.Float64(),
    "cube_action": pl.String(),
    # added columns (beyond the agreed schema)
    "close": pl.Boolean(),
    "cube_error": pl.String(),
    "luck_mwc": pl.Float64(),
    "ply": pl.Int32(),
    "method": pl.String(),
    "trials": pl.Int32(),
    "loss_se": pl.Float64(),
    "rank_trials": pl.Int32(),
    "equity_loss_first": pl.Float64(),
    "cube_win": pl.Float64(),
    "cube_win_gammon": pl.Float64(),
    "cube_win_backgammon": pl.Float64(),
    "cube_lose_gammon": pl.Float64(),
    "cube_lose_backgammon": pl.Float64(),
    "take_point": pl.Float64(),
    "gammon_value": pl.Float64(),
    "gammon_value_taker": pl.Float64(),
}
"""Column name -> polars type of the decisions table, in column order."""


def empty_decisions() -> pl.DataFrame:
    """A decisions table with no rows (and the full schema)."""
    return pl.DataFrame(schema=DECISIONS_SCHEMA)
