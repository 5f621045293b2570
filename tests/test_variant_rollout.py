"""Rollouts of Dutch and Mahbusa positions (analyzer.eval.variants.rollout) and `bgreview rollout` on them."""

from __future__ import annotations

import json
import multiprocessing

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.core.ids import encode_key, encode_position_id
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval.rollout import RolloutSettings, close_pool, rollout
from analyzer.eval.variants.engine import engine_for
from analyzer.eval.variants.play import net_rollout

RACE = "P 1:2 2:1 5:2 | O 24:2 23:1 20:2 | off P10 O10"
PINNED = "P 14:1 10:1+o 1:13 | O 21:14"  # docs/rules.md notation: our checker pins one of theirs on 10
runner = CliRunner()


def _kernel_seed(seed: int) -> int:
    return (seed * 1_000_003) % 2**31


@pytest.mark.parametrize("variant,text", [("dutch", RACE), ("mahbusa", PINNED)])
def test_position_rollout_is_the_kernel_rollout_over_every_pair_of_first_rolls(variant, text):
    # 1,296 trials: each ordered pair of the first two rolls once, so the set of trials is the
    # compiled rollout's own (which is what the consistency benchmark uses)
    eng = engine_for(variant)
    pos = Position.from_notation(text, variant)
    r = rollout(eng, pos, RolloutSettings(trials=1296, seed=4, workers=1))
    mean, se, counts = net_rollout(eng.net, pos, 1296, seed=_kernel_seed(4), ctx=eng.race_context)
    best = r.best
    assert best.play is None and r.dice is None and r.trials == 1296 and not r.stopped_early
    assert best.equity == pytest.approx(mean, abs=1e-12) and best.equity_se == pytest.approx(se, abs=1e-12)
    n = counts.sum()
    assert best.games == n and best.dropped == 0
    assert best.probabilities.win == pytest.approx((counts[0] + counts[1]) / n)
    assert best.probabilities.lose_gammon == pytest.approx(counts[3] / n)
    assert best.probabilities.draw == pytest.approx(counts[4] / n)
    lo, hi = best.equity_ci
    assert lo < best.equity < hi


@pytest.mark.parametrize("variant,text,dice", [("dutch", RACE, (6, 2)), ("mahbusa", PINNED, (6, 2)),
                                               ("mahbusa", RACE, (4, 3))])
def test_candidates_are_rolled_out_from_the_opponents_side_and_ranked(variant, text, dice):
    eng = engine_for(variant)
    pos = Position.from_notation(text, variant)
    r = rollout(eng, pos, RolloutSettings(trials=1296, seed=9, max_plays=4, threshold=2.0, workers=1), dice=dice)
    legal = {p.result.board for p in eng.rules.legal_plays(pos, dice)}
    assert r.dice == dice and 1 <= len(r.candidates) <= 4
    eqs = [c.equity for c in r.candidates]
    assert eqs == sorted(eqs, reverse=True)
    assert r.best.diff == 0.0
    for c in r.candidates:
        assert c.result.board in legal  # a result of the roll, seen from the side that moved
        # the opponent is on roll after the play: the same trials from that side, negated
        mean, _, counts = net_rollout(eng.net, c.result.flip(), 1296, seed=_kernel_seed(9), ctx=eng.race_context)
        assert c.equity == pytest.approx(-mean, abs=1e-12)
        n = counts.sum()  # the opponent's win 1, win 2, lose 1, lose 2, draw
        assert c.probabilities.win == pytest.approx((counts[2] + counts[3]) / n)
        assert c.probabilities.win_gammon == pytest.approx(counts[3] / n)
        assert c.probabilities.lose_gammon == pytest.approx(counts[1] / n)
        assert c.probabilities.draw == pytest.approx(counts[4] / n)
        assert c.diff == pytest.approx(c.equity - r.best.equity, abs=1e-12)  # no game dropped: same trials


def test_workers_give_the_same_trials_and_a_target_se_stops_early():
    eng = engine_for("mahbusa")
    pos = Position.from_notation(PINNED, "mahbusa")
    one = rollout(eng, pos, RolloutSettings(trials=400, seed=1, workers=1), dice=(5, 1))
    two = rollout(eng, pos, RolloutSettings(trials=400, seed=1, workers=2), dice=(5, 1))
    assert [c.as_dict() for c in one.candidates] == [c.as_dict() for c in two.candidates]
    other = rollout(eng, pos, RolloutSettings(trials=400, seed=2, workers=1), dice=(5, 1))
    assert [c.equity for c in other.candidates] != [c.equity for c in one.candidates]  # the seed matters
    stopped = rollout(eng, pos, RolloutSettings(trials=1296, seed=1, target_se=1.0, workers=1))
    assert stopped.stopped_early and stopped.trials == 324 and stopped.trials_requested == 1296
    assert stopped.best.equity_se < 1.0


def _children() -> set[int]:
    return {p.pid for p in multiprocessing.active_children()}


def test_rollouts_of_a_variant_keep_their_workers_and_their_numbers():
    # a review's confirmation rolls many positions out in turn: the worker processes (and the kernel they
    # loaded) serve them all, another engine gets new ones, and the numbers are those of one process
    close_pool()
    assert not _children()
    eng = engine_for("mahbusa")
    pos = Position.from_notation(PINNED, "mahbusa")
    first = rollout(eng, pos, RolloutSettings(trials=72, seed=1, workers=2), dice=(5, 1))
    workers = _children()
    assert len(workers) == 2
    again = rollout(eng, pos, RolloutSettings(trials=144, seed=2, workers=2), dice=(6, 5))
    before = rollout(eng, pos, RolloutSettings(trials=72, seed=3, workers=2))
    assert _children() == workers
    dutch = engine_for("dutch")
    start = Position.from_notation(RACE, "dutch")
    other = rollout(dutch, start, RolloutSettings(trials=72, seed=1, workers=2), dice=(6, 2))
    assert _children().isdisjoint(workers) and len(_children()) == 2
    close_pool()
    assert not _children()
    for got, (e, p, s, dice) in [(first, (eng, pos, RolloutSettings(trials=72, seed=1, workers=1), (5, 1))),
                                 (again, (eng, pos, RolloutSettings(trials=144, seed=2, workers=1), (6, 5))),
                                 (before, (eng, pos, RolloutSettings(trials=72, seed=3, workers=1), None)),
                                 (other, (dutch, start, RolloutSettings(trials=72, seed=1, workers=1), (6, 2)))]:
        alone = rollout(e, p, s, dice=dice)
        assert [c.as_dict() for c in got.candidates] == [c.as_dict() for c in alone.candidates]


def test_more_than_1296_trials_are_new_games():
    # the second block of 1,296 trials has every pair of first two rolls once more, with its own later dice
    eng = engine_for("dutch")
    pos = Position.from_notation(RACE, "dutch")
    r = rollout(eng, pos, RolloutSettings(trials=2592, seed=3, workers=1))
    a, _, _ = net_rollout(eng.net, pos, 1296, seed=_kernel_seed(3), ctx=eng.race_context)
    b, _, _ = net_rollout(eng.net, pos, 1296, seed=_kernel_seed(3) + 1296, ctx=eng.race_context)
    assert a != b
    assert r.best.games == 2592 and r.best.equity == pytest.approx((a + b) / 2, abs=1e-12)


def test_short_rollouts_are_unbiased_samples():
    # 36 trials see each first roll once, and replies drawn at random (not tied to the first roll):
    # the mean over seeds of short rollouts comes close to the full 1,296-pair value
    eng = engine_for("dutch")
    pos = Position.from_notation(RACE, "dutch")
    full = rollout(eng, pos, RolloutSettings(trials=1296, seed=0, workers=1)).best.equity
    short = [rollout(eng, pos, RolloutSettings(trials=36, seed=s, workers=1)).best for s in range(12)]
    assert len({round(c.equity, 9) for c in short}) > 1  # the seed changes the replies
    mean = float(np.mean([c.equity for c in short]))
    se = float(np.sqrt(np.mean([c.equity_se ** 2 for c in short]) / len(short)))
    assert abs(mean - full) < 4 * se + 0.02


def test_a_play_that_ends_the_game_is_exact():
    eng = engine_for("dutch")
    pos = Position.from_notation("P 1:1 2:1 | O 24:2 23:1 20:2 | off P13 O10", "dutch")
    r = rollout(eng, pos, RolloutSettings(trials=72, seed=1, max_plays=1, workers=1), dice=(2, 1))
    (c,) = r.candidates
    assert c.equity == 1.0 and c.equity_se == 0.0 and c.probabilities.win == 1.0 and c.games == 72


def test_bad_requests_are_refused():
    eng = engine_for("dutch")
    with pytest.raises(ValueError, match="standard position"):
        rollout(eng, Position.start("standard"), RolloutSettings(workers=1))
    with pytest.raises(ValueError, match="trials"):
        rollout(eng, Position.start("dutch"), RolloutSettings(trials=0, workers=1))
    with pytest.raises(ValueError, match="over"):
        rollout(eng, Position.from_notation("P | O 19:14 | off P15 O1", "dutch"), RolloutSettings(workers=1))
    with pytest.raises(ValueError, match="dice"):
        rollout(eng, Position.start("dutch"), RolloutSettings(workers=1), dice=(7, 1))
    # what the engine's capabilities exclude: no cube, every game played out
    with pytest.raises(ValueError, match="no truncation"):
        rollout(eng, Position.start("dutch"), RolloutSettings(workers=1, truncate=5))
    with pytest.raises(ValueError, match="no cube play"):
        rollout(eng, Position.start("dutch"), RolloutSettings(workers=1, cube_play=True))
    with pytest.raises(ValueError, match="no match score"):
        rollout(eng, Position.start("dutch"), RolloutSettings(workers=1), match=MatchState(length=3))
    with pytest.raises(ValueError, match="not a legal play"):
        rollout(eng, Position.start("dutch"), RolloutSettings(workers=1), dice=(6, 5), plays=["24/1"])


@pytest.mark.integration
def test_plays_named_by_text_are_the_plays_named_with_their_results():
    eng = engine_for("dutch")
    pos = Position.start("dutch")
    ranked = eng.rank_plays(pos, (6, 5))[:2]
    settings = RolloutSettings(trials=36, seed=2, workers=1)
    by_text = rollout(eng, pos, settings, dice=(6, 5), plays=[r.play for r in ranked])
    by_pair = rollout(eng, pos, settings, dice=(6, 5), plays=[(r.play, r.result) for r in ranked])
    assert by_text.as_dict() == by_pair.as_dict() and len(by_text.candidates) == 2


def test_only_net_engines_roll_out():
    class Other:  # an Evaluator's flags without the rollout kernel's arguments of one
        variant, cubeful, variance_reduction, max_ply, cube = "dutch", False, False, 2, None

    with pytest.raises(AttributeError, match="rollout_args"):
        rollout(Other(), Position.start("dutch"), RolloutSettings(workers=1))  # type: ignore[call-overload]


def test_cli_rollout_of_variant_positions():
    key = encode_key(Position.from_notation(PINNED, "mahbusa"))
    res = runner.invoke(app, ["rollout", key, "--dice", "62", "--trials", "72", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "Mahbusa" in res.output and "72 trials" in res.output and "no doubling cube" in res.output
    assert "14/8 10/8" in res.output and "Draw" in res.output
    res = runner.invoke(app, ["rollout", key, "--trials", "36", "--workers", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["variant"] == "mahbusa" and doc["cube"] is None and doc["trials"] == 36
    (c,) = doc["candidates"]
    assert c["play"] is None and c["games"] == 36
    assert c["win"] + c["lose"] + c["draw"] == pytest.approx(1.0)
    res = runner.invoke(app, ["rollout", key, "--dice", "62", "--trials", "36", "--workers", "1", "-f", "json"])
    best = json.loads(res.stdout)["candidates"][0]
    res = runner.invoke(app, ["rollout", key, "--dice", "62", "--trials", "36", "--workers", "1", "-f", "csv"])
    assert res.exit_code == 0, res.output
    head, row = res.stdout.strip().splitlines()[:2]  # (stderr may say why fewer plays than --plays)
    assert head.startswith("n,play,equity") and head.endswith("draw,games")
    assert row.split(",")[:3] == ["1", best["play"], f"{best['equity']:+.4f}"]


@pytest.mark.parametrize("flag", [["--vr"], ["--cubeful"], ["--truncate", "5"], ["--cube-play"]])
def test_cli_refuses_standard_only_options_for_variants(flag):
    key = encode_key(Position.start("dutch"))
    res = runner.invoke(app, ["rollout", key, "--trials", "36", *flag])
    assert res.exit_code == 2
    assert "dutch" in res.output


def test_cli_variant_option_reads_a_gnubg_id_as_mahbusa():
    # a gnubg ID carries no variant: --variant names it (here the standard layout as a Mahbusa position)
    res = runner.invoke(app, ["rollout", encode_position_id(Position.start("standard")), "--variant", "mahbusa",
                              "--trials", "36", "--workers", "1", "-f", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["variant"] == "mahbusa"
    assert np.isfinite(doc["candidates"][0]["equity"])


# ---------------------------------------------------------------------------- analyze --rollout
SHORT_DUTCH = """; [Variation "Dutch"]

 3 point match

 Game 1
 net A : 0                      net B : 0
  1)                             65: bar/20 bar/19
  2) 62: bar/23 bar/19           22: 19/17 17/15 15/13 13/11
  3) 54: bar/21 bar/20           65: bar/20 bar/19
"""


def _short_record(moves=3):
    """SHORT_DUTCH with its first ``moves`` numbered lines (every rolled-out decision costs seconds)."""
    from analyzer.formats.mat import read_match_text

    lines = SHORT_DUTCH.splitlines()
    last = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{moves})"))
    (record,) = read_match_text("\n".join(lines[:last + 1]) + "\n", name="short-dutch.mat")
    return record


@pytest.mark.integration
def test_analyze_rolls_out_variant_checker_plays():
    from analyzer.analysis.analyze import RolloutReview, _Rollouts, analyze_match
    from analyzer.analysis.decisions import analyze_checker
    from analyzer.analysis.replay import replay_games

    record = _short_record(moves=2)  # three decisions, both sides
    settings = RolloutReview(trials=36, workers=1, plays=3, threshold=0.5)
    analysis = analyze_match(record, engine=None, rollout=settings, seed=5)
    meta = analysis.metadata
    assert meta.rollout is not None and meta.rollout.variants is not None
    assert meta.ply is None and meta.rollout.trials == 36 and meta.rollout.seed == 5
    assert meta.rollout.variance_reduction is False and "played out" in meta.rollout.variants
    assert meta.variant_ply is None and "rollouts" in (meta.equity or "")
    rows = analysis.decisions.filter(~analysis.decisions["forced"]).to_dicts()
    assert len(rows) == 3 and {r["side"] for r in rows} == {0, 1} and all(r["ply"] == 0 for r in rows)
    # the first unforced decision, rolled out again directly: the same candidates and values
    eng = engine_for("dutch")
    (game,) = list(replay_games(record))
    def first_of(d):
        return analyze_checker(eng, d.position, d.dice, d.result, d.state, d.side, ply=0, met=None)

    d = next(d for d in game.decisions if d.kind == "move" and d.dice is not None and not first_of(d).forced)
    ca = _Rollouts(settings, 5, None).checker(eng, d, first_of(d))
    row = rows[0]
    assert [c["play"] for c in row["candidates"]] == [c.play for c in ca.candidates]
    assert [c["equity"] for c in row["candidates"]] == pytest.approx([c.equity for c in ca.candidates])
    assert row["played"] == ca.played.play and row["best"] == ca.best.play
    assert ca.played.play in [c.play for c in ca.candidates]  # the played play is always rolled out
    assert len(ca.candidates) <= 4


def test_analyze_refuses_truncated_variant_rollouts():
    from analyzer.analysis.analyze import RolloutReview, analyze_match

    with pytest.raises(ValueError, match="played out|every game out"):
        analyze_match(_short_record(), engine=None, rollout=RolloutReview(trials=36, workers=1, truncate=4))


def test_cli_analyze_refuses_a_truncated_variant_rollout(tmp_path):
    src = tmp_path / "short-dutch.mat"
    src.write_text(SHORT_DUTCH)
    res = runner.invoke(app, ["analyze", str(src), "--rollout", "--trials", "36", "--truncate", "4",
                              "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "--truncate" in res.output


def test_cli_analyze_variant_rollout(tmp_path):
    src = tmp_path / "short-dutch.mat"
    src.write_text(SHORT_DUTCH[:SHORT_DUTCH.index("  2)")])  # one rolled-out decision: the CLI's path, not its cost
    res = runner.invoke(app, ["analyze", str(src), "--rollout", "--trials", "36", "--no-html",
                              "--out", str(tmp_path / "o"), "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["metadata"]["rollout"]["trials"] == 36 and doc["match"]["cube"] is False
