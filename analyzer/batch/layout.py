"""Where a batch dataset keeps its files, and how they are written (atomically).

A dataset folder holds:

* ``decisions/<unit>.m<index>.parquet`` — one part file per match: its decisions table, with the
  match's row, errors and summary in the Parquet key-value metadata (key ``bgreview``);
* ``units/<unit>.json`` — one marker per input file, written once all its matches are in place:
  the input's size and mtime, how many matches it held, and the errors of the file itself;
* ``matches.parquet``, ``players.parquet``, ``errors.parquet`` (and ``.csv`` copies) — rebuilt
  from the parts at the end of every run;
* ``manifest.json`` — inputs, options, engine version, seed and per-unit status;
* ``.bgreview-dataset`` — the mark of a folder bgreview made into a dataset: a run writes (and, without
  ``--resume``, clears) only a new or empty folder or one that holds this mark (:func:`check_dataset_folder`);
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
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import polars as pl

from analyzer._version import __version__
from analyzer.core.files import OutputError, atomic_write

__all__ = [
    "DATASET_MARK",
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
    "check_dataset_folder",
    "part_name",
    "read_json",
    "read_part_meta",
    "remove_temporaries",
    "unit_id",
    "write_dataset_mark",
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
DATASET_MARK = ".bgreview-dataset"
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


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and a rename (flushed to disk first); raises
    :class:`~analyzer.core.files.OutputError` naming ``path``."""
    atomic_write(path, data)


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON to ``path`` atomically."""
    text = json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=False, allow_nan=False) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_parquet(path: Path, frame: pl.DataFrame, meta: dict[str, Any] | None = None) -> None:
    """Write ``frame`` to ``path`` atomically, with ``meta`` as JSON under :data:`META_KEY`."""
    extra = {META_KEY: json.dumps(meta, ensure_ascii=False, allow_nan=False)} if meta is not None else None
    buf = io.BytesIO()  # in memory first: polars does not always report a full disk as an OSError
    frame.write_parquet(buf, metadata=extra)
    atomic_write(path, buf.getvalue())


_OWN_FILES = frozenset({DECISIONS_DIR, UNITS_DIR, MANIFEST, LOCK_FILE, HOLDER_FILE, DATASET_MARK,
                        *(f"{t}{ext}" for t in (MATCHES_TABLE, PLAYERS_TABLE, ERRORS_TABLE)
                          for ext in (".parquet", ".csv"))})
"""Every name a run writes at the top of a dataset folder."""


def _written_by_batch(names: list[str], folder: Path) -> bool:
    """Whether a folder without the mark is a dataset of a bgreview from before the mark: every entry is a
    name a run writes, and ``manifest.json`` says ``"tool": "bgreview batch"``."""
    if any(n not in _OWN_FILES and not (n.startswith(".") and n.endswith(TMP_SUFFIX)) for n in names):
        return False
    manifest = read_json(folder / MANIFEST)
    return manifest is not None and manifest.get("tool") == "bgreview batch"


def check_dataset_folder(folder: Path) -> bool:
    """Whether a run may write into ``folder``: ``False`` when it does not exist yet; ``True`` when it holds
    the mark of a dataset (:data:`DATASET_MARK`), is empty (or holds only a lock another run left), or is a
    dataset written before the mark existed (its manifest is a batch's and every entry is a name a batch
    writes). Anything else raises :class:`~analyzer.core.files.OutputError`: a run clears the dataset files
    of the folder it writes into, and a folder of the user's own files is not cleared.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = Path(tmp, "units").mkdir()
    ...     check_dataset_folder(Path(tmp))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    analyzer.core.files.OutputError: ...: holds files and is not a bgreview batch dataset ...
    """
    try:
        names = sorted(p.name for p in folder.iterdir())
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        raise OutputError("exists and is not a folder", file=folder) from None
    except OSError as e:
        raise OutputError(e.strerror or "cannot read the folder", file=folder) from None
    if DATASET_MARK in names or set(names) <= {LOCK_FILE, HOLDER_FILE} or _written_by_batch(names, folder):
        return True
    raise OutputError(f"holds files and is not a bgreview batch dataset (no {DATASET_MARK} in it); a run clears "
                      "the dataset files of its --out: choose a new or empty folder", file=folder)


def write_dataset_mark(folder: Path) -> None:
    """Mark ``folder`` as a dataset bgreview writes (see :func:`check_dataset_folder`)."""
    mark = folder / DATASET_MARK
    if not mark.is_file():
        atomic_write_json(mark, {"tool": "bgreview batch", "version": __version__})


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
