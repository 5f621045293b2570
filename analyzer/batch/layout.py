"""Where a batch dataset keeps its files, and how they are written (atomically).

A dataset folder holds:

* ``decisions/<unit>.m<index>.parquet`` — one part file per match: its decisions table, with the
  match's row, errors and summary in the Parquet key-value metadata (key ``bgreview``);
* ``units/<unit>.json`` — one marker per input file, written once all its matches are in place:
  the input's size and mtime, how many matches it held, and the errors of the file itself;
* ``matches.parquet``, ``players.parquet``, ``errors.parquet`` (and ``.csv`` copies) — rebuilt
  from the parts at the end of every run;
* ``manifest.json`` — inputs, options, engine version, seed and per-unit status;
* ``.bgreview-batch.lock`` — the lock a run holds while it writes into the folder (an OS lock,
  released by the kernel when the holder dies), and ``.bgreview-batch.holder`` — the pid, host
  and start time of the run that holds it (read only to name it in the refusal of a second run).

Every file is written under a temporary name in the same folder, then renamed into place, so a
reader (or a resumed run) never sees half a file.

>>> unit_id("data/Ann - Bob 7pt.txt") == unit_id("data/Ann - Bob 7pt.txt")
True
>>> unit_id("data/Ann - Bob 7pt.txt")[:14]
'Ann_-_Bob_7pt-'
>>> part_name("Ann_-_Bob_7pt-0123456789", 3)
'Ann_-_Bob_7pt-0123456789.m00003.parquet'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import polars as pl

__all__ = [
    "DECISIONS_DIR",
    "ERRORS_TABLE",
    "HOLDER_FILE",
    "LOCK_FILE",
    "MANIFEST",
    "MATCHES_TABLE",
    "META_KEY",
    "PLAYERS_TABLE",
    "UNITS_DIR",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_parquet",
    "part_name",
    "read_json",
    "read_part_meta",
    "remove_temporaries",
    "unit_id",
]

DECISIONS_DIR = "decisions"
UNITS_DIR = "units"
MANIFEST = "manifest.json"
MATCHES_TABLE = "matches"
PLAYERS_TABLE = "players"
ERRORS_TABLE = "errors"
META_KEY = "bgreview"
LOCK_FILE = ".bgreview-batch.lock"
HOLDER_FILE = ".bgreview-batch.holder"
TMP_SUFFIX = ".tmp"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def unit_id(path: str) -> str:
    """A file-system-safe name for the work unit of input ``path``: a readable stem plus the
    start of the SHA-1 of the absolute path, so the same input always gets the same name."""
    full = os.path.normpath(os.path.abspath(path))
    stem = _UNSAFE.sub("_", Path(path).stem).strip("._")[:40] or "input"
    digest = hashlib.sha1(full.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{stem}-{digest}"


def part_name(unit: str, match_index: int) -> str:
    """The file name of the part holding match ``match_index`` of ``unit``."""
    return f"{unit}.m{match_index:05d}.parquet"


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and a rename (flushed to disk first)."""
    tmp = _tmp_name(path)
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON to ``path`` atomically."""
    text = json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=False, allow_nan=False) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_parquet(path: Path, frame: pl.DataFrame, meta: dict[str, Any] | None = None) -> None:
    """Write ``frame`` to ``path`` atomically, with ``meta`` as JSON under :data:`META_KEY`."""
    tmp = _tmp_name(path)
    extra = {META_KEY: json.dumps(meta, ensure_ascii=False, allow_nan=False)} if meta is not None else None
    frame.write_parquet(tmp, metadata=extra)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_part_meta(path: Path) -> dict[str, Any] | None:
    """The ``bgreview`` metadata of a part file (``None`` if it has none)."""
    text = pl.read_parquet_metadata(path).get(META_KEY)
    if text is None:
        return None
    meta: dict[str, Any] = json.loads(text)
    return meta


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, or ``None`` when the file is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as fh:
            obj = json.load(fh)
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def remove_temporaries(folder: Path) -> int:
    """Delete the temporary files an interrupted run left in ``folder``; return how many."""
    n = 0
    if folder.is_dir():
        for p in folder.iterdir():
            if p.name.startswith(".") and p.name.endswith(TMP_SUFFIX):
                p.unlink(missing_ok=True)
                n += 1
    return n
