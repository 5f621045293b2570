"""``bench/review_agreement.py`` on one small stored gnubg-analysed match (issue 24, part 3).

The reference files in ``bench/data/gnubg_reviews/`` were made by ``tools/gnubg_review.py`` (GNU
Backgammon as a referee; gnubg is not needed here). Our 0-ply analysis of one short self-play
match is paired with gnubg's decisions, and the bench's figures are recomputed by another route
(a polars join on the pairing key instead of the bench's dictionaries).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import polars as pl
import pytest

DATA = Path(__file__).resolve().parent.parent / "bench" / "data" / "gnubg_reviews"
MATCH = "sp02-wc-int"  # a 5-point gnubg self-play match, 162 decisions
KEY = ["game", "move_no", "side", "kind"]


_ANALYSED: dict[str, tuple[dict[str, Any], pl.DataFrame]] = {}


def _analysed(ra: ModuleType) -> tuple[dict[str, Any], pl.DataFrame]:
    """The reference and our 0-ply rows, analysed once for the module's tests."""
    if MATCH not in _ANALYSED:
        from analyzer.eval.engine import Engine

        doc = ra.load_reference(DATA / f"{MATCH}.json")
        ours, _ = ra.analyse(doc, ra.CONFIGS["0ply"], Engine())
        _ANALYSED[MATCH] = (doc, ours)
    return _ANALYSED[MATCH]


@pytest.fixture
def match(bench_script: Callable[[str], ModuleType]) -> tuple[ModuleType, dict[str, Any], pl.DataFrame]:
    ra = bench_script("review_agreement")
    doc, ours = _analysed(ra)
    return ra, doc, ours


def test_stored_references_reproduce_gnubg_totals() -> None:
    """Every stored reference has its .mat, and its decisions gave back gnubg's printed totals."""
    docs = sorted(DATA.glob("*.json"))
    assert len(docs) >= 4
    for path in docs:
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert (DATA / doc["file"]).exists(), doc["file"]
        assert doc["check"]["ok"], (path.name, doc["check"])
        assert doc["gnubg"]["plies"] == 2
        for st in doc["players_stats"]:  # the stored luck is the sum of the stored rolls' luck
            rolls = [d["luck"] for d in doc["decisions"] if d["kind"] == "checker" and d["side"] == st["side"]]
            assert sum(r or 0.0 for r in rolls) == pytest.approx(st["luck"], abs=1e-4)


def test_every_decision_pairs_and_checks(match: tuple[ModuleType, dict[str, Any], pl.DataFrame]) -> None:
    ra, doc, ours = match
    pr = ra.pair(doc, ours)
    assert not pr.mismatched, pr.mismatched[:3]
    assert not pr.only_gnubg
    assert len(pr.pairs) == len(doc["decisions"])
    # the rows gnubg has no decision for are cube rows of a dead cube (gnubg does not analyse them)
    assert all(o["kind"] == "cube" and "dead cube" in (o["cube_action"] or "") for o in pr.only_ours)
    # a deliberately wrong play fails the check
    g, o = next((g, o) for g, o in pr.pairs if g["kind"] == "checker" and not g["forced"]
                and g["best"] != g["played"])
    assert ra.check(g, {**o, "played": g["best"]}).startswith("played")


def test_figures_recomputed_by_a_join(match: tuple[ModuleType, dict[str, Any], pl.DataFrame]) -> None:
    ra, doc, ours = match
    f = ra.figures([(doc, ours, ra.pair(doc, ours), 1.0)])
    gnubg = pl.DataFrame([{k: d[k] for k in [*KEY, "error", "forced", "close", "action", "dt"] if k in d}
                          for d in doc["decisions"]], infer_schema_length=None)
    joined = gnubg.join(ours.with_columns(pl.col("side").cast(pl.Int64), pl.col("game").cast(pl.Int64),
                                          pl.col("move_no").cast(pl.Int64)), on=KEY, how="inner")
    chk = joined.filter((pl.col("kind") == "checker") & pl.col("error").is_not_null())
    theirs = chk.filter(pl.col("error") >= 0.08)
    mine = chk.filter(pl.col("equity_loss") >= 0.08)
    b = f["blunders_checker"]
    assert (b["gnubg"], b["ours"]) == (theirs.height, mine.height)
    assert b["found"] == theirs.filter(pl.col("equity_loss") >= 0.04).height
    assert b["real"] == mine.filter(pl.col("error") >= 0.04).height
    assert b["decisions"] == chk.height > 100

    # per-player checker error rate: ours from the rows, gnubg's from its stored totals
    rates = (ours.filter((pl.col("kind") == "checker") & ~pl.col("forced"))
             .group_by("side").agg((1000 * pl.col("equity_loss").mean()).alias("rate"), pl.len()).sort("side"))
    players = ra.player_rows([(doc, ours)])
    for p, (side, rate, n) in zip(players, rates.iter_rows(), strict=True):
        st = doc["players_stats"][side]
        assert p["side"] == side and p["unforced_ours"] == n
        assert p["rate_ours"] == pytest.approx(rate)
        assert p["rate_gnubg"] == pytest.approx(1000 * st["checker_error"] / st["unforced"], rel=1e-4)
    ratios = sorted(p["rate_ours"] / p["rate_gnubg"] for p in players if p["unforced_gnubg"] >= 30)
    assert f["rates"]["players"] == len(ratios)
    assert f["rates"]["ratios"] == pytest.approx(ratios)

    # cube agreement: a too-good double is "no double", take rows compare the answer
    cube = joined.filter(pl.col("kind") == "cube")
    says = cube["action"].str.contains(r"^(double|redouble)")
    agree = int((says == cube["best"].is_in(["double", "redouble"])).sum())
    takes = joined.filter((pl.col("kind") == "take") & pl.col("dt").is_not_null())
    agree += int(((takes["dt"] < 1.0) == takes["best"].is_in(["take", "beaver"])).sum())
    c = f["cube"]
    assert (c["decisions"], c["agree"]) == (cube.height + takes.height, agree)
    assert 0 < c["close"] < c["decisions"]
    assert not math.isnan(f["luck"]["r"]) or f["luck"]["players"] < 3


def test_a_peer_analysis_identical_to_the_reference_agrees_on_every_figure(
        bench_script: Callable[[str], ModuleType]) -> None:
    """``--peer``: gnubg's own analysis read as our rows. The reference against itself pairs every
    decision and gives the perfect figures, so what a real peer (gnubg at 3-ply) misses is its own."""
    ra = bench_script("review_agreement")
    doc = ra.load_reference(DATA / f"{MATCH}.json")
    rows = ra.peer_rows(doc)
    pr = ra.pair(doc, rows)
    assert len(pr.pairs) == len(doc["decisions"]) and not pr.mismatched and not pr.only_ours
    f = ra.figures([(doc, rows, pr, 1.0)])
    assert f["best_play"]["share"] == 1.0 and f["best_play"]["plays"] > 50
    assert f["loss_r"] == pytest.approx(1.0)
    for kind in ("blunders_checker", "blunders_cube"):
        b = f[kind]
        assert b["found"] == b["gnubg"] == b["ours"] == b["real"]
    assert f["blunders_checker"]["gnubg"] > 0
    assert f["rates"]["ratios"] == pytest.approx([1.0] * f["rates"]["players"], rel=1e-4) and f["rates"]["players"] == 2
    assert f["cube"]["agree"] == f["cube"]["decisions"] > 0
    assert f["luck"]["mean_abs_diff"] == pytest.approx(0.0, abs=1e-4)  # gnubg prints its totals rounded
    # one changed loss moves its player's ratio, and only its own
    g = next(d for d in doc["decisions"] if d["kind"] == "checker" and not d["forced"] and d["side"] == 0)
    moved = rows.with_columns(pl.when((pl.col("game") == g["game"]) & (pl.col("move_no") == g["move_no"])
                                      & (pl.col("kind") == "checker"))
                              .then(pl.col("equity_loss") + 0.5).otherwise(pl.col("equity_loss"))
                              .alias("equity_loss"))
    players = ra.player_rows([(doc, moved)])
    assert players[0]["rate_ours"] > players[0]["rate_gnubg"]
    assert players[1]["rate_ours"] == pytest.approx(players[1]["rate_gnubg"], rel=1e-4)


REFEREE = Path(__file__).resolve().parent / "data" / "gnubg_rollout"  # tools/gnubg_rollout.py's cache files


def test_referee_verdicts(bench_script: Callable[[str], ModuleType]) -> None:
    """``--referee``: the disagreements, their rollouts read from the referee's cache (stored gnubg
    output, 36 trials) and who was closer."""
    ra = bench_script("review_agreement")
    doc = ra.load_reference(DATA / "c00-boardlord-llabba-7p.json")
    dec = {(d["game"], d["move_no"], d["kind"]): d for d in doc["decisions"]}
    chk, cube, take = dec[1, 14, "checker"], dec[3, 14, "cube"], dec[3, 15, "take"]
    quiet = dec[1, 6, "checker"]
    mine = [
        (chk, {"equity_loss": 0.0, "best": "6/2 4/1", "forced": False}),  # gnubg 0.052; our best is another play
        (cube, {"equity_loss": 0.249, "best": "no double", "forced": False}),
        (take, {"equity_loss": 0.06, "best": "pass", "forced": False}),
        (quiet, {"equity_loss": quiet["error"] + 0.03, "best": quiet["best"], "forced": False}),  # agree within 0.04
    ]
    items = [(doc, pl.DataFrame(), ra.Pairing(mine, [], [], []), 1.0)]
    rows = ra.disagreements(items)
    assert [g for _, g, _ in rows] == [chk, cube, take]
    assert ra.referee_request(*rows[0])["extra"] == ["S81mBgBse4HBAA"]  # the fixture's extra candidate
    vs = ra.verdicts(rows, REFEREE, 36, 1)
    tool = ra.referee_tool()
    assert all(v.rollout is not None and v.trials == 36 for v in vs)
    res = tool.summarise(tool.cached(REFEREE, 36, 1, doc["id"], 1, "checker", 14))
    assert (vs[0].rollout, vs[0].se) == (res["loss"], res["loss_se"])
    assert not vs[0].ours_missing
    for v in vs:
        assert v.rollout is not None
        near_g, near_o = abs(v.gnubg - v.rollout), abs(v.ours - v.rollout)
        assert v.closer == ("gnubg" if near_g < near_o else "ours")
    lines = ra.referee_lines(vs)
    c = Counter(v.closer for v in vs)
    assert f"all: of 3 disagreements rolled out, gnubg 2-ply was closer to the rollout in {c['gnubg']}, " \
           f"ours in {c['ours']}" in "\n".join(lines)
    assert "not rolled out" in "\n".join(ra.referee_lines(ra.verdicts(rows, REFEREE, 72, 1)))  # another setting


def test_referee_sample_is_seeded(bench_script: Callable[[str], ModuleType]) -> None:
    ra = bench_script("review_agreement")
    rows = [("m", {"n": i}, {}) for i in range(50)]
    a = ra.referee_sample(rows, 20, 24)
    assert a == ra.referee_sample(rows, 20, 24) != ra.referee_sample(rows, 20, 25)
    assert len(a) == 20 and a == sorted(a, key=lambda r: r[1]["n"])  # kept in match order
    assert ra.referee_sample(rows[:5], 20, 24) == rows[:5]


def test_referee_blunders_are_the_false_and_missed_ones(bench_script: Callable[[str], ModuleType]) -> None:
    """``--referee-blunders``: the decisions that count against the blunder figures, and only those."""
    ra = bench_script("review_agreement")
    doc = ra.load_reference(DATA / "c00-boardlord-llabba-7p.json")
    dec = {(d["game"], d["move_no"], d["kind"]): d for d in doc["decisions"]}
    quiet, chk, cube, take = dec[1, 6, "checker"], dec[1, 14, "checker"], dec[3, 14, "cube"], dec[3, 15, "take"]
    assert quiet["error"] < ra.FOUND < chk["error"] < ra.BLUNDER and take["error"] < ra.FOUND  # the fixture's
    mine = [
        (quiet, {"equity_loss": ra.BLUNDER, "forced": False}),  # ours a blunder, gnubg's below 0.04: false
        (chk, {"equity_loss": 0.0, "forced": False}),  # no blunder for either
        (cube, {"equity_loss": cube["error"], "forced": False}),  # agreed
        (take, {"equity_loss": ra.BLUNDER + 0.1, "forced": False}),  # false
        (chk | {"forced": True}, {"equity_loss": 0.5, "forced": True}),  # forced plays do not count
    ]
    items = [(doc, pl.DataFrame(), ra.Pairing(mine, [], [], []), 1.0)]
    assert [g for _, g, _ in ra.blunder_disagreements(items)] == [quiet, take]
    assert [g for _, g, _ in ra.blunder_disagreements(items, ("cube", "take"))] == [take]
    missed = [(chk | {"error": 0.2}, {"equity_loss": ra.FOUND - 0.01, "forced": False}),
              (chk | {"error": 0.2}, {"equity_loss": ra.FOUND, "forced": False})]  # found
    assert len(ra.blunder_disagreements([(doc, pl.DataFrame(), ra.Pairing(missed, [], [], []), 1.0)])) == 1
