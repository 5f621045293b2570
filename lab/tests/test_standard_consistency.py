"""lab/bglab/experiments/standard_consistency.py: the standard-game yardstick for the variants' consistency target."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from analyzer.core.ids import decode_position_id
from analyzer.core.position import Position


def test_gnubg_board_layout(experiment_script: Callable[[str], ModuleType]) -> None:
    script = experiment_script("standard_consistency")
    # mover: 2 on the bar, 3 on its 6-point, 1 on its 24; opponent: 4 on the mover's 1-point (its own 24),
    # 2 on the mover's 20-point (its own 5), 1 on the bar
    pos = Position.from_notation("P 24:1 6:3 | O 20:2 1:4 | bar P2 O1 | off P9 O8")
    opp, me = script.gnubg_board(np.frombuffer(pos.board, np.int8))
    assert len(opp) == len(me) == 25
    assert me[23] == 1 and me[5] == 3 and me[24] == 2 and sum(me) == 6
    assert opp[23] == 4 and opp[4] == 2 and opp[24] == 1 and sum(opp) == 7
    start_opp, start_me = script.gnubg_board(np.frombuffer(Position.start().board, np.int8))
    assert start_opp == start_me == tuple([0] * 5 + [5, 0, 3] + [0] * 4 + [5] + [0] * 10 + [2, 0])


def test_ours_runs_resumes_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       experiment_script: Callable[[str], ModuleType]) -> None:
    script = experiment_script("standard_consistency")
    out = tmp_path / "c.jsonl"
    args = ["--engine", "ours", "--positions", "3", "--trials", "36", "--out", str(out)]
    assert script.main(args) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert 1 <= len(recs) <= 3 and all(r["engine"] == "ours" and r["trials"] == 36 for r in recs)
    for r in recs:
        assert decode_position_id(r["position"]).validate() is None
        assert r["se"] >= 0 and -3 <= r["rollout"] <= 3
    text = capsys.readouterr().out
    shown = float(re.search(r"own positions +n= *\d+ +mean \|0-ply - rollout\| ([0-9.]+)", text).group(1))  # type: ignore[union-attr]
    assert shown == pytest.approx(float(np.mean([abs(r["eq0"] - r["rollout"]) for r in recs])), abs=1e-4)
    assert script.main(args) == 0  # a rerun finds everything done and adds nothing
    assert len(out.read_text().splitlines()) == len(recs)


def test_sample_nets_pairs_a_candidate_with_the_shipped_positions(
        tmp_path: Path, experiment_script: Callable[[str], ModuleType]) -> None:
    """``--sample-nets``: the positions come from the sampler's self-play, the values and rollouts from
    ``--nets``, so a candidate's records pair index by index with the shipped nets' records."""
    from analyzer._resources import data_path

    script = experiment_script("standard_consistency")
    shipped = data_path("nets", "standard.npz")
    d = np.load(shipped)
    other = tmp_path / "other.npz"
    np.savez(other, **{k: (d[k] * 1.1 if k.startswith(("contact_w2", "crashed_w2")) else d[k]) for k in d.files})
    base, cand, own = tmp_path / "base.jsonl", tmp_path / "cand.jsonl", tmp_path / "own.jsonl"
    common = ["--engine", "ours", "--positions", "4", "--trials", "36", "--seed", "7"]
    assert script.main([*common, "--out", str(base), "--nets", str(shipped)]) == 0
    assert script.main([*common, "--out", str(cand), "--nets", str(other), "--sample-nets", str(shipped)]) == 0
    assert script.main([*common, "--out", str(own), "--nets", str(other)]) == 0
    rb, rc, ro = ([json.loads(x) for x in f.read_text().splitlines()] for f in (base, cand, own))
    assert [r["position"] for r in rc] == [r["position"] for r in rb] and len(rb) >= 2
    assert all(r["sampled_by"] == rb[0]["net"] != r["net"] for r in rc)
    contact = [(b, c) for b, c in zip(rb, rc, strict=True) if not b["race"]]
    assert contact and all(b["eq0"] != c["eq0"] for b, c in contact)  # valued by the other nets
    assert [r["position"] for r in ro] != [r["position"] for r in rb]  # without it: the candidate's own games


def test_a_themed_sample_picks_that_theme_from_the_same_games(experiment_script: Callable[[str], ModuleType]) -> None:
    """``--theme``: each game gives one of its positions of the theme, or nothing; a game's themed pick
    is one of the positions the same seeded game reaches."""
    from analyzer.analysis.themes import position_theme
    from analyzer.eval.engine import Engine
    from analyzer.eval.selfplay import GameBuffers

    script = experiment_script("standard_consistency")
    eng, buf = Engine(), GameBuffers()
    picks = [script.sample_position(eng, i, 9, buf, "crashed") for i in range(12)]
    found = [(i, p) for i, p in enumerate(picks) if p is not None]
    assert found and all(position_theme(p) == "crashed" for _, p in found)
    for i, p in found[:3]:
        n, _ = script.play_seeded(eng.nets, script.game_seed(9, i), 0.05, buf)
        assert p.board in {buf.states[t].tobytes() for t in range(n)}
