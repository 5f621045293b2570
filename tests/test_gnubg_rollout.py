"""``tools/gnubg_rollout.py``: reading GNU Backgammon's rollouts of stored decisions (issue 24, part 3).

The fixtures in ``tests/data/gnubg_rollout/t36-s1/`` are the tool's own cache files, made by gnubg
(36 trials, seed 1) for decisions of the shipped sample (``bench/data/gnubg_reviews/
c00-boardlord-llabba-7p.json``): a checker play rolled out with an extra candidate, a double (whose
take shares its rollout) and a cube decision on a move record. gnubg is not needed here.
"""

from __future__ import annotations

import doctest
import json
import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from analyzer.core.ids import decode_position_id, encode_position_id
from analyzer.rules import Standard

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "gnubg_rollout"
MATCH = "c00-boardlord-llabba-7p"
REVIEW = ROOT / "bench" / "data" / "gnubg_reviews" / f"{MATCH}.json"


@pytest.fixture
def tool(tool_script: Callable[[str], ModuleType]) -> ModuleType:
    return tool_script("gnubg_rollout")


def _doc(tool: ModuleType, game: int, kind: str, move_no: int) -> dict[str, Any]:
    doc = tool.cached(FIXTURES, 36, 1, MATCH, game, kind, move_no)
    assert doc is not None
    return doc


def _decision(game: int, move_no: int, kind: str) -> dict[str, Any]:
    rows = json.loads(REVIEW.read_text(encoding="utf-8"))["decisions"]
    return next(r for r in rows if (r["game"], r["move_no"], r["kind"]) == (game, move_no, kind))


def test_doctests(tool: ModuleType) -> None:
    result = doctest.testmod(tool)
    assert result.attempted >= 8 and not result.failed


def test_checker_rollout(tool: ModuleType) -> None:
    doc = _doc(tool, 1, "checker", 14)
    d = _decision(1, 14, "checker")
    res = tool.summarise(doc)
    cands = res["candidates"]
    assert len(cands) == 3  # gnubg 2-ply's best, the played play and the extra one
    assert [c["emg"] for c in cands] == sorted((c["emg"] for c in cands), reverse=True)
    assert all(c["trials"] == 36 and c["se"] > 0 for c in cands)
    key = tool._moves_key
    played = cands[res["played"]]
    assert played["played"] and key(played["move"]) == key(d["played_hops"])
    [best2] = [c for c in cands if c["best_2ply"]]
    assert key(best2["move"]) == key(d["best_hops"])
    [extra] = [c for c in cands if c["extra"]]
    assert extra["pid_after"] == doc["extra"][0] and not doc["missing_extra"]
    # the rollout's MWC read as EMG with the stored coefficients
    a, b = doc["emg"]
    raw = {key(m["move"]): m for m in doc["raw"]["after"]["moves"] if m["type"] == "rollout"}
    for c in cands:
        m = raw[key(c["move"])]
        assert c["emg"] == pytest.approx(a + b * m["cubeful-eq"])
        assert c["se"] == pytest.approx(b * m["cubeful-eq-std"])
    # gnubg 2-ply's values kept beside them are the stored review's
    two_ply = dict((t, v) for t, v in d["cands"])
    assert best2["emg_2ply"] == pytest.approx(two_ply[d["best"]], abs=1e-6)
    assert played["emg_2ply"] == pytest.approx(two_ply[d["best"]] - d["error"], abs=1e-5)
    assert res["loss"] == pytest.approx(cands[0]["emg"] - played["emg"])
    assert res["loss_se"] == pytest.approx(math.hypot(cands[0]["se"], played["se"]))
    assert tool.referee_loss(d, res) == (res["loss"], res["loss_se"])


def test_candidates_ids_agree_with_our_rules(tool: ModuleType) -> None:
    """gnubg's candidates, applied by the tool's apply_hops, give the positions our rules engine
    gives for the same plays (how an extra play, ours, is found in gnubg's move list)."""
    doc = _doc(tool, 1, "checker", 14)
    d = _decision(1, 14, "checker")
    pos = decode_position_id(doc["pid"])
    rules = Standard()
    dice = (int(d["dice"][0]), int(d["dice"][1]))
    ours = {encode_position_id(p.result.flip()) for p in rules.legal_plays(pos, dice)}
    assert len(doc["candidates"]) >= 10
    for hops, pid in doc["candidates"]:
        text = " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in hops)
        assert encode_position_id(rules.resolve(pos, dice, text).result.flip()) == pid
        assert pid in ours


def test_apply_hops_hits_and_enters(tool: ModuleType) -> None:
    # the mover (side on roll, second) has one checker on the bar; the opponent a blot on the mover's 20 point
    opp = [0] * 25
    opp[4] = 1  # the opponent's own 5 point: the mover's 20 point
    opp[5] = 14
    me = [0] * 25
    me[24] = 1
    me[5] = 14
    mover, them = tool.apply_hops((opp, me), [(25, 20), (20, 16)])
    assert mover[24] == 0 and mover[19] == 0 and mover[15] == 1
    assert them[4] == 0 and them[24] == 1  # hit on the way
    assert sum(mover) == 15 and sum(them) == 15


def test_cube_rollout_and_its_take(tool: ModuleType) -> None:
    doc = _doc(tool, 3, "cube", 14)
    assert tool.cached(FIXTURES, 36, 1, MATCH, 3, "take", 15) == doc  # the take shares the double's rollout
    d, take = _decision(3, 14, "cube"), _decision(3, 15, "take")
    a, b = doc["emg"]
    # the same coefficients turn gnubg's 2-ply MWC of this record into the stored review's EMG
    before = doc["raw"]["before"]
    assert a + b * before["nd-cubeful-eq"] == pytest.approx(d["nd"], abs=2e-6)
    assert a + b * before["dt-cubeful-eq"] == pytest.approx(d["dt"], abs=2e-6)
    res = tool.summarise(doc)
    after = doc["raw"]["after"]
    assert res["trials"] == 36
    assert res["nd"] == pytest.approx(a + b * after["nd-cubeful-eq"])
    assert res["dt"] == pytest.approx(a + b * after["dt-cubeful-eq"])
    assert res["nd_se"] == pytest.approx(b * after["nd-cubeful-eq-std"]) and res["nd_se"] > 0
    # rolled out, these values are not the 2-ply ones
    assert abs(res["nd"] - d["nd"]) > 1e-3 and abs(res["dt"] - d["dt"]) > 1e-3
    loss, se = tool.referee_loss(d, res)  # he doubled
    best = max(res["nd"], min(res["dt"], 1.0))
    assert loss == pytest.approx(best - min(res["dt"], 1.0))
    assert se == pytest.approx(math.hypot(res["nd_se"], res["dt_se"]))
    tl, tse = tool.referee_loss(take, res)  # taken: wrong only if DT > DP
    assert tl == max(0.0, res["dt"] - 1.0) and tse == res["dt_se"]


def test_cube_rollout_on_a_move_record(tool: ModuleType) -> None:
    doc = _doc(tool, 3, "cube", 10)
    d = _decision(3, 10, "cube")
    assert d["played"] == "no double"
    res = tool.summarise(doc)
    loss, _ = tool.referee_loss(d, res)
    assert loss == pytest.approx(max(0.0, min(res["dt"], 1.0) - res["nd"]))
    broken = {**doc, "raw": {**doc["raw"], "after": doc["raw"]["before"]}}  # 2-ply values, not a rollout
    with pytest.raises(ValueError, match="not a rollout"):
        tool.summarise(broken)


def test_roll_out_skips_what_is_stored(tool: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored record is not rolled out again (gnubg is not started), unless a new extra play is
    asked for: then with the old and the new ones, and a run that stores nothing is a failure."""
    cache = tmp_path / "cache"
    (cache / "t36-s1").mkdir(parents=True)
    for p in (FIXTURES / "t36-s1").glob("*.json"):
        (cache / "t36-s1" / p.name).write_bytes(p.read_bytes())
    doc = _doc(tool, 1, "checker", 14)
    req = [{"match": MATCH, "game": 1, "move_no": 14, "kind": "checker", "extra": doc["extra"]},
           {"match": MATCH, "game": 3, "move_no": 15, "kind": "take", "extra": []}]
    started: list[dict[str, Any]] = []
    monkeypatch.setattr(tool.subprocess, "run", lambda *a, **k: started.append(json.loads(k["env"][tool.ENV_JOB])))
    assert tool.roll_out(req, 36, 1, 1, cache) == []
    assert not started
    new = "4HPwATDgc/ABMA"
    failed = tool.roll_out([{**req[0], "extra": [new]}], 36, 1, 1, cache)
    assert failed == [f"{MATCH}-g1-m14-checker"]  # "gnubg" stored nothing new
    [job] = started
    assert job["trials"] == 36 and job["mat"].endswith(f"{MATCH}.mat")
    assert [j["extra"] for j in job["jobs"]] == [sorted([*doc["extra"], new])]
