"""Tests of the bear-off databases (analyzer.eval.bearoff).

The databases are built once per test session into a temporary cache, so the tests also cover
generation. Reference values come from hand calculation and from a small, independent expectimax
written here on top of the rules engine's general move generator (exact fractions).
"""

from __future__ import annotations

import doctest
import itertools
import os
from collections.abc import Iterator
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from numba import njit

from analyzer.core.position import Position
from analyzer.eval import _bearoff_gen as G
from analyzer.eval import bearoff as B
from analyzer.rules.standard import Standard

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
WEIGHT = {r: Fraction(1 if r[0] == r[1] else 2, 36) for r in ROLLS}


@pytest.fixture(scope="module", autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    d = str(tmp_path_factory.mktemp("bgcache"))
    old = os.environ.get("BGREVIEW_CACHE")
    os.environ["BGREVIEW_CACHE"] = d
    yield d
    if old is None:
        del os.environ["BGREVIEW_CACHE"]
    else:
        os.environ["BGREVIEW_CACHE"] = old


@pytest.fixture(scope="module")
def os_db(_cache: str) -> B.OneSidedDB:
    return B.BearoffDB.one_sided()


@pytest.fixture(scope="module")
def ts_db(_cache: str) -> B.TwoSidedDB:
    return B.BearoffDB.two_sided()


def pos_of(mover: tuple[int, ...], opp: tuple[int, ...]) -> Position:
    """Mover side and opponent side (each 6 counts, own points 1..6) as a Position."""
    return Position.from_points({p + 1: n for p, n in enumerate(mover) if n},
                                {24 - p: n for p, n in enumerate(opp) if n})


def sides_upto(n: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(n + 1), repeat=6) if sum(c) <= n]


# ------------------------------------------------------------------ independent reference
_STD = Standard()
_FAR = {24: 15}  # the opponent on his 1-point: no contact, never in the way


@cache
def ref_results(side: tuple[int, ...], roll: tuple[int, int]) -> tuple[tuple[int, ...], ...]:
    """Distinct resulting sides of a roll, from the rules engine's general generator."""
    pos = Position.from_points({p + 1: n for p, n in enumerate(side) if n}, _FAR)
    out = {tuple(int(v) for v in row[1:7]) for row in _STD.legal_results(pos, roll)}
    return tuple(sorted(out))


@cache
def ref_mean(side: tuple[int, ...]) -> Fraction:
    if sum(side) == 0:
        return Fraction(0)
    return 1 + sum(WEIGHT[r] * min(ref_mean(s) for s in ref_results(side, r)) for r in ROLLS)


@cache
def ref_dist(side: tuple[int, ...]) -> tuple[Fraction, ...]:
    """Rolls distribution under the mean-minimising play (ties go to the lowest DB index)."""
    out = [Fraction(0)] * 12
    if sum(side) == 0:
        out[0] = Fraction(1)
        return tuple(out)
    for r in ROLLS:
        best = min(ref_results(side, r), key=lambda s: (ref_mean(s), B.OneSidedDB.index(s)))
        sub = ref_dist(best)
        for k in range(1, 12):
            out[k] += WEIGHT[r] * sub[k - 1]
    return tuple(out)


@cache
def ref_win(x: tuple[int, ...], y: tuple[int, ...]) -> Fraction:
    """Exact cubeless P(win) of the side on roll holding x against y."""
    if sum(x) == 0:
        return Fraction(1)
    if sum(y) == 0:
        return Fraction(0)
    return sum((WEIGHT[r] * max(1 - ref_win(y, s) for s in ref_results(x, r)) for r in ROLLS), Fraction(0))


@cache
def ref_cube(x: tuple[int, ...], y: tuple[int, ...], state: int) -> Fraction:
    """Money equity per unit cube; state 0 centred, 1 owned by the roller, 2 owned by the other."""
    if sum(x) == 0:
        return Fraction(1)
    if sum(y) == 0:
        return Fraction(-1)
    flip = (0, 2, 1)

    def nd(st: int) -> Fraction:
        return sum((WEIGHT[r] * max(-ref_cube(y, s, flip[st]) for s in ref_results(x, r)) for r in ROLLS),
                   Fraction(0))

    if state == 2:
        return nd(2)
    return max(nd(state), min(Fraction(1), 2 * nd(2)))


# ------------------------------------------------------------------ indexing and move generation
def test_index_is_a_bijection_and_small_sides_come_first() -> None:
    sides = G.all_sides(15)
    assert sides.shape == (54264, 6)
    assert len({tuple(r) for r in sides.tolist()}) == 54264
    idx = [G.side_index(sides[i].astype(np.int64)) for i in range(0, 54264, 97)]
    assert idx == list(range(0, 54264, 97))
    counts = sides.sum(axis=1)
    assert counts.max() == 15
    assert np.all(counts[:924] <= 6) and np.all(counts[924:] > 6)
    assert np.all(counts[:28] <= 2) and np.all(counts[28:] > 2)  # C(8, 6) = 28


def test_board_indices_read_both_sides() -> None:
    pos = pos_of((1, 0, 2, 0, 0, 3), (0, 4, 0, 0, 1, 0))
    board = np.frombuffer(pos.board, dtype=np.int8)
    assert B.mover_index(board) == B.OneSidedDB.index([1, 0, 2, 0, 0, 3])
    assert B.opponent_index(board) == B.OneSidedDB.index([0, 4, 0, 0, 1, 0])
    assert B.sides_of(pos) == ((1, 0, 2, 0, 0, 3), (0, 4, 0, 0, 1, 0))


def test_bearoff_class() -> None:
    def cls(p: Position) -> int:
        return int(B.bearoff_class(np.frombuffer(p.board, dtype=np.int8)))

    assert cls(pos_of((6, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 6))) == 2
    assert cls(pos_of((7, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 6))) == 1
    assert cls(Position.from_points({7: 1}, {24: 1})) == 0
    assert cls(Position.from_points({6: 1}, {18: 1})) == 0
    assert cls(Position.from_points({6: 1}, {24: 1}, mover_bar=1)) == 0
    assert cls(Position.start()) == 0
    with pytest.raises(ValueError):
        B.sides_of(Position.start())


def _rng_sides(n: int, seed: int) -> list[tuple[int, ...]]:
    rng = np.random.default_rng(seed)
    out: list[tuple[int, ...]] = []
    while len(out) < n:
        total = int(rng.integers(1, 16))
        c = np.bincount(rng.integers(0, 6, size=total), minlength=6)
        mask = rng.random(6) < 0.5  # empty some points so that "highest point" cases are common
        c = np.where(mask, 0, c)
        if c.sum() > 0:
            out.append(tuple(int(v) for v in c))
    return out


def test_bearoff_generator_matches_the_rules_engine() -> None:
    buf = np.zeros(128, dtype=np.int64)
    cases = _rng_sides(150, 7) + [(0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15),
                                  (2, 0, 0, 0, 0, 1), (0, 0, 0, 1, 0, 0), (5, 5, 5, 0, 0, 0)]
    for side in cases:
        for roll in ROLLS:
            n = G.bearoff_results(np.array(side, dtype=np.int64), roll[0], roll[1], buf)
            ours: set[tuple[int, ...]] = set()
            c = np.zeros(6, dtype=np.int64)
            for t in range(n):
                G.side_counts(int(buf[t]), c)
                ours.add(tuple(int(v) for v in c))
            assert ours == set(ref_results(side, roll)), (side, roll)


# ------------------------------------------------------------------ one-sided: hand cases
def test_hand_cases(os_db: B.OneSidedDB) -> None:
    d = os_db.rolls_distribution
    np.testing.assert_allclose(d([1, 0, 0, 0, 0, 0])[:3], [0, 1, 0])
    np.testing.assert_allclose(d([2, 0, 0, 0, 0, 0])[:3], [0, 1, 0])
    np.testing.assert_allclose(d([0, 0, 0, 0, 0, 0])[:2], [1, 0])
    # Three on the 1-point: only a double takes all three in one roll.
    np.testing.assert_allclose(d([3, 0, 0, 0, 0, 0])[:4], [0, 6 / 36, 30 / 36, 0], atol=1e-7)
    # Five on the 1-point: doubles take four, other rolls two.
    p2 = 6 / 36 + 30 / 36 * 6 / 36
    np.testing.assert_allclose(d([5, 0, 0, 0, 0, 0])[:4], [0, 0, p2, 1 - p2], atol=1e-7)
    # One on the 6: missed only by 1-1, 2-1, 3-1, 4-1, 3-2 (9/36); then it is home free.
    np.testing.assert_allclose(d([0, 0, 0, 0, 0, 1])[:4], [0, 27 / 36, 9 / 36, 0], atol=1e-7)
    # One on the 4: missed only by 2-1.
    np.testing.assert_allclose(d([0, 0, 0, 1, 0, 0])[:3], [0, 34 / 36, 2 / 36], atol=1e-7)
    # Two on the 6: one roll only with 3-3, 4-4, 5-5 or 6-6; fifteen on the 6 need at least 4 rolls.
    assert d([0, 0, 0, 0, 0, 2])[1] == pytest.approx(4 / 36, abs=1e-7)
    full = d([0, 0, 0, 0, 0, 15])
    assert full[:4].sum() == 0 and full[4] > 0
    # 4 rolls: 6-6 four times, (1/36)^4.
    assert full[4] == pytest.approx(36.0 ** -4, rel=1e-5)
    assert os_db.expected_rolls([0, 0, 0, 0, 0, 1]) == pytest.approx(1.25)
    # First checker off. One on the 1 and 14 on the 6: the 1 is not the highest point, so it
    # needs a 1 or a 6 (20/36), 2-2 (6/4/2/off), 3-3 or 4-2 (4/36); nothing else takes one off.
    f = os_db.first_off_distribution
    assert f([1, 0, 0, 0, 0, 14])[1] == pytest.approx(24 / 36, abs=1e-7)
    np.testing.assert_allclose(f([1, 0, 0, 0, 0, 0])[:2], [0, 1])
    np.testing.assert_allclose(f([0, 0, 0, 0, 0, 0])[:2], [1, 0])
    # Fifteen on the 6 get one off at once with any 6 (11/36), 5-1 (6/5 5/off), 4-2, 3-3 or 2-2
    # (6/4/2/off); not with 1-1, 4-4 or 5-5 (6/1 1/off is illegal while the 6 is occupied).
    assert f([0, 0, 0, 0, 0, 15])[1] == pytest.approx(17 / 36, abs=1e-7)


def test_matches_independent_expectimax(os_db: B.OneSidedDB) -> None:
    for side in sides_upto(3):
        want = ref_dist(side)
        got = os_db.rolls_distribution(side)
        np.testing.assert_allclose(got[:12], [float(v) for v in want], atol=2e-7, err_msg=str(side))
        assert got[12:].sum() == 0
        assert os_db.expected_rolls(side) == pytest.approx(float(ref_mean(side)), abs=1e-6)


# ------------------------------------------------------------------ one-sided: properties
def _up_index(sides: np.ndarray) -> np.ndarray:
    """up[i, p] = index of side i with one more checker on point p+1 (-1 when it has 15)."""
    binom = G.BINOM
    n = sides.shape[0]
    up = np.full((n, 6), -1, dtype=np.int64)
    for p in range(6):
        c = sides.astype(np.int64).copy()
        c[:, p] += 1
        q = np.cumsum(c, axis=1) + np.arange(6)
        ok = c.sum(axis=1) <= 15
        idx = np.zeros(n, dtype=np.int64)
        for k in range(6):
            idx += binom[np.minimum(q[:, k], binom.shape[0] - 1), k + 1]
        up[ok, p] = idx[ok]
    return up


def test_distributions_are_probabilities(os_db: B.OneSidedDB) -> None:
    for arr in (os_db.dist, os_db.first):
        assert arr.dtype == np.float32 and arr.shape == (54264, 32)
        assert float(arr.min()) >= 0.0 and float(arr.max()) <= 1.0
        np.testing.assert_allclose(arr.sum(axis=1, dtype=np.float64), 1.0, atol=1e-5)
    # The last column is unused: nobody needs 31 rolls.
    assert float(os_db.dist[:, 31].max()) == 0.0
    k = np.arange(32)
    np.testing.assert_allclose(os_db.dist @ k, os_db.mean, rtol=1e-5)
    np.testing.assert_allclose(os_db.first @ k, os_db.fmean, rtol=1e-5)
    assert np.all(os_db.fmean <= os_db.mean + 1e-6)


def test_monotonicity(os_db: B.OneSidedDB) -> None:
    sides = G.all_sides(15)
    up = _up_index(sides)
    assert np.array_equal(up[0], [6, 5, 4, 3, 2, 1])
    for p in range(6):
        ok = up[:, p] >= 0
        # Adding a checker never decreases the mean number of rolls.
        assert np.all(os_db.mean[up[ok, p]] >= os_db.mean[ok] - 1e-5)
        # (The whole distribution need not be dominated: play that minimises the mean can give
        # up a little chance of a very fast finish, e.g. 3-4-4 vs 4-4-4 on the 1-2-3 points.)
    # (Moving a checker to a higher point can help, by filling a gap: 7-1-6 on the 1-2-3 points
    # needs fewer rolls on average than 8-0-6.)
    assert os_db.expected_rolls([7, 1, 6, 0, 0, 0]) < os_db.expected_rolls([8, 0, 6, 0, 0, 0])
    # A roll takes off at most 4 checkers and moves at most 24 pips: no side finishes sooner.
    n = sides.sum(axis=1).astype(np.int64)
    pips = G.pips_of(sides)
    fastest = np.maximum(-(-n // 4), -(-pips // 24))
    k = np.arange(32)
    assert np.all(os_db.dist[k[None, :] < fastest[:, None]] == 0.0)
    assert np.all(os_db.dist[np.arange(len(n)), fastest] > 0.0)  # reached by rolling 6-6 every time
    for p in range(6):
        c = np.zeros(6, dtype=np.int64)
        G.side_counts(int(up[0, p]), c)
        assert c.tolist() == [int(k == p) for k in range(6)]


# ------------------------------------------------------------------ race probabilities
def test_race_hand_cases(os_db: B.OneSidedDB) -> None:
    # One on the 6 each: the roller wins at once 27/36 of the time, else the opponent misses 9/36.
    w = os_db.race_probabilities(pos_of((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1)))
    assert w == pytest.approx((1 - 9 / 36 * 27 / 36, 0, 0, 0, 0), abs=1e-6)
    # Roller one on the 4, opponent one on the 1: only 2-1 loses.
    assert os_db.race_probabilities(pos_of((0, 0, 0, 1, 0, 0), (1, 0, 0, 0, 0, 0)))[0] == \
        pytest.approx(34 / 36, abs=1e-6)
    # Gammons: roller has 1 checker left on the 1, opponent 15 on his 6: wins, and gammons
    # unless... the opponent never rolls, so it is a certain gammon.
    w = os_db.race_probabilities(pos_of((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15)))
    assert w == pytest.approx((1, 1, 0, 0, 0), abs=1e-6)
    # Roller two on the 6 (13 off), opponent 15 on his 1-point: the opponent needs at least 4
    # rolls, so the roller nearly always wins, but he gammons only by finishing at once
    # (3-3..6-6, 4/36): any roll takes an opponent checker off the 1-point.
    w = os_db.race_probabilities(pos_of((0, 0, 0, 0, 0, 2), (15, 0, 0, 0, 0, 0)))
    assert w[0] > 0.999
    assert w[1] == pytest.approx(4 / 36, abs=1e-6)
    assert w[3] == 0.0
    # Roller 15 on his 6, opponent one checker on his 1: he loses, and is gammoned unless his
    # one roll takes a checker off (17/36, see test_hand_cases).
    w = os_db.race_probabilities(pos_of((0, 0, 0, 0, 0, 15), (1, 0, 0, 0, 0, 0)))
    assert w == pytest.approx((0, 0, 0, 19 / 36, 0), abs=1e-6)
    # Roller 15 on the 6, opponent two on his 6: the roller is gammoned at least when his first
    # roll takes nothing off (19/36) and the opponent then rolls 3-3..6-6 (4/36).
    w = os_db.race_probabilities(pos_of((0, 0, 0, 0, 0, 15), (0, 0, 0, 0, 0, 2)))
    assert w[0] < 0.001
    assert 19 / 36 * 4 / 36 - 1e-6 <= w[3] <= 1 - w[0]


def test_race_symmetry_and_ranges(os_db: B.OneSidedDB) -> None:
    rng = np.random.default_rng(11)
    sides = G.all_sides(15)
    for _ in range(300):
        x, y = (tuple(int(v) for v in sides[int(rng.integers(1, 54264))]) for _ in range(2))
        pos = pos_of(x, y)
        w = os_db.race_probabilities(pos)
        assert all(0.0 <= v <= 1.0 for v in w)
        assert w[2] == 0.0 and w[4] == 0.0
        assert w[1] <= w[0] + 1e-9 and w[3] <= 1 - w[0] + 1e-9
        if sum(y) < 15:
            assert w[1] == 0.0
        if sum(x) < 15:
            assert w[3] == 0.0
        # P(roller wins) + P(other wins when he is on roll) = 1 + P(both need the same rolls).
        v = os_db.race_probabilities(pos.flip())
        tie = float(np.dot(os_db.rolls_distribution(x), os_db.rolls_distribution(y)))
        assert w[0] + v[0] == pytest.approx(1 + tie, abs=1e-5)
        assert B.race_probabilities(pos) == w


@njit(cache=True)
def _batch_lookup(dist: np.ndarray, first: np.ndarray, win: np.ndarray, boards: np.ndarray,
                  out: np.ndarray, two: np.ndarray) -> None:
    """What a compiled rollout does: classify each board and look it up."""
    tmp = np.zeros(5)
    for i in range(boards.shape[0]):
        cls = B.bearoff_class(boards[i])
        if cls >= 1:
            B.race_probs_board(dist, first, boards[i], tmp)
            out[i, :] = tmp
        if cls == 2:
            two[i] = B.two_sided_win_board(win, boards[i])


def test_compiled_lookup_matches_python_api(os_db: B.OneSidedDB, ts_db: B.TwoSidedDB) -> None:
    rng = np.random.default_rng(5)
    sides = G.all_sides(15)
    positions = []
    for _ in range(50):
        x = tuple(int(v) for v in sides[int(rng.integers(1, 54264))])
        y = tuple(int(v) for v in sides[int(rng.integers(1, 924))])
        positions.append(pos_of(x, y))
    boards = np.stack([np.frombuffer(p.board, dtype=np.int8) for p in positions])
    out = np.zeros((len(positions), 5))
    two = np.full(len(positions), -1.0)
    _batch_lookup(os_db.dist, os_db.first, ts_db.win, boards, out, two)
    for i, p in enumerate(positions):
        assert tuple(out[i]) == pytest.approx(os_db.race_probabilities(p), abs=1e-12)
        if sum(B.sides_of(p)[0]) <= 6:
            assert two[i] == pytest.approx(ts_db.win_probability(p), abs=1e-7)
        else:
            assert two[i] == -1.0


# ------------------------------------------------------------------ two-sided
def test_two_sided_hand_cases(ts_db: B.TwoSidedDB) -> None:
    six = (0, 0, 0, 0, 0, 1)
    one = (1, 0, 0, 0, 0, 0)
    assert ts_db.win_probability(pos_of(six, six)) == pytest.approx(1 - 9 / 36 * 27 / 36, abs=1e-6)
    assert ts_db.win_probability(pos_of(six, one)) == pytest.approx(27 / 36, abs=1e-6)
    assert ts_db.win_probability(pos_of(one, (0, 0, 0, 0, 0, 6))) == pytest.approx(1.0)
    # Four on the 1-point against one on the 1: only a double wins; six there never win.
    assert ts_db.win_probability(pos_of((4, 0, 0, 0, 0, 0), one)) == pytest.approx(6 / 36, abs=1e-6)
    assert ts_db.win_probability(pos_of((6, 0, 0, 0, 0, 0), one)) == 0.0
    # Last roll, 3/4 to win: double, and the opponent is indifferent (equity exactly 1);
    # with the opponent owning the cube the roller gets the cubeless 2p - 1.
    p = pos_of(six, one)
    assert ts_db.equity(p, "centred") == pytest.approx(1.0, abs=1e-6)
    assert ts_db.equity(p, "owned") == pytest.approx(1.0, abs=1e-6)
    assert ts_db.equity(p, "opponent") == pytest.approx(0.5, abs=1e-6)
    # Last roll with 1/6 to win: no double, equity 2p - 1 in every cube state.
    p = pos_of((4, 0, 0, 0, 0, 0), one)
    for s in ("centred", "owned", "opponent"):
        assert ts_db.equity(p, s) == pytest.approx(2 / 6 - 1, abs=1e-6)
    with pytest.raises(ValueError):
        ts_db.equity(p, "nobody")
    with pytest.raises(ValueError):
        ts_db.win_probability(pos_of((7, 0, 0, 0, 0, 0), one))
    assert B.two_sided_win(pos_of(six, six)) == ts_db.win_probability(pos_of(six, six))
    assert B.two_sided_equity(pos_of(six, one), "opponent") == pytest.approx(0.5, abs=1e-6)


def test_two_sided_matches_independent_expectimax(ts_db: B.TwoSidedDB) -> None:
    small = sides_upto(2)
    assert len(small) == 28
    for x in small:
        for y in small:
            if sum(x) == 0 or sum(y) == 0:
                continue
            i, j = B.OneSidedDB.index(x), B.OneSidedDB.index(y)
            assert float(ts_db.win[i, j]) == pytest.approx(float(ref_win(x, y)), abs=1e-6), (x, y)
            for s in range(3):
                assert float(ts_db.cube[s, i, j]) == pytest.approx(float(ref_cube(x, y, s)), abs=1e-6)


def test_two_sided_properties(ts_db: B.TwoSidedDB) -> None:
    w = ts_db.win.astype(np.float64)
    c = ts_db.cube.astype(np.float64)
    assert w.shape == (924, 924) and c.shape == (3, 924, 924)
    assert np.all(w[1:, 0] == 0.0) and np.all(w[0, :] == 1.0)
    assert float(w.min()) >= 0.0 and float(w.max()) <= 1.0
    assert float(c.min()) >= -1.0 and float(c.max()) <= 1.0
    # Being on roll never hurts in a bear-off.
    assert float((w + w.T).min()) >= 1 - 1e-6
    # Cube ownership: opponent's cube <= centred <= own cube; owning it is worth at least the
    # cubeless equity, the opponent owning it at most that.
    assert np.all(c[2] <= c[0] + 1e-6) and np.all(c[0] <= c[1] + 1e-6)
    e = 2 * w - 1
    assert np.all(c[1][1:, 1:] >= e[1:, 1:] - 1e-6) and np.all(c[2][1:, 1:] <= e[1:, 1:] + 1e-6)
    # One more checker for the roller never raises his chances; one more for the opponent
    # never lowers them.
    up = _up_index(G.all_sides(15)[:924])
    for p in range(6):
        ok = np.nonzero((up[:, p] >= 0) & (up[:, p] < 924))[0]
        more = up[ok, p]
        assert np.all(w[more][:, 1:] <= w[ok][:, 1:] + 1e-6)
        assert np.all(w[1:][:, more] >= w[1:][:, ok] - 1e-6)


def test_one_sided_race_is_close_to_exact_two_sided(os_db: B.OneSidedDB, ts_db: B.TwoSidedDB) -> None:
    out = np.zeros(5)
    diffs = []
    for x in range(1, 924, 3):
        for y in range(1, 924, 5):
            G.race_probs(os_db.dist, os_db.first, x, y, False, False, out)
            diffs.append(out[0] - float(ts_db.win[x, y]))
    d = np.abs(np.array(diffs))
    # The one-sided estimate plays to minimise rolls, not to win: close but not exact.
    assert d.mean() < 0.003, f"mean |difference| {d.mean():.5f}"
    assert d.max() < 0.03, f"max |difference| {d.max():.5f}"
    assert d.max() > 0.0  # they are different methods


# ------------------------------------------------------------------ storage
@pytest.mark.integration
def test_build_progress_cache_and_reload(tmp_path: os.PathLike[str], os_db: B.OneSidedDB) -> None:
    seen: list[tuple[str, float]] = []
    db = B.BearoffDB.one_sided(tmp_path, progress=lambda s, f: seen.append((s, f)))
    assert seen and seen[-1] == ("one-sided", 1.0)
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(seen))
    meta = B.read_meta("one-sided", tmp_path)
    assert meta is not None and isinstance(meta["build_seconds"], float)
    # Deterministic: a fresh build equals the session's database bit for bit.
    assert np.array_equal(db.dist, os_db.dist) and np.array_equal(db.first, os_db.first)
    assert B.BearoffDB.one_sided(tmp_path) is db
    # A damaged file is noticed and the database rebuilt.
    d = B.cache_dir(tmp_path)
    (d / "os_mean.npy").write_bytes(b"garbage")
    seen.clear()
    db2 = B.BearoffDB.one_sided(tmp_path, progress=lambda s, f: seen.append((s, f)), rebuild=False)
    assert db2 is db  # still the loaded copy in this process
    assert B._load("one-sided", d) is None
    db3 = B.BearoffDB.one_sided(tmp_path, rebuild=True)
    assert np.array_equal(db3.mean, os_db.mean)
    assert B._load("one-sided", d) is not None


def test_unwritable_cache_still_works(tmp_path: os.PathLike[str], ts_db: B.TwoSidedDB) -> None:
    blocker = os.path.join(tmp_path, "file")
    with open(blocker, "w") as f:
        f.write("not a directory")
    db = B.BearoffDB.two_sided(blocker)
    assert np.array_equal(db.win, ts_db.win)
    assert B.read_meta("two-sided", blocker) is None


def test_doctests(os_db: B.OneSidedDB, ts_db: B.TwoSidedDB) -> None:
    for mod in (B, G):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.failed == 0


# ------------------------------------------------------------------ referee
# GNU Backgammon 1.07 (Debian build), used only as a referee: gnubg.evaluate() and cfevaluate() at
# 0-ply on these positions (gnubg answers home-board races from its own bear-off databases, which
# store 16-bit values). Columns: roller's side, opponent's side, (win, win gammon, lose gammon),
# and for sides of at most 6 checkers the money equity with a centred cube and half of gnubg's
# double/take equity, i.e. our equity with the opponent owning the cube.
GNUBG_REFEREE = [
    ((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1), (0.81250, 0.0, 0.0), (0.99998, 0.49999)),
    ((1, 1, 1, 0, 0, 0), (0, 2, 0, 1, 0, 0), (0.88038, 0.0, 0.0), (1.0, 0.76077)),
    ((2, 2, 1, 1, 0, 0), (1, 1, 1, 1, 1, 1), (0.92404, 0.0, 0.0), (1.0, 0.84567)),
    ((0, 0, 0, 0, 0, 6), (3, 3, 0, 0, 0, 0), (0.04154, 0.0, 0.0), (-0.96020, -0.96771)),
    ((3, 3, 3, 2, 2, 2), (4, 4, 3, 2, 1, 1), (0.54603, 0.0, 0.0), None),
    ((0, 0, 0, 0, 0, 15), (0, 0, 0, 0, 0, 15), (0.59488, 0.0, 0.0), None),
    ((5, 5, 5, 0, 0, 0), (1, 0, 0, 0, 0, 0), (0.0, 0.0, 0.0), None),
    ((0, 0, 0, 0, 0, 15), (0, 0, 0, 0, 0, 2), (0.0, 0.0, 0.11295), None),
    ((2, 0, 0, 0, 0, 1), (15, 0, 0, 0, 0, 0), (1.0, 0.11112, 0.0), None),
    ((4, 3, 3, 2, 2, 1), (0, 0, 2, 3, 4, 6), (0.97212, 0.0, 0.0), None),
]


@pytest.mark.parametrize(("me", "opp", "probs", "cubeful"), GNUBG_REFEREE)
def test_agrees_with_gnubg_referee(me: tuple[int, ...], opp: tuple[int, ...], probs: tuple[float, ...],
                                   cubeful: tuple[float, float] | None,
                                   os_db: B.OneSidedDB, ts_db: B.TwoSidedDB) -> None:
    pos = pos_of(me, opp)
    if cubeful is None:
        w = os_db.race_probabilities(pos)
        assert (w[0], w[1], w[3]) == pytest.approx(probs, abs=1e-4)
    else:
        assert ts_db.win_probability(pos) == pytest.approx(probs[0], abs=1e-4)
        assert ts_db.equity(pos, "centred") == pytest.approx(cubeful[0], abs=1e-4)
        assert ts_db.equity(pos, "opponent") == pytest.approx(cubeful[1], abs=1e-4)
