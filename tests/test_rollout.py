"""Rollouts: reproducibility, stratified dice, variance reduction, truncation, cube conversions."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import psutil
import pytest

from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval import rollout as R
from analyzer.eval import trials as T
from analyzer.eval._rollout_kernel import match_cube
from analyzer.eval.cube import analyze_cube, cube_tables
from analyzer.eval.engine import Engine
from analyzer.eval.met import met_by_name, mwc_to_emg
from analyzer.eval.rollout import RolloutResult, RolloutSettings, rollout, rollout_cube, trial_dice

START = Position.start()
# a closed board, 3 checkers still out, one opponent checker on the bar and most of his army back
CLOSED_OUT = Position.from_points({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 8: 3}, {13: 3, 17: 3, 19: 4, 20: 4},
                                  opponent_bar=1)
# a pure race, 101 against 109 pips (8% ahead)
RACE_8PCT = Position.from_points({6: 3, 5: 3, 4: 3, 8: 2, 9: 2, 11: 2},
                                 {19: 3, 20: 3, 21: 2, 17: 2, 16: 2, 14: 2, 13: 1})
# a race 69 against 90 pips: double/pass at any score where the cube is alive
RACE_30PCT = Position.from_points({6: 4, 5: 4, 4: 4, 3: 3}, {19: 3, 20: 3, 21: 3, 18: 3, 17: 3})
KXG = met_by_name("kazaross-xg2")
DMP = MatchState(length=7, score=(6, 6), post_crawford=True)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _rollout_kw(engine: Engine, pos: Position, **kw: Any) -> RolloutResult:
    """:func:`rollout` with the settings and the call's own arguments in one dict (the tests' tables)."""
    call = {k: kw.pop(k) for k in ("dice", "plays", "match", "player", "met", "progress") if k in kw}
    return rollout(engine, pos, RolloutSettings(**kw), **call)


def _numbers(r: RolloutResult) -> list[float]:
    out: list[float] = []
    for c in r.candidates:
        out += [c.equity, c.equity_se, *c.probabilities_se, c.probabilities.win, c.probabilities.win_gammon,
                c.probabilities.lose_gammon, c.mean_plies]
    return out


def test_positions_have_the_intended_pips() -> None:
    assert RACE_8PCT.pips() == (101, 109)
    CLOSED_OUT.validate()
    RACE_8PCT.validate()


def test_trial_dice_are_stratified_and_depend_on_seed_and_index_only() -> None:
    r1, r2, s = trial_dice(3, 0, 2592)
    for k in range(0, 2592, 36):
        assert sorted(r1[k:k + 36].tolist()) == list(range(36))
    for blk in (0, 1296):
        pairs = set(zip(r1[blk:blk + 1296].tolist(), r2[blk:blk + 1296].tolist(), strict=True))
        assert len(pairs) == 1296
    a1, a2, sa = trial_dice(3, 1000, 400)
    assert (a1 == r1[1000:1400]).all() and (a2 == r2[1000:1400]).all() and (sa == s[1000:1400]).all()
    assert not (trial_dice(4, 0, 36)[0] == r1[:36]).all() or not (trial_dice(4, 0, 36)[2] == s[:36]).all()


def test_same_seed_same_result_bit_for_bit_with_one_or_two_workers(engine: Engine) -> None:
    kw = {"trials": 80, "truncate": 3, "seed": 11, "cubeful": True}
    a = _rollout_kw(engine, START, workers=1, **kw)
    b = _rollout_kw(engine, START, workers=1, **kw)
    c = _rollout_kw(engine, START, workers=2, **kw)
    assert _numbers(a) == _numbers(b) == _numbers(c)
    assert a.as_dict() == c.as_dict()
    d = rollout(engine, START, RolloutSettings(workers=1, trials=80, truncate=3, seed=12))
    assert _numbers(d) != _numbers(a)


def test_worker_processes_are_kept_between_rollouts_and_stopped(engine: Engine,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(T, "usable_cores", lambda: 4)  # 3 workers below: not cut to the cores of a 2-core machine
    R.close_pool()
    kw = {"trials": 72, "truncate": 2, "seed": 5, "cubeful": False}
    a = _rollout_kw(engine, START, workers=2, **kw)
    pool = T._POOL["executor"]
    b = _rollout_kw(engine, START, workers=2, **kw)  # the same workers, their caches full: the same numbers
    assert T._POOL["executor"] is pool and _numbers(a) == _numbers(b) == _numbers(_rollout_kw(engine, START, workers=1,
                                                                                             **kw))
    stop = _rollout_kw(engine, START, workers=2, trials=720, truncate=1, target_se=1.0, min_trials=36)
    assert stop.stopped_early and T._POOL["executor"] is pool  # the queued round cancelled, the workers kept
    assert _numbers(_rollout_kw(engine, START, workers=2, **kw)) == _numbers(a)
    procs = list(pool._processes.values())
    _rollout_kw(engine, START, workers=3, **kw)  # another pool for another number of workers
    assert T._POOL["executor"] is not pool and not any(p.is_alive() for p in procs)
    R.close_pool()
    assert T._POOL == {}


def _kernel_loads() -> int:
    """How often this process compiled the rollout kernel or loaded it from numba's cache."""
    from analyzer.eval._rollout_kernel import run_trials

    stats = run_trials.stats
    return sum(stats.cache_hits.values()) + sum(stats.cache_misses.values())


def test_workers_inherit_the_kernel_compiled_before_they_start(engine: Engine) -> None:
    # the rollout compiles (or loads) the kernel for the workers' argument types before it forks them:
    # a worker neither compiles it again nor reads it from the cache (on a first run, two workers used
    # to compile the same functions at once)
    R.close_pool()
    _rollout_kw(engine, START, workers=2, trials=72, truncate=1, seed=5, cubeful=False)
    here = _kernel_loads()
    seen = T._POOL["executor"].submit(_kernel_loads).result()
    R.close_pool()
    assert here >= 1 and seen == here


def _rollout_in_child() -> None:
    rollout(Engine(), START, RolloutSettings(trials=72, truncate=1, workers=2, cubeful=False))


def test_a_process_that_kept_rollout_workers_still_ends() -> None:
    # a multiprocessing child (as a batch worker) joins its children before its atexit handlers run
    child = R.pool_context().Process(target=_rollout_in_child)
    child.start()
    child.join(120)
    alive = child.is_alive()
    if alive:  # its rollout workers would outlive it: stop them too
        for p in psutil.Process(child.pid).children(recursive=True):
            p.kill()
        child.kill()
    assert not alive and child.exitcode == 0


def _rollout_then_wait(ready: Any) -> None:
    _rollout_in_child()
    ready.set()
    time.sleep(300)


@pytest.mark.integration
def test_kept_workers_end_when_their_process_is_killed() -> None:
    ctx = R.pool_context()
    ready = ctx.Event()
    child = ctx.Process(target=_rollout_then_wait, args=(ready,))
    child.start()
    assert ready.wait(120)
    workers = psutil.Process(child.pid).children()
    assert len(workers) == 2
    child.kill()  # no atexit, no finaliser: the workers see their parent gone
    child.join()
    _, alive = psutil.wait_procs(workers, timeout=20)
    for p in alive:
        p.kill()
    assert not alive


def test_variance_reduction_shrinks_the_standard_error(engine: Engine) -> None:
    kw = {"trials": 72, "truncate": 4, "seed": 2, "workers": 1, "cubeful": False}
    plain = _rollout_kw(engine, START, variance_reduction=False, **kw)
    reduced = _rollout_kw(engine, START, variance_reduction=True, **kw)
    assert reduced.equity_se < 0.5 * plain.equity_se
    assert abs(reduced.equity - plain.equity) < 3 * plain.equity_se


def test_opening_position_cubeless_equity_is_small_and_positive(engine: Engine) -> None:
    r = rollout(engine, START, RolloutSettings(trials=108, truncate=6, seed=1, workers=1, cubeful=False))
    assert -0.02 < r.equity < 0.2
    assert 0.45 < r.probabilities.win < 0.6
    lo, hi = r.best.equity_ci
    assert lo < r.equity < hi and hi - lo < 0.1


@pytest.mark.slow
def test_opening_position_full_rollout(engine: Engine) -> None:
    r = rollout(engine, START, RolloutSettings(trials=1296, seed=1, workers=2, cubeful=False, variance_reduction=False))
    assert r.best.mean_plies > 30
    assert -0.05 < r.equity < 0.2
    assert r.equity_se < 0.05


def test_game_over_and_bearoff_positions_are_exact(engine: Engine) -> None:
    # the side on roll bears off its last two checkers with any roll
    r = rollout(engine, Position.from_points({1: 2}, {22: 1, 23: 1}), RolloutSettings(trials=40, workers=1))
    assert r.probabilities.win == 1.0 and r.equity_se == 0.0 and r.best.mean_plies == 0.0
    assert r.cube is not None and r.cube.nd == pytest.approx(1.0) and r.cube.dp == 1.0


def test_target_se_stops_early_after_min_trials(engine: Engine) -> None:
    pos = Position.from_points({1: 2}, {22: 1, 23: 1})
    seen: list[tuple[int, int]] = []
    r = rollout(engine, pos, RolloutSettings(trials=5000, target_se=0.01, min_trials=100, workers=1),
                progress=lambda done, total: seen.append((done, total)))
    assert r.stopped_early and r.trials < 5000 and r.trials >= 100 and r.trials_requested == 5000
    assert seen and seen[-1] == (r.trials, 5000)
    noisy = rollout(engine, START, RolloutSettings(trials=400, truncate=2, target_se=1e-9, min_trials=10, workers=1,
                                                   variance_reduction=False))
    assert not noisy.stopped_early and noisy.trials == 400


def test_candidates_share_the_dice(engine: Engine) -> None:
    both = rollout(engine, START, RolloutSettings(trials=36, truncate=2, workers=1, max_plays=2, threshold=1.0,
                                                  cubeful=False), dice=(3, 1))
    assert [c.play for c in both.candidates] == ["8/5 6/5", both.candidates[1].play]
    alone = rollout(engine, START, RolloutSettings(trials=36, truncate=2, workers=1, cubeful=False), dice=(3, 1),
                    plays=[both.candidates[1].play or ""])
    assert alone.candidates[0].equity == both.candidates[1].equity
    assert alone.candidates[0].equity_se == both.candidates[1].equity_se
    # rolled-out values are the mover's: after 8/5 6/5 he stands better than before rolling
    assert both.candidates[0].equity > engine.evaluate(START).equity - 0.05


def test_truncate_one_ply_with_variance_reduction_is_the_one_ply_value(engine: Engine) -> None:
    # after one ply the 0-ply value of the position reached minus the luck of the roll: every trial
    # gives the mean over the 21 rolls, which is the 1-ply evaluation
    r = rollout(engine, START, RolloutSettings(trials=36, truncate=1, workers=1, cubeful=False))
    one = engine.evaluate(START, 1)
    assert r.equity_se < 1e-5
    # (the engine's n-ply search may prune candidate plays; the rollout looks at every play)
    assert r.equity == pytest.approx(one.equity, abs=2e-3)
    assert r.probabilities.win == pytest.approx(one.win, abs=2e-3)


def test_cubeful_conversion_and_the_cube_entry_point(engine: Engine) -> None:
    state = MatchState(length=7, score=(2, 4))
    r = rollout(engine, START, RolloutSettings(trials=36, truncate=2, workers=1), match=state, player=1)
    assert r.cube is not None and r.cube.nd_mwc is not None
    assert r.best.cubeful_equity == pytest.approx(r.cube.nd)
    d = rollout_cube(engine, START, MatchState(), 0, RolloutSettings(trials=36, truncate=2, workers=1))
    assert d.action == "no double, take"


def test_rolled_out_plays_get_cubeful_equities_for_the_mover(engine: Engine) -> None:
    r = rollout(engine, START, RolloutSettings(trials=36, truncate=2, workers=1, max_plays=2, threshold=1.0),
                dice=(6, 5))
    values = [c.cubeful_equity for c in r.candidates]
    assert all(v is not None for v in values)
    assert values == sorted(values, reverse=True)  # type: ignore[type-var]
    assert r.candidates[0].play == "24/13"


def test_cube_closed_out_checker_on_the_bar_is_too_good(engine: Engine) -> None:
    d = analyze_cube(CLOSED_OUT, MatchState(), 0, lambda p: engine.evaluate(p, 2))
    assert d.action.startswith("too good")
    assert d.nd > 1.0


def test_cube_race_eight_percent_ahead_is_double_take(engine: Engine) -> None:
    for ply in (0, 1, 2):
        d = analyze_cube(RACE_8PCT, MatchState(), 0, lambda p, k=ply: engine.evaluate(p, k))  # type: ignore[misc]
        assert d.action == "double, take", ply


def test_rollout_cube_decisions_of_the_textbook_positions(engine: Engine) -> None:
    d = rollout_cube(engine, RACE_8PCT, MatchState(), 0, RolloutSettings(trials=72, truncate=4, workers=1))
    assert d.action == "double, take"
    d = rollout_cube(engine, CLOSED_OUT, MatchState(), 0, RolloutSettings(trials=72, truncate=4, workers=1))
    assert d.action.startswith("too good")


def test_bad_arguments(engine: Engine) -> None:
    with pytest.raises(ValueError):
        RolloutSettings(trials=0)
    with pytest.raises(ValueError):
        RolloutSettings(truncate=0)
    with pytest.raises(ValueError):
        rollout(engine, START, RolloutSettings(trials=1, workers=1), dice=(3, 1), plays=["24/1"])
    with pytest.raises(ValueError):
        rollout(engine, Position.start("dutch"), RolloutSettings(trials=1))


def test_results_are_finite(engine: Engine) -> None:
    r = rollout(engine, RACE_8PCT, RolloutSettings(trials=36, truncate=3, workers=1))
    assert np.isfinite(_numbers(r)).all()


def test_compiled_money_cube_matches_the_cube_model() -> None:
    from analyzer.eval._rollout_kernel import money_cube
    from analyzer.eval.cube import cube_decision

    rng = np.random.default_rng(5)
    v = np.zeros(4)
    for _ in range(40):
        o = rng.dirichlet(np.ones(6) * 0.7)
        x = float(rng.uniform(0.5, 0.75))
        probs = [o[0] + o[1] + o[2], o[1] + o[2], o[2], o[4] + o[5], o[5]]
        for owner, state in ((0, MatchState()), (1, MatchState(cube=2, cube_owner=0)),
                             (2, MatchState(cube=2, cube_owner=1))):
            d = cube_decision(probs, state, 0, cube_life=x)
            money_cube(o, x, owner, v)
            assert v[0] == pytest.approx(d.nd, abs=1e-4)  # cube.py follows 24 cube levels, we an unlimited cube
            if owner != 2:
                assert d.dt is not None
                assert v[1] == pytest.approx(d.dt, abs=1e-4)
                assert v[3] == pytest.approx(d.best, abs=1e-4)


def test_cube_play_rollouts(engine: Engine) -> None:
    kw = {"trials": 72, "truncate": 6, "cube_play": True, "seed": 4}
    a = _rollout_kw(engine, CLOSED_OUT, workers=1, **kw)
    assert a.cube is not None and a.cube.action.startswith("too good")
    assert a.best.cubeful_se is not None and a.best.cubeful_equity is not None and a.best.cubeful_equity > 1.0
    b = _rollout_kw(engine, CLOSED_OUT, workers=2, **kw)
    assert a.as_dict() == b.as_dict()
    # the cubeless side of the same trials agrees (a trial whose cube games all end by a pass stops there)
    plain = rollout(engine, CLOSED_OUT, RolloutSettings(workers=1, trials=72, truncate=6, seed=4))
    assert abs(plain.equity - a.equity) <= 3 * max(plain.equity_se, a.equity_se, 1e-9)
    assert plain.best.cubeful_se is None
    moves = rollout(engine, START, RolloutSettings(trials=36, truncate=3, workers=1, max_plays=2, threshold=1.0,
                                                   cube_play=True), dice=(3, 1))
    assert all(c.cubeful_se is not None for c in moves.candidates)
    with pytest.raises(ValueError):
        rollout(engine, START, RolloutSettings(trials=36, cube_play=True), match=MatchState(jacoby=True))


@pytest.mark.integration
def test_cube_play_rollout_of_a_race_at_the_doubling_point(engine: Engine) -> None:
    # 8% ahead at 100 pips is about the doubling point: played out, Double/take and No double are
    # within a few hundredths, and the taker has a clear take
    r = rollout(engine, RACE_8PCT, RolloutSettings(workers=1, trials=144, cube_play=True, seed=4))
    assert r.cube is not None and r.cube.dt is not None
    assert r.cube.action in ("double, take", "no double, take")
    assert abs(r.cube.dt - r.cube.nd) < 0.08 and r.cube.dt < 0.9
    # the cubeless side of the same trials agrees within its noise (trials stop at a pass)
    plain = rollout(engine, RACE_8PCT, RolloutSettings(workers=1, trials=144, seed=4))
    assert abs(plain.equity - r.equity) <= 3 * max(plain.equity_se, r.equity_se)
    assert plain.best.cubeful_se is None


def test_variance_reduction_of_the_cube_games(engine: Engine) -> None:
    kw = {"trials": 72, "truncate": 6, "cube_play": True, "seed": 9, "workers": 1}
    plain = _rollout_kw(engine, RACE_8PCT, variance_reduction=False, **kw)
    reduced = _rollout_kw(engine, RACE_8PCT, variance_reduction=True, **kw)
    assert plain.best.cubeful_se is not None and reduced.best.cubeful_se is not None
    assert reduced.best.cubeful_se < 0.5 * plain.best.cubeful_se
    assert plain.best.cubeful_equity is not None and reduced.best.cubeful_equity is not None
    assert abs(reduced.best.cubeful_equity - plain.best.cubeful_equity) < 3 * plain.best.cubeful_se


# ---------------------------------------------------------------------- match play cube games
def _cube_games(engine: Engine, pos: Position, state: MatchState, trials: int, seed: int, truncate: int = 0,
                double_first: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per-trial cubeless results (reference view) and cube-game MWCs of ``pos`` (reference on
    roll, cube as in ``state``), without variance reduction."""
    out, _, cf = _chunk(engine, pos, state, trials, seed, truncate, double_first)
    return out, cf


def _chunk(engine: Engine, pos: Position, state: MatchState, trials: int, seed: int, truncate: int = 0,
           double_first: bool = False, cube_play: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_cube_games` with the plies of each trial, and with or without the cube game."""
    R._init_worker(engine.nets.kernel_args(), engine.use_bearoff)
    mc = R._match_cube(state, 0, None if state.is_money else KXG, True)
    owner = 0 if state.cube_owner is None else (1 if state.cube_owner == 0 else 2)
    starts = np.frombuffer(pos.board, np.int8)[None, :].copy()
    out, plies, cf = R._run_chunk((starts, 0, seed, 0, trials, truncate, False, False, cube_play, np.ones(1),
                                   np.array([owner], np.int64), double_first, mc, False, (0, 0, 0.0, False)))
    return out[:, 0, :], plies[:, 0], cf[:, 0]


@pytest.mark.parametrize("state", [MatchState(), MatchState(length=5, score=(1, 1))], ids=["money", "match"])
def test_a_trial_ends_when_its_cube_game_ends_by_a_pass(engine: Engine, state: MatchState) -> None:
    # RACE_30PCT is double/pass: doubled before the first roll, every cube game ends at once, and
    # so does the trial: no ply played, the cubeless result the 0-ply evaluation of the start
    out, plies, cf = _chunk(engine, RACE_30PCT, state, 36, seed=3, truncate=12, double_first=True)
    assert bool((plies == 0).all())
    p = engine.evaluate(RACE_30PCT)
    assert np.allclose(out[:, 0] + out[:, 1] + out[:, 2], p.win, atol=1e-6)
    assert np.allclose(out[:, 1] + out[:, 2], p.win_gammon, atol=1e-6)
    # doubled later: the trials that end by a pass are shorter than the cubeless game of the same
    # dice, every other trial is that game bit for bit
    out, plies, cf = _chunk(engine, RACE_30PCT, state, 72, seed=3, truncate=12)
    out0, plies0, _ = _chunk(engine, RACE_30PCT, state, 72, seed=3, truncate=12, cube_play=False)
    passed = plies < plies0
    assert passed.mean() > 0.8
    assert np.array_equal(out[~passed], out0[~passed]) and np.array_equal(plies[~passed], plies0[~passed])
    assert not np.array_equal(out[passed], out0[passed])


MATCH_CUBE_PLAY = {"trials": 72, "truncate": 8, "cube_play": True, "seed": 11,
                   "match": MatchState(length=7, score=(2, 4)), "met": KXG}


@pytest.mark.integration
def test_match_cube_play_rollout_values_and_seed(engine: Engine) -> None:
    kw = MATCH_CUBE_PLAY
    a = _rollout_kw(engine, RACE_8PCT, workers=1, **kw)
    assert a.best.cubeful_se is not None and a.cube is not None and a.cube.nd_mwc is not None
    assert a.best.cubeful_equity == pytest.approx(mwc_to_emg(KXG, kw["match"], 0, a.cube.nd_mwc))  # type: ignore[arg-type]
    c = _rollout_kw(engine, RACE_8PCT, workers=1, **{**kw, "seed": 12})
    assert c.best.cubeful_equity != a.best.cubeful_equity
    moves = rollout(engine, START, RolloutSettings(trials=36, truncate=3, workers=1, max_plays=2, threshold=1.0,
                                                   cube_play=True), dice=(3, 1),
                    match=MatchState(length=5, score=(1, 3)), met=KXG)
    assert all(c.cubeful_se is not None for c in moves.candidates)


@pytest.mark.integration
def test_match_cube_play_is_reproducible_bit_for_bit_with_one_or_two_workers(engine: Engine) -> None:
    a = _rollout_kw(engine, RACE_8PCT, workers=1, **MATCH_CUBE_PLAY)
    again = _rollout_kw(engine, RACE_8PCT, workers=1, **MATCH_CUBE_PLAY)
    b = _rollout_kw(engine, RACE_8PCT, workers=2, **MATCH_CUBE_PLAY)
    assert a.as_dict() == again.as_dict() == b.as_dict()


def test_match_double_pass_ends_most_trials_at_the_first_double(engine: Engine) -> None:
    state = MatchState(length=5, score=(1, 1))
    pass_mwc = cube_tables(state, 0, met=KXG)[0][0, 0, 0]  # winning the cube's 1 point
    _, cf = _cube_games(engine, RACE_30PCT, state, 72, seed=3, truncate=12)
    assert np.mean(cf == pass_mwc) > 0.8
    # at 0-ply before the roll the position is a double/pass: with doubling before the first roll
    # every trial ends there
    _, first = _cube_games(engine, RACE_30PCT, state, 36, seed=3, truncate=12, double_first=True)
    assert bool((first == pass_mwc).all())
    # Crawford game: no cube, the games are played out for their MWC
    crawford = MatchState(length=5, score=(4, 1), crawford=True)
    out, cf = _cube_games(engine, RACE_30PCT, crawford, 36, seed=3)
    vt = cube_tables(crawford, 0, met=KXG)[0]
    assert np.allclose(cf, out @ vt[0, 0])


def test_match_cube_never_turned_at_dmp(engine: Engine) -> None:
    vt, may = cube_tables(DMP, 0, met=KXG, levels=3)
    rng = np.random.default_rng(0)
    cv = np.zeros(4)
    for _ in range(500):
        p = rng.dirichlet(np.ones(6)).astype(np.float32)
        for side in (0, 1):
            match_cube(p, 0.68, side, 0, 0, vt, may, False, 2, cv)
            assert not min(cv[1], cv[2]) > cv[0]  # never a double
            assert cv[3] == cv[0]
    # every trial's cube game is the cubeless game: the MWC is the winning chance (1 or 0 when the
    # game is played out; the database's chance at a bear-off stop), never a pass's 1
    out, cf = _cube_games(engine, START, DMP, 36, seed=5)
    assert np.allclose(cf, out[:, :3].sum(axis=1), rtol=0, atol=1e-6)


@pytest.mark.integration
@pytest.mark.parametrize("state", [DMP, pytest.param(MatchState(length=7, score=(6, 3), crawford=True), id="crawford")])
def test_dead_cube_rollout_is_the_cubeless_rollout_within_its_ci(engine: Engine, state: MatchState) -> None:
    kw = {"trials": 72, "truncate": 10, "seed": 2, "workers": 1, "match": state, "met": KXG}
    played = _rollout_kw(engine, START, cube_play=True, **kw)
    converted = _rollout_kw(engine, START, **kw)
    assert played.best.cubeful_equity is not None and played.best.cubeful_se is not None
    assert converted.best.cubeful_equity is not None
    assert played.best.cubeful_equity == pytest.approx(converted.best.cubeful_equity,
                                                       abs=max(2 * played.best.cubeful_se, 1e-6))
    assert played.equity == converted.equity  # the cubeless games do not change


# a mutual holding game (bench/rollout.py's middle-game position)
MIDDLE = Position.from_points({20: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {4: 2, 12: 4, 17: 2, 18: 2, 19: 4, 21: 1})


def _kernel_trials(engine: Engine, starts: np.ndarray, cubes: np.ndarray, owners: np.ndarray, cache_bits: int,
                   state: MatchState | None = None, n: int = 12,
                   truncate: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from analyzer.eval import _rollout_kernel as K

    R._init_worker(engine.nets.kernel_args(), True)
    st = state if state is not None else MatchState()
    mc = R._match_cube(st, 0, None if st.is_money else KXG, True)
    r1, r2, seeds = trial_dice(9, 0, n)
    out = np.zeros((n, starts.shape[0], 6))
    plies = np.zeros((n, starts.shape[0]), np.int64)
    cf = np.zeros((n, starts.shape[0]))
    rc = K.run_trials(starts, 0, r1, r2, seeds, truncate, False, True, True, cubes, owners, False, *mc, R._STATE["ev"],
                      R._STATE["ws"].args(), K.new_cache(cache_bits), False, 0, 0, 0.0, False, out, plies, cf)
    assert rc == 0
    return out, plies, cf


@pytest.mark.parametrize("state", [None, MatchState(length=7, score=(3, 4))], ids=["money", "match"])
def test_no_double_and_double_take_played_on_one_board_are_each_trial_alone(engine: Engine,
                                                                            state: MatchState | None) -> None:
    # run_trials plays equal start boards once with one cube game each: every number is the one
    # of the start rolled out alone
    b = MIDDLE.array()
    both = _kernel_trials(engine, np.stack([b, b]), np.array([1.0, 2.0]), np.array([0, 2], np.int64), 16, state)
    for k, (cube, owner) in enumerate(((1.0, 0), (2.0, 2))):
        alone = _kernel_trials(engine, b[None, :].copy(), np.array([cube]), np.array([owner], np.int64), 16, state)
        for x, y in zip(both, alone, strict=True):
            assert np.array_equal(x[:, k], y[:, 0], equal_nan=True)
    assert not np.array_equal(both[2][:, 0], both[2][:, 1])  # two different cube games


def test_evaluation_cache_never_changes_a_result(engine: Engine) -> None:
    # one slot (every play collides with the last one stored), a few, and many: the same bits
    starts = np.stack([MIDDLE.array(), START.array()])
    cubes, owners = np.ones(2), np.zeros(2, np.int64)
    ref = _kernel_trials(engine, starts, cubes, owners, 16)
    for bits in (0, 3):
        for x, y in zip(_kernel_trials(engine, starts, cubes, owners, bits), ref, strict=True):
            assert np.array_equal(x, y, equal_nan=True)


def test_luck_prune_changes_only_the_luck_and_not_where_nothing_is_pruned(engine: Engine) -> None:
    # races are never pruned: the same bits; in contact the plays made (so the game lengths) are the
    # same and the luck-corrected means agree within their standard errors
    assert _numbers(rollout(engine, RACE_8PCT, RolloutSettings(trials=36, workers=1, seed=4, truncate=6,
                                                               luck_prune=True))) == \
        _numbers(rollout(engine, RACE_8PCT, RolloutSettings(trials=36, workers=1, seed=4, truncate=6)))
    exact = rollout(engine, MIDDLE, RolloutSettings(trials=36, workers=1, seed=4, truncate=5, cube_play=True))
    pruned = rollout(engine, MIDDLE, RolloutSettings(trials=36, workers=1, seed=4, truncate=5, cube_play=True,
                                                     luck_prune=True))
    a, b = exact.best, pruned.best
    assert a.mean_plies == b.mean_plies
    assert _numbers(exact) != _numbers(pruned)
    assert abs(a.equity - b.equity) < 2 * (a.equity_se + b.equity_se)
    assert a.cubeful_equity is not None and b.cubeful_equity is not None
    assert a.cubeful_se is not None and b.cubeful_se is not None
    assert abs(a.cubeful_equity - b.cubeful_equity) < 2 * (a.cubeful_se + b.cubeful_se)
    assert 0.5 * a.equity_se < b.equity_se < 2.0 * a.equity_se


# the side on roll's last checker on the opponent's ace point, behind the opponent's home board: one
# roll of 6 pips or more leaves a race
LAST_BACK = Position.from_points({24: 1, 6: 5, 5: 5, 4: 4}, {19: 5, 20: 5, 21: 5})


def test_race_stop_ends_the_games_where_contact_ends(engine: Engine) -> None:
    kw = {"trials": 72, "seed": 3, "workers": 1}
    played = _rollout_kw(engine, LAST_BACK, **kw)
    stopped = _rollout_kw(engine, LAST_BACK, race_stop=True, **kw)
    assert stopped.race_stop and not played.race_stop and stopped.as_dict()["race_stop"] is True
    # played out, a game goes on to the bear-off databases; stopped at the race, until the back checker runs
    assert stopped.best.mean_plies < 0.7 * played.best.mean_plies
    # the race net values the race about as the games played on do
    assert abs(stopped.equity - played.equity) <= 3 * max(stopped.equity_se, played.equity_se, 0.01)
    # with cube play, the cube games stopped at the race are valued by the cube model there
    cubes = [_rollout_kw(engine, LAST_BACK, cube_play=True, race_stop=stop, **kw).cube for stop in (False, True)]
    assert cubes[0] is not None and cubes[1] is not None and abs(cubes[0].nd - cubes[1].nd) <= 0.1
    assert _rollout_kw(engine, LAST_BACK, race_stop=True, **{**kw, "workers": 2}).as_dict() == stopped.as_dict()


def test_race_stop_leaves_a_race_start_alone(engine: Engine) -> None:
    kw = {"trials": 36, "cube_play": True, "seed": 5, "workers": 1}
    a = _rollout_kw(engine, RACE_8PCT, **kw).as_dict()
    b = _rollout_kw(engine, RACE_8PCT, race_stop=True, **kw).as_dict()
    assert b.pop("race_stop") is True and a.pop("race_stop") is False
    assert a == b  # a race from the start plays on to the bear-off databases, as without race_stop


def test_race_stop_is_for_standard_rollouts() -> None:
    from analyzer.eval.variants.engine import engine_for

    with pytest.raises(ValueError, match="no truncation"):
        rollout(engine_for("dutch"), Position.start("dutch"), RolloutSettings(trials=36, race_stop=True, workers=1))


def _first_plays(engine: Engine, pos: Position, player_ply: int, cache_bits: int = 12
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The first roll of each of 36 trials (each roll once) and the 0-ply distribution (mover's view) after the
    play the rollout player makes with it: trials cut after one ply, no variance reduction."""
    from analyzer.eval import _rollout_kernel as K
    from analyzer.eval.protocol import PLAY_FILTER

    W, use_db, P = engine.rollout_args()
    R._init_worker(W, use_db, P)
    r1, r2, seeds = trial_dice(3, 0, 36)
    out = np.zeros((36, 1, 6))
    plies = np.zeros((36, 1), np.int64)
    cf = np.zeros((36, 1))
    mc = R._match_cube(MatchState(), 0, None, False)
    rc = K.run_trials(pos.array()[None, :].copy(), 0, r1, r2, seeds, 1, False, False, False, np.ones(1),
                      np.zeros(1, np.int64), False, *mc, R._STATE["ev"], R._STATE["ws"].args(),
                      K.new_cache(cache_bits), False, player_ply, PLAY_FILTER.count, PLAY_FILTER.threshold,
                      P is not None, out, plies, cf)
    assert rc == 0 and (plies == 1).all()
    return r1, out[:, 0]


def test_a_one_ply_player_plays_what_the_one_ply_ranking_puts_first(engine: Engine) -> None:
    # every roll of a holding game: the rollout's 1-ply player makes the play rank_plays at 1-ply (gnubg's play
    # filter) ranks first, the 0-ply player the 0-ply best; here they differ on several rolls
    r1, at1 = _first_plays(engine, MIDDLE, 1)
    _, at0 = _first_plays(engine, MIDDLE, 0)
    for i, r in enumerate(r1.tolist()):
        dice = (r // 6 + 1, r % 6 + 1)
        zero = {p.result.board: p for p in engine.rank_plays(MIDDLE, dice, 0)}
        for ply, got in ((0, at0), (1, at1)):
            best = engine.best_play(MIDDLE, dice, ply)
            np.testing.assert_allclose(got[i], zero[best.result.board].probabilities.outcomes(), atol=1e-6)
    assert sum(not np.array_equal(a, b) for a, b in zip(at0, at1, strict=True)) >= 3


def test_player_ply_is_0_or_1_and_standard_only() -> None:
    from analyzer.eval.variants.engine import engine_for

    with pytest.raises(ValueError, match="player_ply"):
        RolloutSettings(player_ply=2)
    with pytest.raises(ValueError, match="no player_ply"):
        rollout(engine_for("dutch"), Position.start("dutch"), RolloutSettings(trials=36, player_ply=1, workers=1))


@pytest.mark.integration
def test_a_one_ply_player_is_reproducible_and_its_cache_exact(engine: Engine) -> None:
    # the same seed, the same numbers with one worker or two; an evaluation cache of one slot or many: the same bits
    kw = {"trials": 72, "truncate": 5, "seed": 8, "player_ply": 1, "luck_prune": True, "cube_play": True}
    one = _rollout_kw(engine, MIDDLE, workers=1, **kw)
    assert _rollout_kw(engine, MIDDLE, workers=2, **kw).as_dict() == one.as_dict()
    assert one.as_dict() != _rollout_kw(engine, MIDDLE, workers=1, **{**kw, "player_ply": 0}).as_dict()
    for bits in (0, 3):
        for x, y in zip(_first_plays(engine, MIDDLE, 1, bits), _first_plays(engine, MIDDLE, 1), strict=True):
            assert np.array_equal(x, y)
