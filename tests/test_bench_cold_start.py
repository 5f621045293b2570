"""bench/cold_start.py builds the commands it times: ours, the same from another checkout (--before), the
start-up floor (--floor), each beside its gnubg case, run outside the checkout with the byte-code cache on."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cold_start", ROOT / "bench" / "cold_start.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["cold_start"] = module
    spec.loader.exec_module(module)
    return module


def test_before_and_floor_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    cold = bench()
    # the gnubg cases are built only where gnubg is installed: stand in for it, nothing is run here
    monkeypatch.setattr(cold, "GNUBG", sys.executable)
    todo, pairs = cold.cases(tmp_path, ["hint"], cold.SAMPLE, before="/some/checkout", floor=True)
    names = [c.name for c in todo]
    assert names[:2] == ["hint", "hint (before)"]
    assert [n for n in names if n.startswith("floor:")] == list(cold.FLOOR)
    by_name = {c.name: c for c in todo}
    assert by_name["hint (before)"].env["PYTHONPATH"] == "/some/checkout"
    assert all("PYTHONDONTWRITEBYTECODE" not in c.env for c in todo)
    assert pairs["hint (before)"] == pairs["hint"] == "gnubg hint 2-ply"
    assert all(pairs[n] == "gnubg analyse 0-ply" for n in cold.FLOOR)
    assert (tmp_path / "floor_kernel.py").is_file()
    code = by_name["floor: + polars"].argv(0)[-1]
    assert code.count("import") == 1 and "polars" in code and "matplotlib" not in code
    # without gnubg: ours alone, nothing to compare with
    monkeypatch.setattr(cold, "GNUBG", str(tmp_path / "no-gnubg"))
    todo, pairs = cold.cases(tmp_path, ["hint"], cold.SAMPLE)
    assert [c.name for c in todo] == ["hint"] and pairs == {}


@pytest.mark.integration
def test_a_floor_process_runs(tmp_path: Path) -> None:
    cold = bench()
    case = next(c for c in cold.floor_cases(tmp_path) if c.name == "floor: + 1st kernel")
    wall, cpu = cold.run(case, 0, tmp_path)
    assert wall > 0 and cpu >= 0
