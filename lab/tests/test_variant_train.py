"""TD training of the variant nets: targets, resumability, learning."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analyzer.eval.variants import features as V
from analyzer.eval.variants.model import VariantNet
from analyzer.eval.variants.play import GameBuffers, duel, play_seeded, ppg_and_se
from bglab.learner import VariantLearner, first_outcomes
from bglab.learner import lambda_targets as full_lambda_targets
from bglab.optim import PARAMS
from bglab.td import VariantTDConfig, VariantTDTrainer


def lambda_targets(nextp: np.ndarray, outcome: int, n: int, lam: float, k: int) -> np.ndarray:
    """A variant's targets: the lambda-returns over its five outcomes, cut to its ``k``, renormalised."""
    wide = np.zeros((len(nextp), 5), np.float32)
    wide[:, : nextp.shape[1]] = nextp
    return first_outcomes(full_lambda_targets(wide, outcome, n, lam, VariantLearner.swap), k)


def test_lambda_targets_end_exact_and_swap_sides() -> None:
    rng = np.random.default_rng(0)
    nextp = rng.dirichlet(np.ones(5), size=6).astype(np.float32)
    t = lambda_targets(nextp, V.DRAW, 6, 0.7, 5)
    assert t[-1].tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert np.allclose(t.sum(axis=1), 1.0)
    # lambda = 1: the final result, alternating sides (a win 2 for the last mover is a loss 2 before)
    t1 = lambda_targets(nextp, V.WIN2, 4, 1.0, 5)
    assert [int(np.argmax(r)) for r in t1] == [V.LOSE2, V.WIN2, V.LOSE2, V.WIN2]
    # lambda = 0: each position's target is its own play's prediction
    t0 = lambda_targets(nextp, V.WIN1, 6, 0.0, 5)
    assert np.allclose(t0[:-1], nextp[:5] / nextp[:5].sum(axis=1, keepdims=True))
    d = lambda_targets(nextp[:, :4].copy(), V.WIN1, 3, 0.5, 4)
    assert d.shape == (3, 4) and np.allclose(d.sum(axis=1), 1.0)


@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_self_play_games_end_with_a_result(variant: str) -> None:
    vn = VariantNet.initial(variant, hidden=8, seed=2)
    buf = GameBuffers()
    n, o = play_seeded(vn, 17, 0.0, buf)
    assert n > 10 and o in (V.WIN1, V.WIN2, V.DRAW)
    again = play_seeded(vn, 17, 0.0, buf)
    assert again == (n, o)  # a game is a pure function of its seed and the weights


@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_td_run_resumes_bit_for_bit(tmp_path: Path, variant: str) -> None:
    cfg = VariantTDConfig(variant=variant, hidden=8, games_per_iter=2, eval_every=0, seed=3)
    a = VariantTDTrainer.create(tmp_path / "a.npz", cfg)
    a.run(total_games=2)  # one iteration, then stop and save
    a2 = VariantTDTrainer.load(tmp_path / "a.npz")
    a2.run(total_games=4)  # the second iteration after a restart
    b = VariantTDTrainer.create(tmp_path / "b.npz", VariantTDConfig(**vars(cfg)))
    b.run(total_games=4)  # both iterations in one go
    a3 = VariantTDTrainer.load(tmp_path / "a.npz")
    for s in PARAMS:
        assert np.array_equal(getattr(a3.vn.net, s), getattr(b.vn.net, s))
    assert a3.opt.t == b.opt.t and a3.games == b.games == 4 and a3.positions == b.positions
    assert all(np.array_equal(x, y) for x, y in zip(a3.opt.m, b.opt.m, strict=True))
    start = VariantNet.initial(variant, hidden=8, seed=3)
    assert not np.array_equal(start.net.w1, b.vn.net.w1)  # it did train


def test_moving_average_of_the_weights_resumes_and_exports(tmp_path: Path) -> None:
    from bglab.__main__ import main

    cfg = VariantTDConfig(variant="mahbusa", hidden=8, games_per_iter=2, eval_every=0, seed=4, ema_games=4)
    a = VariantTDTrainer.create(tmp_path / "a.npz", cfg)
    a.run(total_games=4)
    a2 = VariantTDTrainer.load(tmp_path / "a.npz")
    a2.run(total_games=6)
    b = VariantTDTrainer.create(tmp_path / "b.npz", VariantTDConfig(**vars(cfg)))
    snaps = []
    for g in (2, 4, 6):
        b.run(total_games=g)
        snaps.append({s: getattr(b.vn.net, s).copy() for s in PARAMS})
    assert a2.ema is not None and b.ema is not None
    for s in PARAMS:
        assert np.array_equal(VariantTDTrainer.load(tmp_path / "a.npz").ema[s], b.ema[s])  # type: ignore[index]
        # keep = 1 - 2/4: the average starts at the first iteration's weights, then halves towards each next one
        want = 0.25 * snaps[0][s] + 0.25 * snaps[1][s] + 0.5 * snaps[2][s]
        assert np.allclose(b.ema[s], want, atol=1e-6)
    assert not np.array_equal(b.ema["w1"], b.vn.net.w1)
    assert main(["variant-export", "--checkpoint", str(tmp_path / "b.npz"), "--out", str(tmp_path / "n.npz"),
                 "--ema"]) == 0
    assert np.array_equal(VariantNet.load(tmp_path / "n.npz").net.w1, b.ema["w1"])
    plain = VariantTDTrainer.create(tmp_path / "c.npz", VariantTDConfig(variant="mahbusa", hidden=8,
                                                                        games_per_iter=2, eval_every=0))
    plain.run(total_games=2)
    with pytest.raises(SystemExit, match="no moving average"):
        main(["variant-export", "--checkpoint", str(tmp_path / "c.npz"), "--out", str(tmp_path / "m.npz"), "--ema"])


def test_dutch_starts_from_the_standard_contact_net(tmp_path: Path) -> None:
    from analyzer.eval import features as F
    from analyzer.eval.net import NetSet
    from analyzer.eval.variants.model import STANDARD_NETS

    std = NetSet.load(STANDARD_NETS)
    vn = VariantNet.from_standard("dutch", std)
    # the Dutch inputs start with the v1 contact inputs; an extended standard net's extra rows are left out
    assert np.array_equal(vn.net.w1[: F.N_CONTACT], std.contact.w1[: F.N_CONTACT])
    assert np.array_equal(vn.net.w2, std.contact.w2[:, [0, 1, 3, 4]])
    v1 = NetSet.initial(hidden=8, race_hidden=8, seed=2)
    wide = v1.widened()
    wide.contact.w1[F.N_CONTACT:] = 1.0
    assert np.array_equal(VariantNet.from_standard("dutch", wide).net.w1, VariantNet.from_standard("dutch", v1).net.w1)
    vn.save(tmp_path / "d.npz", {"version": "test"})
    back = VariantNet.load(tmp_path / "d.npz")
    assert np.array_equal(back.net.w1, vn.net.w1) and back.meta["inputs"] == V.N_DUTCH
    with pytest.raises(ValueError):
        VariantNet.from_standard("mahbusa", std)


@pytest.mark.integration
def test_a_short_td_run_beats_random_play(tmp_path: Path) -> None:
    cfg = VariantTDConfig(variant="mahbusa", hidden=16, games_per_iter=16, eval_every=0, seed=5, lr=3e-3)
    tr = VariantTDTrainer.create(tmp_path / "m.npz", cfg)
    tr.run(total_games=192)
    ppg, se = ppg_and_se(duel("mahbusa", tr.vn, "random", pairs=40, seed=9))
    assert ppg - 2 * se > 0.5


def test_supervised_round_trains_on_our_own_one_ply_values(tmp_path: Path) -> None:
    VariantNet.initial("mahbusa", hidden=8, seed=4).save(tmp_path / "start.npz")
    cfg = VariantTDConfig(variant="mahbusa", mode="supervised", games_per_iter=1, eval_every=0, seed=6,
                          sample_every=4)
    tr = VariantTDTrainer.from_source(tmp_path / "s.npz", tmp_path / "start.npz", cfg)
    before = tr.vn.net.w1.copy()
    tr.run(total_games=2)
    assert tr.positions > 0 and not np.array_equal(before, tr.vn.net.w1)
    back = VariantTDTrainer.load(tmp_path / "s.npz")
    assert back.cfg.mode == "supervised" and back.games == 2
    assert np.array_equal(back.vn.net.w1, tr.vn.net.w1)
    with pytest.raises(ValueError):
        VariantTDTrainer.from_source(tmp_path / "x.npz", tmp_path / "start.npz",
                                         VariantTDConfig(variant="dutch", mode="supervised"))


@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_variant_target_build_resumes_to_the_same_file(tmp_path: Path, variant: str) -> None:
    from analyzer.eval.variants.engine import VariantEngine
    from bglab.dataset import VariantTargetBuilder, VariantTargetsConfig

    teacher = tmp_path / "teacher.npz"
    VariantNet.initial(variant, hidden=8, seed=3).save(teacher)
    cfg = VariantTargetsConfig(variant=variant, teacher=str(teacher), ply=1, games_per_chunk=2, sample_every=3)
    straight = VariantTargetBuilder.create(tmp_path / "a.npz", cfg)
    straight.run(positions=10**9, should_stop=lambda: straight.chunks >= 2)
    half = VariantTargetBuilder.create(tmp_path / "b.npz", cfg)
    half.run(positions=10**9, should_stop=lambda: half.chunks >= 1)
    resumed = VariantTargetBuilder.load(tmp_path / "b.npz")
    assert resumed.chunks == 1 and 0 < resumed.positions < straight.positions
    resumed.run(positions=10**9, should_stop=lambda: resumed.chunks >= 2)
    again = VariantTargetBuilder.load(tmp_path / "b.npz")
    for name in ("boards", "targets", "games"):
        assert np.array_equal(getattr(again, name), getattr(straight, name))
    assert len(np.unique(again.games)) == 4
    code = VariantNet.load(teacher).code
    # only positions the variant net evaluates, each labelled with the teacher's 1-ply value
    assert all(V.classify(r, code) == V.CLASS_CONTACT for r in again.boards)
    ref = VariantEngine(variant, VariantNet.load(teacher), cache_size=0).evaluate_boards(again.boards[:5], 1)
    assert np.allclose(again.targets[:5], ref, atol=1e-6)
    assert np.allclose(again.targets.sum(axis=1), 1.0, atol=1e-5)


def test_variant_target_build_refuses_a_changed_teacher_or_variant(tmp_path: Path) -> None:
    from bglab.dataset import VariantTargetBuilder, VariantTargetsConfig, load_variant_targets

    teacher = tmp_path / "teacher.npz"
    VariantNet.initial("mahbusa", hidden=8, seed=3).save(teacher)
    cfg = VariantTargetsConfig(variant="plakoto", teacher=str(teacher), ply=0, games_per_chunk=1)
    VariantTargetBuilder.create(tmp_path / "t.npz", cfg).run(positions=1)
    with pytest.raises(ValueError, match="not a dutch target file"):
        load_variant_targets([tmp_path / "t.npz"], "dutch")
    VariantNet.initial("mahbusa", hidden=8, seed=4).save(teacher)
    with pytest.raises(ValueError, match="no longer holds the teacher"):
        VariantTargetBuilder.load(tmp_path / "t.npz")
    with pytest.raises(ValueError, match="holds a mahbusa net"):
        VariantTargetBuilder.create(tmp_path / "u.npz", VariantTargetsConfig(variant="dutch", teacher=str(teacher)))


def test_variant_fit_on_our_targets_through_the_cli(tmp_path: Path) -> None:
    import json

    from bglab.__main__ import main

    teacher = tmp_path / "teacher.npz"
    VariantNet.initial("dutch", hidden=8, seed=3).save(teacher)
    assert main(["variant-targets", "--variant", "dutch", "--teacher", str(teacher), "--out",
                 str(tmp_path / "t.npz"), "--positions", "150", "--ply", "1", "--games-per-chunk", "3",
                 "--sample-every", "1"]) == 0
    out = tmp_path / "fit.npz"
    assert main(["variant-fit", "--init", str(teacher), "--data", str(tmp_path / "t.npz"), "--out", str(out),
                 "--epochs", "4", "--lr", "3e-3", "--holdout", "3", "--fresh", "1"]) == 0
    fitted = VariantNet.load(out)
    assert fitted.variant == "dutch" and fitted.net.w1.shape == VariantNet.load(teacher).net.w1.shape
    hist = json.loads(out.with_suffix(".json").read_text())["fit"]["history"]
    assert [h["epoch"] for h in hist] == [0, 1, 2, 3, 4]
    errs = [h["holdout"] for h in hist]
    assert min(errs[1:]) < errs[0]  # a fresh net learns the teacher's values
    assert not np.array_equal(fitted.net.w1, VariantNet.load(teacher).net.w1)


def test_a_widened_td_run_starts_from_its_source_outputs(tmp_path: Path) -> None:
    from analyzer.core.position import Position
    from bglab.__main__ import main

    src = VariantNet.initial("dutch", hidden=8, seed=3)
    src.save(tmp_path / "src.npz")
    cfg = VariantTDConfig(variant="dutch", games_per_iter=1, eval_every=0, seed=2, lam=0.9)
    tr = VariantTDTrainer.from_source(tmp_path / "w.npz", tmp_path / "src.npz", cfg, hidden=12)
    assert (tr.cfg.hidden, tr.vn.net.hidden, tr.cfg.init) == (12, 12, str(tmp_path / "src.npz"))
    x = np.zeros((1, V.N_DUTCH), np.float32)
    V.encode(np.frombuffer(Position.start("dutch").board, np.int8), V.VAR_DUTCH, x[0])
    assert np.allclose(tr.vn.net.forward(x), src.net.forward(x), atol=1e-6)
    assert not np.array_equal(tr.vn.net.w1[:, 8:], np.zeros((V.N_DUTCH, 4), np.float32))
    tr.run(total_games=2)
    back = VariantTDTrainer.load(tmp_path / "w.npz")
    assert (back.games, back.vn.net.hidden) == (2, 12)
    assert np.abs(back.vn.net.w2[8:]).sum() > 0  # the new units learn
    with pytest.raises(ValueError, match="narrow"):
        VariantTDTrainer.from_source(tmp_path / "n.npz", tmp_path / "src.npz", VariantTDConfig(variant="dutch"),
                                     hidden=4)
    ck = tmp_path / "cli.npz"
    assert main(["variant-td", "--variant", "dutch", "--checkpoint", str(ck), "--init-from", str(tmp_path / "src.npz"),
                 "--games", "1", "--games-per-iter", "1", "--eval-every", "0"]) == 0
    assert VariantNet.load(ck).net.hidden == 8  # no --hidden: the source's size
    with pytest.raises(SystemExit, match="narrow"):
        main(["variant-td", "--variant", "dutch", "--checkpoint", str(tmp_path / "c2.npz"), "--init-from",
              str(tmp_path / "src.npz"), "--hidden", "4", "--games", "1"])


def test_rollout_targets_are_outcome_frequencies_and_resume_alike(tmp_path: Path) -> None:
    from analyzer.core.position import Position
    from analyzer.eval.variants.play import net_rollout
    from bglab.dataset import VariantTargetBuilder, VariantTargetsConfig

    VariantNet.initial("dutch", hidden=8, seed=2).save(tmp_path / "teacher.npz")
    cfg = VariantTargetsConfig(variant="dutch", teacher=str(tmp_path / "teacher.npz"), trials=36,
                               games_per_chunk=1, sample_every=25, seed=5)
    whole = VariantTargetBuilder.create(tmp_path / "a.npz", cfg)
    whole.run(positions=3)  # each position is 36 played-out games
    part = VariantTargetBuilder.create(tmp_path / "b.npz", cfg)
    part.run(positions=1)
    part = VariantTargetBuilder.load(tmp_path / "b.npz")
    part.run(positions=3)
    assert np.array_equal(part.boards, whole.boards) and np.array_equal(part.targets, whole.targets)
    t = whole.targets[:, :4]
    assert np.allclose(t.sum(axis=1), 1.0) and np.allclose(t * 36, np.round(t * 36), atol=1e-4)
    # row r is the rollout of its board with the seed of row r
    r = len(whole.boards) - 1
    pos = Position(whole.boards[r].tobytes(), "dutch")
    seed = 5 * 1_000_003 + r * 7919 + 1
    _, _, counts = net_rollout(whole.teacher, pos, 36, seed=seed, latin=seed % 36)
    assert np.allclose(t[r], counts[:4] / counts.sum())
