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


def test_saves_to_numba_cache_wait_for_the_lock_of_its_directory(tmp_path: Path) -> None:
    """Two processes compiling at once (a first review and its helper) must not interleave the index and
    data writes of one function: a save holds the directory's lock, so it waits while another holds it."""
    import fcntl
    import threading

    from numba.core.caching import IndexDataCacheFile

    from analyzer.core.jit import serialize_cache_writes

    if not serialize_cache_writes():
        pytest.skip("no fcntl here")
    cache = IndexDataCacheFile(str(tmp_path), "f-1.py311", (1.0, 2))
    fd = os.open(tmp_path / "bgreview.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    saver = threading.Thread(target=cache.save, args=(("sig",), b"data"))
    saver.start()
    saver.join(0.5)
    waited = saver.is_alive()
    os.close(fd)  # releases the lock
    saver.join(10)
    assert waited and not saver.is_alive()
    assert cache.load(("sig",)) == b"data"


def _start_helper(cache: Path | None) -> str:
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    code = ("from analyzer.eval import prewarm\n"
            "p = prewarm.start()\n"
            "print('started' if p is not None else 'none')\n"
            "if p is not None:\n"
            "    prewarm.stop(p)\n"
            "    print('stopped', p.poll() is not None)\n")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600, check=True).stdout


@pytest.mark.integration
def test_a_cold_cache_starts_the_rollout_helper_and_a_warm_one_does_not(tmp_path: Path) -> None:
    """A first review compiles the confirmation's rollout kernels in a second process
    (analyzer.eval.prewarm); with the kernels cached (the suite's own cache, warmed before it runs)
    nothing is started, and the helper ends when asked to."""
    assert _start_helper(tmp_path / "numba").split() == ["started", "stopped", "True"]
    assert _start_helper(None).split() == ["none"]
