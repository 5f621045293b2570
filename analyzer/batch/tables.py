"""The tables of a batch dataset, rebuilt from its part files: matches, players and errors.

The part files are the record of what was done; the tables are derived from them at the end of
every run (and can be rebuilt at any time with :func:`rebuild_tables`), so an interrupted and
resumed run ends with exactly the tables of an uninterrupted one.

>>> m = pl.DataFrame([{"file": "a", "match_index": 0, "player_0": "ann", "player_1": "bob",
...                    "date": "2024-01-02", "decisions_0": 10, "decisions_1": 12, "winner_side": 0,
...                    "unforced_0": 8, "unforced_1": 10, "total_error_0": 0.08, "total_error_1": 0.2,
...                    "errors_0": 1, "errors_1": 3, "pr_0": 5.0, "pr_1": 10.0}],
...                  schema_overrides=MATCHES_SCHEMA)
>>> players_table(m).select("player", "matches", "wins", "mean_pr").rows()
[('ann', 1, 1, 5.0), ('bob', 1, 0, 10.0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .layout import (
    DECISIONS_DIR,
    ERRORS_TABLE,
    MATCHES_TABLE,
    PLAYERS_TABLE,
    UNITS_DIR,
    atomic_write_bytes,
    atomic_write_parquet,
    part_name,
    read_json,
    read_part_meta,
)
from .units import Unit, error_row

__all__ = ["ERRORS_SCHEMA", "MATCHES_SCHEMA", "PLAYERS_SCHEMA", "Tables", "players_table", "rebuild_tables",
           "write_tables"]

MATCHES_SCHEMA: dict[str, pl.DataType] = {
    "file": pl.String(), "match_index": pl.Int32(), "part": pl.String(),
    "player_0": pl.String(), "player_1": pl.String(), "length": pl.Int32(), "variant": pl.String(),
    "event": pl.String(), "date_raw": pl.String(), "date": pl.String(),
    "games": pl.Int32(), "games_failed": pl.Int32(),
    "decisions": pl.Int32(), "decisions_0": pl.Int32(), "decisions_1": pl.Int32(),
    "score_0": pl.Int32(), "score_1": pl.Int32(), "winner_side": pl.Int8(), "winner": pl.String(),
    "ply": pl.Int32(),
    "unforced_0": pl.Int32(), "total_error_0": pl.Float64(), "errors_0": pl.Int32(), "pr_0": pl.Float64(),
    "error_rate_0": pl.Float64(),
    "unforced_1": pl.Int32(), "total_error_1": pl.Float64(), "errors_1": pl.Int32(), "pr_1": pl.Float64(),
    "error_rate_1": pl.Float64(),
}
"""One row per match. ``date`` is the ISO date when the header's date could be read (else null,
``date_raw`` keeps the text); ``score_*`` the final score and ``winner`` the winner when the last
game replayed; the per-player columns (suffix ``_0`` first player, ``_1`` second) are null in a
``--replay-only`` run: ``unforced`` decisions, ``total_error`` (EMG), ``errors`` (decisions of an
error class), ``pr`` (500 x mean EMG error per unforced decision) and ``error_rate``
(``errors / unforced``)."""

ERRORS_SCHEMA: dict[str, pl.DataType] = {
    "file": pl.String(), "match_index": pl.Int32(), "game": pl.Int32(), "line": pl.Int32(),
    "column": pl.Int32(), "token": pl.String(), "reason": pl.String(), "kind": pl.String(),
}
"""One row per input problem. ``kind``: ``read`` (the file), ``parse`` (the text), ``replay`` (a game
that breaks the rules), ``score`` (a score line that contradicts the previous game), ``analysis``
(a match the evaluator cannot analyse, e.g. a variant without evaluator) or ``internal``."""

PLAYERS_SCHEMA: dict[str, pl.DataType] = {
    "player": pl.String(), "matches": pl.UInt32(), "wins": pl.Int64(), "decisions": pl.Int64(),
    "unforced": pl.Int64(), "mean_pr": pl.Float64(), "error_rate": pl.Float64(),
    "pr_trend": pl.Float64(), "first_date": pl.String(), "last_date": pl.String(),
}
"""One row per player name. ``mean_pr`` is 500 x the player's total EMG error over all unforced
decisions (not a mean of per-match PRs); ``pr_trend`` the least-squares slope of the per-match PR
against the match's rank in time (by date, then file and match index), in PR per match: negative
means improving; null with fewer than two analysed matches."""


@dataclass(frozen=True)
class Tables:
    """The three tables of a dataset."""

    matches: pl.DataFrame
    players: pl.DataFrame
    errors: pl.DataFrame


def _side(matches: pl.LazyFrame, side: int) -> pl.LazyFrame:
    return matches.select(
        pl.col(f"player_{side}").alias("player"), "file", "match_index", "date",
        pl.col(f"decisions_{side}").cast(pl.Int64).alias("decisions"),
        pl.col(f"unforced_{side}").cast(pl.Int64).alias("unforced"),
        pl.col(f"total_error_{side}").alias("total_error"),
        pl.col(f"errors_{side}").cast(pl.Int64).alias("errors"),
        pl.col(f"pr_{side}").alias("pr"),
        (pl.col("winner_side") == side).fill_null(False).cast(pl.Int64).alias("won"),
    )


def players_table(matches: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """The players table of a matches table (see :data:`PLAYERS_SCHEMA`)."""
    lf = matches.lazy()
    long = (pl.concat([_side(lf, 0), _side(lf, 1)])
            .sort(["player", "date", "file", "match_index"], nulls_last=True)
            .with_columns(pl.int_range(pl.len()).over("player").cast(pl.Float64).alias("seq")))
    has_pr = pl.col("pr").is_not_null()
    seq, pr = pl.col("seq").filter(has_pr), pl.col("pr").filter(has_pr)
    unforced = pl.col("unforced").sum()
    out = (long.group_by("player", maintain_order=True)
           .agg(pl.len().alias("matches"), pl.col("won").sum().alias("wins"),
                pl.col("decisions").sum().alias("decisions"), unforced.alias("unforced"),
                pl.when(unforced > 0).then(500.0 * pl.col("total_error").sum() / unforced).alias("mean_pr"),
                pl.when(unforced > 0).then(pl.col("errors").sum() / unforced).alias("error_rate"),
                (pl.cov(seq, pr) / seq.var()).alias("pr_trend"),
                pl.col("date").min().alias("first_date"), pl.col("date").max().alias("last_date"))
           .with_columns(pl.when(pl.col("pr_trend").is_finite()).then(pl.col("pr_trend")).alias("pr_trend")))
    return out.collect().cast(PLAYERS_SCHEMA).select(list(PLAYERS_SCHEMA))  # type: ignore[arg-type]


def rebuild_tables(out: Path, units: Sequence[Unit]) -> Tables:
    """Read the markers and parts of ``units`` in ``out`` and build the tables (sorted by file
    and match index). A unit without marker, or a part that is missing or belongs to another
    version of the input, becomes an error row: nothing is silently left out."""
    match_rows: list[dict[str, Any]] = []
    error_rows: list[dict[str, Any]] = []
    for u in units:
        marker = read_json(out / UNITS_DIR / f"{u.unit}.json")
        if marker is None or marker.get("stamp") != u.stamp():
            error_rows.append(error_row(RuntimeError("the input was not processed (run again with --resume)"),
                                        file=u.path, kind="internal"))
            continue
        error_rows.extend(marker.get("errors") or [])
        for i in range(int(marker.get("matches") or 0)):
            path = out / DECISIONS_DIR / part_name(u.unit, i)
            try:
                meta = read_part_meta(path)
            except Exception:
                meta = None
            if meta is None or meta.get("stamp") != u.stamp():
                error_rows.append(error_row(RuntimeError(f"part file {path.name} is missing or stale"),
                                            file=u.path, kind="internal", match_index=i))
                continue
            error_rows.extend(meta.get("errors") or [])
            if meta.get("match") is not None:
                match_rows.append(meta["match"])
    matches = pl.DataFrame(match_rows, schema=MATCHES_SCHEMA).sort(["file", "match_index"])
    errors = pl.DataFrame(error_rows, schema=ERRORS_SCHEMA) \
        .sort(["file", "match_index", "game", "line", "column", "reason"], nulls_last=False)
    return Tables(matches, players_table(matches), errors)


def write_tables(out: Path, tables: Tables) -> list[Path]:
    """Write each table as Parquet and CSV into ``out`` (atomically) and return the paths."""
    written: list[Path] = []
    for name, frame in ((MATCHES_TABLE, tables.matches), (PLAYERS_TABLE, tables.players),
                        (ERRORS_TABLE, tables.errors)):
        pq, csv = out / f"{name}.parquet", out / f"{name}.csv"
        atomic_write_parquet(pq, frame)
        atomic_write_bytes(csv, frame.write_csv().encode("utf-8"))
        written += [pq, csv]
    return written
