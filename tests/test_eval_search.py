"""The compiled n-ply search (an explicit stack in :func:`analyzer.eval.engine.eval_plied`) against a
plain recursive Python definition of n-ply built from the engine's 0-ply evaluations."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from analyzer.core.position import Position
from analyzer.eval import features as F
from analyzer.eval.engine import Engine
from analyzer.rules.standard import Standard

RULES = Standard()


def _swap(p: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.concatenate([p[3:], p[:3]])


def _zero_ply(eng: Engine, boards: NDArray[np.int8]) -> NDArray[np.float64]:
    return eng.evaluate_boards(boards, 0).astype(np.float64)


def reference(eng: Engine, pos: Position, ply: int) -> NDArray[np.float64]:
    """n-ply by the definition: the mean over the 21 rolls of the result of the play the 0-ply
    evaluation prefers, valued at (n-1)-ply (exactly when the play ends the game)."""
    board = np.frombuffer(pos.board, np.int8)
    if ply == 0 or int(F.classify(board)) == F.CLASS_OVER:
        return _zero_ply(eng, board[None, :])[0]
    acc = np.zeros(6)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            results = [p.result for p in RULES.legal_plays(pos, (d1, d2))]
            values = []
            for r in results:
                rb = np.frombuffer(r.board, np.int8)
                if rb[26] >= 15:  # the mover bore off his last checker
                    v = np.zeros(6)
                    v[int(F.game_over_outcome(rb))] = 1.0
                else:
                    v = _swap(_zero_ply(eng, np.frombuffer(r.flip().board, np.int8)[None, :])[0])
                values.append(v)
            eq = [float(v @ np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])) for v in values]
            k = int(np.argmax(eq))
            best = results[k]
            if ply > 1 and np.frombuffer(best.board, np.int8)[26] < 15:
                v = _swap(reference(eng, best.flip(), ply - 1))
            else:
                v = values[k]
            acc += (1.0 if d1 == d2 else 2.0) * v
    return acc / 36.0


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(prune=False, cache_size=0)  # the definition has no pruning net


@pytest.mark.parametrize("text", [
    "P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2",  # contact
    "P 6:3 5:3 4:2 2:1 | O 19:2 20:3 21:3 23:2",  # bear-off race (the databases' values)
    "P 6:1 5:1 | O 19:1 20:1",  # some rolls end the game at depth 1, some at depth 2, some go on
    # on the bar (a referee position, issue 51): dances, entries that hit, the opponent then on the bar
    "P 5:14 | O 24:2 21:2 20:1 19:2 15:1 12:1 4:1 2:3 1:2 | bar P1 O0",
])
def test_two_ply_is_the_recursive_definition(engine: Engine, text: str) -> None:
    pos = Position.from_notation(text)
    got = engine.evaluate_boards(np.frombuffer(pos.board, np.int8)[None, :], 2)[0]
    assert got == pytest.approx(reference(engine, pos, 2), abs=2e-6)


def test_one_ply_serial_and_threaded_paths_agree(engine: Engine) -> None:
    pos = Position.from_notation("P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2")
    boards = np.stack([np.frombuffer(p.result.flip().board, np.int8) for p in RULES.legal_plays(pos, (4, 1))])
    threads = engine.threads
    try:
        engine.threads = 1
        serial = engine.evaluate_boards(boards, 1)
    finally:
        engine.threads = threads
    from analyzer.eval.engine import eval_parallel

    assert np.array_equal(serial, eval_parallel(engine, boards, 1))
    assert serial[0] == pytest.approx(reference(engine, Position.from_array(boards[0]), 1), abs=2e-6)


@pytest.mark.parametrize("ply", [1, 2, 3])
@pytest.mark.parametrize("count", [1, 2, 5])
def test_deep_threaded_paths_are_the_serial_search_to_the_bit(engine: Engine, ply: int, count: int) -> None:
    """Boards at 1-ply and deeper are shared among threads by (board, roll), one board's rolls too
    (``eval_rolls_parallel``, the one threaded kernel of deep evaluations). Each value is the
    one-thread search's exactly, game-ending plays and finished positions included."""
    if ply == 3 and count > 1:
        pytest.skip("one 3-ply board is enough")
    texts = ["P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2", "P 6:1 5:1 | O 19:1 20:1",
             "P 24:2 13:5 8:3 6:5 | O 1:2 12:5 17:3 19:5", "P 6:3 5:3 4:2 2:1 | O 19:2 20:3 21:3 23:2",
             "P 20:2 13:4 8:3 6:4 5:2 | O 19:3 17:2 12:4 1:3 3:3"]
    boards = np.stack([np.frombuffer(Position.from_notation(t).board, np.int8) for t in texts[:count]])
    if engine.threads < 2:
        pytest.skip("one numba thread: no threaded path to compare")
    threads = engine.threads
    try:
        engine.threads = 1
        serial = engine.evaluate_boards(boards, ply)
    finally:
        engine.threads = threads
    assert np.array_equal(engine.evaluate_boards(boards, ply), serial)
