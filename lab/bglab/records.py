"""The records of the consistency experiments: one dict a position, its evaluation and its rollout.

A run (``bench/variant_consistency.py``, ``bench/blind_spots.py``,
:mod:`bglab.experiments.standard_consistency`) appends JSON lines to its ``--out`` file, so that a killed run
resumes where it stopped. The lab keeps finished records compressed, as Parquet (``lab/consistency/``):
``python -m bglab.records FILE.jsonl...`` writes ``FILE.parquet`` beside each, the same records in the same
order (read back, each is the same dict, key order included). Every reader takes either form.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> lines = folder / "r.jsonl"
>>> _ = lines.write_text('{"index": 0, "eq0": 0.5, "pips": [3, 4]}\\n{"index": 1, "eq0": -1.0, "pips": [5, 6]}\\n{"ind')
>>> read_records(lines)  # the torn last line of a killed run is skipped
[{'index': 0, 'eq0': 0.5, 'pips': [3, 4]}, {'index': 1, 'eq0': -1.0, 'pips': [5, 6]}]
>>> read_records(compress(lines)) == read_records(lines)
True
>>> read_records(folder / "none.parquet")
[]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import polars as pl


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a results file, in file order (none if it does not exist yet): Parquet (``.parquet``) or
    JSON lines (anything else; a torn last line, from a killed run, is skipped)."""
    path = Path(path)
    if not path.exists():
        return []
    if path.suffix == ".parquet":
        return pl.read_parquet(path).to_dicts()
    out: list[dict[str, Any]] = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def compress(path: Path) -> Path:
    """Write the records of the JSON lines file ``path`` as ``path.with_suffix(".parquet")`` (zstd) and return
    that path. Refuses records that would not read back the same (keys missing in some, null values)."""
    path = Path(path)
    records = read_records(path)
    if any(v is None for r in records for v in r.values()) or len({tuple(r) for r in records}) > 1:
        raise ValueError(f"{path}: records with null values or differing keys would not read back the same")
    out = path.with_suffix(".parquet")
    pl.DataFrame(records, infer_schema_length=None).write_parquet(out, compression="zstd", compression_level=19)
    if read_records(out) != records:
        out.unlink()
        raise ValueError(f"{path}: the Parquet copy does not read back the same records")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m bglab.records FILE.jsonl...``: a Parquet copy of each beside it."""
    for name in argv if argv is not None else sys.argv[1:]:
        print(compress(Path(name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
