"""The records of the consistency experiments: one dict a position, its evaluation and its rollout.

A run (``bench/variant_consistency.py``, ``bench/blind_spots.py``,
:mod:`bglab.experiments.standard_consistency`) appends JSON lines to its ``--out`` file, so that a killed
run resumes where it stopped.

>>> from pathlib import Path
>>> read_records(Path("no/such/file.jsonl"))
[]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a results file, in file order (none if it does not exist yet). A torn last line
    of a JSON lines file, from a killed run, is skipped."""
    path = Path(path)
    if not path.exists():
        return []
    out: list[dict[str, Any]] = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out
