"""Luck: a roll's MWC luck at its score and cube, and per-player totals whose EMG and MWC agree.

Issue 24 (part 2): a player could read -0.62 EMG but +18% MWC of luck on the shipped 7-point
sample. Each roll was converted right (gnubg does the same and shows the same mismatch); the
totals were not comparable: the EMG total added rolls at a 1-cube and at a 4-cube alike.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from analyzer.analysis.decisions import to_mwc
from analyzer.analysis.luck import mwc_luck, stake
from analyzer.analysis.schema import DECISIONS_SCHEMA
from analyzer.analysis.stats import luck_at_stake, luck_stake, player_stats
from analyzer.analysis.thresholds import XG
from analyzer.core.match import MatchState
from analyzer.eval.met import met_by_name, mwc

MET = met_by_name()


def _roll(side: int, luck: float, state: MatchState, money: bool = False) -> dict[str, object]:
    row: dict[str, object] = {k: None for k in DECISIONS_SCHEMA}
    row.update(file="f", game=1, move_no=1, player="p", variant="standard", key="k", kind="checker",
               side=side, match_length=state.length, score_me=state.score[side], score_opp=state.score[1 - side],
               cube=state.cube, played="", best="", equity_played=0.0, equity_best=0.0, equity_loss=0.0,
               error_class="none", forced=False, win_prob=0.5, candidates=[], ply=0, luck=luck,
               luck_mwc=None if money else mwc_luck(luck, state, side, MET))
    return row


# ---------------------------------------------------------------------- one roll
def test_mwc_luck_applies_score_and_cube() -> None:
    s1 = MatchState(length=7, score=(4, 2))
    s4 = replace(s1, cube=4)
    # cube 4 at 3-away/5-away: winning wins the match, losing leaves 3-away against 1-away (Crawford)
    assert mwc_luck(0.5, s4, 0, MET) == pytest.approx(0.5 * (1.0 - mwc(MET, 3, 1)) / 2.0)
    # cube 1: winning 1 point or losing 1 point of this game
    assert mwc_luck(0.5, s1, 0, MET) == pytest.approx(0.5 * (mwc(MET, 2, 5) - mwc(MET, 3, 4)) / 2.0)
    assert stake(s4, 0, MET) > 4.0 * stake(s1, 0, MET)
    assert stake(MatchState(length=1), 1, MET) == pytest.approx(0.5)  # DMP: EMG = 2 MWC - 1
    assert mwc_luck(0.3, MatchState(), 0, MET) is None and stake(MatchState(cube=8), 0, None) == 8.0


def test_mwc_luck_is_the_mwc_difference_at_the_decision() -> None:
    """What analyze.py computes inline: MWC after the best play minus MWC at best - luck."""
    for state, side in ((MatchState(length=5, score=(3, 1), cube=2), 1),
                        (MatchState(length=9, score=(8, 2), crawford=True), 0),
                        (MatchState(length=9, score=(8, 6), post_crawford=True, cube=2), 1)):
        best, luck = 0.37, -0.61
        hi, lo = to_mwc(MET, state, side, best), to_mwc(MET, state, side, best - luck)
        assert hi is not None and lo is not None
        got = mwc_luck(luck, state, side, MET)
        assert got == pytest.approx(hi - lo) and got is not None and got < 0.0


# ---------------------------------------------------------------------- totals
def test_emg_and_mwc_totals_agree_in_sign() -> None:
    """The sample's shape: many unlucky rolls at a 1-cube, one joker after the cube went to 4."""
    s1 = MatchState(length=7, score=(4, 2))
    s4 = replace(s1, cube=4)
    rows = [_roll(0, -0.2, s1) for _ in range(8)] + [_roll(0, 0.8, s4)]
    rows += [_roll(1, 0.1, s1), _roll(1, -0.3, s4)]
    df = pl.DataFrame(rows, schema=DECISIONS_SCHEMA)
    a, b = player_stats(df, XG, ["ann", "bob"], [0.5, -0.5])
    assert a.luck_gnubg_emg == pytest.approx(-0.8)  # gnubg's plain sum: 8 x -0.2 + 0.8
    assert a.luck_mwc > 0.0  # the joker at a 4-cube outweighs the small ones
    assert a.luck > 0.0 and b.luck < 0.0 and b.luck_mwc < 0.0
    rate = luck_stake(df)
    assert rate is not None
    assert a.luck == pytest.approx(a.luck_mwc / rate) and b.luck == pytest.approx(b.luck_mwc / rate)
    assert a.luck_rate == pytest.approx(a.luck / 9) and a.rolls == 9
    # gnubg's luck-adjusted result: actual - own luck + the opponent's luck, in MWC
    assert a.luck_adjusted_result == pytest.approx(0.5 - a.luck_mwc + b.luck_mwc)
    per_row = luck_at_stake(df)
    assert per_row.filter(df["side"] == 0).sum() == pytest.approx(a.luck)


def test_one_stake_gives_gnubgs_sum() -> None:
    """Every roll at one stake (a 1-point match): the EMG total is gnubg's sum, MWC half of it."""
    s = MatchState(length=1)
    df = pl.DataFrame([_roll(0, 0.4, s), _roll(0, -0.1, s), _roll(1, -0.25, s)], schema=DECISIONS_SCHEMA)
    a, b = player_stats(df, XG, ["ann", "bob"])
    assert a.luck == pytest.approx(0.3) and a.luck_gnubg_emg == pytest.approx(0.3)
    assert a.luck_mwc == pytest.approx(0.15) and b.luck == pytest.approx(-0.25)


def test_money_totals_in_points() -> None:
    rows = [_roll(0, -0.3, MatchState(), money=True), _roll(0, -0.3, MatchState(), money=True),
            _roll(0, 0.4, MatchState(cube=4), money=True), _roll(1, 0.2, MatchState(), money=True)]
    df = pl.DataFrame(rows, schema=DECISIONS_SCHEMA)
    a, b = player_stats(df, XG, ["ann", "bob"], [4.0, -4.0], money=True)
    assert a.luck_gnubg_emg == pytest.approx(-0.2) and a.luck_points == pytest.approx(1.0)
    assert a.luck > 0.0 and a.luck_mwc is None
    assert luck_stake(df, money=True) == pytest.approx((0.3 + 0.3 + 1.6 + 0.2) / (0.3 + 0.3 + 0.4 + 0.2))
    assert a.luck_adjusted_result == pytest.approx(4.0 - 1.0 + 0.2)


def test_luck_at_stake_finds_the_currency() -> None:
    """Without ``money`` the helpers read the table: no MWC luck means points (money, the variants)."""
    variant = pl.DataFrame({"luck": [0.5, -0.2, None], "luck_mwc": [None, None, None], "cube": [None, None, None]},
                           schema={"luck": pl.Float64, "luck_mwc": pl.Float64, "cube": pl.Int32})
    assert luck_stake(variant) == pytest.approx(1.0)
    assert luck_at_stake(variant).to_list()[:2] == pytest.approx([0.5, -0.2])
    money = pl.DataFrame({"luck": [0.5, -0.2], "luck_mwc": [None, None], "cube": [2, 1]},
                         schema={"luck": pl.Float64, "luck_mwc": pl.Float64, "cube": pl.Int32})
    assert luck_stake(money) == pytest.approx((1.0 + 0.2) / (0.5 + 0.2))


def test_no_luck_at_all() -> None:
    s = MatchState(length=3)
    df = pl.DataFrame([_roll(0, 0.0, s), _roll(1, 0.0, s)], schema=DECISIONS_SCHEMA)
    a, _ = player_stats(df, XG, ["ann", "bob"])
    assert luck_stake(df) is None and a.luck == 0.0 and a.luck_rate == 0.0


# ---------------------------------------------------------------------- the shipped sample
@pytest.mark.integration
def test_sample_totals_agree_in_sign() -> None:
    """The shipped 7-point sample at 0-ply: gnubg's plain EMG sum and the MWC total of BoardLord
    disagree in sign; our EMG total follows the MWC total for both players."""
    from pathlib import Path

    from analyzer.analysis.analyze import analyze_match
    from analyzer.eval.engine import Engine
    from analyzer.formats import read_any

    path = Path(__file__).parent.parent / "data" / "samples" / "boardlord-llabba-7p.mat"
    [record] = list(read_any(path))
    a = analyze_match(record, engine=Engine(), ply=0)
    rolls = a.decisions.filter(pl.col("luck").is_not_null())
    ratio = (rolls["luck_mwc"] / rolls["luck"]).filter(rolls["luck"].abs() > 1e-6)
    assert (ratio > 0.0).all()  # each roll: EMG and MWC luck of one sign
    assert any((p.luck_gnubg_emg < 0.0) != (p.luck_mwc < 0.0) for p in a.players)
    for p in a.players:
        assert (p.luck < 0.0) == (p.luck_mwc < 0.0)
