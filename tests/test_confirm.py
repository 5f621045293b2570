"""The confirmation pass (issue 24): which decisions it values again, how, and what the rows and the
summary say about it."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from analyzer.analysis.analyze import _Job, _Jobs, analyze_match
from analyzer.analysis.confirm import (
    CUBE_DOUBT,
    Confirmer,
    ConfirmSettings,
    cube_signed,
    doubt,
    settle_chance,
    settled,
    take_signed,
    wants_checker,
)
from analyzer.analysis.decisions import analyze_checker
from analyzer.analysis.thresholds import XG
from analyzer.cli import app
from analyzer.cli.analyze import CONFIRM_CUBE_DOUBT, CONFIRM_CUBE_FUTILITY, CONFIRM_FUTILITY, CONFIRM_LIMIT
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.formats import read_matches
from analyzer.formats.mat import read_match_text

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "samples" / "boardlord-llabba-7p.mat"
FAST = ConfirmSettings(trials=36, max_trials=72, truncate=3, plays=2, workers=1, limit=None)
MATCH = """ 3 point match

 Game 1
 ann : 0                        bob : 0
  1) 31: 6/2                       64: 24/18 13/9
  2) 52: 13/8 6/4                  61: 13/7 8/7
  3)  Doubles => 2                 Drops
      Wins 1 point
"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_settings_are_checked():
    for bad in ({"method": "3ply"}, {"trials": 0}, {"trials": 100, "max_trials": 50}, {"truncate": 0},
                {"threshold": 0.0}, {"margin": -0.1}, {"cube_doubt": 1.5}, {"futility": -0.1}):
        with pytest.raises(ValueError):
            ConfirmSettings(**bad)  # type: ignore[arg-type]
    assert ConfirmSettings(method="ply").label == "3-ply" and FAST.as_dict()["max_trials"] == 72


def test_a_class_is_settled_when_both_ends_of_the_interval_agree():
    assert settled(0.05, 0.001, XG) and not settled(0.05, 0.02, XG)  # 0.011..0.089 spans three classes
    assert settled(0.5, 0.1, XG) and not settled(0.02, 0.001, XG)


def test_the_chance_to_settle_a_class():
    # no games left: settled or not
    assert settle_chance(0.05, 0.001, 576, 576, XG) == 1.0 and settle_chance(0.05, 0.02, 576, 576, XG) == 0.0
    # a loss in the middle of its class with a small error is all but sure; one on a class line is not
    assert settle_chance(0.05, 0.004, 144, 576, XG) > 0.99
    assert settle_chance(0.08, 0.004, 144, 576, XG) < 0.3
    # a right play (negative signed loss) settles sooner the better it is
    chances = [settle_chance(x, 0.03, 72, 576, XG) for x in (0.0, -0.03, -0.06, -0.1)]
    assert chances == sorted(chances) and chances[-1] > 0.99
    # the chance of the games left, not of those played: more of them, more chance
    assert settle_chance(0.12, 0.04, 72, 576, XG) > settle_chance(0.12, 0.04, 72, 144, XG)
    # known to within the tolerance by the end: settled for sure
    assert settle_chance(0.08, 0.01, 72, 576, XG, tolerance=0.01) == 1.0


def test_the_low_tolerance_holds_below_the_blunder_line_only():
    """Below the second class line a loss known to within the low tolerance is settled; on the
    blunder line only the tolerance itself settles it. settle_chance agrees with settled."""
    from analyzer.analysis.confirm import LOW_TOLERANCE, TOLERANCE
    from analyzer.analysis.thresholds import GNUBG

    assert TOLERANCE < LOW_TOLERANCE
    se = (TOLERANCE + LOW_TOLERANCE) / 2 / 1.959963984540054  # between the two half-widths
    for th in (XG, GNUBG):
        line = sorted(b for _, b in th.levels)[1]
        low = dict(tolerance=TOLERANCE, low_tolerance=LOW_TOLERANCE)
        assert settled(0.02, se, th, **low) and not settled(0.02, se, th, tolerance=TOLERANCE)
        assert not settled(line - 0.002, se, th, **low)  # the interval reaches the blunder line
        assert settled(-0.01, se, th, **low)
    # the chance: the games left bring the half-width under the low tolerance -> every final mean
    # well below the blunder line settles; none on the blunder line settles that way
    far = settle_chance(0.02, 0.012, 144, 576, XG, tolerance=0.01, low_tolerance=0.015)
    near = settle_chance(0.08, 0.012, 144, 576, XG, tolerance=0.01, low_tolerance=0.015)
    assert far > 0.99 and near < 0.3
    assert far > settle_chance(0.02, 0.012, 144, 576, XG, tolerance=0.01)
    for loss in (-0.02, 0.0, 0.03, 0.07, 0.09, 0.2):  # a sure chance only when settled is sure
        for done in (144, 576):
            c = settle_chance(loss, 0.004, done, 576, XG, tolerance=0.01, low_tolerance=0.015)
            if done == 576:
                assert c == float(settled(loss, 0.004, XG, tolerance=0.01, low_tolerance=0.015))
            assert 0.0 <= c <= 1.0 + 1e-12


def test_a_play_that_was_the_best_settles_on_its_signed_loss():
    """The played play rolled out the best by 0.03 +- 0.015: its loss is none at 95%, though the
    interval of a loss clipped at 0 first would reach past 0.02."""
    c = Confirmer(ConfirmSettings(futility=None), XG, 0, None)
    assert c._enough(-0.03, 0.015, 72) and not settled(0.0, 0.015, XG)
    assert not c._enough(0.03, 0.015, 72) and c._enough(0.03, 0.015, 576)  # the cap
    futile = Confirmer(ConfirmSettings(), XG, 0, None)
    assert futile._enough(0.081, 0.02, 288) and not c._enough(0.081, 0.02, 288)  # on the blunder line
    assert not futile._enough(0.081, 0.03, 144)  # but not before half the games are played


def test_the_cube_decisions_have_their_own_futility():
    """The shipped sample's game 3 move 14 at 288 games (its double's loss -0.0004 +- 0.025): the
    last 288 games would settle its class with a chance of about 0.21. With ``cube_futility`` 0.5 (the
    default) a cube decision stops there, and a checker play with the same figures plays on (``futility``)."""
    chance = settle_chance(-0.0004, 0.025, 288, 576, XG, tolerance=0.01, low_tolerance=0.015)
    assert ConfirmSettings().futility < chance < 0.5 == ConfirmSettings().cube_futility
    c = Confirmer(ConfirmSettings(), XG, 0, None)
    assert c._enough(-0.0004, 0.025, 288, cube=True) and not c._enough(-0.0004, 0.025, 288)
    assert not c._enough(-0.0004, 0.035, 144, cube=True)  # not before half the games are played
    as_checkers = Confirmer(ConfirmSettings(cube_futility=0.2), XG, 0, None)
    assert not as_checkers._enough(-0.0004, 0.025, 288, cube=True)
    assert not Confirmer(ConfirmSettings(cube_futility=None), XG, 0, None)._enough(-0.0004, 0.025, 288, cube=True)


def test_a_cube_decision_settles_on_the_actions_played():
    """A cube decision's rounds stop when each played action's class is settled: the doubler's,
    and after a double the taker's."""
    from analyzer.eval.cube import cube_decision

    cd = cube_decision([0.66, 0.1, 0.0, 0.05, 0.0], MatchState(), 0, cube_life=0.68)
    assert cd.dt is not None and cd.dp is not None
    c = Confirmer(ConfirmSettings(futility=None, tolerance=0.0, low_tolerance=None), XG, 0, None)
    gap = abs(min(cd.dt, cd.dp) - cd.nd)
    se = gap / 2.5  # the better action is known, the wrong one's class is not
    right = cube_signed(cd, True) > 0  # whether not doubling is the right action
    assert settled(-gap, se, XG) and not settled(gap, se, XG)
    assert c._cube_enough(cd, se, 0.001, 72, (not right, None))  # the right action played: settled
    assert not c._cube_enough(cd, se, 0.001, 72, (right, None))  # the wrong one: its class is open
    assert not c._cube_enough(cd, se, 0.001, 72, None)  # without the played actions: the gap's class
    # after a double the take's class must be settled too
    took = take_signed(cd, True) < 0
    assert c._cube_enough(cd, 0.001, 0.001, 72, (True, took))
    wide = (0.02 + abs(cd.dt - cd.dp)) / 1.96 + 0.01  # the take's interval reaches past 0.02
    assert not settled(-abs(cd.dt - cd.dp), wide, XG)
    assert not c._cube_enough(cd, 0.001, wide, 72, (True, took))
    assert c._cube_enough(cd, 0.001, wide, 576, (True, took))  # the cap


def test_a_candidate_led_by_three_errors_is_rolled_out_no_further(engine):
    """A rival of the played play that another rival leads by more than three paired standard errors
    plays no more rounds (it cannot be the best rival); the played play and the leader play on, and
    the dropped one keeps its value from the games it played."""
    from analyzer.analysis.confirm import BEATEN_Z
    from analyzer.analysis.decisions import Candidate, CheckerAnalysis
    from analyzer.eval.probabilities import Probabilities

    ranked = engine.rank_plays(Position.start(), (3, 1), 0)[:3]
    p = Probabilities(0.5, 0.1, 0.0, 0.1, 0.0)
    mine, lead, weak = (Candidate(r.play, r.result, 0.0, p, 0) for r in ranked)
    first = CheckerAnalysis((lead, mine, weak), mine, 3)
    value = {mine.result: 0.0, lead.result: 0.08, weak.result: -0.02}
    pse = 0.1 / (BEATEN_Z + 1)  # lead - weak: four errors; mine's loss on the blunder line
    asked: list[set[Position]] = []

    def one_round(plays, trials, seed):
        asked.append({r for _, r in plays})
        rs = [r for _, r in plays]
        return trials, [(r, value[r], 0.1, p) for r in rs], {(a, b): pse for a in rs for b in rs if a != b}

    c = Confirmer(ConfirmSettings(trials=10, max_trials=40, futility=None, tolerance=0.0, low_tolerance=None), XG, 0,
                  None)
    ca, how = c._rolled_out(first, one_round, 1)
    assert how.trials == 40 and len(asked) == 3  # 10, 10, 20 games: the loss's class stays open
    assert asked[0] == {mine.result, lead.result, weak.result}
    assert asked[1] == asked[2] == {mine.result, lead.result}
    assert [x.result for x in ca.candidates] == [lead.result, mine.result, weak.result]
    assert ca.candidates[-1].equity == -0.02 and ca.played.result == mine.result
    # the played play is never dropped, however far behind
    value[mine.result] = -1.0
    asked.clear()
    c._rolled_out(first, one_round, 1)
    assert all(mine.result in a for a in asked)


def test_which_checker_plays_are_confirmed(engine):
    pos = Position.start()
    first = analyze_checker(engine, pos, (3, 1), _result(engine, pos, (3, 1), "6/2"), MatchState(), 0, ply=0, met=None)
    assert first.loss >= 0.02 and wants_checker(first, FAST)
    best = analyze_checker(engine, pos, (3, 1), first.best.result, MatchState(), 0, ply=0, met=None)
    gap = best.candidates[0].equity - best.candidates[1].equity
    assert wants_checker(best, ConfirmSettings(margin=gap + 0.001))
    assert not wants_checker(best, ConfirmSettings(margin=gap))


def _result(engine: Engine, pos: Position, dice: tuple[int, int], play: str) -> Position:
    return next(r.result for r in engine.rank_plays(pos, dice, 0) if r.play == play)


def test_a_rolled_out_checker_play_keeps_the_played_play_and_is_seeded(engine):
    pos = Position.start()
    first = analyze_checker(engine, pos, (3, 1), _result(engine, pos, (3, 1), "6/2"), MatchState(), 0, ply=0, met=None)
    runs = [Confirmer(FAST, XG, 7, None).checker(engine, pos, (3, 1), MatchState(), 0, first, game=1, move=1)
            for _ in range(2)]
    (ca, how), (ca2, how2) = runs
    assert (ca, how) == (ca2, how2)  # the same seed, the same dice
    assert how.method == "rollout" and how.trials in (36, 72) and how.loss_se is not None and how.loss_se > 0
    assert ca.played.result == first.played.result and ca.played in ca.candidates
    assert {c.result for c in ca.candidates} == {c.result for c in first.candidates[:2]} | {first.played.result}
    assert [c.equity for c in ca.candidates] == sorted((c.equity for c in ca.candidates), reverse=True)
    other = Confirmer(FAST, XG, 8, None).checker(engine, pos, (3, 1), MatchState(), 0, first, game=1, move=1)
    assert other[0].played.equity != ca.played.equity  # another seed, other dice


def test_a_loss_has_the_standard_error_of_its_paired_trials(engine):
    from analyzer.analysis.confirm import _SEED_STEP
    from analyzer.eval.rollout import RolloutSettings, rollout

    pos = Position.start()
    first = analyze_checker(engine, pos, (3, 1), _result(engine, pos, (3, 1), "6/2"), MatchState(), 0, ply=0, met=None)
    plays = [c.play for c in first.candidates[:2]] + [first.played.play]
    settings = RolloutSettings(trials=36, truncate=3, workers=1, seed=7 * _SEED_STEP + 1001, cubeful=True,
                               variance_reduction=True, luck_prune=True)
    r = rollout(engine, pos, settings, dice=(3, 1), match=MatchState(), player=0, plays=plays)
    cs = r.candidates
    for i, x in enumerate(cs):
        assert len(x.paired_se) == 3 and x.paired_se[i] == 0.0
        for j, y in enumerate(cs):
            assert x.paired_se[j] == pytest.approx(y.paired_se[i])  # SE of a - b is that of b - a
            if i != j:  # with variance reduction the trials' values of two plays are nearly independent
                assert 0.5 < x.paired_se[j] / math.hypot(x.equity_se, y.equity_se) < 1.5
    # the confirmation's first round is this rollout: its loss SE is the paired one of rival - played
    ca, how = Confirmer(FAST, XG, 7, None).checker(engine, pos, (3, 1), MatchState(), 0, first, game=1, move=1)
    assert how.trials == 36  # settled at once: a blunder beyond doubt
    played = next(i for i, c in enumerate(cs) if c.result == first.played.result)
    rival = max((i for i in range(3) if i != played), key=lambda i: cs[i].cubeful_equity)
    assert how.loss_se == pytest.approx(cs[rival].paired_se[played])
    assert how.loss_se != pytest.approx(math.hypot(cs[rival].equity_se, cs[played].equity_se))


@pytest.mark.integration
def test_a_cube_decision_is_confirmed_by_cube_games_played_out(engine):
    """The cube games of a rollout with cube play, played out (the default) or to the race, stand for
    No double and Double/take."""
    from analyzer.analysis.confirm import _SEED_STEP
    from analyzer.core.ids import parse_position_spec
    from analyzer.eval.rollout import RolloutSettings, rollout

    spec = parse_position_spec("XGID=--a--BDBBBA-----ac-d--dbB-:0:0:1:00:4:2:0:7:10")  # the sample's g3 #14
    settings = RolloutSettings(trials=36, truncate=None, cubeful=True, cube_play=True, seed=7 * _SEED_STEP + 3014,
                               variance_reduction=True, luck_prune=True, workers=1)
    to_race = ConfirmSettings(trials=36, max_trials=36, cube_race_stop=True)
    assert to_race.as_dict()["cube_race_stop"] is True
    cd, _ = Confirmer(to_race, XG, 7, None).cube(engine, spec.position, spec.match, spec.on_roll, game=3, move=14)
    raced = rollout(engine, spec.position, dataclasses.replace(settings, race_stop=True), match=spec.match,
                    player=spec.on_roll)
    assert raced.cube is not None and (cd.nd, cd.dt) == pytest.approx((raced.cube.nd, raced.cube.dt))
    one = ConfirmSettings(trials=36, max_trials=36)
    assert not one.cube_race_stop and one.as_dict()["cube_race_stop"] is False
    cd, how = Confirmer(one, XG, 7, None).cube(engine, spec.position, spec.match, spec.on_roll, game=3, move=14)
    r = rollout(engine, spec.position, settings, match=spec.match, player=spec.on_roll)
    assert raced.best.mean_plies < r.best.mean_plies
    assert r.cube is not None and r.cube_se is not None and len(r.cube_se) == 2
    assert (cd.nd, cd.dt) == pytest.approx((r.cube.nd, r.cube.dt))
    # the double's error is that of Double/take - No double from the paired cube games (Double/take is
    # below Double/pass here): smaller than the two errors combined as if independent; the take's is Double/take's
    assert cd.dt is not None and cd.dt < cd.dp and r.cube_diff_se is not None
    assert how.trials == 36 and how.loss_se == pytest.approx(r.cube_diff_se)
    assert how.take_se == pytest.approx(r.cube_se[1])
    assert how.loss_se < math.hypot(*r.cube_se)
    assert cd.action == r.cube.action and cd.dp == 1.0


@pytest.mark.integration
def test_a_settled_double_leaves_the_later_rounds_to_the_take(engine, monkeypatch):
    """Once the doubler's class is settled and the take's is not, the later rounds play the
    Double/take games alone (``take_only``): the same games as when both are played (every start
    plays the same dice), so the take's value and error are the same, for half the games."""
    import analyzer.analysis.confirm as confirm_module
    from analyzer.core.ids import parse_position_spec
    from analyzer.eval.rollout import RolloutSettings, rollout, rollout_cubeful

    spec = parse_position_spec("XGID=aFBD-B-----------bcccAb-a-:1:1:1:00:2:4:0:7:10")  # the sample's g3 #31
    calls: list[tuple[int, bool]] = []

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append((args[2].trials, args[2].take_only))
        return rollout_cubeful(*args, **kwargs)

    monkeypatch.setattr(confirm_module, "rollout_cubeful", spy)  # the name the cube confirmation calls
    settings = ConfirmSettings(trials=36, max_trials=144, workers=1)

    def confirm():  # type: ignore[no-untyped-def]
        return Confirmer(settings, XG, 7, None).cube(engine, spec.position, spec.match, spec.on_roll, game=3, move=31,
                                                     played=(True, True))

    cd, how = confirm()
    assert calls == [(36, False), (36, True)]  # the double is clear after one round, the take is not
    assert how.trials == 36 and how.take_trials == 72
    calls.clear()
    monkeypatch.setattr(Confirmer, "_doubler_settled", lambda *a: False)  # both games every round
    both, both_how = confirm()
    assert calls == [(36, False), (36, False)]
    assert both.dt == pytest.approx(cd.dt, abs=1e-12) and both_how.take_se == pytest.approx(how.take_se, abs=1e-12)
    assert both_how.trials == 72 and both_how.take_trials is None
    with pytest.raises(ValueError, match="cube_play"):
        RolloutSettings(take_only=True)
    with pytest.raises(ValueError, match="before the roll"):
        rollout(engine, spec.position, RolloutSettings(trials=2, cube_play=True, take_only=True, workers=1),
                dice=(3, 1), match=spec.match, player=spec.on_roll)


@pytest.mark.integration
def test_analysis_with_the_confirmation_pass(engine):
    [m] = read_match_text(MATCH)
    plain = analyze_match(m, engine=engine, ply=0)
    a = analyze_match(m, engine=engine, ply=0, confirm=FAST)
    d = a.decisions
    again = d.filter(pl.col("equity_loss_first").is_not_null())
    assert again.height >= 2  # the bad opening play and the double (every double is confirmed)
    assert set(again["method"]) == {"rollout"} and again["trials"].min() >= 36 and again["loss_se"].min() > 0
    kept = d.filter(pl.col("equity_loss_first").is_null())
    assert set(kept["method"]) == {"0-ply"} and kept["trials"].null_count() == kept.height
    # a row valued again keeps its first loss: the same as the plain analysis's
    first = plain.decisions.join(again.select("game", "move_no", "kind", pl.col("equity_loss_first").alias("kept")),
                                 on=["game", "move_no", "kind"])
    assert first.height == again.height
    assert first["equity_loss"].to_list() == pytest.approx(first["kept"].to_list())
    counts = a.summary.match.confirmed
    assert counts is not None and a.summary.metadata.confirm is not None
    assert counts.decisions == again.height and sum(counts.by_kind.values()) == again.height
    assert counts.by_method == {"rollout": again.height}
    assert a.summary.metadata.confirm.as_dict() == FAST.as_dict() and plain.summary.metadata.confirm is None
    double = d.filter(pl.col("kind") == "cube", pl.col("played") == "double").row(0, named=True)
    take = d.filter(pl.col("kind") == "take").row(0, named=True)
    assert double["method"] == take["method"] == "rollout" and double["cube_nd"] == take["cube_nd"]


def job_doubts(first: pl.DataFrame, wanted: pl.Series) -> list[float | None]:
    """Per row of a first-pass table, the doubt of the confirmation job it belongs to (``None``: a
    row the pass does not want; a double and its take share the larger of their two doubts)."""
    out: list[float | None] = []
    for row, want in zip(first.iter_rows(named=True), wanted, strict=True):
        if not want:
            out.append(None)
            continue
        if row["kind"] == "checker":
            c = row["candidates"]
            signed = row["equity_loss"] if row["equity_loss"] > 0 else -(c[0]["equity"] - c[1]["equity"])
        elif row["kind"] == "cube":
            gain = min(row["cube_dt"], row["cube_dp"]) - row["cube_nd"]
            signed = -gain if row["played"] in ("double", "redouble") else gain
        else:
            signed = row["cube_dp"] - row["cube_dt"] if row["played"] == "pass" else row["cube_dt"] - row["cube_dp"]
        out.append(doubt(signed, row["kind"], XG))
        if row["kind"] == "take" and out[-2] is not None:
            out[-2] = out[-1] = max(out[-2], out[-1])
    return out


@pytest.mark.integration
def test_the_limit_values_the_most_doubtful_first_and_changes_no_value(engine):
    [m] = read_match_text(MATCH)
    first = analyze_match(m, engine=engine, ply=0, confirm=None).decisions
    every = analyze_match(m, engine=engine, ply=0, confirm=FAST).decisions
    wanted = every["equity_loss_first"].is_not_null()
    doubts = job_doubts(first, wanted)
    assert wanted.sum() >= 3 and every.filter(wanted & (pl.col("kind") == "take")).height == 1
    keys = ["game", "move_no", "kind"]
    some = analyze_match(m, engine=engine, ply=0, confirm=dataclasses.replace(FAST, limit=2, cube_doubt=None)).decisions
    valued = some["equity_loss_first"].is_not_null().to_list()
    # every blunder of the first pass (here the 6/2 of the opening, the double and its pass, and 13/8 6/4,
    # which lost 0.081 at 0-ply, on the blunder line), then the two most doubtful of the others (the
    # limit), at least one of them not among the five worst (valued for its doubt alone); the others
    # valued again are those that could be among the five worst (no doubtful cube decision past the
    # limit here: test_the_limit_still_confirms_the_worst_five)
    losses = first["equity_loss"].to_list()
    blunders = [d is not None and loss >= 0.08 for d, loss in zip(doubts, losses, strict=True)]
    assert sum(blunders) == 4 and all(v for v, b in zip(valued, blunders, strict=True) if b)
    order = sorted((i for i, d in enumerate(doubts) if d is not None and not blunders[i]), key=lambda i: -doubts[i])
    tops = order[:2]
    assert doubts[order[1]] > doubts[order[2]]  # no tie at the limit
    five = sorted(losses, reverse=True)[4]
    assert all(valued[i] for i in tops) and any(losses[i] < five for i in tops)
    assert all(losses[i] >= five or blunders[i] for i, v in enumerate(valued) if v and i not in tops)
    # what was valued again is valued as in the pass without a limit (the rollouts are seeded per decision)
    again = some.filter(pl.col("equity_loss_first").is_not_null())
    same = again.join(every, on=keys, suffix="_all")
    assert same.height == again.height and same["equity_loss"].to_list() == same["equity_loss_all"].to_list()
    # the others keep the first pass's values
    rest = some.filter(pl.col("equity_loss_first").is_null()).join(every.filter(wanted), on=keys, suffix="_all")
    assert rest["equity_loss"].to_list() == pytest.approx(rest["equity_loss_first_all"].to_list())


@pytest.mark.integration  # the two slowest of the default tier (23 s and 11 s): CI's integration tier
def test_the_limit_still_confirms_the_worst_five(engine):
    [m] = read_matches(SAMPLE)
    limited = dataclasses.replace(FAST, limit=3, max_trials=36)
    a = analyze_match(m, engine=engine, ply=0, confirm=limited)
    d = a.decisions
    again = d.filter(pl.col("equity_loss_first").is_not_null())
    counts = a.summary.match.confirmed
    assert counts is not None and counts.wanted is not None and again.height == counts.decisions < counts.wanted
    # the most doubtful first: three decisions (a double with its answer as one) at least as doubtful
    # as any left out; the others valued again are there for the worst five alone
    first = analyze_match(m, engine=engine, ply=0, confirm=None).decisions
    everything = analyze_match(m, engine=engine, ply=0, confirm=dataclasses.replace(limited, limit=None)).decisions
    doubts = job_doubts(first, everything["equity_loss_first"].is_not_null())
    valued = d["equity_loss_first"].is_not_null().to_list()
    left = [x for x, v in zip(doubts, valued, strict=True) if x is not None and not v]
    taken = {x for x, v in zip(doubts, valued, strict=True) if x is not None and v}
    assert left and sorted(taken, reverse=True)[limited.limit - 1] >= max(left)
    # past the limit, every cube decision at least cube_doubt doubtful (a double with its answer as one)
    kinds = d["kind"].to_list()
    cubes = [v for x, v, k in zip(doubts, valued, kinds, strict=True)
             if x is not None and k != "checker" and x >= CUBE_DOUBT]
    assert cubes and all(cubes)
    fewer = analyze_match(m, engine=engine, ply=0, confirm=dataclasses.replace(limited, cube_doubt=None)).decisions
    assert fewer["equity_loss_first"].is_not_null().sum() <= again.height
    # and every decision the first pass calls a blunder (a double with its answer by the larger loss)
    blunder = [x is not None and loss >= 0.08 for x, loss in zip(doubts, first["equity_loss"], strict=True)]
    assert any(blunder) and all(v for v, b in zip(valued, blunder, strict=True) if b)
    fewest = analyze_match(m, engine=engine, ply=0,
                           confirm=dataclasses.replace(limited, cube_doubt=None, blunders=False)).decisions
    assert fewest["equity_loss_first"].is_not_null().sum() <= fewer["equity_loss_first"].is_not_null().sum()
    # (whether each rule adds decisions on this match depends on the nets' values: the rules themselves
    # are checked on made-up decisions in test_the_rules_past_the_limit)
    # and every decision the review shows first was valued again
    assert a.worst(5)["equity_loss_first"].null_count() == 0


def test_the_rules_past_the_limit():
    """Made-up decisions (no evaluation): the limit takes the most doubtful, ``cube_doubt`` adds every
    cube decision at least that doubtful, ``blunders`` every first-pass blunder; five rows of large
    losses keep the headline continuation out of it."""

    class Rows:
        rows = [{"equity_loss": 0.5} for _ in range(5)]

    def valued(limit: int | None, cube_doubt: float | None, blunders: bool) -> list[str]:
        jobs = _Jobs(Rows(), XG, None, None)  # type: ignore[arg-type]
        done: list[str] = []
        spec = [("close play", 0.021, 0.40, False), ("close cube", 0.01, 0.35, True),
                ("blunder", 0.20, 0.01, False), ("doubtful cube", 0.03, 0.15, True),
                ("sure cube", 0.0, 0.02, True), ("small error", 0.03, 0.05, False)]
        for k, (name, loss, how_doubtful, cube) in enumerate(spec):
            jobs.jobs.append(_Job(loss, how_doubtful, (10 + k,), lambda name=name: done.append(name), cube))
        jobs.run(limit, None, cube_doubt=cube_doubt, blunders=blunders)
        return done

    assert valued(2, None, False) == ["close play", "close cube"]
    # the doubtful cube decisions are valued besides the limit: they leave its places to the others
    assert valued(2, 0.1, False) == ["close play", "close cube", "doubtful cube", "small error"]
    assert valued(2, None, True) == ["close play", "close cube", "blunder"]
    assert valued(2, 0.1, True) == ["close play", "close cube", "doubtful cube", "small error", "blunder"]
    assert valued(0, 0.01, True) == ["close cube", "doubtful cube", "sure cube", "blunder"]
    assert sorted(valued(None, None, False)) == sorted(["close play", "close cube", "blunder", "doubtful cube",
                                                        "sure cube", "small error"])

def test_the_deeper_ply_method(engine):
    [m] = read_match_text(MATCH)
    a = analyze_match(m, engine=engine, ply=0, confirm=ConfirmSettings(method="ply", ply=1))
    again = a.decisions.filter(pl.col("equity_loss_first").is_not_null())
    assert again.height >= 2 and set(again["method"]) == {"1-ply"}
    assert again["trials"].null_count() == again.height and again["loss_se"].null_count() == again.height


@pytest.mark.integration  # the two slowest of the default tier (23 s and 11 s): CI's integration tier
def test_cli_confirm_options(tmp_path):
    path = tmp_path / "m.mat"
    path.write_text(MATCH)
    runner = CliRunner()
    # on by default, with the default limit
    res = runner.invoke(app, ["analyze", str(path), "--ply", "0", "--confirm-trials", "36",
                              "--out", str(tmp_path / "out"), "--no-html", "--format", "json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["metadata"]["confirm"]["max_trials"] == 36 and summary["match"]["confirmed"]["decisions"] >= 2
    assert summary["metadata"]["confirm"]["limit"] == ConfirmSettings().limit == CONFIRM_LIMIT
    assert summary["match"]["confirmed"]["wanted"] == summary["match"]["confirmed"]["decisions"]
    # a limit of one (what it does: test_the_limit_still_confirms_the_worst_five)
    res = runner.invoke(app, ["analyze", str(path), "--ply", "0", "--confirm-trials", "36", "--confirm-limit", "1",
                              "--out", str(tmp_path / "one"), "--no-html", "--format", "json"])
    assert res.exit_code == 0, res.output
    one = json.loads(res.stdout)
    assert one["metadata"]["confirm"]["limit"] == 1
    assert one["match"]["confirmed"]["wanted"] == summary["match"]["confirmed"]["wanted"]
    assert summary["metadata"]["confirm"]["cube_doubt"] == ConfirmSettings().cube_doubt == CONFIRM_CUBE_DOUBT
    assert summary["metadata"]["confirm"]["futility"] == ConfirmSettings().futility == CONFIRM_FUTILITY
    # no cube decision past the limit
    res = runner.invoke(app, ["analyze", str(path), "--ply", "0", "--confirm-trials", "36", "--confirm-limit", "1",
                              "--confirm-cube-doubt", "1", "--out", str(tmp_path / "nocube"), "--no-html",
                              "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["metadata"]["confirm"]["cube_doubt"] is None
    assert summary["metadata"]["confirm"]["cube_futility"] == ConfirmSettings().cube_futility == CONFIRM_CUBE_FUTILITY
    for option, key in (("--confirm-futility", "futility"), ("--confirm-cube-futility", "cube_futility")):
        # 0 turns the rule off: the summary records no value
        res = runner.invoke(app, ["analyze", str(path), "--ply", "0", "--confirm-trials", "36", "--confirm-limit", "1",
                                  option, "0", "--out", str(tmp_path / f"no-{key}"), "--no-html", "--format", "json"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["metadata"]["confirm"][key] is None
    res = runner.invoke(app, ["analyze", str(path), "--confirm-futility", "2", "--out", str(tmp_path / "bad")])
    assert res.exit_code == 2 and "--confirm-futility" in res.output
    assert summary["metadata"]["confirm"]["blunders"] is True
    res = runner.invoke(app, ["analyze", str(path), "--ply", "0", "--confirm-trials", "36", "--confirm-limit", "1",
                              "--limit-blunders", "--out", str(tmp_path / "nobl"), "--no-html", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["metadata"]["confirm"]["blunders"] is False
    res = runner.invoke(app, ["analyze", str(path), "--confirm-cube-doubt", "-0.5"])
    assert res.exit_code == 2 and "--confirm-cube-doubt" in res.stderr
    res = runner.invoke(app, ["analyze", str(path), "--ply", "0", "--no-confirm", "--out", str(tmp_path / "no"),
                              "--no-html", "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["metadata"]["confirm"] is None
    res = runner.invoke(app, ["analyze", str(path), "--confirm-limit", "-1"])
    assert res.exit_code == 2 and "--confirm-limit" in res.stderr
    res = runner.invoke(app, ["analyze", str(path), "--confirm", "--confirm-method", "deeper"])
    assert res.exit_code == 2 and "--confirm-method must be one of" in res.stderr


def test_doubt_is_largest_on_a_class_boundary_and_falls_away_from_it():
    at_line = doubt(0.08, "checker", XG)
    assert at_line == pytest.approx(0.5, abs=0.01)
    assert doubt(0.3, "checker", XG) < doubt(0.12, "checker", XG) < at_line
    assert doubt(-0.1, "cube", XG) < doubt(-0.01, "cube", XG)
    # the same distance from the line is more doubtful where the first pass strays more (the taker's)
    assert doubt(0.2, "checker", XG) < doubt(0.2, "cube", XG) < doubt(0.2, "take", XG)
    assert all(0.0 <= doubt(x / 100, k, XG) <= 1.0 for x in range(-50, 100, 7) for k in ("checker", "cube", "take"))
