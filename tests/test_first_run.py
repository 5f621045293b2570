"""A first run says what it does: the command-line process prints one line on stderr when numba starts
compiling the engine (``compiling the engine once, about N s``), progress while it goes on and how long
it took; a run whose kernels all come from numba's cache prints none of it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _eval(cache: Path | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if cache is not None:  # an empty cache of numba's: every kernel the command needs is compiled
        env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "analyzer", "eval", "4HPwATDgc/ABMA", "--ply", "0"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=1800, check=False)


@pytest.mark.integration
def test_a_first_run_says_that_it_compiles_and_a_cached_one_does_not(tmp_path: Path) -> None:
    first = _eval(tmp_path / "numba")
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0].startswith("bgreview: compiling the engine once, about ") and " s on two cores" in lines[0]
    assert lines[-1].startswith("bgreview: compiled ") and lines[-1].endswith("later runs load them from the cache")
    again = _eval(tmp_path / "numba")  # the same cache, now full
    assert again.returncode == 0 and "compil" not in again.stderr
    assert again.stdout == first.stdout
