"""Training: loss decreases, targets are distributions, checkpoints resume to the identical state."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from analyzer.eval.net import Net, NetSet
from analyzer.eval.selfplay import GameBuffers, duel, play_seeded
from bglab.learner import StandardLearner, lambda_targets
from bglab.optim import Adam, loss_and_grads
from bglab.race import RaceConfig
from bglab.td import TDConfig, TDTrainer

if TYPE_CHECKING:
    from bglab.dataset import TargetBuilder


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
    g = lambda_targets(nextp, 2, 10, 0.7, StandardLearner.swap)
    assert np.allclose(g.sum(axis=1), 1.0, atol=1e-5)
    assert g[9].tolist() == [0, 0, 1, 0, 0, 0]
    # TD(0): the target is the next prediction
    g0 = lambda_targets(nextp, 0, 10, 0.0, StandardLearner.swap)
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
    from bglab.supervised import SupervisedConfig, SupervisedTrainer

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


def test_supervised_round_can_keep_the_race_net(tmp_path: Path) -> None:
    from bglab.supervised import SupervisedConfig, SupervisedTrainer

    base = NetSet.initial(hidden=8, race_hidden=8, seed=0)
    runs = {}
    for train_race in (0, 1):
        cfg = SupervisedConfig(games_per_round=3, epochs=1, eval_seeds=0, train_race=train_race)
        tr = SupervisedTrainer.create(tmp_path / f"r{train_race}.npz", cfg, base)
        tr.run(1)
        runs[train_race] = SupervisedTrainer.load(tmp_path / f"r{train_race}.npz").nets
    # self-play games end in races: with train_race=1 the race net learns, with 0 it stays as it was
    assert not np.array_equal(runs[1].race.w1, base.race.w1)
    assert np.array_equal(runs[0].race.w1, base.race.w1)
    assert not np.array_equal(runs[0].contact.w1, base.contact.w1)
    # the contact and crashed nets train the same either way (same positions, same targets, same seeds)
    assert np.array_equal(runs[0].contact.w1, runs[1].contact.w1)


def test_td_continues_given_nets_keeps_the_race_net_and_averages(tmp_path: Path) -> None:
    import pytest

    from bglab.__main__ import main
    from bglab.optim import PARAMS

    start = NetSet.initial(hidden=8, race_hidden=6, seed=5)
    start.save(tmp_path / "start.npz")
    args = ["td", "--init", str(tmp_path / "start.npz"), "--games", "4", "--games-per-iter", "2",
            "--eval-every", "0", "--train-race", "0", "--ema-games", "4"]
    assert main([*args, "--checkpoint", str(tmp_path / "a.npz")]) == 0
    a = TDTrainer.load(tmp_path / "a.npz")
    assert a.cfg.init == str(tmp_path / "start.npz") and a.cfg.hidden == 8 and a.cfg.race_hidden == 6
    assert np.array_equal(a.nets.race.w1, start.race.w1)  # kept
    assert not np.array_equal(a.nets.contact.w1, start.contact.w1)  # trained from the given nets
    # the average resumes exactly: 2 + 2 games in one go == 2 games, stop, 2 more
    assert main([*args[:4], "2", *args[5:], "--checkpoint", str(tmp_path / "b.npz")]) == 0
    assert main([*args, "--checkpoint", str(tmp_path / "b.npz")]) == 0
    b = TDTrainer.load(tmp_path / "b.npz")
    assert a.ema is not None and b.ema is not None
    for name in a.ema:
        assert np.array_equal(a.ema[name], b.ema[name])
    # keep = 1 - 2/4: the average is half the first iteration's weights, half the second's
    first = TDTrainer.create(tmp_path / "c.npz", TDConfig(**vars(a.cfg)), start)
    first.run(total_games=2)
    w_first = first.nets.contact.w1.copy()
    first.run(total_games=4)
    assert np.allclose(a.ema["contact_w1"], 0.5 * w_first + 0.5 * first.nets.contact.w1, atol=1e-6)
    assert main(["export", "--checkpoint", str(tmp_path / "a.npz"), "--out", str(tmp_path / "n.npz"), "--ema"]) == 0
    shipped = NetSet.load(tmp_path / "n.npz")
    for key, net in shipped.nets().items():
        for s in PARAMS:
            assert np.array_equal(getattr(net, s), a.ema[f"{key}_{s}"])
    assert shipped.meta["training_run"]["weights"].startswith("moving average")
    with pytest.raises(SystemExit, match="no moving average"):
        main(["export", "--checkpoint", str(tmp_path / "start.npz"), "--out", str(tmp_path / "m.npz"), "--ema"])

def test_average_command_writes_the_mean_and_names_its_inputs(tmp_path: Path) -> None:
    import hashlib
    import json

    import pytest

    from bglab.__main__ import main

    paths = []
    for seed in (1, 2, 3):
        nets = NetSet.initial(hidden=6, race_hidden=5, seed=seed)
        fit = {"init": "start.npz", "data": ["a.npz", "b.npz"], "config": {"seed": seed}}
        nets.save(tmp_path / f"s{seed}.npz", {"fit": fit, "version": "x"})
        paths.append(tmp_path / f"s{seed}.npz")
    assert main(["average", "--nets", *map(str, paths), "--out", str(tmp_path / "m.npz")]) == 0
    m = NetSet.load(tmp_path / "m.npz")
    ins = [NetSet.load(p) for p in paths]
    for key, net in m.nets().items():
        for part in ("w1", "b1", "w2", "b2"):
            want = sum(getattr(s.nets()[key], part).astype(np.float64) for s in ins) / 3
            assert np.allclose(getattr(net, part), want, atol=1e-7)
    assert m.prune is None and m.meta["version"] == "x" and "fit" not in m.meta
    doc = m.meta["average"]
    assert doc["data"] == ["a.npz", "b.npz"]
    assert [i["fit"]["config"]["seed"] for i in doc["inputs"]] == [1, 2, 3]
    assert doc["inputs"][1]["sha256"] == hashlib.sha256(paths[1].read_bytes()).hexdigest()
    assert "data" not in doc["inputs"][0]["fit"]
    # inputs with different data keep their own lists
    other = NetSet.load(paths[2])
    other.save(tmp_path / "o.npz", {"fit": {"data": ["c.npz"], "config": {"seed": 9}}})
    assert main(["average", "--nets", str(paths[0]), str(tmp_path / "o.npz"), "--out", str(tmp_path / "n.npz")]) == 0
    doc = json.loads((tmp_path / "n.json").read_text())["average"]
    assert "data" not in doc and doc["inputs"][1]["fit"]["data"] == ["c.npz"]
    NetSet.initial(hidden=7, race_hidden=5).save(tmp_path / "w.npz")
    with pytest.raises(SystemExit, match="net set 2: contact w1 is 242x7, net set 1's is 242x6"):
        main(["average", "--nets", str(paths[0]), str(tmp_path / "w.npz"), "--out", str(tmp_path / "x.npz")])


def _race_cfg() -> RaceConfig:
    from bglab.race import RaceConfig

    return RaceConfig(hidden=12, db_positions=600, home_positions=200, random_positions=100, selfplay_games=2,
                      epochs=1, batch=64)


def test_race_db_boards_match_the_database_indices() -> None:
    from analyzer.eval.bearoff import BearoffDB, mover_index, opponent_index
    from bglab.race import all_db_pairs, bearoff_classes, compute_targets, db_boards

    xs, ys = all_db_pairs()
    assert len(xs) == 923 * 923
    pick = np.random.default_rng(5).choice(len(xs), size=300, replace=False)
    boards = db_boards(xs[pick], ys[pick])
    assert (bearoff_classes(boards) == 2).all()
    assert [mover_index(b) for b in boards] == xs[pick].tolist()
    assert [opponent_index(b) for b in boards] == ys[pick].tolist()
    # the targets of database positions are the database's own values
    t = compute_targets(NetSet.initial(hidden=4, race_hidden=4, seed=0), boards, 1)
    win = BearoffDB.two_sided().win[xs[pick], ys[pick]]
    assert np.allclose(t[:, 0], win, atol=1e-6)
    assert np.allclose(t[:, 3], 1.0 - win, atol=1e-6)


def test_random_races_are_legal_races() -> None:
    from analyzer.core.position import Position
    from analyzer.eval import features as F
    from bglab.race import bearoff_classes, random_races

    boards = random_races(400, np.random.default_rng(3))
    for b in boards:
        assert F.classify(b) == F.CLASS_RACE
        Position(b.tobytes()).validate()
    cls = bearoff_classes(boards)
    assert (cls == 0).mean() > 0.5  # mostly races with checkers outside the home boards


def test_race_training_lowers_the_database_error() -> None:
    from bglab.race import (
        all_db_pairs,
        compute_targets,
        db_boards,
        equity_errors,
        is_holdout,
        race_inputs,
        train_net,
    )

    nets = NetSet.initial(hidden=4, race_hidden=16, seed=1)
    xs, ys = all_db_pairs()
    rng = np.random.default_rng(2)
    hold = is_holdout(xs, ys)
    tr = rng.choice(np.flatnonzero(~hold), size=4000, replace=False)
    te = rng.choice(np.flatnonzero(hold), size=1000, replace=False)
    bt, be = db_boards(xs[tr], ys[tr]), db_boards(xs[te], ys[te])
    tt, te_t = compute_targets(nets, bt, 0), compute_targets(nets, be, 0)
    before, _ = equity_errors(nets, be, te_t)
    train_net(nets.race, race_inputs(bt), tt, 4, 64, 3e-3, 0.9, rng)
    after, _ = equity_errors(nets, be, te_t)
    assert after < 0.7 * before


def test_race_run_resumes_to_the_same_nets(tmp_path: Path) -> None:
    from bglab.race import RaceRun

    init = tmp_path / "init.npz"
    NetSet.initial(hidden=4, race_hidden=8, seed=3).save(init)
    straight = RaceRun.create(tmp_path / "a.npz", _race_cfg(), NetSet.load(init), source=str(init))
    straight.run(2, holdout=300)
    first = RaceRun.create(tmp_path / "b.npz", _race_cfg(), NetSet.load(init), source=str(init))
    first.run(1, holdout=300)
    resumed = RaceRun.load(tmp_path / "b.npz")
    assert resumed.iterations == 1 and resumed.nets.race.hidden == 12
    resumed.run(2, holdout=300)
    assert np.array_equal(straight.nets.race.w1, resumed.nets.race.w1)
    assert len(resumed.history) == 2 and "holdout_db_mean_abs_equity" in resumed.history[-1]


def test_target_build_resumes_to_the_same_file(tmp_path: Path) -> None:
    from bglab.dataset import TargetBuilder, TargetsConfig

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    cfg = TargetsConfig(teacher=str(teacher), ply=1, games_per_chunk=2, sample_every=3, prune=0)
    straight = TargetBuilder.create(tmp_path / "a.npz", cfg)
    straight.run(positions=10**9, should_stop=lambda: straight.chunks >= 2)
    half = TargetBuilder.create(tmp_path / "b.npz", cfg)
    half.run(positions=10**9, should_stop=lambda: half.chunks >= 1)
    resumed = TargetBuilder.load(tmp_path / "b.npz")
    assert resumed.chunks == 1 and 0 < resumed.positions < straight.positions
    resumed.run(positions=10**9, should_stop=lambda: resumed.chunks >= 2)
    again = TargetBuilder.load(tmp_path / "b.npz")
    assert np.array_equal(again.boards, straight.boards)
    assert np.array_equal(again.targets, straight.targets)
    assert np.array_equal(again.games, straight.games)
    assert len(np.unique(again.games)) == 4
    # the targets are the teacher's 1-ply evaluation of each position
    from analyzer.eval.engine import Engine

    ref = Engine(NetSet.load(teacher), cache_size=0, prune=False).evaluate_boards(again.boards[:5], 1)
    assert np.allclose(again.targets[:5], ref, atol=1e-6)


def test_target_build_refuses_a_changed_teacher(tmp_path: Path) -> None:
    import pytest

    from bglab.dataset import TargetBuilder, TargetsConfig

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    tb = TargetBuilder.create(tmp_path / "t.npz", TargetsConfig(teacher=str(teacher), ply=0, games_per_chunk=1))
    tb.run(positions=1)
    NetSet.initial(hidden=8, race_hidden=8, seed=4).save(teacher)
    with pytest.raises(ValueError, match="no longer holds the teacher"):
        TargetBuilder.load(tmp_path / "t.npz")


def _one_chunk_of_1ply_targets(tmp_path: Path) -> TargetBuilder:
    """A target build of one chunk (four self-play games, every position) labelled at 1-ply by a small net."""
    from bglab.dataset import TargetBuilder, TargetsConfig

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    tb = TargetBuilder.create(tmp_path / "t.npz", TargetsConfig(teacher=str(teacher), ply=1, games_per_chunk=4,
                                                               sample_every=1, prune=0))
    tb.run(positions=1)
    return tb


def test_fit_keeps_the_race_net_and_returns_the_best_epoch(tmp_path: Path) -> None:
    from bglab.dataset import FitConfig, fit

    tb = _one_chunk_of_1ply_targets(tmp_path)
    start = NetSet.initial(hidden=8, race_hidden=8, seed=5)
    best, hist = fit(start, tb.boards, tb.targets, tb.games, FitConfig(epochs=4, lr=3e-3, holdout=2))
    assert [h["epoch"] for h in hist] == [0, 1, 2, 3, 4]
    assert np.array_equal(best.race.w1, start.race.w1)
    errs = [h["holdout"]["contact"] for h in hist]
    assert min(errs) < errs[0]
    assert not np.array_equal(best.contact.w1, start.contact.w1)


def test_fit_pick_keeps_the_named_epoch_whatever_the_hold_out_says(tmp_path: Path) -> None:
    import pytest

    from bglab.dataset import FitConfig, fit

    tb = _one_chunk_of_1ply_targets(tmp_path)
    start = NetSet.initial(hidden=8, race_hidden=8, seed=5)
    cfg = {"epochs": 3, "lr": 0.05, "holdout": 2}
    best, hist = fit(start, tb.boards, tb.targets, tb.games, FitConfig(**cfg))
    errs = [h["holdout"]["contact"] for h in hist]
    k = next(e for e in (1, 2, 3) if e != int(np.argmin(errs)))  # an epoch the hold-out does not choose
    picked, _ = fit(start, tb.boards, tb.targets, tb.games, FitConfig(**cfg, pick=k))
    # the nets after epoch k: those of a k-epoch fit on the same seed
    ref, _ = fit(start, tb.boards, tb.targets, tb.games, FitConfig(**{**cfg, "epochs": k}, pick=k))
    assert np.array_equal(picked.contact.w1, ref.contact.w1)
    assert not np.array_equal(picked.contact.w1, best.contact.w1)
    assert np.array_equal(picked.race.w1, start.race.w1)
    with pytest.raises(ValueError, match="past the last epoch"):
        fit(start, tb.boards, tb.targets, tb.games, FitConfig(epochs=2, pick=3))


def test_target_build_from_corpus_positions_ends_with_the_file(tmp_path: Path) -> None:
    from analyzer._resources import data_dir
    from bglab.dataset import TargetBuilder, TargetsConfig, corpus_positions

    sample = data_dir() / "samples" / "boardlord-llabba-7p.mat"
    boards, games, bad = corpus_positions([str(sample), str(tmp_path / "missing.mat")])
    assert bad == 1 and len(boards) > 50 and games[0] == 0
    assert np.all(np.diff(games) >= 0) and np.all(np.diff(games) <= 1)
    pos_file = tmp_path / "pos.npz"
    np.savez_compressed(pos_file, boards=boards, games=games)
    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    cfg = TargetsConfig(teacher=str(teacher), ply=0, games_per_chunk=3, prune=0, positions_file=str(pos_file))
    tb = TargetBuilder.create(tmp_path / "t.npz", cfg)
    tb.run(positions=10**9)  # ends with the file
    done = TargetBuilder.load(tmp_path / "t.npz")
    assert np.array_equal(done.boards, boards) and np.array_equal(done.games, games)
    assert done.targets.shape == (len(boards), 6)
    # themes filter the file's rows too: the rows of those themes, in the file's order and games
    from analyzer.analysis.themes import position_theme
    from analyzer.core.position import Position

    wanted = {"blitz", "holding"}
    keep = np.array([position_theme(Position(b.tobytes())) in wanted for b in boards])
    assert 0 < keep.sum() < len(boards)
    themed = TargetBuilder.create(tmp_path / "th.npz", dataclasses.replace(cfg, themes="blitz,holding"))
    themed.run(positions=10**9)
    assert np.array_equal(themed.boards, boards[keep]) and np.array_equal(themed.games, games[keep])


def test_target_build_keeps_only_the_themes_asked_for(tmp_path: Path) -> None:
    from analyzer.analysis.themes import position_theme
    from analyzer.core.position import Position
    from bglab.dataset import TargetBuilder, TargetsConfig

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    cfg = TargetsConfig(teacher=str(teacher), ply=0, games_per_chunk=4, sample_every=1, prune=0,
                        themes="race,bear-off vs contact")
    tb = TargetBuilder.create(tmp_path / "t.npz", cfg)
    tb.run(positions=10**9, should_stop=lambda: tb.chunks >= 1)
    themes = {position_theme(Position(b.tobytes())) for b in tb.boards}
    assert tb.positions > 0 and themes <= {"race", "bear-off vs contact"}


def test_target_build_with_trials_labels_by_the_teachers_rollout(tmp_path: Path) -> None:
    from analyzer.core.position import Position
    from analyzer.eval.engine import Engine
    from analyzer.eval.rollout import RolloutSettings, rollout
    from bglab.dataset import TargetBuilder, TargetsConfig, row_seed

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    cfg = TargetsConfig(teacher=str(teacher), ply=2, games_per_chunk=1, sample_every=9, prune=0, trials=6, seed=5)
    tb = TargetBuilder.create(tmp_path / "t.npz", cfg)
    tb.run(positions=1)
    assert tb.positions > 1 and tb.targets.shape == (tb.positions, 6)
    assert np.allclose(tb.targets.sum(axis=1), 1.0, atol=1e-5)
    # each row is the outcome frequencies of its own seeded 6-trial rollout, not a 2-ply evaluation
    eng = Engine(NetSet.load(teacher), cache_size=0, prune=False)
    for row in (0, tb.positions - 1):
        settings = RolloutSettings(trials=6, seed=row_seed(5, row), workers=1, cubeful=False, variance_reduction=False)
        ref = rollout(eng, Position(tb.boards[row].tobytes()), settings).probabilities.outcomes()
        assert np.allclose(tb.targets[row], ref, atol=1e-6)
    assert not np.allclose(tb.targets, eng.evaluate_boards(tb.boards, 2), atol=1e-3)


def test_target_build_with_candidates_labels_the_results_of_the_best_plays(tmp_path: Path) -> None:
    from analyzer.core.position import Position
    from analyzer.eval import features as F
    from analyzer.eval.engine import Engine
    from bglab.dataset import TargetBuilder, TargetsConfig

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    pos_file = tmp_path / "pos.npz"
    start = np.frombuffer(Position.start().board, np.int8)
    np.savez_compressed(pos_file, boards=np.stack([start, start]), games=np.array([0, 0]))
    cfg = TargetsConfig(teacher=str(teacher), ply=0, games_per_chunk=1, prune=0, positions_file=str(pos_file),
                        candidates=3, margin=10.0, seed=7)
    tb = TargetBuilder.create(tmp_path / "t.npz", cfg)
    tb.run(positions=10**9)
    eng = Engine(NetSet.load(teacher), cache_size=0, prune=False)
    # each row of the start position gave its seeded roll's three best plays, the opponent on roll
    rolls = []
    for i in range(2):
        rng = np.random.default_rng((7, 0, i))
        rolls.append((int(rng.integers(1, 7)), int(rng.integers(1, 7))))
    want: list[bytes] = []
    for dice in rolls:
        for r in eng.rank_plays(Position.start(), dice, 0)[:3]:
            b = r.result.flip().board
            if b not in want:
                want.append(b)
    assert [b.tobytes() for b in tb.boards] == want
    assert all(F.classify(b) >= F.CLASS_CRASHED for b in tb.boards)
    assert np.allclose(tb.targets, eng.evaluate_boards(tb.boards, 0), atol=1e-6)
    assert not any(b.tobytes() == start.tobytes() for b in tb.boards)


def test_paired_rollout_labels_share_each_decisions_dice(tmp_path: Path) -> None:
    """``paired`` rolls a decision's candidates out on one seed (the decision's), variance reduced and
    ``truncate`` plies deep; without it each row has its own seed."""
    from analyzer.core.position import Position
    from analyzer.eval.engine import Engine
    from analyzer.eval.rollout import RolloutSettings, rollout
    from bglab.dataset import TargetBuilder, TargetsConfig, row_seed

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    pos_file = tmp_path / "pos.npz"
    start = np.frombuffer(Position.start().board, np.int8)
    np.savez_compressed(pos_file, boards=start[None], games=np.array([0]))
    cfg = TargetsConfig(teacher=str(teacher), ply=0, games_per_chunk=1, prune=1, positions_file=str(pos_file),
                        candidates=3, margin=10.0, seed=7, trials=4, paired=1, truncate=2)
    tb = TargetBuilder.create(tmp_path / "t.npz", cfg)
    tb.run(positions=10**9)
    assert len(tb.boards) == 3 and len(set(tb.groups.tolist())) == 1  # one decision, three candidates
    eng = Engine(NetSet.load(teacher), cache_size=0, prune=True)
    for row in range(3):
        settings = RolloutSettings(trials=4, seed=row_seed(7, int(tb.groups[0])), workers=1, cubeful=False,
                                   variance_reduction=True, luck_prune=True, truncate=2)
        ref = rollout(eng, Position(tb.boards[row].tobytes()), settings).probabilities.outcomes()
        assert np.allclose(tb.targets[row], ref, atol=1e-6)
    apart = TargetBuilder.create(tmp_path / "u.npz", dataclasses.replace(cfg, paired=0))
    apart.run(positions=10**9)
    settings = RolloutSettings(trials=4, seed=row_seed(7, 1), workers=1, cubeful=False, variance_reduction=False,
                               truncate=2)
    ref = rollout(eng, Position(apart.boards[1].tobytes()), settings).probabilities.outcomes()
    assert np.allclose(apart.targets[1], ref, atol=1e-6)  # row 1's own seed, no variance reduction


def test_the_choice_loss_gradients_match_finite_differences() -> None:
    from analyzer.eval.net import Net
    from bglab.learner import EQUITY_WEIGHTS
    from bglab.optim import ChoiceLoss, loss_and_grads

    rng = np.random.default_rng(4)
    net = Net.initial(7, 5, rng)
    net.w2 *= 3  # outputs away from uniform (but no probability near the log clamp of 1e-12)
    x = rng.random((6, 7)).astype(np.float32)
    t = rng.dirichlet(np.ones(6), size=6).astype(np.float32)
    choice = ChoiceLoss(np.array([0, 0, 0, 1, 1, 2]), 50.0, EQUITY_WEIGHTS.astype(np.float32))
    plain, _ = loss_and_grads(net, x, t)
    loss, grads = loss_and_grads(net, x, t, choice)
    assert loss > plain  # the decisions' centred residuals add to the cross-entropy
    for name, g in zip(("w1", "b1", "w2", "b2"), grads, strict=True):
        w = getattr(net, name)
        w64 = w.astype(np.float64)
        for flat in rng.choice(w.size, size=4, replace=False):
            i = np.unravel_index(flat, w.shape)
            h = 1e-2
            vals = []
            for sign in (1, -1):
                w[...] = w64
                w[i] = w64[i] + sign * h
                vals.append(loss_and_grads(net, x, t, choice)[0])
            w[...] = w64
            numeric = (vals[0] - vals[1]) / (2 * h)
            assert abs(numeric - float(g[i])) <= 2e-3 + 2e-2 * abs(numeric), (name, i, numeric, float(g[i]))


def test_a_candidate_build_stores_its_decisions_and_a_fit_learns_their_ranking(tmp_path: Path) -> None:
    from bglab.base import read_checkpoint, write_checkpoint
    from bglab.dataset import (
        FitConfig,
        TargetBuilder,
        TargetsConfig,
        decision_id,
        fit,
        load_targets_and_groups,
    )

    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    cfg = TargetsConfig(teacher=str(teacher), ply=1, games_per_chunk=4, sample_every=2, prune=0, candidates=4,
                        margin=10.0, seed=9)
    tb = TargetBuilder.create(tmp_path / "t.npz", cfg)
    tb.run(positions=10**9, should_stop=lambda: tb.chunks >= 1)
    # each decision's rows are the candidates of one position of its game, in order
    assert len(tb.groups) == tb.positions > 0 and np.all(tb.groups >= 0)
    for g in np.unique(tb.games).tolist():
        rows = tb.base_rows(g)
        assert rows is not None
        boards, index = tb.candidate_groups(g, rows)
        mine = tb.games == g
        assert np.array_equal(tb.boards[mine], boards)
        assert np.array_equal(tb.groups[mine], decision_id(g, index))
    # a file saved before decisions were stored finds them again when loaded
    arrays, doc = read_checkpoint(tmp_path / "t.npz")
    del arrays["groups"], arrays["state_json"]
    write_checkpoint(tmp_path / "old.npz", arrays, doc)
    assert np.array_equal(TargetBuilder.load(tmp_path / "old.npz").groups, tb.groups)
    both = load_targets_and_groups([tmp_path / "t.npz", tmp_path / "old.npz"])[3]
    assert np.array_equal(both[: tb.positions], tb.groups)
    # the within-decision fit reports and lowers the held-out decisions' centred error
    start = NetSet.initial(hidden=8, race_hidden=8, seed=5)
    fcfg = FitConfig(epochs=6, lr=3e-3, holdout=2, choice=50.0, batch=16)
    best, hist = fit(start, tb.boards, tb.targets, tb.games, fcfg, load_targets_and_groups([tmp_path / "t.npz"])[3])
    errs = [h["holdout"]["contact choice"] for h in hist]
    assert min(errs[1:]) < errs[0]
    assert not np.array_equal(best.contact.w1, start.contact.w1)
    # without decisions (-1) the same fit is the plain one
    plain, phist = fit(start, tb.boards, tb.targets, tb.games, FitConfig(epochs=2, lr=3e-3, holdout=2, batch=16),
                       np.full(tb.positions, -1, np.int64))
    assert "contact choice" not in phist[1]["holdout"]
