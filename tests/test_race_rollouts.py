"""``bench/race_rollouts.py``: the race-net yardstick's shape classes (issue 51), without rollouts."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from analyzer.core.ids.xgid import decode_xgid, xgid_position


@pytest.fixture
def bench(bench_script: Callable[[str], ModuleType]) -> ModuleType:
    return bench_script("race_rollouts")


def _board(xgid: str) -> np.ndarray:
    return np.frombuffer(xgid_position(decode_xgid(xgid)).board, np.int8)


def test_the_blind_spot_position_is_a_straggler_with_ten_off(bench: ModuleType) -> None:
    # issue 51: the side on roll 10 home and 5 off, the opponent a checker on the bar and 10 off
    b = _board("XGID=aCCB-B-----------------bb-:0:0:1:00:0:0:0:0:10")
    assert bench.side_points(b, False).count(25) == 1
    assert bench.shape_class(b) == "home/straggler+s8"


def test_shapes_seen_from_either_side(bench: ModuleType) -> None:
    b = np.zeros(64, np.int8)
    b[2], b[5], b[26] = 3, 2, 10  # mover: 5 home, 10 off
    b[3], b[20], b[27] = -1, -4, 10  # opponent: one checker on its 22 point, 4 home, 10 off
    assert bench.shape_class(b) == "home/straggler+s8+o8"
    b[3], b[8] = 0, -1  # the opponent's outside checker on its 17 point: still 7+ pips out
    assert bench.shape_class(b) == "home/straggler+s8+o8"
    b[8], b[14] = 0, -1  # on its 11 point: 5 pips out, not a straggler
    assert bench.shape_class(b) == "home/outside"
    b[14], b[12], b[13] = 0, -1, -1  # two outside on 13 and 12: a straggler pair
    b[20] = -3
    assert bench.shape_class(b) == "home/straggler+s8+o8"
    b[10] = -1
    b[20] = -2  # three outside: a race, not a straggler
    assert bench.shape_class(b) == "home/outside"
    flipped = np.zeros(64, np.int8)  # the same race with the other side on roll
    for p in range(1, 25):
        flipped[25 - p] = -b[p]
    flipped[26], flipped[27] = b[27], b[26]
    assert bench.shape_class(flipped) == "outside/home"


def test_exclusive_outcomes_keep_the_equity(bench: ModuleType) -> None:
    out = np.array(bench.exclusive_outcomes(0.6, 0.1, 0.02, 0.05, 0.01))
    assert out.sum() == pytest.approx(1.0)
    assert out @ np.array([1, 2, 3, -1, -2, -3]) == pytest.approx(0.6 + 0.1 + 0.02 - 0.4 - 0.05 - 0.01)
