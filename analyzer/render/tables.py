"""Files of a match analysis: ``decisions.parquet``, ``decisions.csv`` and ``summary.json``.

The Parquet file keeps the decisions table exactly (schema in :mod:`analyzer.analysis.schema`);
the CSV holds the same columns with ``candidates`` as JSON text; ``summary.json`` is the
analysis summary (metadata, match, players). Numbers stay raw (EMG, MWC): no millipoints here.

>>> default_out_dir("data/samples/boardlord-llabba-7p.mat").as_posix()
'reports/boardlord-llabba-7p'
"""

from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from analyzer.core.files import atomic_write, ensure_folder, safe_stem

if TYPE_CHECKING:
    from analyzer.analysis.analyze import MatchAnalysis

__all__ = ["csv_frame", "default_out_dir", "json_text", "summary_json", "write_tables"]

DECISIONS_PARQUET = "decisions.parquet"
DECISIONS_CSV = "decisions.csv"
SUMMARY_JSON = "summary.json"


def default_out_dir(source: str | os.PathLike[str], index: int = 0) -> Path:
    """``reports/<file stem>`` (``reports/<stem>-<n>`` for the n-th further match of a file); the stem made
    safe (:func:`~analyzer.core.files.safe_stem`: a file named ``...mat`` or ``..`` stays in ``reports``).

    >>> default_out_dir("x/...mat").as_posix(), default_out_dir("..", 1).as_posix()
    ('reports/match', 'reports/match-2')
    """
    stem = safe_stem(Path(source).stem)
    return Path("reports") / (stem if index == 0 else f"{stem}-{index + 1}")


def _clean(value: Any) -> Any:
    """JSON-safe copy: NaN and infinities become ``None``."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def json_text(obj: Any) -> str:
    """Indented JSON text of ``obj`` (names kept in UTF-8, NaN and infinities as ``null``).

    >>> json_text({"x": float("nan")})
    '{\\n  "x": null\\n}\\n'
    """
    return json.dumps(_clean(obj), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def summary_json(analysis: MatchAnalysis) -> str:
    """The summary as JSON text (UTF-8 names kept as they are; no NaN).

    >>> from analyzer.analysis.analyze import MatchAnalysis
    >>> from analyzer.analysis.schema import empty_decisions
    >>> from analyzer.analysis.summary import AnalysisSummary
    >>> s = AnalysisSummary.from_json({"players": [{"name": "<b>é", "side": 0}]})
    >>> summary_json(MatchAnalysis(empty_decisions(), s))
    '{\\n  "players": [\\n    {\\n      "name": "<b>é",\\n      "side": 0\\n    }\\n  ]\\n}\\n'
    """
    return json_text(analysis.summary.as_dict())


def csv_frame(decisions: pl.DataFrame) -> pl.DataFrame:
    """The decisions table with ``candidates`` as JSON text (CSV cannot hold nested columns).

    >>> from analyzer.analysis.schema import empty_decisions
    >>> csv_frame(empty_decisions()).schema["candidates"]
    String
    """
    texts = [json.dumps(_clean(c), ensure_ascii=False) for c in decisions["candidates"].to_list()]
    return decisions.with_columns(pl.Series("candidates", texts, dtype=pl.String))


def write_tables(analysis: MatchAnalysis, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write ``decisions.parquet``, ``decisions.csv`` and ``summary.json`` into ``out_dir``
    (created if needed) and return their paths. Each file is written whole or not at all (a temporary
    file renamed into place); raises :class:`~analyzer.core.files.OutputError` naming the file or folder
    that cannot be written."""
    out = ensure_folder(out_dir)
    parquet, csv, summary = out / DECISIONS_PARQUET, out / DECISIONS_CSV, out / SUMMARY_JSON
    buf = io.BytesIO()  # in memory first: polars does not always report a full disk as an OSError
    analysis.decisions.write_parquet(buf)
    atomic_write(parquet, buf.getvalue(), inside=out)
    atomic_write(csv, csv_frame(analysis.decisions).write_csv(), inside=out)
    atomic_write(summary, summary_json(analysis), inside=out)
    return [parquet, csv, summary]
