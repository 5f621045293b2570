"""``bglab.race``'s fixed rollout targets (``--rollout-targets``, issue 51's race blind spot)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analyzer.eval.net import NetSet, evaluate_boards
from bglab.race import RaceConfig, RaceRun, bearoff_classes, db_boards, load_rollout_targets, random_races


def _fixed(tmp_path: Path) -> tuple[Path, np.ndarray]:
    outside = random_races(40, np.random.default_rng(3))
    outside = outside[bearoff_classes(outside) == 0][:6]
    home = db_boards(np.array([5]), np.array([9]))  # a database pair: the race net never values it
    boards = np.concatenate([outside, home])
    t = np.zeros((len(boards), 6), np.float32)
    t[:, 0] = 1.0  # a certain single win for the side on roll
    np.savez(tmp_path / "fixed.npz", boards=boards, rollout=t)
    return tmp_path / "fixed.npz", outside


def test_load_keeps_the_race_nets_positions_repeated(tmp_path: Path) -> None:
    path, outside = _fixed(tmp_path)
    b, t = load_rollout_targets(str(path), 3)
    assert len(b) == 3 * len(outside) and len(t) == len(b)
    assert np.array_equal(b[:3], np.repeat(outside[:1], 3, axis=0))
    assert (t[:, 0] == 1.0).all()


def test_a_run_learns_the_fixed_targets(tmp_path: Path) -> None:
    path, outside = _fixed(tmp_path)
    base = NetSet.initial(hidden=6, race_hidden=6, seed=2)
    small = {"hidden": 6, "db_positions": 200, "home_positions": 50, "random_positions": 50, "selfplay_games": 0,
             "epochs": 3, "batch": 16, "lr": 0.01}
    wins = []
    for fixed in ("", str(path)):
        cfg = RaceConfig(rollout_targets=fixed, rollout_repeat=20, **small)  # type: ignore[arg-type]
        run = RaceRun.create(tmp_path / f"r{len(fixed)}.npz", cfg, base)
        run.run(1, holdout=50)
        wins.append(float(evaluate_boards(run.nets, outside)[:, 0].mean()))
    assert wins[1] > wins[0] + 0.1
