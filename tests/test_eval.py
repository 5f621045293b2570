"""Evaluator: feature encoding invariants, consistent probabilities, exact game-over values, n-ply sanity."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.position import Position, flip_boards
from analyzer.eval import features as F
from analyzer.eval.engine import DEFAULT_NETS, Engine
from analyzer.eval.net import NetSet, evaluate_boards
from analyzer.eval.probabilities import Probabilities
from analyzer.rules.standard import Standard


def _b(text: str) -> np.ndarray:
    return np.frombuffer(Position.from_notation(text).board, dtype=np.int8).copy()


def _contact(text: str) -> np.ndarray:
    x = np.zeros(F.N_CONTACT, np.float32)
    F.encode_contact(_b(text), x)
    return x


def _hand(x: np.ndarray, side: int, f: int) -> float:
    return float(x[side * F.SIDE_INPUTS + F.HAND_OFFSET + f])


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_the_nets_are_shipped(engine: Engine) -> None:
    """The engine tests need ``data/nets``: a missing net is a failure, never a skip."""
    for variant in ("standard", "dutch", "mahbusa"):
        assert (DEFAULT_NETS.parent / f"{variant}.npz").is_file(), variant
    assert engine.nets.contact.w1.shape[0] in (F.N_CONTACT, F.N_CONTACT_EXT)  # the shipped nets, loaded


# ------------------------------------------------------------------ features
def test_classes() -> None:
    assert F.classify(_b("P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2")) == F.CLASS_CONTACT
    assert F.classify(_b("P 6:5 5:5 4:5 | O 19:5 20:5 21:5")) == F.CLASS_RACE
    assert F.classify(_b("P 6:15 | O 19:14 | off O1")) == F.CLASS_RACE
    assert F.classify(_b("P | O 19:15 | off P15")) == F.CLASS_OVER
    # contact, but the opponent has only a few checkers in play beyond its heavy 1- and 2-points
    assert F.classify(_b("P 20:1 6:14 | O 24:10 23:4 1:1")) == F.CLASS_CRASHED


@pytest.mark.parametrize("text", [
    "P 24:2 13:4 10:1 8:3 6:4 5:1 | O 19:4 17:3 12:4 1:2 3:2",
    "P 5:14 | O 24:2 21:2 20:1 19:2 15:1 12:1 4:1 2:3 1:2 | bar P1 O0",  # on the bar, blots to hit
    "P 24:2 13:4 8:3 6:5 | O 19:4 17:3 12:4 1:1 3:2 | bar P1 O1",  # both sides on the bar
])
def test_encoding_is_symmetric_under_flip(text: str) -> None:
    pos = Position.from_notation(text)
    x = np.zeros(F.N_CONTACT, np.float32)
    y = np.zeros(F.N_CONTACT, np.float32)
    F.encode_contact(np.frombuffer(pos.board, dtype=np.int8), x)
    F.encode_contact(np.frombuffer(pos.flip().board, dtype=np.int8), y)
    s = F.SIDE_INPUTS
    assert np.array_equal(x[:s], y[s:])
    assert np.array_equal(x[s:], y[:s])


def test_point_units() -> None:
    x = _contact("P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2")
    # the mover's 6-point holds 5: units (0, 0, 1, 1.0)
    assert x[4 * 5: 4 * 5 + 4].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert x[4 * 23: 4 * 23 + 4].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert _hand(x, 0, F.F_PIPS) == pytest.approx(167 / 167)


def test_hit_rolls_direct_six() -> None:
    # a blot six pips in front of one opponent checker; the 6-point blocks 4-2 and 2-2
    x = _contact("P 10:1 6:14 | O 4:1 24:14")
    assert round(_hand(x, 0, F.F_HIT_ROLLS) * 36) == 16
    x = _contact("P 10:1 7:14 | O 4:1 24:14")
    assert round(_hand(x, 0, F.F_HIT_ROLLS) * 36) == 16  # 6s, 5-1, 4-2, 2-2; 3-3 is blocked on 7


def test_escapes_behind_full_prime() -> None:
    x = _contact("P 24:1 6:14 | O 18:2 17:2 16:2 15:2 14:2 13:2 1:3")
    assert _hand(x, 0, F.F_ESCAPES) == 0.0
    x = _contact("P 24:1 6:14 | O 1:15")
    assert _hand(x, 0, F.F_ESCAPES) == 1.0


# ------------------------------------------------------------------ nets and probabilities
def test_random_net_probabilities_consistent() -> None:
    nets = NetSet.initial(hidden=16, race_hidden=8, seed=3)
    rules = Standard()
    boards = rules.legal_results(Position.start(), (6, 4))
    p = evaluate_boards(nets, boards)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    assert (p >= 0).all()
    for row in p:
        pr = Probabilities.from_outcomes(row.tolist())
        assert pr.win_backgammon <= pr.win_gammon <= pr.win <= 1.0
        assert pr.lose_backgammon <= pr.lose_gammon <= pr.lose


def test_save_load_roundtrip(tmp_path: object) -> None:
    import pathlib

    d = pathlib.Path(str(tmp_path))
    nets = NetSet.initial(hidden=4, race_hidden=4, seed=5)
    nets.save(d / "n.npz", {"version": "test"})
    back = NetSet.load(d / "n.npz")
    assert np.array_equal(back.contact.w1, nets.contact.w1)
    assert back.meta["version"] == "test"


def test_probabilities_flip_and_equity() -> None:
    p = Probabilities(0.6, 0.2, 0.01, 0.1, 0.005)
    assert p.flip().flip() == p
    assert p.flip().equity == pytest.approx(-p.equity)
    assert sum(p.outcomes()) == pytest.approx(1.0)


# ------------------------------------------------------------------ engine
def test_game_over_is_exact(engine: Engine) -> None:
    won = engine.evaluate(Position.from_notation("P | O 19:15 | off P15"))
    assert (won.win, won.win_gammon, won.win_backgammon) == (1.0, 1.0, 0.0)
    lost_bg = engine.evaluate(Position.from_notation("P 19:1 | O | off P14 O15"))
    assert lost_bg.win == 0.0 and lost_bg.lose_gammon == 0.0
    lost = engine.evaluate(Position.from_notation("P 1:15 | O | off O15"))
    assert lost.equity == pytest.approx(-2.0)
    bg = engine.evaluate(Position.from_notation("P 20:15 | O | off O15"))
    assert bg.equity == pytest.approx(-3.0)


def test_bearoff_uses_database(engine: Engine) -> None:
    p = engine.evaluate(Position.from_notation("P 6:1 | O 19:1"))
    assert p.win == pytest.approx(0.8125, abs=1e-4)


def test_engine_probabilities_consistent(engine: Engine) -> None:
    for ply in (0, 1):
        p = engine.evaluate(Position.start(), ply)
        assert 0.35 < p.win < 0.65
        assert 0 <= p.win_backgammon <= p.win_gammon <= p.win
        assert 0 <= p.lose_backgammon <= p.lose_gammon <= p.lose
        assert sum(p.outcomes()) == pytest.approx(1.0, abs=1e-5)


def test_ranks_obvious_plays(engine: Engine) -> None:
    # 31 opening: making the 5-point is best
    plays = engine.rank_plays(Position.start(), (3, 1))
    assert plays[0].play == "8/5 6/5"
    assert [p.equity for p in plays] == sorted((p.equity for p in plays), reverse=True)
    # bearing off beats moving inside
    pos = Position.from_notation("P 6:2 2:1 | O 24:2 23:3 | off P12 O10")
    plays = engine.rank_plays(pos, (6, 2))
    assert plays[0].play == "6/off 2/off"
    # at 1-ply as well: 65 runs a back checker, 31 makes the 5-point
    best1 = engine.rank_plays(Position.start(), (6, 5), ply=1)[0]
    assert best1.ply == 1 and best1.play == "24/13"
    assert engine.rank_plays(Position.start(), (3, 1), ply=1)[0].play == "8/5 6/5"


def test_plied_evaluation_is_consistent(engine: Engine) -> None:
    pos = Position.from_notation("P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2")
    engine = Engine(engine.nets, prune=False)  # exact expectimax, no pruning net
    e0 = engine.evaluate(pos, 0).equity
    e1 = engine.evaluate(pos, 1).equity
    assert abs(e0 - e1) < 0.4
    # a 1-ply evaluation is the mean over 21 rolls of the best 0-ply replies
    rules = Standard()
    tot = 0.0
    for a in range(1, 7):
        for b in range(a, 7):
            best = max(-engine.evaluate(Position(r.tobytes()).flip(), 0).equity
                       for r in rules.legal_results(pos, (a, b)))
            tot += (1 if a == b else 2) * best
    assert e1 == pytest.approx(tot / 36, abs=1e-4)


def test_pruning_keeps_plied_values_close(engine: Engine) -> None:
    pos = Position.from_notation("P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2")
    assert engine.nets.prune is not None, "the shipped nets have a pruning net"
    full = Engine(engine.nets, prune=False)
    assert abs(full.evaluate(pos, 1).equity - engine.evaluate(pos, 1).equity) < 0.03
    # the play the pruned search picks loses next to nothing by the full search's values (a near tie may
    # flip: here 24/18 13/11 and 24/16 are 0.001 apart at 1-ply, and pruning moves each value by about that)
    for dice in ((6, 2), (3, 1), (6, 5), (4, 4)):
        ranked = full.rank_plays(pos, dice, 1)
        value = {r.play: r.equity for r in ranked}
        best = engine.rank_plays(pos, dice, 1)[0]
        assert value[best.play] > ranked[0].equity - 0.005
        assert abs(best.equity - value[best.play]) < 0.01  # a pruning net of random weights: 0.05 to 0.09


def test_fast_shot_count_matches_reference() -> None:
    from analyzer.eval.selfplay import GameBuffers, play_seeded

    nets = NetSet.initial(hidden=8, race_hidden=8, seed=9)
    buf = GameBuffers()
    me = np.zeros(26, np.int64)
    them = np.zeros(26, np.int64)
    reach = np.zeros(26, np.int64)
    checked = 0
    for g in range(6):
        t, _ = play_seeded(nets, 300 + g, 0.5, buf)
        for b in buf.states[:t]:
            F.sides(b, me, them)
            for a, c in ((me, them), (them, me)):
                assert F._hit_stats(a, c, reach)[:2] == F._hit_rolls_reference(a, c, reach)
                checked += 1
    assert checked > 200


def _selfplay_boards(games: int = 6) -> list[np.ndarray]:
    from analyzer.eval.selfplay import GameBuffers, play_seeded

    nets = NetSet.initial(hidden=8, race_hidden=8, seed=9)
    buf = GameBuffers()
    out: list[np.ndarray] = []
    for g in range(games):
        t, _ = play_seeded(nets, 300 + g, 0.5, buf)
        out += [b.copy() for b in buf.states[:t]]
    return out


def test_escape_table_matches_the_direct_count() -> None:
    me = np.zeros(26, np.int64)
    them = np.zeros(26, np.int64)
    checked = 0
    for b in _selfplay_boards(3):
        F.sides(b, me, them)
        for a, c in ((me, them), (them, me)):
            blocks = sum(1 << (q + 12) for q in range(1, 25) if c[25 - q] >= 2)
            for p in range(1, 26):
                assert F.ESCAPES_BY_WINDOW[(blocks >> p) & 0xFFF] == F._escapes(a, c, p)
                checked += 1
    assert checked > 5000


def _random_contact_boards(n: int, seed: int) -> list[np.ndarray]:
    """``n`` seeded random boards: each side's 15 checkers spread over its points, its bar (up to
    four) and off, on points the other side does not hold (contact and crashed ones mostly)."""
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    while len(out) < n:
        b = np.zeros(64, np.int8)
        for side in (1, -1):
            left = 15
            off = int(rng.integers(0, 8)) if rng.random() < 0.3 else 0
            bar = int(rng.integers(1, 5)) if rng.random() < 0.2 else 0
            b[26 if side == 1 else 27] = off
            b[25 if side == 1 else 0] = min(bar, left - off)
            left -= off + int(b[25 if side == 1 else 0])
            while left > 0:
                p = int(rng.integers(1, 25))
                if b[p] * side >= 0:
                    k = min(left, int(rng.integers(1, 6)))
                    b[p] += side * k
                    left -= k
        if F.classify(b) in (F.CLASS_CONTACT, F.CLASS_CRASHED):
            out.append(b)
    return out


def test_contact_encoding_matches_the_reference_bit_for_bit() -> None:
    # the branch-free, bitmask encoder against the straightforward one it replaced (every unit, both
    # encodings' widths, every byte): self-play positions and random ones (bars, checkers off)
    from features_reference import encode_contact_reference

    iw = np.zeros(F.ENCODE_INTS, np.int64)
    x = np.zeros(F.N_CONTACT_EXT, np.float32)
    y = np.zeros(F.N_CONTACT_EXT, np.float32)
    checked = 0
    for b in _selfplay_boards(4) + _random_contact_boards(3000, 30):
        if F.classify(b) not in (F.CLASS_CONTACT, F.CLASS_CRASHED):
            continue
        for n in (F.N_CONTACT, F.N_CONTACT_EXT):
            x[:] = 7.0
            y[:] = 7.0
            F.encode_contact_into(b, x, n, iw)
            encode_contact_reference(b, y, n, iw)
            assert x.tobytes() == y.tobytes(), (b.tolist(), np.flatnonzero(x != y).tolist())
            checked += 1
    assert checked > 6000


def test_pips_lost_to_a_hit_worked_example() -> None:
    # (both sides' points in the mover's numbering) our blot on 10 and our made 6-point; their lone
    # checker on our 4, 6 pips behind the blot, their other 14 on our 24, past everything.
    # They hit with any 6 (11 rolls), 5-1 (2), 4-2 via 8 (2; via 6 is blocked), 3-3 (1); 2-2 is
    # blocked and 1-1 falls short: 16 rolls, each sending back a checker with 10 pips to go
    # (a loss of 25 - 10 = 15 pips).
    b = _b("P 10:1 6:14 | O 4:1 24:14")
    me, them, reach = np.zeros(26, np.int64), np.zeros(26, np.int64), np.zeros(26, np.int64)
    F.sides(b, me, them)
    assert F._hit_stats(me, them, reach) == (16, 0, 16 * 15)
    # our hits on their blot (their 21-point: 4 pips lost): any 2 (11), 6 from the 10 (6-1, 6-3,
    # 6-4, 6-5, 6-6: 9), 5-1 (2), 1-1 and 3-3 (1 each): 24 rolls
    assert F._hit_stats(them, me, reach) == (24, 0, 24 * 4)
    x = np.zeros(F.N_CONTACT_EXT, np.float32)
    F.encode_contact_ext(b, x)
    assert x[F.EXTRA_OFFSET + F.X_PIP_LOSS] == pytest.approx(240 / 864)
    assert x[F.EXTRA_OFFSET + F.N_EXTRA + F.X_PIP_LOSS] == pytest.approx(96 / 864)


def test_extended_encoding_extends_the_v1_encoding() -> None:
    checked = 0
    for b in _selfplay_boards(3):
        if F.classify(b) not in (F.CLASS_CONTACT, F.CLASS_CRASHED):
            continue
        x = np.zeros(F.N_CONTACT, np.float32)
        y = np.zeros(F.N_CONTACT_EXT, np.float32)
        F.encode_contact(b, x)
        F.encode_contact_ext(b, y)
        assert np.array_equal(y[: F.N_CONTACT], x)
        ext = y[F.N_CONTACT:]
        mob = [F.X_MOBILITY, F.N_EXTRA + F.X_MOBILITY]
        assert np.all(ext >= 0.0) and np.all(np.delete(ext, mob) <= 1.0) and np.all(ext[mob] <= 15 * 36 / 180)
        # the mover's units come first, the opponent's second: flipping the board swaps them
        z = np.zeros(F.N_CONTACT_EXT, np.float32)
        F.encode_contact_ext(flip_boards(b[None])[0], z)
        n = F.N_EXTRA
        assert np.array_equal(y[F.EXTRA_OFFSET: F.EXTRA_OFFSET + n], z[F.EXTRA_OFFSET + n:])
        checked += 1
    assert checked > 100


def test_widened_nets_evaluate_as_before_until_trained() -> None:
    nets = NetSet.initial(hidden=8, race_hidden=8, seed=4)
    wide = nets.widened()
    assert wide.contact.n_inputs == wide.crashed.n_inputs == F.N_CONTACT_EXT
    boards = np.array([b for b in _selfplay_boards(2)][:300])
    assert np.array_equal(evaluate_boards(nets, boards), evaluate_boards(wide, boards))
    wide.contact.w1[F.N_CONTACT:] = 0.5  # the extra inputs now count
    contact = np.array([F.classify(b) == F.CLASS_CONTACT for b in boards])
    diff = np.abs(evaluate_boards(nets, boards) - evaluate_boards(wide, boards)).max(axis=1)
    assert np.all(diff[contact] > 0) and np.all(diff[~contact] == 0)


def test_engine_without_the_exact_table_uses_the_one_sided_convolution(engine: Engine) -> None:
    from analyzer.eval.bearoff import BearoffDB, race_probs_board, two_sided_win

    one = BearoffDB.one_sided()
    no_exact = Engine(engine.nets, two_sided=False, cache_size=0)
    differs = 0
    for text in ("P 6:2 5:1 2:2 | O 19:1 20:2 23:2", "P 6:3 1:3 | O 19:3 24:3", "P 4:2 3:2 | O 19:1 22:2"):
        pos = Position.from_notation(text)
        c = np.zeros(5, np.float64)
        race_probs_board(one.dist, one.first, np.frombuffer(pos.board, np.int8), c)
        assert no_exact.evaluate(pos).win == pytest.approx(c[0], abs=1e-6)
        assert engine.evaluate(pos).win == pytest.approx(two_sided_win(pos), abs=1e-6)
        differs += abs(c[0] - two_sided_win(pos)) > 1e-6
    assert differs > 0  # min-expected-rolls play is not always the winning-chance optimum


def _ranked_by_objects(eng: Engine, pos: Position, dice: tuple[int, int]) -> list[tuple[str, bytes, float, int]]:
    """The 0-ply ranking as it was made from LegalPlay objects: every legal play (in legal_plays'
    order) evaluated, stably sorted by ``p @ weights``, equities from Probabilities."""
    plays = Standard().legal_plays(pos, dice)
    after = flip_boards(np.stack([np.frombuffer(p.result.board, dtype=np.int8) for p in plays]))
    p0 = eng.evaluate_boards(after, 0)[:, [3, 4, 5, 0, 1, 2]]
    eq0 = p0 @ np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])
    order = np.argsort(-eq0, kind="stable")
    return [(plays[i].text, plays[i].result.board, Probabilities.from_outcomes(p0[i].tolist()).equity, 0)
            for i in order]


@pytest.mark.parametrize(("notation", "dice"), [
    ("P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2", (6, 2)),
    ("P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2", (1, 1)),
    ("P 6:2 5:2 4:2 3:3 2:3 1:3 | O 19:2 24:3", (6, 5)),  # a bear-off: many plays of equal equity
    ("P 3:2 2:2 1:1 | O 24:3", (2, 1)),
    ("P 3:2 2:2 1:1 | O 24:3", (6, 6)),
])
def test_rank_plays_from_arrays_ranks_as_the_play_objects_did(engine: Engine, notation: str,
                                                               dice: tuple[int, int]) -> None:
    pos = Position.from_notation(notation)
    ranked = engine.rank_plays(pos, dice, 0)
    assert [(r.play, r.result.board, r.equity, r.ply) for r in ranked] == _ranked_by_objects(engine, pos, dice)
    assert [r.probabilities.equity for r in ranked] == [r.equity for r in ranked]


def test_compiled_equities_are_numpys_and_probabilities() -> None:
    from analyzer.eval.engine import _ranked

    rng = np.random.default_rng(3)
    z = rng.normal(size=(20000, 6)) * rng.uniform(0.5, 6.0, size=(20000, 1))
    raw = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    raw[rng.random(raw.shape) < 0.1] = 0.0
    raw[::11, 5] = -1e-9  # a negative output counts as 0 in Probabilities.from_outcomes
    raw = raw.astype(np.float32)
    p, eq0, eqs, order = _ranked(raw)
    mover = raw[:, [3, 4, 5, 0, 1, 2]]  # as the ranking always took them (numpy picks its sum's order by layout)
    eq_numpy = mover @ np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])
    assert np.array_equal(p, mover) and np.array_equal(eq0, eq_numpy)
    assert eqs == [Probabilities.from_outcomes(row.tolist()).equity for row in mover]
    assert order == np.argsort(-eq_numpy, kind="stable").tolist()


def test_ranked_plays_are_values(engine: Engine) -> None:
    import pickle

    a = engine.rank_plays(Position.start(), (3, 1), 0)
    b = Standard().legal_plays(Position.start(), (3, 1))
    assert sorted(r.play for r in a) == [p.text for p in b]
    first = a[0]
    assert pickle.loads(pickle.dumps(first)) == first
    assert hash(first) == hash(pickle.loads(pickle.dumps(first)))
    assert repr(first).startswith("RankedPlay(play='8/5 6/5', result=Position.from_notation(")
    with pytest.raises(AttributeError):
        first.play = "x"  # type: ignore[misc]


def test_vectorised_exp_and_sigmoid_against_math_exp() -> None:
    # exp64 over a dense grid of its whole range (relative error), and the hidden layer's sigmoid
    # against the exact value rounded to float32 (at most one unit in the last place apart, rarely)
    import math

    from numba import njit

    from analyzer.eval.net import exp64, sigmoid_into

    grid = np.concatenate([np.linspace(-708.0, 709.0, 400_001), np.linspace(-30.0, 30.0, 600_001)])

    @njit(cache=False)
    def exps(xs: np.ndarray) -> np.ndarray:
        out = np.empty_like(xs)
        for i in range(xs.shape[0]):
            out[i] = exp64(xs[i])
        return out

    ref = np.array([math.exp(v) for v in grid])
    rel = np.abs(exps(grid) / ref - 1.0)
    assert rel.max() < 1e-12
    h = np.linspace(-120.0, 120.0, 2_000_001).astype(np.float32)
    # as the libm version computes it: e ** -h rounded to float32 (here correctly), the rest in float64
    e32 = np.array([math.exp(-float(v)) if v > -88.5 else math.inf for v in h]).astype(np.float32)
    exact = (1.0 / (1.0 + e32.astype(np.float64))).astype(np.float32)
    got = h.copy()
    sigmoid_into(got, len(got))
    true = 1.0 / (1.0 + np.exp(-h.astype(np.float64)))
    assert np.abs(got - true).max() < 1.2e-7
    ulps = np.abs(got.view(np.int32).astype(np.int64) - exact.view(np.int32))[h > -88.5]  # below, e ** -h overflows
    assert ulps.max() <= 1
    assert (ulps > 0).mean() < 1e-5  # where libm and the exact value round apart
    assert got[h < -89].max() == 0.0 and got[h > 18].min() == 1.0  # libm's expf overflows there, rounds to 1
