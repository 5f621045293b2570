"""Shared test fixtures."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

# pytest-xdist's workers run with COLUMNS=80 and LINES=24 in their environment, which a plain run does not
# have: ``bgreview replay`` then prints its narrow table (three lines a decision) and Rich wraps at 80. The
# tests see the same environment with or without workers: no terminal size (a test that wants a width passes
# COLUMNS to CliRunner itself). Set at import, before any test or fixture runs (module-scoped fixtures included).
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

# Two pytest-xdist workers share CI's two cores (and this machine's with other jobs): how fast hypothesis
# generates data, or runs one example, says nothing of the code under test. No deadline and no too_slow health
# check by default (the number of examples is unchanged; a test's own @settings still apply).
settings.register_profile("bgreview", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("bgreview")

BENCH_DIR = Path(__file__).resolve().parent.parent / "bench"
TOOLS_DIR = Path(__file__).resolve().parent.parent / "tools"


def _load_script(name: str, folder: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def bench_script() -> Callable[[str], ModuleType]:
    """Loads a ``bench/`` script (not a package) as a module by its name: ``bench_script("variant_strength")``."""
    return lambda name: _load_script(name, BENCH_DIR)


@pytest.fixture
def tool_script() -> Callable[[str], ModuleType]:
    """Loads a ``tools/`` script as a module by its name: ``tool_script("gnubg_rollout")``."""
    return lambda name: _load_script(name, TOOLS_DIR)
