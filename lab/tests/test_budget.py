"""The lab's data keeps to its size budget (docs/development.md, "The lab's size budget")."""

from __future__ import annotations

import subprocess
from pathlib import Path

LAB = Path(__file__).resolve().parents[1]
BUDGET_BYTES = 55 * 1024 * 1024
MAX_FILE_BYTES = 10 * 1024 * 1024
DATA = ("checkpoints", "labels", "consistency")


def _tracked() -> list[Path]:
    """The lab data files git tracks (what a fresh clone's checkout holds)."""
    out = subprocess.run(["git", "ls-files", "-z", *DATA], cwd=LAB, capture_output=True, check=True).stdout
    return [LAB / name for name in out.decode().split("\0") if name]


def test_the_lab_data_keeps_to_its_budget() -> None:
    files = _tracked()
    assert files, "no lab data found: is this a git checkout?"
    sizes = {f.relative_to(LAB).as_posix(): f.stat().st_size for f in files}
    assert sum(sizes.values()) <= BUDGET_BYTES, f"lab data {sum(sizes.values()) / 2**20:.1f} MB, budget 55 MB"
    assert not {name: n for name, n in sizes.items() if n > MAX_FILE_BYTES}


def test_no_json_lines_but_learning_curves() -> None:
    """Records are stored compressed (Parquet, npz); JSON lines only for the short learning curves."""
    assert [f.name for f in _tracked() if f.suffix == ".jsonl" and not f.name.endswith("_curve.jsonl")] == []
