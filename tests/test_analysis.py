"""Match analysis: checker errors, cube decisions, luck, statistics, files and the terminal view."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analyzer.analysis.analyze import MatchAnalysis, analyze_match
from analyzer.analysis.decisions import analyze_checker, hint, score_cube, score_take
from analyzer.analysis.luck import luck_of
from analyzer.analysis.schema import DECISIONS_SCHEMA, empty_decisions
from analyzer.analysis.stats import gnubg_rating, player_stats, xg_rating
from analyzer.analysis.thresholds import GNUBG, XG, Thresholds, load_thresholds
from analyzer.core.dice import ALL_21
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval.cube import cube_decision
from analyzer.eval.engine import Engine
from analyzer.eval.met import met_by_name
from analyzer.formats.mat import read_match_text
from analyzer.render.tables import write_tables
from analyzer.render.terminal import analysis_view, render_text

EVIL = "<script>alert(\"x\")</script>"
QUOTED = "O'Neil\"&amp;"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _mat(names: tuple[str, str], entries: list[str], length: int = 3) -> str:
    lines = [f" {length} point match", "", " Game 1", f" {names[0]} : 0                 {names[1]} : 0"]
    for i in range(0, len(entries), 2):
        right = entries[i + 1] if i + 1 < len(entries) else ""
        lines.append(f"  {i // 2 + 1}) {entries[i]:<32} {right}".rstrip())
    return "\n".join(lines) + "\n"


def _rolls(seed: int, n: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    out: list[tuple[int, int]] = []
    while len(out) < n:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if not out and a == b:
            continue  # the opening roll is never a double
        out.append((max(a, b), min(a, b)))
    return out


def _best_vs_worst(engine: Engine, turns: int = 16, seed: int = 7) -> str:
    """A game where the first player always plays our best play (0-ply, cubeful) and the second
    always the worst legal play."""
    met = met_by_name()
    state = MatchState(length=3)
    pos = Position.start()
    entries: list[str] = []
    for k, dice in enumerate(_rolls(seed, turns)):
        if k % 2 == 0:
            c = hint(engine, pos, dice, state, 0, ply=0, met=met)[0]
            text, result = c.play, c.result
        else:
            r = engine.rank_plays(pos, dice, 0)[-1]
            text, result = r.play, r.result
        entries.append(f"{dice[0]}{dice[1]}: {text}".rstrip())
        if result.mover_off == 15:
            break
        pos = result.flip()
    return _mat((EVIL, QUOTED), entries)


@pytest.fixture(scope="module")
def best_vs_worst(engine: Engine) -> MatchAnalysis:
    [m] = read_match_text(_best_vs_worst(engine), name="constructed.mat")
    return analyze_match(m, engine=engine, ply=0)


# ---------------------------------------------------------------------- checker plays
def test_best_play_has_no_checker_error(best_vs_worst: MatchAnalysis) -> None:
    df = best_vs_worst.decisions
    mine = df.filter((pl.col("side") == 0) & (pl.col("kind") == "checker"))
    assert mine.height >= 6
    assert mine["equity_loss"].max() == 0.0
    assert set(mine["error_class"]) == {"none"}
    assert (mine["played"] == mine["best"]).all()


def test_worst_play_is_found_and_classified(best_vs_worst: MatchAnalysis) -> None:
    df = best_vs_worst.decisions
    theirs = df.filter((pl.col("side") == 1) & (pl.col("kind") == "checker") & ~pl.col("forced"))
    assert theirs.height >= 4
    worst = theirs.sort("equity_loss", descending=True).row(0, named=True)
    assert worst["equity_loss"] >= 0.08 and worst["error_class"] == "blunder"
    assert worst["played"] != worst["best"]
    for r in theirs.iter_rows(named=True):
        assert r["error_class"] == XG.classify(r["equity_loss"])
        assert r["equity_loss"] == pytest.approx(r["equity_best"] - r["equity_played"])
        assert r["mwc_loss"] is not None and r["mwc_loss"] >= 0.0
        plays = [c["play"] for c in r["candidates"]]
        assert r["played"] in plays and plays[0] == r["best"]
    stats = best_vs_worst.players
    assert stats[1].checker["blunder"] >= 1 and stats[0].checker == {"error": 0, "blunder": 0}
    assert stats[1].pr_raw > 0.0


def test_rows_follow_the_schema(best_vs_worst: MatchAnalysis) -> None:
    df = best_vs_worst.decisions
    assert dict(df.schema) == DECISIONS_SCHEMA
    assert set(df["kind"]) <= {"checker", "cube", "take"}
    checker = df.filter(pl.col("kind") == "checker")
    assert checker["dice"].null_count() == 0 and checker["luck"].null_count() == 0
    assert checker["xgid"].str.starts_with("XGID=").all()
    cube = df.filter(pl.col("kind") != "checker")
    assert cube["candidates"].list.len().max() in (None, 0)
    assert (df["equity_loss"] >= 0).all()
    assert df["match_length"].unique().to_list() == [3]
    first = checker.row(0, named=True)
    assert first["position_id"] == "4HPwATDgc/ABMA" and first["move_no"] == 1


def test_determinism(engine: Engine) -> None:
    [m] = read_match_text(_best_vs_worst(engine, turns=8, seed=3), name="d.mat")
    a = analyze_match(m, engine=engine, ply=0)
    engine.clear_cache()
    b = analyze_match(m, engine=engine, ply=0)
    assert a.decisions.equals(b.decisions)
    assert a.summary == b.summary


def _on_the_bar() -> Position:
    """The mover on the bar against a five-point board: only a 1 enters."""
    return Position.from_points({13: 5, 8: 3, 6: 6}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 12: 5}, mover_bar=1)


def test_dance_is_forced(engine: Engine) -> None:
    pos = _on_the_bar()
    ca = analyze_checker(engine, pos, (6, 6), pos, MatchState(), 0, ply=0, met=None)
    assert ca.forced and ca.legal == 1 and ca.loss == 0.0 and ca.played.play == ""
    free = analyze_checker(engine, pos, (6, 1), engine.rank_plays(pos, (6, 1), 0)[0].result, MatchState(), 0,
                           ply=0, met=None)
    assert not free.forced and free.legal > 1 and all(c.play.startswith("bar/") for c in free.candidates)


# ---------------------------------------------------------------------- cube decisions
def test_early_double_and_its_answers(engine: Engine) -> None:
    head = (" 5 point match\n\n Game 1\n ann : 0                 bob : 0\n"
            "  1) 31: 8/5 6/5                    42: 8/4 6/4\n")
    [take] = read_match_text(head + "  2)  Doubles => 2                  Takes\n  3) 65: 24/13\n")
    a = analyze_match(take, engine=engine, ply=0)
    assert a.decisions.filter(pl.col("kind") == "cube")["played"].to_list() == ["no double", "double"]
    cube = a.decisions.filter(pl.col("played") == "double").row(0, named=True)
    assert cube["player"] == "ann" and cube["close"] is True and cube["move_no"] == 3
    assert cube["cube_error"] == "wrong double" and cube["equity_loss"] > 0
    assert cube["cube_nd"] is not None and cube["cube_action"].startswith("no double")
    t = a.decisions.filter(pl.col("kind") == "take").row(0, named=True)
    assert t["player"] == "bob" and t["side"] == 1 and t["played"] == "take" and t["cube_error"] is None
    assert t["equity_played"] == pytest.approx(-cube["cube_dt"])
    assert t["key"] != cube["key"]  # the taker's view of the position
    # after the take ann cannot double: her next roll has no cube row
    assert a.decisions.filter((pl.col("kind") == "cube") & (pl.col("move_no") == 5)).height == 0
    [drop] = read_match_text(head + "  2)  Doubles => 2                  Drops\n      Wins 1 point\n")
    d = analyze_match(drop, engine=engine, ply=0).decisions.filter(pl.col("kind") == "take").row(0, named=True)
    assert d["played"] == "pass" and d["cube_error"] == "wrong pass" and d["error_class"] == "blunder"
    assert a.players[0].cube_errors["wrong double"] == 1
    assert a.players[0].cube_errors["wrong double below DP"] == 1


def test_no_double_rows_before_each_roll(best_vs_worst: MatchAnalysis) -> None:
    df = best_vs_worst.decisions
    cube = df.filter(pl.col("kind") == "cube")
    checker_moves = df.filter((pl.col("kind") == "checker") & (pl.col("move_no") > 1))
    assert cube.height == checker_moves.height  # centred cube: every roll after the opening
    assert (cube["played"] == "no double").all() and cube["dice"].null_count() == cube.height
    assert (cube["forced"] == ~cube["close"]).all()


def test_score_cube_and_take() -> None:
    cd = cube_decision([0.75, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
    missed = score_cube(cd, False, close_cut=0.16)
    assert missed.cube_error == "missed double" and missed.loss == pytest.approx(cd.best - cd.nd)
    right = score_cube(cd, True, close_cut=0.16)
    assert right.cube_error is None and right.loss == 0.0
    weak = cube_decision([0.5, 0.1, 0.0, 0.1, 0.0], MatchState(), 0, cube_life=0.68)
    wrong = score_cube(weak, True, close_cut=0.16)
    assert wrong.cube_error == "wrong double" and wrong.loss > 0
    not_close = score_cube(weak, False, close_cut=0.16)
    assert not_close.loss == 0.0 and not_close.close is (weak.best - min(weak.dt or 0, weak.dp or 0) < 0.16)
    assert score_take(cd, False).cube_error == "wrong pass"
    assert score_take(cd, True).cube_error is None



def test_dead_cube_no_double_is_not_a_close_decision() -> None:
    # gnubg (GetDPEq) has no cube decision when the cube is dead for the player on roll
    # (score + cube >= length: DMP, an owned cube he never needs to turn, the post-Crawford
    # leader), so such a no-double must not count among the close cube decisions of the PR.
    for state in (MatchState(length=7, score=(6, 6), post_crawford=True),
                  MatchState(length=7, score=(4, 3), cube=4, cube_owner=0)):
        cd = cube_decision([0.55, 0.1, 0.0, 0.1, 0.0], state, 0, cube_life=0.68)
        s = score_cube(cd, False, close_cut=0.16)
        assert cd.action.startswith("never") and s.loss == 0.0 and s.close is False


# ---------------------------------------------------------------------- luck
def test_luck_averages_to_zero(engine: Engine) -> None:
    from analyzer.analysis.luck import roll_values

    pos = Position.from_notation("P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2")
    values = roll_values(engine, pos, MatchState(), 0)
    assert sum(r.weight * luck_of(values, r.dice) for r in ALL_21) == pytest.approx(0.0, abs=1e-9)
    assert luck_of(values, (6, 6)) != luck_of(values, (6, 6), opening=True)


def test_roll_values_batched_and_cached_as_one_roll_at_a_time(engine: Engine) -> None:
    # the batch evaluates each distinct board once (41 and 32 can reach the same board) and keeps
    # a position's evaluations for its next visit: the values are those of ranking each roll alone
    from analyzer.analysis.luck import roll_values

    class OneAtATime:  # no evaluate_boards: roll_values ranks the plays of each roll by itself
        def __init__(self, inner: Engine) -> None:
            self.inner = inner

        def rank_plays(self, *args: Any) -> Any:
            return self.inner.rank_plays(*args)

    pos = Position.from_notation("P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2")
    met = met_by_name()
    for state in (MatchState(length=7, score=(2, 4), cube=2, cube_owner=1), MatchState(), MatchState(length=7)):
        slow = roll_values(OneAtATime(engine), pos, state, 0, met)
        assert roll_values(engine, pos, state, 0, met) == pytest.approx(slow, abs=1e-12)


def test_opening_luck_is_gnubgs_luck_first() -> None:
    # gnubg's LuckFirst averages over the 30 ways the opening roll falls: each of the 15
    # non-doubles played by the opener or by his opponent (who then gets the first roll).
    values = {r.dice: float(r.high + r.low) for r in ALL_21}
    assert luck_of(values, (3, 1), opening=True) == pytest.approx(4.0)  # symmetric: the mean is 0
    opp = {k: v + 0.2 for k, v in values.items()}  # the opponent would do 0.2 better with each roll
    assert luck_of(values, (3, 1), opening=True, opponent=opp) == pytest.approx(4.0 + 0.1)


def test_dance_is_unlucky(engine: Engine) -> None:
    from analyzer.analysis.luck import roll_values

    values = roll_values(engine, _on_the_bar(), MatchState(), 0)
    assert luck_of(values, (6, 6)) < 0.0 < luck_of(values, (1, 1))


# ---------------------------------------------------------------------- thresholds and stats
def test_thresholds_presets_and_files(tmp_path: Path) -> None:
    assert XG.classify(0.02) == "error" and GNUBG.classify(0.03) == "none"
    assert GNUBG.classify(0.12) == "bad" and GNUBG.classify(0.1201) == "very bad"
    assert load_thresholds("XG") is XG and load_thresholds("gnubg") is GNUBG
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"name": "bgdb", "levels": [["error", 0.02], ["blunder", 0.08], ["howler", 0.25]]}))
    t = load_thresholds(str(f))
    assert t.classes == ("error", "blunder", "howler") and t.classify(0.3) == "howler"
    assert Thresholds(**{**t.as_dict(), "levels": tuple(map(tuple, t.as_dict()["levels"]))}) == t
    f.write_text(json.dumps({"levels": [["a", 0.5], ["b", 0.1]]}))
    with pytest.raises(ValueError, match="increasing"):
        load_thresholds(str(f))
    with pytest.raises(ValueError, match="unknown thresholds"):
        load_thresholds("nonsense")


def test_rating_scales() -> None:
    assert [xg_rating(pr / 500) for pr in (0, 2.5, 4.9, 5, 7.5, 12.4, 12.5, 17.5, 22.5, 29.9, 30, 41.8)] == [
        "World Champ", "World Class", "World Class", "Expert", "Advanced", "Advanced", "Intermediate",
        "Casual", "Beginner", "Beginner", "Distracted", "Distracted"]
    assert [gnubg_rating(x / 1000) for x in (1.9, 2, 4.9, 7.9, 11.9, 17.9, 25.9, 34.9, 35)] == [
        "Supernatural", "World class", "World class", "Expert", "Advanced", "Intermediate",
        "Casual player", "Beginner", "Awful!"]


def _row(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {k: None for k in DECISIONS_SCHEMA}
    base.update(file="f", game=1, move_no=1, player="p", variant="standard", key="k", match_length=0,
                score_me=0, score_opp=0, cube=1, played="", best="", equity_played=0.0, equity_best=0.0,
                equity_loss=0.0, error_class="none", forced=False, win_prob=0.5, candidates=[], ply=0)
    base.update(kw)
    return base


def test_player_stats_by_hand() -> None:
    rows = [
        _row(side=0, kind="checker", equity_loss=0.1, error_class="blunder", luck=0.2, cube=2),
        _row(side=0, kind="checker", equity_loss=0.0, forced=True, luck=-0.05),
        _row(side=0, kind="cube", equity_loss=0.0, close=False, forced=True),
        _row(side=0, kind="cube", equity_loss=0.03, close=True, error_class="error",
             cube_error="missed double", cube_nd=0.6, cube_dt=0.63, cube_dp=1.0),
        _row(side=1, kind="take", equity_loss=0.0, close=True),
        _row(side=1, kind="checker", equity_loss=0.025, error_class="error", luck=0.1),
    ]
    df = pl.DataFrame(rows, schema=DECISIONS_SCHEMA)
    a, b = player_stats(df, XG, ["ann", "bob"], [1.0, -1.0], money=True)
    assert (a.decisions, a.unforced, a.checker_unforced, a.cube_decisions) == (4, 2, 1, 1)
    assert a.total_error == pytest.approx(0.13) and a.pr_raw == pytest.approx(0.065)
    assert a.checker == {"error": 0, "blunder": 1} and a.cube == {"error": 1, "blunder": 0}
    assert a.cube_errors["missed double"] == 1 and a.cube_errors["missed double below CP"] == 1
    assert a.cube_errors["missed double above CP"] == 0 and b.cube_errors["wrong take"] == 0
    assert a.luck_gnubg_emg == pytest.approx(0.15) and a.luck_points == pytest.approx(0.35)
    # the EMG total is the points total at the session's stake: (0.4 + 0.05 + 0.1) / (0.2 + 0.05 + 0.1)
    assert a.luck == pytest.approx(0.35 / (0.55 / 0.35))
    # gnubg: actual result - own luck + the opponent's luck (points in money play)
    assert a.luck_adjusted_result == pytest.approx(1.0 - 0.35 + 0.1)
    assert b.luck_adjusted_result == pytest.approx(-1.0 - 0.1 + 0.35)
    assert b.pr_raw == pytest.approx(0.0125) and b.rating_xg == "Expert"
    empty = player_stats(empty_decisions(), GNUBG, ["x", "y"])
    assert empty[0].pr_raw is None and empty[0].checker == {"doubtful": 0, "bad": 0, "very bad": 0}


# ---------------------------------------------------------------------- outputs
SUMMARY_KEYS = {"metadata", "match", "players"}
MATCH_KEYS = {"file", "players", "length", "event", "round", "date", "site", "games", "games_analysed",
              "score_final", "errors"}
PLAYER_KEYS = {"name", "side", "decisions", "unforced", "checker", "cube", "total_error", "mean_error",
               "pr_raw", "rating_xg", "rating_gnubg", "luck", "luck_adjusted_result"}
META_KEYS = {"engine", "engine_version", "nets", "ply", "seed", "thresholds", "met", "move_filter", "equity"}


def test_files_and_names_survive(best_vs_worst: MatchAnalysis, tmp_path: Path) -> None:
    paths = write_tables(best_vs_worst, tmp_path / "out")
    assert [p.name for p in paths] == ["decisions.parquet", "decisions.csv", "summary.json"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert set(summary) == SUMMARY_KEYS and set(summary["match"]) >= MATCH_KEYS
    assert set(summary["metadata"]) >= META_KEYS
    assert all(set(p) >= PLAYER_KEYS for p in summary["players"])
    assert summary["match"]["players"] == [EVIL, QUOTED]
    assert [p["name"] for p in summary["players"]] == [EVIL, QUOTED]
    assert summary["metadata"]["thresholds"]["name"] == "xg" and summary["metadata"]["ply"] == 0
    back = pl.read_parquet(tmp_path / "out" / "decisions.parquet")
    assert back.equals(best_vs_worst.decisions)
    assert set(back["player"]) == {EVIL, QUOTED}
    csv = pl.read_csv(tmp_path / "out" / "decisions.csv")
    cands = json.loads(csv.filter(pl.col("kind") == "checker")["candidates"][0])
    assert {"play", "equity", "win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
            "draw"} == set(cands[0])
    assert {c["draw"] for c in cands} == {0.0}  # standard backgammon has no draws


def test_terminal_summary(best_vs_worst: MatchAnalysis) -> None:
    text = render_text(analysis_view(best_vs_worst), width=160)
    assert EVIL in text and QUOTED in text
    for label in ("decisions (unforced)", "PR (500 x mean EMG)", "XG:", "gnubg:", "luck (EMG)",
                  "luck-adjusted result", "5 worst decisions", "3-point match, 0-ply, thresholds xg"):
        assert label in text
    pr = 500 * best_vs_worst.players[1].pr_raw
    assert f"{pr:.1f}" in text


def test_bad_ply(engine: Engine) -> None:
    [m] = read_match_text(" 1 point match\n\n Game 1\n a : 0      b : 0\n  1) 31: 8/5 6/5\n")
    with pytest.raises(ValueError, match="ply"):
        analyze_match(m, engine=engine, ply=9)


def test_money_session(engine: Engine) -> None:
    text = (" 0 point match\n\n Game 1\n ann : 0                 bob : 0\n"
            "  1) 31: 8/5 6/5                    42: 8/4 6/4\n"
            "  2)  Doubles => 2                  Drops\n      Wins 1 point\n")
    [m] = read_match_text(text)
    a = analyze_match(m, engine=engine, ply=0)
    df = a.decisions
    assert df["mwc"].null_count() == df.height and df["mwc_loss"].null_count() == df.height
    assert df["match_length"].unique().to_list() == [0]
    assert a.summary.metadata.met is None
    ann, bob = a.players
    assert ann.result_unit == "points" and ann.actual_result == 1.0 and bob.actual_result == -1.0
    assert ann.luck_mwc is None and ann.luck_points == pytest.approx(ann.luck)
    assert ann.luck_adjusted_result == pytest.approx(1.0 - ann.luck_points + bob.luck_points)


def test_two_ply_ranking_follows_the_filters(engine: Engine) -> None:
    from analyzer.analysis.decisions import DEEP_FILTER, ranking

    pos = Position.start()
    every = engine.rank_plays(pos, (6, 4), 0)
    ranked = ranking(engine, pos, (6, 4), 2)
    assert {r.result for r in ranked} == {r.result for r in every}
    plies = [r.ply for r in ranked]
    assert plies == sorted(plies, reverse=True) and 1 <= plies.count(2) <= DEEP_FILTER.count
    assert plies.count(1) + plies.count(2) <= 16
    deep = [r.equity for r in ranked if r.ply == 2]
    assert deep == sorted(deep, reverse=True)
    worst = every[-1].result
    ca = analyze_checker(engine, pos, (6, 4), worst, MatchState(length=7), 0, ply=2, met=met_by_name())
    assert ca.played.ply == 2 and ca.best.ply == 2 and ca.loss > 0.08
    n_deep = [c.ply for c in ca.candidates].count(2)
    assert ca.played in ca.candidates[:n_deep] and ca.best == ca.candidates[0]


def test_match_without_games(engine: Engine) -> None:
    [m] = read_match_text(" 5 point match\n")
    a = analyze_match(m, engine=engine, ply=0)
    assert a.decisions.height == 0 and dict(a.decisions.schema) == DECISIONS_SCHEMA
    assert a.summary.match.games == 0 and a.summary.match.score_final is None
    assert [p.decisions for p in a.players] == [0, 0] and a.players[0].rating_xg is None
    assert "0 (0)" in render_text(analysis_view(a))
