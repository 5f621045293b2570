"""A small hand-made analysis dataset for the profile and drill tests: rows with every column of a
batch part, the losses chosen by the test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from analyzer.batch.layout import DECISIONS_DIR
from analyzer.batch.units import analysis_schema
from analyzer.core.ids import encode_key
from analyzer.core.position import Position

START = encode_key(Position.start())
RACE = encode_key(Position.from_notation("P 6:5 5:5 4:5 | O 19:5 20:5 21:5"))


def make_row(player: str, loss: float, *, kind: str = "checker", key: str = START, match: int = 0, move: int = 1,
         length: int = 7, me: int = 0, opp: int = 0, cube_error: str | None = None, **kw: Any) -> dict[str, Any]:
    row: dict[str, Any] = {c: None for c in analysis_schema()}
    row.update(file=f"m{match}.mat", match_index=0, game=1, move_no=move, player=player, side=0, kind=kind,
               variant="standard", dice="31" if kind == "checker" else None, key=key, phase="contact",
               theme=None, match_length=length, score_me=me, score_opp=opp, cube=1, played="8/5 6/5",
               best="8/5 6/5", equity_played=0.0, equity_best=loss, equity_loss=loss,
               error_class="error" if loss >= 0.02 else "none", forced=False, ply=0, method="0-ply",
               cube_error=cube_error, close=True if kind != "checker" else None, crawford=False,
               post_crawford=False, candidates=[])
    row.update(kw)
    return row


def write_dataset(folder: Path, rows: list[dict[str, Any]], dates: dict[int, str | None]) -> Path:
    (folder / DECISIONS_DIR).mkdir(parents=True)
    frame = pl.DataFrame(rows, schema=analysis_schema(), orient="row")
    parts = []
    for m in sorted(dates):
        part = f"m{m}-0000.m00000.parquet"
        frame.filter(pl.col("file") == f"m{m}.mat").write_parquet(folder / DECISIONS_DIR / part)
        parts.append({"file": f"m{m}.mat", "match_index": 0, "part": part, "date": dates[m]})
    pl.DataFrame(parts, schema={"file": pl.String(), "match_index": pl.Int32(), "part": pl.String(),
                                "date": pl.String()}).write_parquet(folder / "matches.parquet")
    return folder


TINY = """ 3 point match

 Game 1
 {a} : 0                        {b} : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2) 52: 13/8 13/11              63: 24/18 13/10
  3)  Doubles => 2                Drops
      Wins 1 point
"""


def reviewed_dataset(folder: Path) -> Path:
    """A real 0-ply dataset in ``folder/out`` of two tiny matches between ``<b>Ann&Co`` (a name with
    markup) and ``bob``, dated a month apart, with its report and match reports."""
    from analyzer.batch import BatchOptions, run_batch, write_batch_report

    (folder / "in").mkdir()
    (folder / "in" / "a.mat").write_text("; [EventDate \"2024.01.02\"]\n" + TINY.format(a="<b>Ann&Co", b="bob"))
    (folder / "in" / "b.mat").write_text("; [EventDate \"2024.02.03\"]\n" + TINY.format(a="bob", b="<b>Ann&Co"))
    run_batch([str(folder / "in")], folder / "out", options=BatchOptions(ply=0), jobs=1)
    write_batch_report(folder / "out")
    return folder / "out"
