"""Reviews of Dutch backgammon and Mahbusa records, end to end: checker decisions only (no cube),
luck, per-player rates in points, game results (mother wins, draws), the HTML report with
reserves, locks and pins, the terminal summary and ``bgreview analyze`` on the samples.

The analysis is exercised with :class:`StandIn`, a small deterministic evaluator defined here
(chances from the hand-written heuristic's score, in the variant nets' 5-outcome layout), so these
tests do not depend on trained nets; one CLI test runs the shipped variant engine when its nets
are there.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from numpy.typing import NDArray
from typer.testing import CliRunner

from analyzer.analysis import variants as V
from analyzer.analysis.analyze import MatchAnalysis, NoEvaluatorError, _game_results, _game_summaries, analyze_match
from analyzer.analysis.decisions import CheckerAnalysis, analyze_checker
from analyzer.analysis.replay import GameReplay, replay_games
from analyzer.core.dice import ALL_21
from analyzer.core.ids import decode_key
from analyzer.core.match import MatchState
from analyzer.core.position import Position, flip_boards
from analyzer.eval.engine import RankedPlay
from analyzer.eval.heuristic import score_boards
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import EvaluatorInfo
from analyzer.formats.mat import read_match_text, read_matches
from analyzer.formats.mat_writer import format_match
from analyzer.render.charts import equity_unit
from analyzer.render.html import render_html_report
from analyzer.render.terminal import analysis_view, render_text
from analyzer.rules import find_variant

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = {"dutch": ROOT / "data" / "samples" / "dutch-selfplay-3p.mat",
           "mahbusa": ROOT / "data" / "samples" / "mahbusa-selfplay-3p.mat"}
VARIANTS = ("dutch", "mahbusa")


class StandIn:
    """A tiny evaluator for tests: the chance of winning is a logistic of the heuristic's score of
    the position for its side on roll, a quarter of the wins and losses are mars; five outcome
    columns as the variant nets (win 1, win 2, lose 1, lose 2, draw). ``ply`` adds a small bias
    so that deeper evaluations differ from 0-ply ones. Its capabilities are the variant engines'."""

    cubeful = False
    variance_reduction = False
    max_ply = 2

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.rules = find_variant(variant)
        self.calls = 0

    def evaluate_boards(self, boards: NDArray[np.int8], ply: int = 0) -> NDArray[np.float64]:
        self.calls += len(boards)
        score = score_boards(np.asarray(boards, dtype=np.int8), self.variant)
        win = 1.0 / (1.0 + np.exp(-(score + 2.0 * ply) / 15.0))
        zero = np.zeros_like(win)
        return np.stack([0.75 * win, 0.25 * win, 0.75 * (1 - win), 0.25 * (1 - win), zero], axis=1)

    @staticmethod
    def _probs(row: NDArray[np.float64]) -> Probabilities:
        return Probabilities(float(row[0] + row[1]), float(row[1]), 0.0, float(row[3]), 0.0)

    def evaluate(self, pos: Position, ply: int = 0) -> Probabilities:
        return self._probs(self.evaluate_boards(np.frombuffer(pos.board, np.int8)[None, :], ply)[0])

    def clear_cache(self) -> None:
        pass

    def describe(self) -> EvaluatorInfo:
        return EvaluatorInfo("StandIn")

    def rank_plays(self, pos: Position, dice: tuple[int, int], ply: int = 0) -> list[RankedPlay]:
        plays = self.rules.legal_plays(pos, dice)
        boards = np.stack([np.frombuffer(p.result.board, np.int8) for p in plays])
        theirs = self.evaluate_boards(flip_boards(boards), ply)
        out = []
        for p, row in zip(plays, theirs, strict=True):
            pr = self._probs(row).flip()
            out.append(RankedPlay(p.text, p.result, pr.equity, pr, ply))
        out.sort(key=lambda r: -r.equity)
        return out


def _checker(engine: Any, pos: Position, dice: tuple[int, int], played: Position, *, ply: int) -> CheckerAnalysis:
    """The one checker scoring of an engine without a cube (no match score or MET apply)."""
    return analyze_checker(engine, pos, dice, played, MatchState(), 0, ply=ply, met=None)


def sample(variant: str) -> Any:
    [record] = list(read_matches(SAMPLES[variant]))
    return record


@pytest.fixture(scope="module", params=VARIANTS)
def analysed(request: pytest.FixtureRequest) -> tuple[str, MatchAnalysis]:
    variant = str(request.param)
    a = analyze_match(sample(variant), engine=None, ply=0,
                      variant_engines={variant: StandIn(variant)})
    return variant, a


def test_samples_replay_through_the_rules() -> None:
    for variant, path in SAMPLES.items():
        record = sample(variant)
        assert record.variant == variant and not record.errors
        games = list(replay_games(record))
        assert len(games) >= 2 and all(g.ok for g in games), [str(g.error) for g in games]
        assert all(g.variant == variant and g.winner is not None for g in games)
        score = [0, 0]
        for g in games:
            assert g.winner is not None
            score[g.winner] += g.points
        assert max(score) >= record.length
        assert path.read_text(encoding="utf-8") == format_match(replace(record, source="", errors=()))


def test_checker_decisions_only_and_no_cube_columns(analysed: tuple[str, MatchAnalysis]) -> None:
    variant, a = analysed
    df = a.decisions
    record = sample(variant)
    moves = sum(1 for g in replay_games(record) for d in g.decisions if d.kind == "move")
    assert df.height == moves > 100
    assert set(df["kind"]) == {"checker"} and set(df["variant"]) == {variant}
    for col in ("cube", "cube_nd", "cube_dt", "cube_dp", "cube_action", "cube_error", "close", "mwc",
                "mwc_loss", "luck_mwc", "position_id", "match_id", "xgid"):
        assert df[col].null_count() == df.height, col
    assert df["key"].null_count() == 0 and df["luck"].null_count() == 0
    assert (df["equity_loss"] >= 0).all() and (df["equity_best"] <= 2.0 + 1e-9).all()
    assert (df["equity_best"] >= -2.0 - 1e-9).all()
    assert set(df["match_length"]) == {record.length}
    for p in a.players:
        assert p.cube_decisions == 0 and p.cube_error == 0.0 and p.result_unit == "points"
        assert p.luck_mwc is None and p.total_mwc_loss is None
    meta = a.metadata
    assert meta.met is None and meta.cube_model is None and "cubeless expected points" in (meta.equity or "")
    assert meta.variant_engines is not None and meta.variant_engines[variant].evaluator == "StandIn"
    assert a.summary.match.cube is False and a.summary.match.variant == variant
    assert equity_unit(df) == "points"


def test_best_plays_are_legal_and_the_engines_best_loses_nothing(analysed: tuple[str, MatchAnalysis]) -> None:
    variant, a = analysed
    rules = find_variant(variant)
    engine = StandIn(variant)
    decisions = [d for g in replay_games(sample(variant)) for d in g.decisions if d.kind == "move"]
    rows = list(a.decisions.iter_rows(named=True))
    assert len(rows) == len(decisions)
    checked = 0
    for row, d in zip(rows, decisions, strict=True):
        assert d.dice is not None and d.result is not None
        assert decode_key(row["key"]) == d.position
        texts = {p.text for p in rules.legal_plays(d.position, d.dice)}
        assert row["best"] in texts and row["played"] == next(
            p.text for p in rules.legal_plays(d.position, d.dice) if p.result == d.result)
        assert {c["play"] for c in row["candidates"]} <= texts
        if row["played"] == row["best"]:
            assert row["equity_loss"] == 0.0 and row["error_class"] == "none"
        if row["forced"]:
            assert row["equity_loss"] == 0.0 and len(texts) == 1
        checked += 1
    assert checked == len(rows)
    # Playing the engine's own choice loses nothing; any other legal play loses its difference.
    for d in decisions[:40]:
        assert d.dice is not None
        ranked = engine.rank_plays(d.position, d.dice)
        legal = {Position(b.tobytes(), variant) for b in rules.legal_results(d.position, d.dice)}
        best = _checker(engine, d.position, d.dice, ranked[0].result, ply=0)
        assert best.best.result in legal and best.loss == 0.0 and best.played.result == best.best.result
        if len(ranked) > 1:
            worst = _checker(engine, d.position, d.dice, ranked[-1].result, ply=0)
            assert worst.best.result == best.best.result
            assert math.isclose(worst.loss, best.best.equity - worst.played.equity, abs_tol=1e-12)


def test_deeper_ply_evaluates_the_candidates_again() -> None:
    engine = StandIn("dutch")
    pos = Position.from_notation("P 20:3 5:1 | O 3:2 16:1 | res P11 O12 | unlocked", "dutch")
    ranked = engine.rank_plays(pos, (4, 2))
    ca = _checker(engine, pos, (4, 2), ranked[-1].result, ply=1)
    assert ca.played.ply == 1 and all(c.ply == 1 for c in ca.candidates) and ca.legal == len(ranked)
    assert ca.played.result == ranked[-1].result
    deep = engine.evaluate(ca.best.result.flip(), 1).flip()
    assert math.isclose(ca.best.equity, deep.equity, abs_tol=1e-12)
    # from 2-ply on: the candidates at 1-ply, the best of them (4 within 0.08) and the played play at 2-ply
    two = _checker(engine, pos, (4, 2), ranked[-1].result, ply=2)
    plies = [c.ply for c in two.candidates]
    assert plies == sorted(plies, reverse=True) and set(plies) == {1, 2} and two.played.ply == 2
    assert 2 <= plies.count(2) <= 5 and len(two.candidates) == len(ca.candidates)
    with pytest.raises(ValueError, match="not a legal result"):
        _checker(engine, pos, (4, 2), pos, ply=0)


def test_luck_is_zero_on_average_and_counts_the_die_off(analysed: tuple[str, MatchAnalysis]) -> None:
    variant, a = analysed
    engine = StandIn(variant)
    df = a.decisions
    assert (df["luck"].abs() <= 4.0).all()
    # the luck of every roll of a position averages to zero over the 36 rolls
    for key in df["key"].to_list()[5:60:11]:
        pos = decode_key(key)
        values = V.variant_roll_values(engine, pos)
        total = sum(r.weight * V.variant_luck(values, r.dice) for r in ALL_21)
        assert abs(total) < 1e-9
        # the batch path and the one-roll-at-a-time path agree
        slow = V.variant_roll_values(_NoBulk(engine), pos)
        assert all(math.isclose(values[k], slow[k], abs_tol=1e-9) for k in values)
    # the first roll of the match follows a die-off: at the symmetric start its luck is its value
    first = df.row(0, named=True)
    start = find_variant(variant).start()
    values = V.variant_roll_values(engine, start)
    dice = (int(first["dice"][0]), int(first["dice"][1]))
    assert math.isclose(first["luck"], values[dice], abs_tol=1e-9)
    # Mahbusa: the winner of game 1 opens game 2 with both dice, an ordinary roll
    if variant == "mahbusa":
        games = list(replay_games(sample(variant)))
        opener = df.filter(pl.col("game") == 2).row(0, named=True)
        assert opener["side"] == games[0].winner
        dice = (int(opener["dice"][0]), int(opener["dice"][1]))
        mean = sum(r.weight * values[r.dice] for r in ALL_21) / 36
        assert math.isclose(opener["luck"], values[dice] - mean, abs_tol=1e-9)
    # per player, the summary adds up the rows; the luck-adjusted result is gnubg's
    for p in a.players:
        mine = df.filter(pl.col("side") == p.side)
        assert math.isclose(p.luck, mine["luck"].sum(), abs_tol=1e-9) and p.rolls == mine.height
        opp = a.players[1 - p.side]
        assert math.isclose(p.luck_adjusted_result, p.actual_result - p.luck + opp.luck, abs_tol=1e-9)


class _NoBulk:
    """The stand-in without its batch method: the analysis then ranks each roll on its own."""

    def __init__(self, inner: StandIn) -> None:
        self.inner = inner

    def evaluate(self, pos: Position, ply: int = 0) -> Probabilities:
        return self.inner.evaluate(pos, ply)

    def rank_plays(self, pos: Position, dice: tuple[int, int], ply: int = 0) -> list[RankedPlay]:
        return self.inner.rank_plays(pos, dice, ply)


def test_game_results_in_points(analysed: tuple[str, MatchAnalysis]) -> None:
    variant, a = analysed
    games = list(replay_games(sample(variant)))
    results = a.summary.match.results
    assert [r.game for r in results] == [g.number for g in games]
    assert [(r.end, r.winner, r.points) for r in results] == [(g.end, g.winner, g.points) for g in games]
    final = a.summary.match.score_final
    assert final is not None
    assert a.players[0].actual_result == final[0] - final[1] == -a.players[1].actual_result
    if variant == "mahbusa":
        assert "mother" in {r.end for r in results}  # the sample holds a mother win


def test_draws_and_mother_wins_in_the_results() -> None:
    state = MatchState(length=3)
    games = [GameReplay("f", 0, 1, 0, "mahbusa", state, winner=1, points=2, end="mother"),
             GameReplay("f", 0, 2, 0, "mahbusa", state, winner=None, points=0, end="draw"),
             GameReplay("f", 0, 3, 0, "mahbusa", MatchState(length=3, score=(0, 2)), winner=0, points=1,
                        end="bearoff")]
    assert _game_results(games, None, points=True) == [-1.0, 1.0]
    summary = _game_summaries(games, ["ann", "bob"])
    assert [(s.end, s.winner_name, s.points) for s in summary] == [
        ("mother", "bob", 2), ("draw", None, 0), ("bearoff", "ann", 1)]
    assert V.opening_kind("mahbusa", 1, 2) == "winner" and V.opening_kind("mahbusa", 2, 0) == "die-off"
    drawn = Position.from_notation("P 8:13 1:1+o | O 24:1+p 20:13 | over", "mahbusa")
    assert V.terminal_value(find_variant("mahbusa"), drawn) == 0.0


def test_winner_opens_without_a_die_off() -> None:
    engine = StandIn("mahbusa")
    values = V.variant_roll_values(engine, find_variant("mahbusa").start())
    mean = sum(r.weight * values[r.dice] for r in ALL_21) / 36
    assert math.isclose(V.variant_luck(values, (6, 6), opening="winner"), values[(6, 6)] - mean, abs_tol=1e-12)
    assert math.isclose(V.variant_luck(values, (6, 6), opening="die-off"), values[(6, 6)], abs_tol=1e-12)


def test_html_shows_reserves_locks_and_pins(analysed: tuple[str, MatchAnalysis]) -> None:
    variant, a = analysed
    html = render_html_report(a, charts=False)
    arts = re.findall(r'<article class="error" id="error-\d+">.*?</article>', html, re.S)
    assert arts and all(f'class="board {variant}"' in art for art in arts)
    assert "Cube errors" not in html and "Total error (points)" in html and "no cube" in html
    assert "Position ID" not in html and "XGID" not in html and "Game results" in html
    assert '<th class="num">Points</th>' in html and ">W 2</th>" in html and ">W bg</th>" not in html
    if variant == "dutch":
        assert 'class="reserve x"' in html and 'class="reserve o"' in html
        assert re.search(r'class="lock [xo] locked"', html) and re.search(r'class="lock [xo] unlocked"', html)
    else:
        assert re.search(r'class="checker [xo] pinned"', html) and "pinned the mother" in html


def test_hostile_player_names_are_escaped() -> None:
    record = sample("dutch")
    evil = ('<script>alert(1)</script>', '"><img src=x onerror=alert(1)>')
    record = replace(record, players=evil, games=record.games[:1])
    a = analyze_match(record, engine=None, ply=0, variant_engines={"dutch": StandIn("dutch")})
    html = render_html_report(a, charts=False)
    low = html.lower()
    assert low.count("<script") == 2 and "<img" not in low  # the report's own two inline scripts only
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    text = render_text(analysis_view(a), width=200)
    assert evil[0] in text  # shown as text in the terminal, never as markup


def test_terminal_summary_has_no_cube_rows(analysed: tuple[str, MatchAnalysis]) -> None:
    variant, a = analysed
    text = render_text(analysis_view(a), width=200)
    assert "(no cube)" in text and "total error (points)" in text and "luck (points)" in text
    assert "missed doubles" not in text and "luck rating" not in text and "5 worst decisions" in text
    assert "pts" in text  # results in points, not MWC


def test_variant_without_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '; [Variation "Dutch"]\n\n 3 point match\n\n Game 1\n a : 0      b : 0\n  1) 42: bar/21 bar/23\n'
    [m] = read_match_text(text)

    def missing(variant: str, workers: int = 1) -> Any:
        raise NoEvaluatorError(f"no evaluator for {variant}: not installed")

    monkeypatch.setattr(V, "load_variant_engine", missing)
    import analyzer.analysis.analyze as A

    monkeypatch.setattr(A, "load_variant_engine", missing)
    with pytest.raises(NoEvaluatorError, match="no evaluator for dutch"):
        analyze_match(m, engine=None, ply=0)
    # an engine handed in is used, and the loader is not asked
    a = analyze_match(m, engine=None, ply=0, variant_engines={"dutch": StandIn("dutch")})
    assert a.decisions.height == 1 and a.decisions["played"][0] == "bar/23 bar/21"


def _run_cli(tmp_path: Path, variant: str, *extra: str) -> tuple[Any, Path]:
    from analyzer.cli import app

    out = tmp_path / variant
    res = CliRunner().invoke(app, ["analyze", str(SAMPLES[variant]), "--ply", "0", "-o", str(out),
                                   "--no-progress", "--no-confirm", *extra])
    return res, out


def test_cli_analyze_with_a_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.analysis.analyze as A

    monkeypatch.setattr(A, "load_variant_engine", lambda variant, workers=1: StandIn(variant))
    res, out = _run_cli(tmp_path, "mahbusa", "--no-html")
    assert res.exit_code == 0, res.output
    for name in ("decisions.parquet", "decisions.csv", "summary.json"):
        assert (out / name).exists(), name
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["match"]["variant"] == "mahbusa" and summary["players"][0]["result_unit"] == "points"
    assert pl.read_parquet(out / "decisions.parquet")["kind"].unique().to_list() == ["checker"]
    assert "Mahbusa (no cube)" in res.output


@pytest.mark.integration
def test_cli_analyze_dutch_sample_with_the_shipped_engine(tmp_path: Path) -> None:
    res, out = _run_cli(tmp_path, "dutch")
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["metadata"]["variant_engines"]["dutch"]["evaluator"] != "StandIn"
    assert "Dutch backgammon (no cube)" in res.output
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'class="board dutch"' in html and 'class="reserve x"' in html and "Total error (points)" in html


def test_a_ply_deeper_than_the_variant_engine_is_refused_not_clamped(tmp_path: Path) -> None:
    from analyzer.cli import app
    from analyzer.core.errors import SettingsError

    record = replace(sample("mahbusa"), games=sample("mahbusa").games[:1])
    with pytest.raises(SettingsError, match=r"^ply must be 0\.\.2 for mahbusa"):
        analyze_match(record, engine=None, ply=3, variant_engines={"mahbusa": StandIn("mahbusa")})
    res = CliRunner().invoke(app, ["analyze", str(SAMPLES["dutch"]), "--ply", "3", "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and res.output.startswith("error: --ply must be 0..2 for dutch"), res.output
    assert len(res.output.splitlines()) == 1 and not (tmp_path / "o").exists()


def test_deeper_analysis_never_asks_the_standard_engine() -> None:
    record = sample("mahbusa")
    record = replace(record, games=record.games[:1])
    a = analyze_match(record, engine=None, ply=V.VARIANT_MAX_PLY,
                      variant_engines={"mahbusa": StandIn("mahbusa")})
    df = a.decisions
    assert set(df["ply"]) == {V.VARIANT_MAX_PLY} and a.metadata.variant_ply == V.VARIANT_MAX_PLY
    unforced = df.filter(~pl.col("forced"))
    assert unforced.height > 0
    for row in unforced.iter_rows(named=True):
        plays = [c["play"] for c in row["candidates"]]
        equities = [c["equity"] for c in row["candidates"]]
        assert len(set(plays)) == len(plays) and all(isinstance(p, str) and p for p in plays)
        assert plays[0] == row["best"] and equities[0] == pytest.approx(row["equity_best"])


def test_cli_variant_without_evaluator_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.analysis.analyze as A
    from analyzer.cli import app

    def missing(variant: str, workers: int = 1) -> Any:
        raise NoEvaluatorError(f"no evaluator for {variant}: not installed")

    monkeypatch.setattr(A, "load_variant_engine", missing)
    dutch = tmp_path / "dutch.mat"
    dutch.write_text('; [Variation "Dutch"]\n\n 3 point match\n\n Game 1\n a : 0      b : 0\n  1) 42: bar/21 bar/23\n')
    res = CliRunner().invoke(app, ["analyze", str(dutch), "--ply", "0", "-o", str(tmp_path / "d")])
    assert res.exit_code == 2 and "no evaluator for dutch" in res.output and "Traceback" not in res.output


def test_a_game_that_does_not_replay_is_left_out() -> None:
    text = SAMPLES["mahbusa"].read_text(encoding="utf-8")
    head, rest = text.split(" Game 2\n", 1)
    lines = rest.split("\n")
    first = next(i for i, line in enumerate(lines) if line.strip().startswith("1)"))
    lines[first] = lines[first].split(":")[0] + ": 24/1"  # not a legal play of any roll
    broken = head + " Game 2\n" + "\n".join(lines)
    [record] = read_match_text(broken, name="broken.mat")
    record = replace(record, games=record.games[:2])
    a = analyze_match(record, engine=None, ply=0,
                      variant_engines={"mahbusa": StandIn("mahbusa")})
    match = a.summary.match
    assert match.games == 2 and match.games_analysed == 1 and len(match.errors) == 1
    assert set(a.decisions["game"]) == {1} and [r.game for r in match.results] == [1]


def _break_game(text: str, number: int) -> str:
    """The match text with the first move of game ``number`` made illegal (the game will not replay)."""
    head, rest = text.split(f" Game {number}\n", 1)
    lines = rest.split("\n")
    first = next(i for i, line in enumerate(lines) if line.strip().startswith("1)"))
    lines[first] = lines[first].split(":")[0] + ": 24/1"  # not a legal play of any roll
    return head + f" Game {number}\n" + "\n".join(lines)


def test_opening_luck_after_a_game_that_does_not_replay() -> None:
    # Mahbusa: the winner of game 1 opens game 2 with an ordinary roll. When game 1 does not replay,
    # its result still stands in game 2's score line, so game 2's first roll is not a die-off.
    text = SAMPLES["mahbusa"].read_text(encoding="utf-8")
    [whole] = read_match_text(text, name="whole.mat")
    [broken] = read_match_text(_break_game(text, 1), name="broken.mat")
    assert whole.games[1].score != whole.games[0].score  # game 1 was won, by a score line's account
    engines = {"mahbusa": StandIn("mahbusa")}
    a = analyze_match(replace(whole, games=whole.games[:2]), engine=None, ply=0, variant_engines=engines)
    b = analyze_match(replace(broken, games=broken.games[:2]), engine=None, ply=0, variant_engines=engines)
    assert b.summary.match.games_analysed == 1 and len(b.summary.match.errors) == 1
    first_a = a.decisions.filter(pl.col("game") == 2).row(0, named=True)
    first_b = b.decisions.filter(pl.col("game") == 2).row(0, named=True)
    assert first_a["move_no"] == first_b["move_no"] == 1 and first_a["key"] == first_b["key"]
    [g2] = [g for g in replay_games(whole) if g.number == 2]
    d = g2.decisions[0]
    assert d.dice is not None
    ordinary = V.variant_luck(V.variant_roll_values(engines["mahbusa"], d.position), d.dice)
    assert math.isclose(first_a["luck"], ordinary, abs_tol=1e-12)
    assert math.isclose(first_b["luck"], first_a["luck"], abs_tol=1e-12)


def test_opening_after_a_broken_game_with_no_score_line_to_tell() -> None:
    # Game 1 does not replay and game 2's score line is the same as game 1's (a draw, or a money
    # session that does not carry the score): nobody is known to have won, so a die-off decides.
    text = SAMPLES["mahbusa"].read_text(encoding="utf-8")
    broken = _break_game(text, 1).replace(" net A : 0                      net B : 2",
                                          " net A : 0                      net B : 0", 1)
    [record] = read_match_text(broken, name="broken.mat")
    assert record.games[1].score == record.games[0].score
    engine = StandIn("mahbusa")
    b = analyze_match(replace(record, games=record.games[:2]), engine=None, ply=0, variant_engines={"mahbusa": engine})
    row = b.decisions.filter(pl.col("game") == 2).row(0, named=True)
    d = decode_key(row["key"])
    dice = (int(row["dice"][0]), int(row["dice"][1]))
    die_off = V.variant_luck(V.variant_roll_values(engine, d), dice, opening="die-off",
                             opponent=V.variant_roll_values(engine, d.flip()) if d.flip() != d else None)
    assert math.isclose(row["luck"], die_off, abs_tol=1e-12)


class DrawingStandIn(StandIn):
    """The stand-in with Mahbusa draws: a tenth of every result that is still open is a draw."""

    def evaluate_boards(self, boards: NDArray[np.int8], ply: int = 0) -> NDArray[np.float64]:
        out = super().evaluate_boards(boards, ply) * 0.9
        out[:, 4] = 0.1
        return out

    @staticmethod
    def _probs(row: NDArray[np.float64]) -> Probabilities:
        return Probabilities(float(row[0] + row[1]), float(row[1]), 0.0, float(row[3]), 0.0, draw=float(row[4]))


def test_candidates_store_the_mahbusa_draw() -> None:
    record = replace(sample("mahbusa"), games=sample("mahbusa").games[:1])
    engine = DrawingStandIn("mahbusa")
    a = analyze_match(record, engine=None, ply=0, variant_engines={"mahbusa": engine})
    decisions = [d for g in replay_games(record) for d in g.decisions if d.kind == "move"]
    rows = list(a.decisions.iter_rows(named=True))
    assert len(rows) == len(decisions) > 20
    seen = 0
    for row, d in zip(rows, decisions, strict=True):
        assert d.dice is not None and d.result is not None
        ca = _checker(engine, d.position, d.dice, d.result, ply=0)
        want = {c.play: c.probabilities for c in ca.candidates}
        assert [c["play"] for c in row["candidates"]] == [c.play for c in ca.candidates]
        for c in row["candidates"]:
            p = want[c["play"]]
            assert c["draw"] == p.draw and c["win"] == p.win and c["lose_gammon"] == p.lose_gammon
            assert math.isclose(c["equity"], p.equity, abs_tol=1e-12)
            seen += c["draw"] > 0
    assert seen > 0
    # the CSV keeps it in the candidates' JSON, the report shows it next to the chances
    from analyzer.render.tables import csv_frame

    first = json.loads(csv_frame(a.decisions)["candidates"][0])[0]
    assert first["draw"] == rows[0]["candidates"][0]["draw"]
    html = render_html_report(a, charts=False)
    arts = re.findall(r'<article class="error" id="error-\d+">.*?</article>', html, re.S)
    assert arts and all(">Draw</th>" in art for art in arts)
    cells = re.findall(r'<td class="num ch" data-label="[^"]+">([0-9.]+)%</td>', arts[0])
    assert "10.0" in cells or any(abs(float(x) - 10.0) < 0.05 for x in cells)


def test_dutch_and_standard_candidates_have_no_draw(analysed: tuple[str, MatchAnalysis]) -> None:
    variant, a = analysed
    draws = {c["draw"] for row in a.decisions["candidates"].to_list() for c in row}
    assert draws == {0.0}  # the stand-in never draws
    if variant == "dutch":
        assert ">Draw</th>" not in render_html_report(a, charts=False)


def test_a_variant_match_loads_no_standard_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.analysis.analyze as A
    import analyzer.eval.engine as E

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the standard engine was loaded for a variant match")

    monkeypatch.setattr(E.Engine, "__init__", refuse)
    monkeypatch.setattr(A, "load_variant_engine", lambda variant, workers=1: StandIn(variant))
    res, out = _run_cli(tmp_path, "dutch", "--no-html")
    assert res.exit_code == 0, res.output
    meta = json.loads((out / "summary.json").read_text(encoding="utf-8"))["metadata"]
    assert meta["evaluator"] is None and meta["nets"] is None
    assert meta["variant_engines"]["dutch"]["evaluator"] == "StandIn"
    # a standard game still needs it: analyze_match loads it when none is given
    [m] = read_match_text(" 3 point match\n\n Game 1\n a : 0      b : 0\n  1) 31: 8/5 6/5\n")
    with pytest.raises(AssertionError, match="standard engine was loaded"):
        analyze_match(m, engine=None, ply=0)
