"""The lab's tests: every test collected under ``lab/`` carries the ``lab`` marker (outside the default tier;
``python -m pytest -m lab lab`` runs them, and CI does)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

LAB = Path(__file__).resolve().parent
BENCH_DIR = LAB.parent / "bench"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if LAB in item.path.parents:
            item.add_marker(pytest.mark.lab)


@pytest.fixture
def experiment_script() -> Callable[[str], ModuleType]:
    """An experiment driver of ``bglab.experiments`` by its name: ``experiment_script("variant_label_check")``."""
    return lambda name: importlib.import_module(f"bglab.experiments.{name}")


@pytest.fixture
def bench_script() -> Callable[[str], ModuleType]:
    """A ``bench/`` script (not a package) loaded as a module by its name: ``bench_script("blind_spots")``."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, BENCH_DIR / f"{name}.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod

    return load
