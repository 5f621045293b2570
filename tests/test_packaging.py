"""The package ships what it needs: the subpackages and data files pyproject.toml names, the data lookup of
:mod:`analyzer._resources`, and ``bgreview sample``. (CI also builds the wheel and reviews the sample with it,
installed outside the checkout: ``.ci/run``.)"""

from __future__ import annotations

import fnmatch
import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer import _resources
from analyzer.cli import app

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
runner = CliRunner()


def _shipped_globs() -> list[str]:
    return list(SETUPTOOLS["package-data"]["analyzer._data"])


def test_every_subpackage_is_listed() -> None:
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "analyzer").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    listed = set(SETUPTOOLS["packages"])
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == {"analyzer._data"}
    assert SETUPTOOLS["package-dir"] == {"analyzer._data": "data"}


def test_shipped_data_is_every_product_file_and_no_training_file() -> None:
    data = ROOT / "data"
    files = sorted(p.relative_to(data).as_posix() for p in data.rglob("*")
                   if p.is_file() and p.name != "__init__.py" and "__pycache__" not in p.parts)
    shipped = {f for f in files if any(fnmatch.fnmatch(f, g) for g in _shipped_globs())}
    product = {f for f in files if f.split("/")[0] in ("nets", "met", "samples", "bearoff")}
    assert shipped == product
    assert set(files) == product, "data/ holds only what the product ships: training files belong in lab/"
    for needed in ("nets/standard.npz", "nets/dutch.npz", "nets/mahbusa.npz", "met/kazaross-xg2.json",
                   "samples/boardlord-llabba-7p.mat"):
        assert needed in shipped, needed


def test_the_package_holds_no_training_code() -> None:
    """The lab (bglab, in lab/) is its own package: no training module in the product's packages, and the
    product's configuration names no lab package (the import contract keeps the product from importing it)."""
    listed = SETUPTOOLS["packages"]
    assert not [p for p in listed if "train" in p or p.startswith("bglab")]
    modules = [p.relative_to(ROOT).as_posix() for p in (ROOT / "analyzer").rglob("*.py")
               if "__pycache__" not in p.parts]
    assert not [m for m in modules if "/train" in m], "training code belongs in lab/bglab"
    lab = tomllib.loads((ROOT / "lab" / "pyproject.toml").read_text(encoding="utf-8"))
    assert lab["project"]["dependencies"] == ["bgreview"] and "bgreview" not in lab["tool"]["setuptools"]["packages"]
    importlinter = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    contracts = importlinter["contracts"]
    assert any(c["type"] == "forbidden" and c["source_modules"] == ["analyzer"] and c["forbidden_modules"] == ["bglab"]
               for c in contracts)


def test_data_dir_is_the_package_of_the_shipped_files() -> None:
    """Found through the import system (the editable install maps analyzer._data onto data/), never by a path."""
    from importlib.resources import files

    assert _resources.data_dir() == files("analyzer._data") == ROOT / "data"


def test_the_shipped_files_are_found() -> None:
    from analyzer.eval.engine import DEFAULT_NETS
    from analyzer.eval.met import DATA_DIR
    from analyzer.eval.variants.engine import NETS_DIR

    assert DEFAULT_NETS.is_file() and (NETS_DIR / "dutch.npz").is_file()
    assert (DATA_DIR / "kazaross-xg2.json").is_file()
    assert _resources.sample_names() == sorted(p.name for p in (ROOT / "data" / "samples").glob("*.mat"))


def test_sample_lists_and_copies(tmp_path: Path) -> None:
    res = runner.invoke(app, ["sample", "--format", "json"])
    assert res.exit_code == 0, res.output
    listed = json.loads(res.stdout)
    assert [r["name"] for r in listed] == _resources.sample_names()
    assert all(Path(r["path"]).is_file() for r in listed)
    res = runner.invoke(app, ["sample", "--format", "csv"])
    assert res.stdout.splitlines()[0] == "name,path" and len(res.stdout.splitlines()) == len(listed) + 1

    res = runner.invoke(app, ["sample", "mahbusa-selfplay-3p", "--out", str(tmp_path / "x")])
    assert res.exit_code == 0, res.output
    copy = Path(res.stdout.strip())
    assert copy == tmp_path / "x" / "mahbusa-selfplay-3p.mat"
    assert copy.read_bytes() == (ROOT / "data" / "samples" / "mahbusa-selfplay-3p.mat").read_bytes()


def test_sample_unknown_name_is_a_usage_error(tmp_path: Path) -> None:
    res = runner.invoke(app, ["sample", "nope-7p", "--out", str(tmp_path)])
    assert res.exit_code == 2
    assert "no sample called 'nope-7p'" in res.output and "boardlord-llabba-7p.mat" in res.output
    assert list(tmp_path.iterdir()) == []
    blocked = tmp_path / "file"
    blocked.write_text("")
    res = runner.invoke(app, ["sample", "boardlord-llabba-7p", "--out", str(blocked)])
    assert res.exit_code == 2 and "cannot write the sample" in res.output and "Traceback" not in res.output


def test_scheduler_without_dask_says_which_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else real(name, *a))
    out = tmp_path / "ds"
    res = runner.invoke(app, ["batch", str(ROOT / "data" / "samples" / "boardlord-llabba-7p.mat"), "--out", str(out),
                              "--replay-only", "--scheduler", "tcp://127.0.0.1:1"])
    assert res.exit_code == 2, res.output
    assert "pip install 'bgreview[cluster]'" in res.output and "Traceback" not in res.output
    assert not out.exists()
