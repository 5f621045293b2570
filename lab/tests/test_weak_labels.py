"""The weak classes' label build (issue 51): ``bglab targets --classes ... --trials N --variance-reduction 1``
keeps only the referee's weak classes (on the bar from both seats), labels them by variance-reduced
rollouts, records what made the labels, and resumes to the same file as an uninterrupted build."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.eval.net import NetSet
from analyzer.eval.rollout import rollout
from analyzer.eval.trials import RolloutSettings
from bglab.base import read_checkpoint
from bglab.classes import WEAK, describe, position_classes, seat_code, weak_positions
from bglab.dataset import TargetBuilder, TargetsConfig, row_seed

WEAK_CLASSES = ",".join(WEAK)


def _boards() -> tuple[np.ndarray, np.ndarray]:
    """Two games: the start (a middle game) and the start with the side on roll's back checkers run to
    its mid-point and one of the opponent's back checkers on its bar (the opponent on the bar, holding
    more checkers back); then that position seen by the side on the bar, and the start."""
    start = np.frombuffer(Position.start().board, np.int8).copy()
    opp_bar = start.copy()
    opp_bar[24] -= 2
    opp_bar[13] += 2
    opp_bar[1] += 1
    opp_bar[0] += 1
    on_bar = np.frombuffer(Position(opp_bar.tobytes()).flip().board, np.int8).copy()
    return np.stack([start, opp_bar, on_bar, start]), np.array([0, 0, 1, 1], np.int64)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, TargetsConfig]:
    teacher = tmp_path / "teacher.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=3).save(teacher)
    boards, games = _boards()
    np.savez_compressed(tmp_path / "pos.npz", boards=boards, games=games)
    cfg = TargetsConfig(teacher=str(teacher), seed=5, ply=0, games_per_chunk=1, trials=3,
                        positions_file=str(tmp_path / "pos.npz"), classes=WEAK_CLASSES, variance_reduction=1)
    return tmp_path, cfg


def test_the_weak_classes_from_both_seats(setup: tuple[Path, TargetsConfig]) -> None:
    d, cfg = setup
    b = TargetBuilder.create(d / "weak.npz", cfg)
    b.run(positions=10)
    boards, _ = _boards()
    assert b.exhausted
    assert [bytes(r) for r in b.boards] == [bytes(boards[1]), bytes(boards[2])]  # the starts dropped
    assert b.games.tolist() == [0, 1]
    for r in b.boards:
        assert "on the bar" in position_classes(Position(r.tobytes()))
    masks, seats = describe(b.boards)
    # the side on the bar holds more checkers back: off roll in the first row, on roll in the second
    assert seats.tolist() == [-1, 1] == [seat_code(Position(r.tobytes())) for r in b.boards]
    assert (masks > 0).all()
    # the label is our own variance-reduced cubeless rollout of the row, seeded by the row
    eng = Engine(NetSet.load(cfg.teacher), cache_size=0, prune=True)
    want = rollout(eng, Position(b.boards[1].tobytes()),
                   RolloutSettings(trials=3, seed=row_seed(5, 1), workers=1, cubeful=False,
                                   variance_reduction=True, luck_prune=True)).probabilities.outcomes()
    np.testing.assert_allclose(b.targets[1], want, atol=1e-6)
    _, doc = read_checkpoint(d / "weak.npz")
    assert doc["config"]["trials"] == 3 and doc["config"]["seed"] == 5 and doc["config"]["classes"] == WEAK_CLASSES
    assert doc["teacher_sha256"] == hashlib.sha256(Path(cfg.teacher).read_bytes()).hexdigest()
    assert doc["engine_version"] and doc["teacher_fingerprint"] == b.fingerprint


def test_a_resumed_build_is_the_uninterrupted_one(setup: tuple[Path, TargetsConfig]) -> None:
    d, cfg = setup
    whole = TargetBuilder.create(d / "whole.npz", cfg)
    whole.run(positions=10)
    part = TargetBuilder.create(d / "part.npz", cfg)
    part.run(positions=1)  # stops after the first game's row
    assert part.positions == 1
    resumed = TargetBuilder.load(d / "part.npz")
    resumed.run(positions=10)
    np.testing.assert_array_equal(resumed.boards, whole.boards)
    np.testing.assert_array_equal(resumed.targets, whole.targets)


def test_an_unknown_class_is_refused(setup: tuple[Path, TargetsConfig]) -> None:
    d, cfg = setup
    cfg.classes = "back games"
    with pytest.raises(ValueError, match="unknown classes"):
        TargetBuilder.create(d / "bad.npz", cfg)


def test_the_weak_queue_takes_the_strata_in_turn() -> None:
    boards, _ = _boards()
    bar_off, bar_on = boards[1], boards[2]
    other_off = bar_off.copy()
    other_off[6] -= 1  # another position of the same stratum
    other_off[5] += 1
    pool = np.stack([boards[0], bar_off, other_off, bar_on, bar_on])
    out, src, counts = weak_positions(pool, np.arange(5, dtype=np.int64), limit=10, seed=7)
    assert counts == {"on the bar / back side off roll": 2, "on the bar / back side on roll": 1}
    assert len(out) == 3 and 0 not in src.tolist()  # the start dropped, the repeated board once
    assert seat_code(Position(out[0].tobytes())) != seat_code(Position(out[1].tobytes()))  # the strata alternate
    again = weak_positions(pool, np.arange(5, dtype=np.int64), limit=10, seed=7)
    np.testing.assert_array_equal(again[0], out)
    assert len(weak_positions(pool, np.arange(5, dtype=np.int64), limit=2, seed=7)[0]) == 2


def _target_file(path: Path, boards: np.ndarray, games: np.ndarray, groups: np.ndarray) -> None:
    """A label file as ``bglab targets`` writes it (the arrays a fit reads)."""
    from bglab.base import write_checkpoint

    t = np.tile(np.array([0.5, 0.2, 0.0, 0.3, 0.0, 0.0], np.float32), (len(boards), 1))
    write_checkpoint(path, {"boards": boards, "targets": t, "games": games, "groups": groups},
                     {"kind": "targets", "config": {}})


def test_a_fit_weighs_rows_by_class_and_seat(tmp_path: Path) -> None:
    from bglab.__main__ import main
    from bglab.classes import weigh_rows
    from bglab.dataset import load_targets_and_groups

    boards, _ = _boards()  # start, opponent on the bar (seat -1), on the bar (seat 1), start
    _target_file(tmp_path / "a.npz", boards, np.arange(4, dtype=np.int64), np.array([-1, 0, 0, -1]))
    _target_file(tmp_path / "b.npz", boards[1:3], np.arange(2, dtype=np.int64), np.array([-1, -1]))
    files = [str(tmp_path / "a.npz"), str(tmp_path / "b.npz")]
    b, t, g, grp = load_targets_and_groups(files)
    # the seat picks: only the row whose back-checker side is on roll matches, but the decision
    # (rows 1 and 2 of a.npz) is given whole, three times
    wb, wt, wg, wgrp, counts = weigh_rows(b, t, g, grp, [("on the bar", 1, 3)])
    assert counts == {"on the bar/1=3": 2, "added": 6}
    assert [bytes(r) for r in wb[6:]] == [bytes(boards[i]) for i in (1, 2, 2, 1, 2, 2)]
    assert wg[6:].tolist() == [1, 2, 10**9 + 1] * 2  # copies keep their game (and hold-out)
    assert wgrp is not None and grp is not None
    ids = wgrp[[1, 2, 6, 7, 9, 10]].tolist()
    assert ids[0] == ids[1] and ids[2] == ids[3] and ids[4] == ids[5] and len(set(ids)) == 3
    assert wgrp[8] == wgrp[11] == -1
    # the CLI: only the rows of --weigh-files, recorded in the net's manifest
    NetSet.initial(hidden=8, race_hidden=8, seed=0).save(tmp_path / "init.npz")
    out = tmp_path / "fit.npz"
    assert main(["fit", "--init", str(tmp_path / "init.npz"), "--data", *files, "--out", str(out),
                 "--epochs", "1", "--pick", "1", "--holdout", "2", "--choice", "1",
                 "--weigh", "on the bar=2", "--weigh-files", files[1]]) == 0
    fit = NetSet.load(out).meta["fit"]
    assert fit["weighed"] == {"rules": ["on the bar=2"], "files": [files[1]],
                              "rows": {"on the bar/None=2": 2, "added": 2}}
    assert fit["positions"] == 8
    for bad, msg in ((["back games=2"], "unknown class"), (["back game/on bar=2"], "unknown seat"),
                     (["back game=0"], "TIMES")):
        with pytest.raises(SystemExit, match=msg):
            main(["fit", "--init", str(tmp_path / "init.npz"), "--data", *files, "--out", str(out),
                  "--weigh", *bad])


def test_the_screen_by_class_and_seat(setup: tuple[Path, TargetsConfig], capsys: pytest.CaptureFixture[str]) -> None:
    """``bglab screen``: each net's 0-ply against the file's rollout labels, by class and seat; the paired
    change's standard error takes a real game's rows as one draw."""
    import json

    from bglab.__main__ import main
    from bglab.learner import outcome_equity
    from bglab.screen import paired_se

    d, cfg = setup
    weak = weak_positions(*_boards())  # the weak rows, one a source game, as `weak-positions` writes them
    np.savez_compressed(d / "weak_pos.npz", boards=weak[0], games=np.arange(len(weak[0]), dtype=np.int64),
                        source_games=weak[1])
    cfg.positions_file = str(d / "weak_pos.npz")
    b = TargetBuilder.create(d / "weak.npz", cfg)
    b.run(positions=10)
    other = d / "other.npz"
    NetSet.initial(hidden=8, race_hidden=8, seed=4).save(other)
    assert main(["screen", str(d / "weak.npz"), "--nets", cfg.teacher, "--nets", str(other),
                 "--json", str(d / "s.json")]) == 0
    text = capsys.readouterr().out
    assert "on the bar: back side on roll" in text and "on the bar: back side off roll" in text
    rows = {(r["class"], r["seat"]): r for r in json.loads((d / "s.json").read_text())["rows"]}
    label = outcome_equity(b.targets)
    err = {k: outcome_equity(Engine(NetSet.load(k), cache_size=0).evaluate_boards(b.boards, 0)) - label
           for k in (cfg.teacher, str(other))}
    _, seats = describe(b.boards)
    for seat, code in (("back side on roll", 1), ("back side off roll", -1)):
        r = rows[("on the bar", seat)]
        sel = seats == code
        assert r["n"] == int(sel.sum()) == 1 and r["games"] == 1
        assert r["nets"][cfg.teacher]["bias"] == pytest.approx(err[cfg.teacher][sel].mean())
        assert r["nets"][str(other)]["mean_abs"] == pytest.approx(np.abs(err[str(other)][sel]).mean())
    both = rows[("on the bar", "all")]
    assert both["n"] == 2 and rows[("all", "all")]["n"] == 2 and ("back game", "all") not in rows
    want = np.mean(np.abs(err[str(other)]) - np.abs(err[cfg.teacher]))
    assert both["nets"][str(other)]["d_abs"] == pytest.approx(want)
    with pytest.raises(SystemExit, match="unknown class"):
        main(["screen", str(d / "weak.npz"), "--nets", cfg.teacher, "--classes", "back games"])
    # the standard error of a paired change: rows of one game drawn together, so two equal games of two rows
    # each are as uncertain as two rows
    assert paired_se(np.array([1.0, 1.0, 3.0, 3.0]), np.array([5, 5, 9, 9])) == pytest.approx(
        paired_se(np.array([1.0, 3.0]), np.array([0, 1])))
    assert paired_se(np.array([1.0, 1.0, 3.0, 3.0]), np.array([5, 5, 9, 9])) > paired_se(
        np.array([1.0, 1.0, 3.0, 3.0]), np.arange(4))


def test_corpus_positions_of_the_heldout_files_only(tmp_path: Path) -> None:
    """``corpus-positions --heldout`` reads only the held-out match files (the screen's), the default
    everything but them."""
    import shutil

    from analyzer._resources import data_dir
    from bglab.__main__ import main
    from bglab.dataset import corpus_positions

    sample = data_dir() / "samples" / "boardlord-llabba-7p.mat"
    corpus = tmp_path / "corpus" / "bglab" / "galaxy"
    corpus.mkdir(parents=True)
    held = corpus / "match1070651.txt"  # named in heldout_files.txt
    shutil.copy(sample, held)
    text = sample.read_text(encoding="utf-8")
    first = corpus / "match1070652.mat"  # not held out: the match's first game only
    first.write_text(text[:text.index(" Game 2")], encoding="utf-8")
    for flag, path in ((["--heldout"], held), ([], first)):
        out = tmp_path / "p.npz"
        assert main(["corpus-positions", str(tmp_path / "corpus"), "--out", str(out), *flag]) == 0
        want, _, _ = corpus_positions([str(path)])
        with np.load(out) as z:
            np.testing.assert_array_equal(z["boards"], want)
    assert len(corpus_positions([str(first)])[0]) < len(corpus_positions([str(held)])[0])


def test_rollout_labels_by_a_one_ply_player(setup: tuple[Path, TargetsConfig]) -> None:
    """``targets --player-ply 1``: each label is the rollout played by the 1-ply player, recorded in the file
    (the games cut after 6 plies: the small random teacher's games last long)."""
    from bglab.__main__ import main

    d, cfg = setup
    out = d / "ply1.npz"
    assert main(["targets", "--teacher", cfg.teacher, "--out", str(out), "--positions", "10", "--ply", "0",
                 "--trials", "3", "--variance-reduction", "1", "--classes", WEAK_CLASSES, "--positions-file",
                 cfg.positions_file, "--games-per-chunk", "1", "--seed", "5", "--player-ply", "1",
                 "--truncate", "6"]) == 0
    b = TargetBuilder.load(out)
    _, doc = read_checkpoint(out)
    assert doc["config"]["player_ply"] == 1 and b.cfg.player_ply == 1
    eng = Engine(NetSet.load(cfg.teacher), cache_size=0, prune=True)
    got = {}
    for ply in (0, 1):
        got[ply] = [rollout(eng, Position(r.tobytes()),
                            RolloutSettings(trials=3, seed=row_seed(5, k), workers=1, cubeful=False,
                                            variance_reduction=True, luck_prune=True, truncate=6,
                                            player_ply=ply)).probabilities.outcomes() for k, r in enumerate(b.boards)]
    np.testing.assert_allclose(b.targets, got[1], atol=1e-6)
    assert not np.allclose(got[0], got[1])  # the 0-ply player's rollouts differ
    cfg.player_ply = 1
    cfg.trials = 0
    with pytest.raises(ValueError, match="player_ply"):
        TargetBuilder.create(d / "bad.npz", cfg)
