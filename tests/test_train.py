"""Training: loss decreases, targets are distributions, checkpoints resume to the identical state."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analyzer.eval.net import Net, NetSet
from analyzer.train.optim import Adam, loss_and_grads
from analyzer.train.selfplay import GameBuffers, duel, play_seeded
from analyzer.train.td import TDConfig, TDTrainer, lambda_targets


def test_adam_decreases_loss_on_tiny_batch() -> None:
    rng = np.random.default_rng(1)
    net = Net.initial(20, 16, rng)
    x = rng.random((64, 20)).astype(np.float32)
    t = rng.dirichlet(np.ones(6), size=64).astype(np.float32)
    before, _ = loss_and_grads(net, x, t)
    opt = Adam(net, lr=0.01)
    for _ in range(100):
        opt.step(x, t)
    after, _ = loss_and_grads(net, x, t)
    assert after < before - 0.05


def test_gradient_matches_finite_difference() -> None:
    rng = np.random.default_rng(2)
    net = Net.initial(5, 4, rng)
    net.w1 = net.w1.astype(np.float64)  # type: ignore[assignment]
    x = rng.random((3, 5))
    t = rng.dirichlet(np.ones(6), size=3)
    _, grads = loss_and_grads(net, x.astype(np.float32), t.astype(np.float32))
    eps = 1e-3
    i, j = 2, 1
    net.w1[i, j] += eps
    lp, _ = loss_and_grads(net, x.astype(np.float32), t.astype(np.float32))
    net.w1[i, j] -= 2 * eps
    lm, _ = loss_and_grads(net, x.astype(np.float32), t.astype(np.float32))
    assert abs((lp - lm) / (2 * eps) - grads[0][i, j]) < 2e-3


def test_lambda_targets_are_distributions() -> None:
    rng = np.random.default_rng(3)
    nextp = rng.dirichlet(np.ones(6), size=10).astype(np.float32)
    g = lambda_targets(nextp, 2, 10, 0.7)
    assert np.allclose(g.sum(axis=1), 1.0, atol=1e-5)
    assert g[9].tolist() == [0, 0, 1, 0, 0, 0]
    # TD(0): the target is the next prediction
    g0 = lambda_targets(nextp, 0, 10, 0.0)
    assert np.allclose(g0[:9], nextp[:9])


def test_self_play_is_deterministic() -> None:
    nets = NetSet.initial(hidden=8, race_hidden=8, seed=4)
    buf = GameBuffers()
    a = play_seeded(nets, 99, 0.05, buf)
    s1 = buf.states[: a[0]].copy()
    b = play_seeded(nets, 99, 0.05, buf)
    assert a == b
    assert np.array_equal(s1, buf.states[: b[0]])


def test_duel_is_antisymmetric_for_equal_players() -> None:
    pts = duel(None, None, np.arange(20, dtype=np.int64))
    assert pts.sum() == 0  # the same player on both sides of each duplicate pair


def test_resume_reproduces_state(tmp_path: Path) -> None:
    cfg = TDConfig(hidden=8, race_hidden=8, games_per_iter=2, eval_every=0, eval_seeds=0)
    straight = TDTrainer.create(tmp_path / "a.npz", cfg)
    straight.run(total_games=4)
    first = TDTrainer.create(tmp_path / "b.npz", cfg)
    first.run(total_games=2)
    resumed = TDTrainer.load(tmp_path / "b.npz")
    assert resumed.games == 2
    resumed.run(total_games=4)
    for key, net in straight.nets.nets().items():
        other = resumed.nets.nets()[key]
        assert np.array_equal(net.w1, other.w1)
        assert np.array_equal(net.w2, other.w2)
    assert straight.opts["contact"].t == resumed.opts["contact"].t


def test_supervised_resume_reproduces_state(tmp_path: Path) -> None:
    from analyzer.train.supervised import SupervisedConfig, SupervisedTrainer

    cfg = SupervisedConfig(games_per_round=2, epochs=1, eval_seeds=0, prune_every=2, prune_games=2)
    base = NetSet.initial(hidden=8, race_hidden=8, seed=0)
    straight = SupervisedTrainer.create(tmp_path / "a.npz", cfg, base)
    straight.run(3)
    first = SupervisedTrainer.create(tmp_path / "b.npz", cfg, base)
    first.run(1)
    resumed = SupervisedTrainer.load(tmp_path / "b.npz")
    resumed.run(3)
    assert resumed.rounds == 3
    assert np.array_equal(straight.nets.contact.w1, resumed.nets.contact.w1)
    assert straight.nets.prune is not None and resumed.nets.prune is not None
    assert np.array_equal(straight.nets.prune.w1, resumed.nets.prune.w1)
