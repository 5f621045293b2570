"""The one-call 0-ply ranking (``engine._rank0``) and the engine's compiled 0-ply cache against the
separate steps they replace: the listing, the uncached evaluation of every result and ``_ranked``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from analyzer.core.position import Position
from analyzer.eval.engine import T0_START, Engine, _ranked
from analyzer.rules.standard import Standard

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def _positions(n: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``n`` positions of seeded random games (each with a seeded roll), finished games left out."""
    rng = np.random.default_rng(seed)
    rules = Standard()
    out: list[tuple[Position, tuple[int, int]]] = []
    pos = Position.start()
    while len(out) < n:
        roll = ROLLS[int(rng.integers(21))]
        out.append((pos, roll))
        plays = rules.legal_plays(pos, roll)
        nxt = plays[int(rng.integers(len(plays)))].result
        pos = Position.start() if rules.outcome(nxt) is not None else nxt.flip()
    return out


def _separately(eng: Engine, pos: Position, dice: tuple[int, int]) -> list[tuple[str, bytes, float, list[float]]]:
    """The 0-ply ranking from the listing, the uncached evaluations and ``_ranked``."""
    lst = Standard().listing(pos, dice)
    p0, _, eqs, order = _ranked(eng.evaluate_boards(np.ascontiguousarray(lst.flipped), 0), lst)
    return [(lst.text(i), lst.result(i).board, eqs[i], p0[i].tolist()) for i in order]


def _ranking(eng: Engine, pos: Position, dice: tuple[int, int]) -> list[tuple[str, bytes, float, list[float]]]:
    out = []
    for r in eng.rank_plays(pos, dice, 0):
        assert r.outcomes is not None and r.outcomes.dtype == np.float32
        out.append((r.play, r.result.board, r.equity, r.outcomes.tolist()))
    return out


@pytest.fixture(scope="module")
def cases() -> list[tuple[Position, tuple[int, int]]]:
    tie = Position.from_notation("P 6:2 5:2 4:2 3:3 2:3 1:3 | O 19:2 24:3")  # plays of equal equity
    race = Position.from_notation("P 6:5 5:5 4:5 | O 24:5 23:5 22:4 21:1")
    return [*_positions(150, 5), (tie, (6, 5)), (tie, (1, 1)), (race, (6, 6))]


def test_one_call_ranks_as_the_separate_steps(cases: list[tuple[Position, tuple[int, int]]]) -> None:
    eng = Engine()
    expected = [_separately(eng, p, d) for p, d in cases]
    assert [_ranking(eng, p, d) for p, d in cases] == expected  # evaluated
    kept = len(eng._t0)
    assert kept > 0
    assert [_ranking(eng, p, d) for p, d in cases] == expected  # from the table
    assert len(eng._t0) == kept


def test_the_table_serves_both_paths(cases: list[tuple[Position, tuple[int, int]]]) -> None:
    eng = Engine()
    pos, dice = cases[3]
    lst = Standard().listing(pos, dice)
    first = eng._cached(np.ascontiguousarray(lst.flipped), 0)  # kept under the hash the ranking looks up
    assert len(eng._t0) == len(lst)
    assert _ranking(eng, pos, dice) == _separately(eng, pos, dice)
    assert len(eng._t0) == len(lst)
    assert np.array_equal(eng._cached(np.ascontiguousarray(lst.flipped), 0), first)
    assert eng.evaluate(pos) == Engine().evaluate(pos)


def test_the_table_grows_starts_again_and_clears(cases: list[tuple[Position, tuple[int, int]]]) -> None:
    big = Engine()
    expected = [_separately(big, p, d) for p, d in cases]
    assert [_ranking(big, p, d) for p, d in cases] == expected
    assert big._t0.hashes.shape[0] > T0_START  # grown (rehashed) on the way
    assert [_ranking(big, p, d) for p, d in cases] == expected
    small = Engine(cache_size=40)
    assert [_ranking(small, p, d) for p, d in cases] == expected
    assert 0 < len(small._t0) <= 40 and small._t0.hashes.shape[0] == T0_START
    none = Engine(cache_size=0)
    assert [_ranking(none, p, d) for p, d in cases[:20]] == expected[:20]
    assert len(none._t0) == 0
    big.cache_size = 30
    assert len(big._t0) == 0
    big.clear_cache()
    assert len(big._t0) == 0 and big._t0.hashes.shape[0] == T0_START
    assert [_ranking(big, p, d) for p, d in cases[:20]] == expected[:20]


def test_deeper_rankings_start_from_the_one_call(cases: list[tuple[Position, tuple[int, int]]]) -> None:
    eng, fresh = Engine(), Engine()
    for pos, dice in cases[:4]:
        eng.rank_plays(pos, dice, 0)  # the 0-ply pass from the table
        a = [(r.play, r.equity, r.ply) for r in eng.rank_plays(pos, dice, 1)]
        assert a == [(r.play, r.equity, r.ply) for r in fresh.rank_plays(pos, dice, 1)]


def test_an_engine_still_pickles() -> None:
    eng = Engine()
    eng.rank_plays(Position.start(), (3, 1))
    copy = pickle.loads(pickle.dumps(eng))
    assert [r.play for r in copy.rank_plays(Position.start(), (4, 2))] == [
        r.play for r in eng.rank_plays(Position.start(), (4, 2))]
