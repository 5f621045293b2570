"""The shared trainer pieces (lab/bglab/base.py), the k-output forward kernel, the checkpoint
layout the trainers write and the command line's option overrides."""

from __future__ import annotations

import functools
import json
import operator
from pathlib import Path

import numpy as np
import pytest

from analyzer.eval.net import Net, forward_one
from bglab.__main__ import main
from bglab.base import Trainer, curve_path_of, read_checkpoint, train_epochs, write_checkpoint
from bglab.optim import Adam


@pytest.mark.parametrize("nout", [4, 5, 6])
def test_forward_one_matches_the_numpy_forward_for_any_output_count(nout: int) -> None:
    rng = np.random.default_rng(nout)
    net = Net(rng.normal(size=(12, 7)).astype(np.float32), rng.normal(size=7).astype(np.float32),
              rng.normal(size=(7, nout)).astype(np.float32), rng.normal(size=nout).astype(np.float32))
    x = rng.normal(size=12).astype(np.float32)
    x[[1, 4]] = 0.0  # zero inputs are skipped
    out = np.full(8, -7.0, np.float32)
    forward_one(x, net.w1, net.b1, np.ascontiguousarray(net.w2.T), net.b2, np.zeros(7, np.float32), out)
    assert np.allclose(out[:nout], net.forward(x[None, :])[0], atol=1e-5)
    assert abs(float(out[:nout].sum()) - 1.0) < 1e-5
    assert (out[nout:] == -7.0).all()  # only the net's outputs are written


def _reference_epochs(opt: Adam, x: np.ndarray, t: np.ndarray, batch: int, rng: np.random.Generator,
                      epochs: int) -> float:
    """What the trainers did inline before train_epochs: per epoch a fresh permutation cut into
    minibatches of ``batch`` rows; the losses summed in order."""
    losses: list[float] = []
    for _ in range(epochs):
        order = rng.permutation(len(x))
        losses += [opt.step(x[idx], t[idx]) for idx in np.split(order, np.arange(batch, len(x), batch))]
    return functools.reduce(operator.add, losses) / len(losses)


@pytest.mark.parametrize("epochs", [1, 3])
def test_train_epochs_is_the_trainers_minibatch_loop(epochs: int) -> None:
    rng = np.random.default_rng(5)
    x = rng.random((37, 9)).astype(np.float32)
    t = rng.dirichlet(np.ones(6), size=37).astype(np.float32)
    a = Net.initial(9, 5, np.random.default_rng(1))
    b = a.copy()
    la = train_epochs(Adam(a, lr=0.01), x, t, 8, np.random.default_rng(2), epochs)
    lb = _reference_epochs(Adam(b, lr=0.01), x, t, 8, np.random.default_rng(2), epochs)
    assert la == lb
    for s in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(getattr(a, s), getattr(b, s))


def test_train_epochs_sorted_minibatches_and_no_rows() -> None:
    rng = np.random.default_rng(3)
    x = rng.random((10, 4)).astype(np.float32)
    t = np.full((10, 6), 1 / 6, np.float32)
    a = Net.initial(4, 3, np.random.default_rng(0))
    b = a.copy()
    train_epochs(Adam(a), x, t, 4, np.random.default_rng(9), sort=True)
    order = np.random.default_rng(9).permutation(10)
    opt = Adam(b)
    for s in range(0, 10, 4):
        idx = np.sort(order[s:s + 4])
        opt.step(x[idx], t[idx])
    assert np.array_equal(a.w1, b.w1)
    assert train_epochs(Adam(a), x[:0], t[:0], 4, rng) == 0.0


def test_checkpoint_round_trip_is_atomic(tmp_path: Path) -> None:
    p = tmp_path / "deep" / "ck.npz"
    write_checkpoint(p, {"w": np.arange(4, dtype=np.float32)}, {"games": 3, "config": {"lr": 0.1}})
    write_checkpoint(p, {"w": np.arange(5, dtype=np.float32)}, {"games": 4, "config": {"lr": 0.1}})
    arrays, doc = read_checkpoint(p)
    assert arrays["w"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert doc == {"games": 4, "config": {"lr": 0.1}}
    with np.load(p) as z:
        assert z.files == ["w", "state_json"]
    assert sorted(f.name for f in p.parent.iterdir()) == ["ck.npz"]


def test_trim_curve_drops_lines_after_the_checkpoint(tmp_path: Path) -> None:
    tr: Trainer[None] = Trainer(tmp_path / "run.npz", None)
    assert tr.curve_path == curve_path_of(tmp_path / "run.npz") == tmp_path / "run_curve.jsonl"
    tr.curve_path.write_text("".join(json.dumps({"games": g}) + "\n" for g in (10, 20, 30)) + "\n")
    tr._trim_curve("games", 20)
    assert tr.curve_path.read_text() == '{"games": 10}\n{"games": 20}\n'
    tr._trim_curve("games", 5)
    assert tr.curve_path.read_text() == ""


def test_td_checkpoint_layout(tmp_path: Path) -> None:
    """The keys the lead's export and later resumes read (the format of lab/checkpoints/*.npz)."""
    from bglab.td import TDConfig, TDTrainer

    tr = TDTrainer.create(tmp_path / "td.npz", TDConfig(hidden=4, race_hidden=4, games_per_iter=1, eval_every=0))
    tr.run(total_games=1)
    arrays, doc = read_checkpoint(tmp_path / "td.npz")
    nets = [f"{k}_{s}" for k in ("contact", "crashed", "race") for s in ("w1", "b1", "w2", "b2")]
    moments = [f"{k}_{m}_{s}" for k in ("contact", "crashed", "race") for m in "mv" for s in ("w1", "b1", "w2", "b2")]
    assert set(arrays) == {*nets, *moments, "state_json"}
    assert list(doc) == ["config", "games", "positions", "iterations", "elapsed", "adam_t", "feature_version"]
    assert doc["games"] == 1 and doc["adam_t"]["contact"] == tr.opts["contact"].t


def test_variant_checkpoint_layout_and_cli_resume_override(tmp_path: Path) -> None:
    from analyzer.eval.variants.model import VariantNet
    from bglab.td import VariantTDTrainer

    ck = tmp_path / "m.npz"
    common = ["variant-td", "--variant", "mahbusa", "--checkpoint", str(ck)]
    assert main([*common, "--games", "1", "--hidden", "6", "--games-per-iter", "1", "--eval-every", "0"]) == 0
    arrays, doc = read_checkpoint(ck)
    params = [f"net_{s}" for s in ("w1", "b1", "w2", "b2")]
    assert set(arrays) == {*params, *(f"net_{m}_{s}" for m in "mv" for s in ("w1", "b1", "w2", "b2")), "variant",
                           "state_json"}
    assert list(doc) == ["config", "games", "positions", "iterations", "elapsed", "adam_t", "feature_version"]
    assert VariantNet.load(ck).net.hidden == 6
    assert main([*common, "--games", "2", "--lr", "0.02", "--batch", "8"]) == 0
    tr = VariantTDTrainer.load(ck)
    assert (tr.games, tr.cfg.lr, tr.cfg.batch, tr.cfg.games_per_iter, tr.opt.lr) == (2, 0.02, 8, 1, 0.02)
    out = tmp_path / "exp.npz"
    assert main(["variant-export", "--checkpoint", str(ck), "--out", str(out), "--notes", "n"]) == 0
    manifest = json.loads(out.with_suffix(".json").read_text())
    assert manifest["notes"] == "n" and manifest["training_run"]["games"] == 2
    assert np.array_equal(VariantNet.load(out).net.w1, tr.vn.net.w1)
