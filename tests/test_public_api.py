"""The public API of ``import analyzer`` (issue 27): lazy, cheap to import, and complete."""

from __future__ import annotations

import subprocess
import sys

import analyzer


def test_import_is_cheap() -> None:
    code = ("import sys, analyzer; heavy = sorted(m for m in ('numpy', 'numba', 'polars', 'analyzer.eval.engine') "
            "if m in sys.modules); print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_public_name_resolves() -> None:
    for name in analyzer.__all__:
        assert getattr(analyzer, name) is not None, name
    assert set(analyzer.__all__) <= set(dir(analyzer))


def test_engine_from_the_package() -> None:
    from analyzer.eval.engine import Engine

    assert analyzer.Engine is Engine
    pos = analyzer.parse_position("4HPwATDgc/ABMA").position
    probs = analyzer.Engine().evaluate(pos, 0)
    assert 0.45 < probs.win < 0.55


def test_all_lists_the_lazy_names() -> None:
    assert set(analyzer.__all__) == set(analyzer._LAZY) | {"ENGINE_NAME", "__version__"}


def test_no_layer_imports_the_package_root() -> None:
    """The package root is the public API's facade over every layer: the layers read the version from
    ``analyzer._version`` instead of importing it (issue 53)."""
    import ast
    from pathlib import Path

    root = Path(analyzer.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else (
                [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if "analyzer" in names:
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == []
