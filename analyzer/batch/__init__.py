"""Batch review of whole archives into a Parquet dataset (see ``docs/batch.md``).

:func:`run_batch` walks files and folders, replays or analyses every match on local cores or a
Dask cluster, and writes one part file per match plus the matches, players and errors tables and
a manifest; :func:`write_batch_report` turns such a dataset into charts and an HTML index.
"""

from __future__ import annotations

from .report import BatchReport, write_batch_report
from .run import DEFAULT_OUT, BatchError, BatchProgress, BatchResult, ProgressCallback, run_batch
from .tables import ERRORS_SCHEMA, MATCHES_SCHEMA, PLAYERS_SCHEMA, Tables, players_table, rebuild_tables
from .units import REPLAY_SCHEMA, BatchOptions

__all__ = [
    "DEFAULT_OUT",
    "ERRORS_SCHEMA",
    "MATCHES_SCHEMA",
    "PLAYERS_SCHEMA",
    "REPLAY_SCHEMA",
    "BatchError",
    "BatchOptions",
    "BatchProgress",
    "BatchReport",
    "BatchResult",
    "ProgressCallback",
    "Tables",
    "players_table",
    "rebuild_tables",
    "run_batch",
    "write_batch_report",
]
