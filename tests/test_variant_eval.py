"""The Dutch and Mahbusa evaluators: inputs, outcome model, search, engine surface."""

from __future__ import annotations

import multiprocessing
import random

import numpy as np
import pytest

from analyzer.core import layout as L
from analyzer.core.position import Position
from analyzer.eval import trials as T
from analyzer.eval.rollout import RolloutSettings, close_pool, rollout
from analyzer.eval.variants import features as V
from analyzer.eval.variants.engine import VariantEngine
from analyzer.eval.variants.model import POINTS, VariantNet, to_probabilities
from analyzer.rules import find_variant
from analyzer.rules.kernel import flip_into


def _enc(board: np.ndarray, code: int) -> np.ndarray:
    x = np.zeros(V.n_inputs(code), np.float32)
    V.encode(np.ascontiguousarray(board, dtype=np.int8), code, x)
    return x


def _board(text: str, variant: str) -> np.ndarray:
    return np.frombuffer(Position.from_notation(text, variant).board, np.int8).copy()


def _random_positions(variant: str, n: int, seed: int) -> list[Position]:
    """Positions from random games (before the roll), some of them finished."""
    rules = find_variant(variant)
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = rules.start()
        for _ in range(400):
            boards = rules.legal_results(pos, (rng.randint(1, 6), rng.randint(1, 6)))
            res = Position(boards[rng.randrange(len(boards))].tobytes(), variant)
            if rules.outcome(res) is not None:
                out.append(res)
                break
            pos = res.flip()
            if rng.random() < 0.1:
                out.append(pos)
    return out[:n]


@pytest.fixture(scope="module")
def engines() -> dict[str, VariantEngine]:
    return {v: VariantEngine(v, VariantNet.initial(v, hidden=16, seed=5)) for v in ("dutch", "mahbusa")}


# ------------------------------------------------------------------------------------- inputs
@pytest.mark.parametrize("slot", [L.MOVER_RES, L.OPP_RES])
def test_dutch_inputs_see_each_reserve(slot: int) -> None:
    b = _board("P 20:1 | O 16:1 | res P14 O14", "dutch")
    c = b.copy()
    c[slot] -= 3
    assert not np.array_equal(_enc(b, V.VAR_DUTCH), _enc(c, V.VAR_DUTCH))


@pytest.mark.parametrize("slot", [L.MOVER_CAN_HIT, L.OPP_CAN_HIT])
def test_dutch_inputs_see_each_hitting_lock(slot: int) -> None:
    b = _board("P 20:1 | O 16:1 | res P14 O14", "dutch")
    c = b.copy()
    c[slot] = 1 - c[slot]
    assert not np.array_equal(_enc(b, V.VAR_DUTCH), _enc(c, V.VAR_DUTCH))


def test_dutch_inputs_are_symmetric_in_the_sides() -> None:
    b = _board("P 20:2 13:1 | O 16:1 22:2 | res P12 O12", "dutch")
    b[L.MOVER_CAN_HIT] = 1
    b[L.OPP_CAN_HIT] = 0
    f = np.zeros_like(b)
    flip_into(b, f)
    x, y = _enc(b, V.VAR_DUTCH), _enc(f, V.VAR_DUTCH)
    k = V.DUTCH_BASE
    s = V.DUTCH_SIDE
    assert np.array_equal(x[k:k + s], y[k + s:k + 2 * s])
    assert x[k + V.D_CAN_HIT] == 1.0 and x[k + s + V.D_CAN_HIT] == 0.0


@pytest.mark.parametrize("text", ["P 14:1 10:1+o 1:13 | O 21:14", "P 14:1 1:13 | O 21:14 10:1+p"])
def test_mahbusa_inputs_see_who_is_pinned_where(text: str) -> None:
    b = _board(text, "mahbusa")
    free = b.copy()
    free[L.PIN0 + 10] = 0
    x, y = _enc(b, V.VAR_MAHBUSA), _enc(free, V.VAR_MAHBUSA)
    assert not np.array_equal(x, y)
    pinned_mover = x[V.M_PINNED:V.M_PINNED + 24].sum()
    pinned_opp = x[V.MAHBUSA_SIDE + V.M_PINNED:V.MAHBUSA_SIDE + V.M_PINNED + 24].sum()
    assert (pinned_mover, pinned_opp) == ((0.0, 1.0) if "+o" in text else (1.0, 0.0))


def test_mahbusa_inputs_see_the_mothers() -> None:
    alone = _enc(_board("P 24:1 8:13 3:1 | O 20:14 1:1", "mahbusa"), V.VAR_MAHBUSA)
    pinned = _enc(_board("P 8:13 3:1 | O 24:1+p 20:13 1:1", "mahbusa"), V.VAR_MAHBUSA)
    gone = _enc(_board("P 8:14 3:1 | O 20:14 1:1", "mahbusa"), V.VAR_MAHBUSA)
    assert alone[V.M_MOTHER_ALONE] == 1.0 and alone[V.M_MOTHER_SHOTS] > 0.0
    assert pinned[V.M_MOTHER_PINNED] == 1.0 and pinned[V.M_MOTHER_ALONE] == 0.0
    assert gone[V.M_MOTHER_GONE] == 1.0
    # the opponent's mother (alone on our 1-point) is seen in its block
    assert alone[V.MAHBUSA_SIDE + V.M_MOTHER_ALONE] == 1.0


def test_classes() -> None:
    race = _board("P 6:5 5:5 4:5 | O 19:5 20:5 21:5", "mahbusa")
    assert V.classify(race, V.VAR_MAHBUSA) == V.CLASS_RACE
    pinned = _board("P 6:5 5:5 4:4 3:1+o | O 19:5 20:5 21:4", "mahbusa")
    assert V.classify(pinned, V.VAR_MAHBUSA) == V.CLASS_CONTACT
    reserve = _board("P 6:5 5:5 4:4 | O 19:5 20:5 21:5 | res P1", "dutch")
    assert V.classify(reserve, V.VAR_DUTCH) == V.CLASS_CONTACT


# ------------------------------------------------------------------------------------- outcome model
@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_probabilities_sum_to_one_and_respect_impossible_outcomes(engines: dict[str, VariantEngine],
                                                                  variant: str) -> None:
    eng = engines[variant]
    for pos in _random_positions(variant, 60, seed=11):
        p = eng.evaluate(pos)
        assert abs(p.win + p.lose + p.draw - 1.0) < 1e-5
        assert p.win_backgammon == 0.0 and p.lose_backgammon == 0.0
        assert -1e-6 <= p.win_gammon <= p.win + 1e-6 and -1e-6 <= p.lose_gammon <= p.lose + 1e-6
        if variant == "dutch":
            assert p.draw == 0.0
        if pos.opponent_off > 0:
            assert p.win_gammon == 0.0  # no mars once the loser has borne off
        if pos.mover_off > 0:
            assert p.lose_gammon == 0.0
        if pos.mover_off > 0 or pos.opponent_off > 0:
            assert p.draw == 0.0
        eq = p.win - p.lose + p.win_gammon - p.lose_gammon
        assert abs(p.equity - eq) < 1e-6


def test_draw_only_in_mahbusa_and_only_while_both_mothers_can_be_pinned(engines: dict[str, VariantEngine]) -> None:
    eng = engines["mahbusa"]
    both = eng.evaluate(Position.from_notation("P 24:1 8:13 3:1 | O 20:14 1:1", "mahbusa"))
    assert both.draw > 0.0
    gone = eng.evaluate(Position.from_notation("P 8:14 3:1 | O 20:14 1:1", "mahbusa"))
    assert gone.draw == 0.0


def test_a_pinned_mother_leaves_only_the_two_point_result_or_the_draw(engines: dict[str, VariantEngine]) -> None:
    eng = engines["mahbusa"]
    # our mother is pinned on our 24-point: we can neither bear off nor win; a draw if we pin theirs
    pos = Position.from_notation("P 8:13 3:1 | O 24:1+p 20:13 1:1", "mahbusa")
    for ply in (0, 1):
        p = eng.evaluate(pos, ply=ply)
        assert p.win == 0.0
        assert abs(p.lose_gammon + p.draw - 1.0) < 1e-6
        assert p.draw > 0.0
        # seen from the side whose checker pins it: only "win 2" or the draw
        q = eng.evaluate(pos.flip(), ply=ply)
        assert q.lose == 0.0 and abs(q.win_gammon - q.win) < 1e-6


def test_finished_games_are_exact(engines: dict[str, VariantEngine]) -> None:
    d = engines["dutch"]
    mars = d.evaluate(Position.from_notation("P | O 19:14 | off P15 | res O1", "dutch"))
    assert (mars.win, mars.win_gammon, mars.equity) == (1.0, 1.0, 2.0)
    single = d.evaluate(Position.from_notation("P 2:1 | O | off P14 O15", "dutch"))
    assert (single.win, single.lose_gammon, single.equity) == (0.0, 0.0, -1.0)
    m = engines["mahbusa"]
    rules = find_variant("mahbusa")
    # M11: both mothers pinned -> draw
    pos = Position.from_notation("P 8:13 3:1 | O 24:1+p 20:13 1:1", "mahbusa")
    draws = [Position(b.tobytes(), "mahbusa") for b in rules.legal_results(pos, (2, 1)) if b[L.GAME_END]]
    assert draws
    for r in draws:
        p = m.evaluate(r)
        assert p.draw == 1.0 and p.equity == 0.0
        q = m.evaluate(r.flip())
        assert q.draw == 1.0
    # M08: the mother win scores 2
    pos = Position.from_notation("P 8:14 3:1 | O 20:14 1:1", "mahbusa")
    wins = [Position(b.tobytes(), "mahbusa") for b in rules.legal_results(pos, (2, 1)) if b[L.GAME_END]]
    assert wins and all(m.evaluate(r).equity == 2.0 for r in wins)
    assert all(m.evaluate(r.flip()).equity == -2.0 for r in wins)


def test_to_probabilities_mapping() -> None:
    p = to_probabilities([0.1, 0.2, 0.3, 0.15, 0.25])
    assert abs(p.win - 0.3) < 1e-12 and abs(p.lose - 0.45) < 1e-12 and abs(p.draw - 0.25) < 1e-12
    assert abs(p.equity - (0.1 + 0.4 - 0.3 - 0.3)) < 1e-12
    f = p.flip()
    assert abs(f.win - 0.45) < 1e-12 and f.draw == p.draw and abs(f.equity + p.equity) < 1e-12


# ------------------------------------------------------------------------------------- search and plays
@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_rank_plays_best_first_and_complete(engines: dict[str, VariantEngine], variant: str) -> None:
    eng = engines[variant]
    rules = find_variant(variant)
    rng = random.Random(3)
    for pos in _random_positions(variant, 12, seed=4):
        if rules.outcome(pos) is not None:
            continue
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = eng.rank_plays(pos, dice)
        eqs = [r.equity for r in plays]
        assert eqs == sorted(eqs, reverse=True)
        got = sorted(r.result.board for r in plays)
        want = sorted(b.tobytes() for b in rules.legal_results(pos, dice))
        assert got == want
        # each play's value is the opponent's evaluation of the result, seen from the mover
        r0 = plays[0]
        if rules.outcome(r0.result) is None:
            assert abs(r0.equity + eng.evaluate(r0.result.flip()).equity) < 1e-5


@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_one_ply_is_the_mean_over_rolls_of_the_best_zero_ply_play(engines: dict[str, VariantEngine],
                                                                   variant: str) -> None:
    eng = engines[variant]
    pos = [p for p in _random_positions(variant, 20, seed=8) if find_variant(variant).outcome(p) is None][3]
    want = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            best = eng.rank_plays(pos, (d1, d2))[0]
            want += (1 if d1 == d2 else 2) / 36 * best.equity
    assert abs(eng.evaluate(pos, ply=1).equity - want) < 1e-4


@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_two_ply_is_the_mean_over_rolls_of_the_one_ply_value_after_the_best_play(engines: dict[str, VariantEngine],
                                                                                 variant: str) -> None:
    eng = engines[variant]
    rules = find_variant(variant)
    pos = [p for p in _random_positions(variant, 20, seed=9) if rules.outcome(p) is None][5]
    want = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            best = eng.rank_plays(pos, (d1, d2))[0]
            value = best.equity if rules.outcome(best.result) is not None else \
                -eng.evaluate(best.result.flip(), ply=1).equity
            want += (1 if d1 == d2 else 2) / 36 * value
    assert abs(eng.evaluate(pos, ply=2).equity - want) < 1e-4


def test_two_ply_and_ranking_at_one_ply(engines: dict[str, VariantEngine]) -> None:
    eng = engines["mahbusa"]
    pos = Position.from_notation("P 24:13 20:1 18:1 | O 17:1 1:14", "mahbusa")
    p2 = eng.evaluate(pos, ply=2)
    assert abs(p2.win + p2.lose + p2.draw - 1.0) < 1e-5
    plays = eng.rank_plays(pos, (3, 1), ply=1)
    assert plays[0].ply == 1
    deep = [r.equity for r in plays if r.ply == 1]
    assert deep == sorted(deep, reverse=True)


def test_a_search_shared_by_workers_gives_one_process_numbers_and_keeps_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # a review's first pass shares each batch of its 1- and 2-ply evaluations between two processes,
    # the very ones its confirmation rollouts use next: the numbers stay those of one process
    import analyzer.eval.variants.engine as E

    monkeypatch.setattr(E, "usable_cores", lambda: 2)  # two workers even on one core
    monkeypatch.setattr(T, "usable_cores", lambda: 2)
    close_pool()
    variant = "mahbusa"
    net = VariantNet.initial(variant, hidden=16, seed=5)
    one, two = VariantEngine(variant, net), VariantEngine(variant, net, workers=2)
    assert two.workers == 2
    boards = np.stack([np.frombuffer(p.board, np.int8) for p in _random_positions(variant, 5, seed=3)])
    for ply, some in ((1, boards), (2, boards[:2])):
        want = one.evaluate_boards(some, ply)
        assert two.evaluate_boards(some, ply).tobytes() == want.tobytes()
    workers = {p.pid for p in multiprocessing.active_children()}
    assert len(workers) == 2
    assert two.evaluate_boards(boards[:1], 2).tobytes() == want[:1].tobytes()  # one board: here
    pos = Position.from_notation("P 1:2 2:1 5:2 | O 24:2 23:1 20:2 | off P10 O10", variant)  # a race: short games
    r = rollout(two, pos, RolloutSettings(trials=72, seed=1, workers=2, max_plays=2), dice=(4, 3))
    assert {p.pid for p in multiprocessing.active_children()} == workers  # the rollout's workers too
    alone = rollout(one, pos, RolloutSettings(trials=72, seed=1, workers=1, max_plays=2), dice=(4, 3))
    assert [c.as_dict() for c in r.candidates] == [c.as_dict() for c in alone.candidates]
    close_pool()


def test_engine_rejects_other_variants(engines: dict[str, VariantEngine]) -> None:
    with pytest.raises(ValueError):
        engines["dutch"].evaluate(Position.start("mahbusa"))
    with pytest.raises(ValueError):
        VariantEngine("dutch", VariantNet.initial("mahbusa", hidden=4))


def test_points_vector() -> None:
    assert POINTS.tolist() == [1.0, 2.0, -1.0, -2.0, 0.0]


# ------------------------------------------------------------------------------------- duels
@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_compiled_heuristic_scores_as_the_yardstick(variant: str) -> None:
    from analyzer.eval.heuristic import score_results
    from analyzer.eval.variants.play import heuristic_score

    rules = find_variant(variant)
    rng = random.Random(21)
    checked = 0
    for pos in _random_positions(variant, 40, seed=31):
        if rules.outcome(pos) is not None:
            continue
        boards = rules.legal_results(pos, (rng.randint(1, 6), rng.randint(1, 6)))
        want = score_results(boards, rules)
        got = np.array([heuristic_score(b, rules.code) for b in boards])
        assert np.allclose(got, want), (pos.to_notation(), got, want)
        checked += len(boards)
    assert checked > 100


def test_compiled_duel_is_duplicate_and_scores_both_sides() -> None:
    from analyzer.eval.variants.play import duel_outcomes

    pts, outs = duel_outcomes("mahbusa", "heuristic", "heuristic", pairs=6, seed=2)
    assert np.all(pts.reshape(-1, 2).sum(axis=1) == 0)  # the same player on the same dice: mirrored games
    pts, outs = duel_outcomes("dutch", "heuristic", "random", pairs=8, seed=2)
    assert pts.mean() > 1.0 and set(outs.tolist()) <= {0, 1, 2, 3}


@pytest.mark.integration
def test_latin_rollout_stratifies_both_first_rolls_and_is_a_reordering_of_the_full_one() -> None:
    from analyzer.eval.selfplay import game_seed
    from analyzer.eval.variants.play import GameBuffers, net_rollout, play_seeded

    vn = VariantNet.load("data/nets/mahbusa.npz")
    buf = GameBuffers()
    n, _ = play_seeded(vn, game_seed(3, 1), 0.0, buf)
    pos = Position(buf.states[max(n - 12, 0)].tobytes(), "mahbusa")  # near the end: short trials
    full = net_rollout(vn, pos, 1296, seed=11)
    for latin in (0, 17):  # 1,296 latin trials are the same trials in another order
        assert np.array_equal(net_rollout(vn, pos, 1296, seed=11, latin=latin)[2], full[2])
    short = net_rollout(vn, pos, 36, seed=11, latin=5)
    assert short[2].sum() == 36 and not np.array_equal(short[2] * 36, full[2])
