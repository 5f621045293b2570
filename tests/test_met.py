"""Match equity tables, MWC lookups and EMG conversions (analyzer/eval/met.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analyzer.core.match import MatchState
from analyzer.eval.met import (
    DATA_DIR,
    MatchEquityTable,
    computed_met,
    computed_post_crawford,
    emg_to_mwc,
    load_met,
    met_by_name,
    mwc,
    mwc_to_emg,
    outcome_mwc,
)

KXG = met_by_name("kazaross-xg2")
COMPUTED = met_by_name("computed")
TABLES = [KXG, COMPUTED]


def test_default_is_kazaross_and_names_are_case_insensitive() -> None:
    assert met_by_name() is KXG
    assert met_by_name(" Kazaross-XG2 ") is KXG
    assert KXG.size == 25 and COMPUTED.size == 25
    with pytest.raises(ValueError, match="unknown match equity table"):
        met_by_name("woolsey")


def test_data_file_carries_attribution() -> None:
    raw = json.loads((DATA_DIR / "kazaross-xg2.json").read_text(encoding="utf-8"))
    assert "Kazaross" in raw["attribution"]
    assert "permission notice" in raw["notice"]
    assert "Kazaross" in KXG.attribution


# Published Kazaross-XG2 entries (pre-Crawford: away_me, away_opp -> MWC of the first player).
PUBLISHED = [
    (1, 2, 0.67736), (2, 1, 0.32264), (2, 2, 0.5), (2, 3, 0.59947), (2, 4, 0.66870),
    (3, 4, 0.57150), (4, 5, 0.57732), (5, 7, 0.62638), (7, 9, 0.60854), (9, 11, 0.597926),
    (1, 25, 0.99905), (25, 1, 0.00095), (13, 15, 0.582545), (25, 24, 0.46914),
]


@pytest.mark.parametrize(("a", "b", "expected"), PUBLISHED)
def test_published_pre_crawford_entries(a: int, b: int, expected: float) -> None:
    assert mwc(KXG, a, b) == pytest.approx(expected, abs=1e-9)


def test_published_post_crawford_entries() -> None:
    # trailer's MWC, leader 1-away, post-Crawford
    assert mwc(KXG, 2, 1, post_crawford=True) == pytest.approx(0.48803)
    assert mwc(KXG, 3, 1, post_crawford=True) == pytest.approx(0.32264)
    assert mwc(KXG, 4, 1, post_crawford=True) == pytest.approx(0.31002)
    assert mwc(KXG, 1, 5, post_crawford=True) == pytest.approx(1 - 0.19012)
    assert mwc(KXG, 1, 1, post_crawford=True) == 0.5
    # the same score before the Crawford game has been played is the Crawford game
    assert mwc(KXG, 2, 1) == pytest.approx(0.32264)
    assert mwc(KXG, 2, 1, crawford=True) == mwc(KXG, 2, 1)


def test_finished_matches() -> None:
    for t in TABLES:
        assert mwc(t, 0, 5) == 1.0 and mwc(t, -3, 1) == 1.0
        assert mwc(t, 5, 0) == 0.0 and mwc(t, 1, -2, post_crawford=True) == 0.0
    with pytest.raises(ValueError):
        mwc(KXG, 2, 1, crawford=True, post_crawford=True)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_symmetry(table: MatchEquityTable) -> None:
    for a in range(1, 31):
        for b in range(1, 31):
            assert mwc(table, a, b) + mwc(table, b, a) == pytest.approx(1.0, abs=1e-12)
            if 1 in (a, b):
                s = mwc(table, a, b, post_crawford=True) + mwc(table, b, a, post_crawford=True)
                assert s == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_monotonic(table: MatchEquityTable) -> None:
    for a in range(1, 30):
        for b in range(1, 31):
            # needing one point more never helps; the opponent needing one more always helps
            assert mwc(table, a + 1, b) <= mwc(table, a, b) + 1e-12
            assert mwc(table, b, a + 1) >= mwc(table, b, a) - 1e-12
    for n in range(2, 31):
        assert mwc(table, n + 1, 1, post_crawford=True) < mwc(table, n, 1, post_crawford=True)


def test_extrapolation_joins_the_table() -> None:
    # just beyond 25 the normal approximation stays close to the table's neighbours
    for b in (1, 2, 12, 20, 23, 25):
        inside = mwc(KXG, 24, b) - mwc(KXG, 25, b)
        beyond = mwc(KXG, 25, b) - mwc(KXG, 26, b)
        assert 0.0 <= beyond <= 1.5 * inside + 1e-4
    for a in (3, 10, 20):
        step = mwc(KXG, a + 6, 30) - mwc(KXG, a + 7, 30)
        assert 0.0 < step < 0.05
    assert 0.5 < mwc(KXG, 40, 45) < mwc(KXG, 40, 60) < 1.0
    assert mwc(KXG, 27, 1, post_crawford=True) < mwc(KXG, 25, 1, post_crawford=True)


def test_computed_table_is_close_to_kazaross() -> None:
    worst = max(abs(mwc(COMPUTED, a, b) - mwc(KXG, a, b)) for a in range(1, 26) for b in range(1, 26))
    assert worst < 0.02
    post = max(abs(x - y) for x, y in zip(COMPUTED.post_crawford, KXG.post_crawford, strict=True))
    assert post < 0.01


def test_computed_post_crawford_recursion_by_hand() -> None:
    g = 0.25
    p = computed_post_crawford(5, gammon_rate=g, free_drop=(0.0,))
    # post(2): the doubled game decides the match; post(3) = 1/2 ((1-g) 1/2 + g)
    assert p[:3] == (0.5, 0.5, pytest.approx(0.5 * ((1 - g) * 0.5 + g)))
    assert p[3] == pytest.approx(0.5 * ((1 - g) * p[1] + g))
    assert computed_post_crawford(3, free_drop=(0.012,))[1] == pytest.approx(0.488)


def test_computed_crawford_row_by_hand() -> None:
    t = computed_met(6, gammon_rate=0.2)
    post = t.post_crawford
    lead = 0.5 + 0.5 * (0.8 * (1 - post[2]) + 0.2 * (1 - post[1]))  # 1-away vs 4-away
    assert mwc(t, 1, 4) == pytest.approx(lead)


def test_load_met_validates(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": "bad", "pre_crawford": [[0.5, 0.6]], "post_crawford": [0.5]}))
    with pytest.raises(ValueError, match="square"):
        load_met(path)
    assert load_met(DATA_DIR / "kazaross-xg2.json") == KXG


# gnubg 1.07 (Kazaross-XG2), eq2mwc for the player on roll at: length, (score opp, score me), cube,
# for normalised equities -1, -0.5, 0, 0.3, 1.
GNUBG_EQ2MWC = [
    (7, (0, 0), 1, False, (0.43739, 0.468695, 0.5, 0.518783, 0.56261)),
    (7, (2, 4), 2, False, (0.5, 0.585447, 0.670895, 0.722163, 0.84179)),
    (7, (4, 2), 1, False, (0.25641, 0.299433, 0.342455, 0.368268, 0.4285)),
    (7, (1, 5), 4, False, (0.5, 0.625, 0.75, 0.825, 1.0)),
    (5, (3, 4), 1, False, (0.5, 0.625, 0.75, 0.825, 1.0)),
    (5, (4, 2), 1, True, (0.0, 0.122007, 0.244015, 0.317219, 0.48803)),
    (9, (0, 8), 2, False, (0.88441, 0.913308, 0.942205, 0.959544, 1.0)),
    (11, (3, 7), 2, False, (0.64285, 0.700985, 0.75912, 0.794001, 0.87539)),
    (25, (0, 0), 1, False, (0.46914, 0.48457, 0.5, 0.509258, 0.53086)),
    (25, (3, 20), 4, False, (0.94397, 0.957495, 0.97102, 0.979135, 0.99807)),
]


@pytest.mark.parametrize(("length", "score", "cube", "crawford", "expected"), GNUBG_EQ2MWC)
def test_emg_to_mwc_matches_gnubg(length: int, score: tuple[int, int], cube: int, crawford: bool,
                                  expected: tuple[float, ...]) -> None:
    s0, s1 = score
    post = not crawford and length - 1 in score
    state = MatchState(length=length, score=(s0, s1), cube=cube, crawford=crawford, post_crawford=post)
    for emg, want in zip((-1.0, -0.5, 0.0, 0.3, 1.0), expected, strict=True):
        assert emg_to_mwc(KXG, state, 1, emg) == pytest.approx(want, abs=2e-6)


@given(st.integers(1, 25), st.integers(0, 24), st.integers(0, 24), st.sampled_from([1, 2, 4, 8]),
       st.floats(-3.0, 3.0), st.booleans())
def test_emg_mwc_round_trip(length: int, s0: int, s1: int, cube: int, emg: float, post: bool) -> None:
    s0, s1 = min(s0, length - 1), min(s1, length - 1)
    post = post and length > 1 and length - 1 in (s0, s1)
    state = MatchState(length=length, score=(s0, s1), cube=cube, post_crawford=post)
    for table in TABLES:
        for player in (0, 1):
            win, lose = outcome_mwc(table, state, player)(cube), outcome_mwc(table, state, player)(-cube)
            if win <= lose:  # e.g. both players 1-away: the cube changes nothing
                continue
            m = emg_to_mwc(table, state, player, emg)
            assert mwc_to_emg(table, state, player, m) == pytest.approx(emg, abs=1e-9)
            # EMG is symmetric: the opponent's EMG of the complementary MWC is the negative
            assert mwc_to_emg(table, state, 1 - player, 1.0 - m) == pytest.approx(-emg, abs=1e-9)


def test_emg_endpoints_and_money() -> None:
    s = MatchState(length=9, score=(2, 5), cube=2)
    assert mwc_to_emg(KXG, s, 0, mwc(KXG, 5, 4)) == pytest.approx(1.0)  # win 2: 7 -> 5 away
    assert mwc_to_emg(KXG, s, 0, mwc(KXG, 7, 2)) == pytest.approx(-1.0)
    assert mwc_to_emg(KXG, s, 0, mwc(KXG, 3, 4), cube=4) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="money"):
        mwc_to_emg(KXG, MatchState(), 0, 0.5)
    # both players 1-away: winning or losing the cube decides the match
    dmp = MatchState(length=5, score=(4, 4), post_crawford=True)
    assert emg_to_mwc(KXG, dmp, 0, 0.0) == 0.5 and emg_to_mwc(KXG, dmp, 1, 1.0) == 1.0
