"""``bench/review_agreement.py`` on one small stored gnubg-analysed match (issue 24, part 3).

The reference files in ``bench/data/gnubg_reviews/`` were made by ``tools/gnubg_review.py`` (GNU
Backgammon as a referee; gnubg is not needed here). Our 0-ply analysis of one short self-play
match is paired with gnubg's decisions, and the bench's figures are recomputed by another route
(a polars join on the pairing key instead of the bench's dictionaries).
"""

from __future__ import annotations

import json
import math
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
