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
