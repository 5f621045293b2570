"""The typed analysis summary: ``summary.json`` written from it and read back key for key, in order,
for the summaries this version writes and for older ones (missing and unknown keys)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from render_sample import make_summary

from analyzer.analysis.analyze import analyze_match
from analyzer.analysis.summary import AnalysisMetadata, AnalysisSummary, EngineInfo, MatchInfo, PlayerStats
from analyzer.eval.engine import Engine
from analyzer.eval.protocol import EvaluatorInfo
from analyzer.eval.variants.engine import engine_for
from analyzer.formats.mat import read_match_text
from analyzer.render.tables import summary_json

MATCH = (" 3 point match\n\n Game 1\n ann : 0                 bob : 0\n"
         "  1) 31: 8/5 6/5                    42: 8/4 6/4\n"
         "  2) 63: 24/18 13/10                Doubles => 2\n"
         "  3)  Takes                         55: 13/3(2)\n")


def _text(doc: object) -> str:
    """JSON text that keeps the key order, so that equal texts mean the same keys in the same order."""
    return json.dumps(doc, indent=1)


def test_a_written_summary_reads_back_to_the_same_summary() -> None:
    [m] = read_match_text(MATCH)
    a = analyze_match(m, engine=Engine(), ply=0)
    doc = json.loads(summary_json(a))
    back = AnalysisSummary.from_json(doc)
    assert back == a.summary
    assert _text(back.as_dict()) == _text(doc) and not back.metadata.extra
    assert [p.name for p in back.players] == ["ann", "bob"] and back.match.players == ("ann", "bob")
    assert back.metadata.engine.evaluator == "Engine" and back.metadata.thresholds is not None
    assert not any(p.missing for p in back.players) and not back.metadata.missing and not back.match.missing
    # the keys of the JSON are the fields, in their order (the engine's at the top of the metadata)
    assert list(doc["players"][0]) == [f for f in PlayerStats.__dataclass_fields__ if f != "missing"]
    assert list(doc["metadata"])[:6] == [f for f in EngineInfo.__dataclass_fields__ if f != "missing"]


def test_the_hand_made_summary_reads_back_exactly() -> None:
    doc = make_summary()
    back = AnalysisSummary.from_json(doc)
    assert back.as_dict() == doc  # the keys in the order of the fields, not of the hand-made document
    # what the hand-made players lack is remembered, not written as defaults
    assert "rolls" in back.players[0].missing and back.players[0].rolls is None
    assert back.match.results == () and "results" in back.match.missing


def test_an_older_summary_keeps_what_this_version_does_not_know() -> None:
    doc = {"metadata": {"engine": "bgreview", "version": "9.9", "ply": 1, "nets": ["contact", "race"]},
           "match": {"players": ["a", "b"], "length": 0},
           "players": [{"name": "a", "side": 0, "decisions": 2, "unforced": 1, "luck": 0.1}]}
    s = AnalysisSummary.from_json(doc)
    assert s.metadata.extra == {"version": "9.9"} and s.metadata.engine.nets == ["contact", "race"]
    assert s.match.cube and s.match.variant == "standard" and s.players[0].checker_unforced is None
    assert s.as_dict() == doc
    with pytest.raises(ValueError, match="name"):
        PlayerStats.from_json({"side": 0})


def test_variant_ply_is_written_with_the_variant_engines_only() -> None:
    plain = AnalysisMetadata(ply=2, variant_ply=2)
    assert "variant_ply" not in plain.as_dict() and "variant_engines" not in plain.as_dict()
    both = replace(plain, variant_engines={"dutch": EngineInfo("bgreview", "1", "VariantEngine")})
    keys = list(both.as_dict())
    assert keys.index("variant_engines") < keys.index("ply") < keys.index("variant_ply") < keys.index("luck_ply")
    assert both.as_dict()["variant_engines"]["dutch"]["evaluator"] == "VariantEngine"


def test_a_match_with_its_file_replaced_writes_it_first() -> None:
    m = replace(MatchInfo(players=("a", "b"), length=5), file="x.mat")
    assert list(m.as_dict())[:3] == ["file", "players", "length"]


def test_the_metadata_records_what_each_engine_describes() -> None:
    std, dutch = Engine(), engine_for("dutch")
    assert std.describe() == EvaluatorInfo("Engine", std.nets.meta.get("version"),
                                           std.nets.meta.get("feature_version"), True)
    assert std.describe().nets is not None and Engine(use_bearoff=False).describe().bearoff is False
    assert dutch.describe() == EvaluatorInfo("VariantEngine", dutch.net.meta.get("version"),
                                             dutch.net.meta.get("feature_version"), False)
    [m] = read_match_text(MATCH)
    info = analyze_match(m, engine=std, ply=0).metadata.engine
    assert (info.evaluator, info.nets, info.nets_feature_version, info.bearoff) == (
        "Engine", std.describe().nets, std.describe().feature_version, True)
