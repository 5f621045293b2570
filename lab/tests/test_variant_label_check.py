"""lab/bglab/experiments/variant_label_check.py: the screen of variant nets against rollout-labelled positions."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from analyzer.eval.variants import features as V
from analyzer.eval.variants.model import POINTS, VariantNet, variant_code
from bglab.dataset import VariantTargetBuilder, VariantTargetsConfig


@pytest.mark.integration
def test_label_check_figures_and_breakdown(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           experiment_script: Callable[[str], ModuleType]) -> None:
    script = experiment_script("variant_label_check")
    teacher, other = tmp_path / "teacher.npz", tmp_path / "other.npz"
    VariantNet.initial("dutch", hidden=8, seed=2).save(teacher)
    VariantNet.initial("dutch", hidden=8, seed=9).save(other)
    cfg = VariantTargetsConfig(variant="dutch", teacher=str(teacher), trials=36, games_per_chunk=1,
                               sample_every=20, seed=4)
    data = VariantTargetBuilder.create(tmp_path / "ro.npz", cfg)
    data.run(positions=12)
    n = len(data.boards)
    assert script.main(["--variant", "dutch", "--data", str(tmp_path / "ro.npz"), "--nets", str(teacher), str(other),
                       "--breakdown"]) == 0
    out = capsys.readouterr().out
    # the printed MSE of each net, recomputed here from the file and the net
    code = variant_code("dutch")
    x = np.zeros((n, V.n_inputs(code)), np.float32)
    for i in range(n):
        V.encode(data.boards[i], code, x[i])
    t = data.targets[:, :4].astype(np.float64)
    te = (t / t.sum(axis=1, keepdims=True)) @ POINTS[:4]
    mses = [float(m) for m in re.findall(r": MSE ([0-9.]+)", out)]
    for path, mse in zip((teacher, other), mses, strict=True):
        eq = VariantNet.load(path).net.forward(x).astype(np.float64) @ POINTS[:4]
        assert mse == pytest.approx(float(((eq - te) ** 2).mean()), abs=6e-6)
    diff = float(re.search(r"minus the first ([-+][0-9.]+)", out).group(1))  # type: ignore[union-attr]
    assert diff == pytest.approx(mses[1] - mses[0], abs=2e-5)
    # the breakdown (first net only) covers every position once
    rows = [ln for ln in out.splitlines() if re.match(r"^[-+]\d\.\d\d \.\. ", ln)]
    assert 1 <= len(rows) <= 10 and sum(int(r.split()[3]) for r in rows) == n
    assert out.count("win probability") == 1 and out.count("gammon probability") == 1


def test_label_check_refuses_files_without_rollout_labels(tmp_path: Path,
                                                          experiment_script: Callable[[str], ModuleType]) -> None:
    script = experiment_script("variant_label_check")
    teacher = tmp_path / "teacher.npz"
    VariantNet.initial("dutch", hidden=8, seed=2).save(teacher)
    cfg = VariantTargetsConfig(variant="dutch", teacher=str(teacher), ply=0, games_per_chunk=1, sample_every=30)
    VariantTargetBuilder.create(tmp_path / "ply.npz", cfg).run(positions=2)
    with pytest.raises(SystemExit, match="rollout-labelled"):
        script.main(["--variant", "dutch", "--data", str(tmp_path / "ply.npz"), "--nets", str(teacher)])


@pytest.mark.integration
def test_label_check_holdout_keeps_only_the_held_out_games(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            experiment_script: Callable[[str], ModuleType]) -> None:
    script = experiment_script("variant_label_check")
    teacher = tmp_path / "teacher.npz"
    VariantNet.initial("dutch", hidden=8, seed=2).save(teacher)
    cfg = VariantTargetsConfig(variant="dutch", teacher=str(teacher), trials=36, games_per_chunk=1,
                               sample_every=20, seed=4)
    data = VariantTargetBuilder.create(tmp_path / "ro.npz", cfg)
    data.run(positions=12)
    held = data.games % 2 == 0
    assert 0 < held.sum() < len(held)
    assert script.main(["--variant", "dutch", "--data", str(tmp_path / "ro.npz"), "--nets", str(teacher),
                       "--holdout", "2"]) == 0
    out = capsys.readouterr().out
    assert f"positions {int(held.sum())} " in out
    # the MSE is over the held-out rows only
    code = variant_code("dutch")
    x = np.zeros((int(held.sum()), V.n_inputs(code)), np.float32)
    for j, i in enumerate(np.flatnonzero(held)):
        V.encode(data.boards[i], code, x[j])
    t = data.targets[held, :4].astype(np.float64)
    te = (t / t.sum(axis=1, keepdims=True)) @ POINTS[:4]
    eq = VariantNet.load(teacher).net.forward(x).astype(np.float64) @ POINTS[:4]
    mse = float(re.search(r": MSE ([0-9.]+)", out).group(1))  # type: ignore[union-attr]
    assert mse == pytest.approx(float(((eq - te) ** 2).mean()), abs=6e-6)
