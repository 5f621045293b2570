"""lab/bglab/experiments/choice_referee.py: a paired screen of nets' choices on fixed decisions.

The referee (gnubg's wheel) is not installed in CI: these tests put a stand-in in its place, a
pip-count equity, so that what is checked is the screen's own work (the decisions it records,
the choices it scores, the paired differences and the cache), not gnubg.
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from analyzer._resources import data_path
from analyzer.core.position import Position


def _pip_referee(board: np.ndarray, plies: int = 0) -> float:
    """A stand-in for gnubg's equity of the side on roll: the pip count lead, scaled."""
    mine, theirs = Position(np.asarray(board, np.int8).tobytes()).pips()
    return (theirs - mine) / 100.0


@pytest.fixture
def referee(monkeypatch: pytest.MonkeyPatch, experiment_script: Callable[[str], ModuleType]) -> ModuleType:
    script = experiment_script("choice_referee")
    monkeypatch.setitem(sys.modules, "gnubg", types.SimpleNamespace(command=lambda text: None))
    monkeypatch.setattr(script, "gnubg_equity", _pip_referee)
    return script


def test_record_keeps_each_decision_with_its_distinct_legal_results(referee: ModuleType, tmp_path: Path) -> None:
    from analyzer.rules.kernel import flip_into
    from analyzer.rules.standard import Standard

    out = tmp_path / "d.npz"
    summary = referee.record(str(data_path("nets", "standard.npz")), 2, 5, str(out))
    d = np.load(out)
    n = len(d["before"])
    assert summary["decisions"] == n > 20 and summary["games"] == 4
    assert len(d["dice"]) == n and len(d["starts"]) == n + 1 and d["starts"][-1] == len(d["results"])
    assert json.loads(str(d["meta"]))["seed"] == 5
    rules = Standard()
    for i in range(0, n, max(1, n // 8)):
        res = rules.legal_results(Position(d["before"][i].tobytes()), tuple(int(x) for x in d["dice"][i]))
        fl = np.zeros_like(res)
        for j in range(len(res)):
            flip_into(res[j], fl[j])
        got = d["results"][d["starts"][i]:d["starts"][i + 1]]
        assert {r.tobytes() for r in got} == {r.tobytes() for r in fl} and len(got) >= 2
        assert len({r.tobytes() for r in got}) == len(got)  # each distinct result once


def test_score_pairs_each_net_with_the_first_and_caches_the_referee(referee: ModuleType, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from bglab.checkpoint import load_nets

    decisions = tmp_path / "d.npz"
    referee.record(str(data_path("nets", "standard.npz")), 2, 6, str(decisions))
    shipped = str(data_path("nets", "standard.npz"))
    sd = np.load(shipped)
    other = tmp_path / "other.npz"
    np.savez(other, **{k: (sd[k] * 1.5 if k.startswith("contact_w2") else sd[k]) for k in sd.files})
    out = referee.score(str(decisions), [shipped, shipped, str(other)], 2)
    same, changed = out["nets"][1], out["nets"][2]
    assert same["differ_from_first"] == 0 and same["diff_per_game"] == 0.0
    # the other net's figure, worked out here: its pick in each decision, valued by the referee
    d = np.load(decisions)
    eq = referee.our_equities(load_nets(str(other)), True)
    eq0 = referee.our_equities(load_nets(shipped), True)
    diffs, differ = [], 0
    for i in range(len(d["before"])):
        res = d["results"][d["starts"][i]:d["starts"][i + 1]]
        a, b = int(np.argmax(-eq0(res))), int(np.argmax(-eq(res)))
        differ += a != b
        diffs.append(-_pip_referee(res[b]) + _pip_referee(res[a]))
    assert differ > 0 and changed["differ_from_first"] == differ
    assert changed["diff_per_game"] == pytest.approx(np.mean(diffs) * len(diffs) / 4)
    assert changed["se_per_game"] > 0
    assert sum(changed["by_theme_per_game"].values()) == pytest.approx(changed["diff_per_game"])
    assert out["gnubg_evaluations"] > 0
    # a second screen of the same nets asks the referee nothing: every chosen result is cached
    monkeypatch.setattr(referee, "gnubg_equity", lambda board, plies=0: pytest.fail("asked the referee again"))
    again = referee.score(str(decisions), [shipped, str(other)], 2)
    assert again["gnubg_evaluations"] == 0 and again["nets"][1]["diff_per_game"] == changed["diff_per_game"]
