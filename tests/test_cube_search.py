"""The n-ply cubeful search (analyzer/eval/cube_search.py: cubeful_search, cube_decision_nply) and its
compiled Janowski kernel (analyzer/eval/_cube_kernel.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.core.match import MatchState, take
from analyzer.core.position import Position
from analyzer.eval import _cube_kernel as K
from analyzer.eval.cube import analyze_cube, cube_decision, cube_life_of, cube_tables
from analyzer.eval.cube_search import cube_decision_nply, cubeful_search
from analyzer.eval.engine import Engine
from analyzer.eval.met import met_by_name, outcome_mwc
from analyzer.eval.probabilities import Probabilities
from analyzer.rules.standard import Standard

KXG = met_by_name("kazaross-xg2")

STATES = [
    MatchState(), MatchState(cube=2, cube_owner=0), MatchState(cube=4, cube_owner=1), MatchState(jacoby=True),
    MatchState(beavers=True), MatchState(cube=2, cube_owner=0, cube_limit=4), MatchState(jacoby=True, beavers=True),
    MatchState(length=7, score=(3, 5)), MatchState(length=7, score=(5, 5), cube=2, cube_owner=1),
    MatchState(length=7, score=(6, 3), crawford=True), MatchState(length=7, score=(6, 3), post_crawford=True),
    MatchState(length=7, score=(3, 6), post_crawford=True), MatchState(length=7, score=(6, 6), post_crawford=True),
    MatchState(length=5, score=(3, 3), cube=2, cube_owner=0), MatchState(length=25), MatchState(length=3, score=(1, 0)),
]

TINY = Position.from_points({6: 1, 4: 1}, {19: 1, 21: 1})  # every play is a bear-off race (two-sided database)
RACE_DT = Position.from_points({6: 3, 5: 3, 4: 3, 8: 3, 9: 3}, {19: 3, 20: 3, 21: 3, 16: 2, 15: 3, 14: 1})
RACE_RD = Position.from_points({6: 4, 5: 4, 4: 4, 7: 3}, {19: 3, 20: 3, 21: 3, 18: 3, 17: 3})  # 11% ahead
RACE_DP = Position.from_points({6: 4, 5: 4, 4: 4, 3: 3}, {19: 3, 20: 3, 21: 3, 18: 3, 17: 3})
BLITZ = Position.from_points({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 8: 2}, {12: 5, 17: 3, 19: 2, 20: 2, 22: 1},
                             opponent_bar=2)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _positions(count: int, seed: int) -> list[Position]:
    """Positions before the roll from seeded random play (contact, races, bear-offs)."""
    rules = Standard()
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    while len(out) < count:
        p = Position.start()
        for _ in range(int(rng.integers(1, 80))):
            plays = rules.legal_plays(p, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
            q = plays[int(rng.integers(len(plays)))].result
            if q.pips()[0] == 0:
                break
            p = q.flip()
        out.append(p)
    return out


# ---------------------------------------------------------------------- the compiled model
def _kernel_equals_the_python_model(raw: list[float], state: MatchState, player: int, x: float) -> None:
    o = np.array(raw, np.float32)
    pr = Probabilities.of(Probabilities.from_outcomes(o.tolist()), clamp=True)
    d = cube_decision(pr, state, player, cube_life=x, met=KXG)
    vt, may = cube_tables(state, player, met=KXG, levels=3)
    owner = 0 if state.cube_owner is None else (1 if state.cube_owner == player else 2)
    out = np.zeros(3)
    K.cube_values(o, x, vt[0], may[0], 0, owner, state.jacoby_active, state.crawford, out)
    money = state.is_money
    assert out[0] == (d.nd * state.cube if money else d.nd_mwc)
    if d.available and not d.beaver:
        assert out[1] == (d.dt * state.cube if money else d.dt_mwc)
        assert out[2] == (d.dp * state.cube if money else d.dp_mwc)


# Cube lives: a dead cube (0) and any life from 1e-300 up. Below that the values underflow to subnormal
# numbers, where the compiled and the interpreted arithmetic were seen to differ in the last bit
# (x = 2.2e-308: -1.4833825723381344e-308 against -1.483382572338135e-308); cube_life_of never gives one.
_MODEL_INPUTS = given(st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6).filter(lambda v: sum(v) > 0.01),
                      st.sampled_from(STATES), st.integers(0, 1), st.one_of(st.just(0.0), st.floats(1e-300, 1.0)))
# the default tier tries 50 examples; the integration tier the full 300
test_kernel_equals_the_python_model = settings(max_examples=50, deadline=None)(
    _MODEL_INPUTS(_kernel_equals_the_python_model))
test_kernel_equals_the_python_model_300 = pytest.mark.integration(settings(max_examples=300, deadline=None)(
    _MODEL_INPUTS(_kernel_equals_the_python_model)))


@pytest.mark.parametrize("count", [40, pytest.param(150, marks=pytest.mark.integration)])
def test_kernel_cube_life_is_cube_life_of(count: int) -> None:
    for p in _positions(count, 3):
        assert K.cube_life(np.frombuffer(p.board, np.int8)) == cube_life_of(p)


# ---------------------------------------------------------------------- the search
def test_zero_ply_is_the_root_conversion_exactly(engine: Engine) -> None:
    for p in [Position.start(), RACE_DT, BLITZ, TINY, *_positions(12, 5)]:
        for state in STATES:
            for player in (0, 1):
                a = cube_decision_nply(engine, p, state, player, 0, met=KXG)
                b = analyze_cube(p, state, player, lambda q: engine.evaluate(q, 0), met=KXG)
                assert a == b


def _side_value(engine: Engine, pos: Position, state: MatchState, side: int) -> float:
    """By hand: the 0-ply cube decision of ``side`` on roll in ``pos`` valued at its proper action
    (money: points; match: MWC)."""
    d = cube_decision(engine.evaluate(pos, 0), state, side, cube_life=cube_life_of(pos), met=KXG)
    if state.is_money:
        return d.best * state.cube
    assert d.nd_mwc is not None
    if not d.available:
        return d.nd_mwc
    assert d.dt_mwc is not None and d.dp_mwc is not None
    return max(d.nd_mwc, min(d.dt_mwc, d.dp_mwc))


def _by_hand(engine: Engine, pos: Position, state: MatchState, player: int) -> float:
    """1-ply value for ``player`` not doubling: the mean over the 21 rolls of the best 0-ply play's
    result -- the game's result when it bears off its last checker, else minus (money) or one minus
    (match) the opponent's 0-ply cube-decision value."""
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            res = engine.rank_plays(pos, (d2, d1), 0)[0].result
            if res.pips()[0] == 0:
                assert res.opponent_off > 0  # no gammons in these positions
                v = float(state.cube) if state.is_money else outcome_mwc(KXG, state, player)(state.cube)
            else:
                opp = _side_value(engine, res.flip(), state, 1 - player)
                v = -opp if state.is_money else 1.0 - opp
            total += (1.0 if d1 == d2 else 2.0) * v
    return total / 36.0


@pytest.mark.parametrize("state", [MatchState(), MatchState(cube=2, cube_owner=0), MatchState(length=5, score=(2, 3)),
                                   MatchState(length=5, score=(3, 1), cube=2, cube_owner=1),
                                   MatchState(length=5, score=(4, 2), post_crawford=True)])
def test_one_ply_is_the_hand_computation_over_21_rolls(engine: Engine, state: MatchState) -> None:
    for player in (0, 1):
        r = cubeful_search(engine, TINY, state, player, 1, met=KXG)
        assert r.nd == pytest.approx(_by_hand(engine, TINY, state, player), abs=1e-12)
        if r.dt is not None:
            assert r.dt == pytest.approx(_by_hand(engine, TINY, take(state, 1 - player), player), abs=1e-12)
            assert r.dp == (state.cube if state.is_money else outcome_mwc(KXG, state, player)(state.cube))


@pytest.mark.parametrize("ply", [1, 2])
def test_cubeless_part_is_the_engines_nply(engine: Engine, ply: int) -> None:
    for p in [Position.start(), RACE_DT, *_positions(3, 8)]:
        got = cubeful_search(engine, p, MatchState(), 0, ply).probabilities
        want = engine.evaluate(p, ply)
        assert got.win == pytest.approx(want.win, abs=1e-6)
        assert got.win_gammon == pytest.approx(want.win_gammon, abs=1e-6)
        assert got.lose_gammon == pytest.approx(want.lose_gammon, abs=1e-6)


@pytest.mark.parametrize("ply", [1, 2])
def test_textbook_positions(engine: Engine, ply: int) -> None:
    assert cube_decision_nply(engine, Position.start(), MatchState(), 0, ply).action == "no double, take"
    assert cube_decision_nply(engine, RACE_DT, MatchState(), 0, ply).action == "double, take"  # 8% ahead
    assert cube_decision_nply(engine, RACE_DP, MatchState(), 0, ply).action == "double, pass"  # 30% ahead
    assert cube_decision_nply(engine, BLITZ, MatchState(), 0, ply).action == "too good to double, pass"
    owned = MatchState(cube=2, cube_owner=0)
    assert cube_decision_nply(engine, RACE_DT, owned, 0, ply).action == "no redouble, take"  # 8-9-12 rule
    assert cube_decision_nply(engine, RACE_RD, owned, 0, ply).action == "redouble, take"
    assert not cube_decision_nply(engine, RACE_DT, MatchState(cube=2, cube_owner=1), 0, ply).available


@pytest.mark.parametrize("ply", [1, 2])
def test_long_match_at_zero_zero_decides_like_money(engine: Engine, ply: int) -> None:
    for p in (Position.start(), RACE_DT, RACE_DP, BLITZ):
        money = cube_decision_nply(engine, p, MatchState(), 0, ply)
        match = cube_decision_nply(engine, p, MatchState(length=25), 0, ply, met=KXG)
        assert match.action == money.action
        assert match.nd == pytest.approx(money.nd, abs=0.05)


@pytest.mark.parametrize("ply", [1, 2])
def test_dmp_cube_is_dead_value_is_cubeless(engine: Engine, ply: int) -> None:
    dmp = MatchState(length=7, score=(6, 6), post_crawford=True)
    for p in (Position.start(), RACE_DT, BLITZ):
        r = cubeful_search(engine, p, dmp, 0, ply, met=KXG)
        assert r.nd == pytest.approx(r.probabilities.win, abs=1e-9)
        assert r.dt == pytest.approx(r.nd, abs=1e-9)  # a cube of 2 at DMP changes nothing
        assert cube_decision_nply(engine, p, dmp, 0, ply, met=KXG).action.startswith(("never", "double, pass"))


@pytest.mark.parametrize("ply", [1, 2])
def test_crawford_value_is_the_expected_mwc_of_the_nply_chances(engine: Engine, ply: int) -> None:
    state = MatchState(length=7, score=(4, 6), crawford=True)
    v = outcome_mwc(KXG, state, 0)
    for p in (Position.start(), BLITZ):
        r = cubeful_search(engine, p, state, 0, ply, met=KXG)
        o = Probabilities(*r.probabilities.as_tuple()).outcomes()
        want = sum(q * v(k) for q, k in zip(o, (1, 2, 3, -1, -2, -3), strict=True))
        assert r.dt is None and r.nd == pytest.approx(want, abs=1e-9)


def test_jacoby_and_beavers_in_the_search(engine: Engine) -> None:
    # Jacoby: a gammonish position cashes instead of playing on (gammons count only after a double)
    assert cube_decision_nply(engine, BLITZ, MatchState(jacoby=True), 0, 1).action == "double, pass"
    # beavers: a double by the side behind in a race is beavered
    d = cube_decision_nply(engine, RACE_DT.flip(), MatchState(beavers=True), 1, 1)
    plain = cube_decision_nply(engine, RACE_DT.flip(), MatchState(), 1, 1)
    assert d.beaver and d.action == "no double, beaver"
    assert d.dt is not None and plain.dt is not None and d.dt < plain.dt < 0


def test_search_rejects_bad_input(engine: Engine) -> None:
    with pytest.raises(ValueError, match="ply"):
        cubeful_search(engine, Position.start(), MatchState(), 0, 4)
    with pytest.raises(ValueError, match="over"):
        cubeful_search(engine, Position.from_points({}, {19: 1}, mover_off=15), MatchState(), 0, 1)


SHORT_MATCH = """ 5 point match

 Game 1
 Anna : 0                 Bert : 0
  1) 31: 8/5 6/5                    42: 8/4 6/4
  2) 65: 24/13                      66: 24/18(2) 13/7(2)
  3)  Doubles => 2                  Takes
  4) 54: 13/8 13/9                  21: 13/11 6/5
"""


def test_the_analysis_decides_the_cube_with_the_search(engine: Engine, tmp_path: Path) -> None:
    import polars as pl

    from analyzer.analysis.analyze import analyze_match
    from analyzer.core.ids import parse_position_spec
    from analyzer.formats import read_any

    f = tmp_path / "short.mat"
    f.write_text(SHORT_MATCH, encoding="utf-8")
    [record] = list(read_any(str(f)))
    rows = analyze_match(record, engine=engine, ply=1).decisions.filter(pl.col("kind") == "cube")
    assert rows.height >= 2
    for r in rows.iter_rows(named=True):
        spec = parse_position_spec(f"{r['position_id']}:{r['match_id']}")
        assert spec.match is not None and spec.on_roll is not None
        d = cube_decision_nply(engine, spec.position, spec.match, spec.on_roll, 1, met=KXG)
        assert r["cube_nd"] == pytest.approx(d.nd, abs=1e-9) and r["cube_action"] == d.action


@pytest.mark.parametrize("state", [MatchState(), MatchState(length=7, score=(3, 5)),
                                   MatchState(jacoby=True, beavers=True)])
def test_threaded_tree_is_the_serial_tree(engine: Engine, state: MatchState) -> None:
    """A 2-ply search builds its tree on the engine's threads (``build_tree_parallel``); the values
    are the one-thread tree's to the last bit."""
    if engine.threads < 2:
        pytest.skip("one numba thread: no threaded path to compare")
    positions = [*_positions(6, 11), BLITZ, RACE_DT, TINY]
    threads = engine.threads
    try:
        engine.threads = 1
        serial = [cubeful_search(engine, p, state, 0, 2) for p in positions]
    finally:
        engine.threads = threads
    assert [cubeful_search(engine, p, state, 0, 2) for p in positions] == serial
