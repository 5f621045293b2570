"""``bench/referee.py`` and ``tools/gnubg_referee.py``: the referee yardstick of issue 51, without gnubg.

The fixture ``tests/data/referee/`` has the referee set's layout with real Position IDs, but every
value gnubg would give (its rollouts, its 0/1/2-ply chances and choices) is stood in by
``tools/make_referee_fixture.py``, and our evaluator and choosers are stood in here, so every figure
below is known by construction.
"""

from __future__ import annotations

import doctest
import gzip
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "referee"


@pytest.fixture
def bench(bench_script: Callable[[str], ModuleType]) -> ModuleType:
    return bench_script("referee")


@pytest.fixture
def tool(tool_script: Callable[[str], ModuleType]) -> ModuleType:
    return tool_script("gnubg_referee")


def _ours(rows: list[dict[str, Any]]) -> Callable[[str, int], Sequence[float]]:
    """Stand-in for our evaluator: the rollout's chances, with lose gammon +0.04 at every ply."""
    truth = {r["pid"]: r["rollout"]["probs"] for r in rows}

    def ev(pid: str, ply: int) -> Sequence[float]:
        p = list(truth[pid])
        p[3] += 0.04
        return p

    return ev


def test_position_figures_by_construction(bench: ModuleType) -> None:
    sel, rows, _ = bench.load(FIXTURE)
    f = bench.position_figures(sel, rows, _ours(rows))
    # the holding position (P 24:4 13:2 6:4 5:2 3:2 2:1 | O 22:2 21:2 20:3 19:2 17:2 12:2 7:2) has its back
    # checkers on the side on roll: a row of its own besides the class's
    seat = "holding / ace-point: back side on roll"
    assert [c for c in f] == ["all", "race", "holding / ace-point", seat, "blitz", "on the bar"]
    assert f["all"]["n"] == 3 and f["blitz"]["n"] == 1 and f["on the bar"]["n"] == 1
    assert {k: v for k, v in f[seat].items() if k != "paired"} == {  # paired: a NaN SE of one position
        k: v for k, v in f["holding / ace-point"].items() if k != "paired"}
    assert f["all"]["rollout_se"] == pytest.approx(0.002)
    a = f["all"]
    assert a["ours 0"]["equity"] == pytest.approx(0.04) and a["ours 0"]["bias"] == pytest.approx(-0.04)
    assert a["ours 2"]["gammon"] == pytest.approx(0.02) and a["ours 2"]["win"] == pytest.approx(0.0)
    assert a["gnubg 0"]["win"] == pytest.approx(0.02) and a["gnubg 0"]["bias"] == pytest.approx(0.04)
    assert a["gnubg 1"]["gammon"] == pytest.approx(0.005) and a["gnubg 1"]["equity"] == pytest.approx(0.01)
    assert a["gnubg 2"]["equity"] == pytest.approx(0.0)


@pytest.mark.parametrize(("text", "seat"), [
    ("P 24:2 13:5 8:3 6:5 | O 1:2 12:5 17:3 19:5", None),  # the start: two checkers back each
    ("P 24:2 23:2 13:3 8:3 6:5 | O 1:2 12:5 17:3 19:5", "back side on roll"),
    ("P 13:5 8:5 6:5 | O 1:3 2:2 12:5 17:3 19:2", "back side off roll"),
    ("P 13:5 8:5 6:4 | O 12:5 17:4 19:6 | bar P1 O0", "back side on roll"),  # a checker on the bar is back
    ("P 24:1 13:5 8:5 6:3 | O 12:5 17:4 19:5 | bar P0 O1", None),
])
def test_back_seat(bench: ModuleType, text: str, seat: str | None) -> None:
    from analyzer.core.ids import encode_position_id
    from analyzer.core.position import Position

    assert bench.back_seat(encode_position_id(Position.from_notation(text))) == seat


def test_decision_figures_by_construction(bench: ModuleType) -> None:
    sel, _, rows = bench.load(FIXTURE)
    f = bench.decision_figures(sel, rows, lambda d, k: "cand-b", lambda d, k: (True, False))
    ch, cu = f["checker"], f["cube"]
    assert ch["ours 0"] == {"n": 1, "best": 0, "valued": 1, "loss": pytest.approx(0.05)}
    assert ch["gnubg 0"]["best"] == 1 and ch["gnubg 0"]["loss"] == pytest.approx(0.0)
    assert ch["gnubg 1"]["best"] == 0 and ch["gnubg 1"]["loss"] == pytest.approx(0.05)
    assert ch["played"]["loss"] == pytest.approx(0.10)
    # the rollout says double/take; the stand-in chooser doubles and passes: 0.40 lost by the taker
    assert cu["ours 2"] == {"n": 1, "agree": 0, "error": pytest.approx(0.40)}
    assert cu["played"]["agree"] == 0 and cu["played"]["error"] == pytest.approx(0.40)  # the answer was a pass
    assert cu["gnubg 0"] == {"n": 1, "agree": 0, "error": pytest.approx(0.10)}  # gnubg 0-ply: no double
    assert cu["gnubg 2"] == {"n": 1, "agree": 1, "error": pytest.approx(0.0)}


def test_a_choice_the_rollout_has_no_value_for_is_counted_apart(bench: ModuleType) -> None:
    sel, _, rows = bench.load(FIXTURE)
    f = bench.decision_figures(sel, rows, lambda d, k: "not-rolled-out", lambda d, k: (False, True))
    assert f["checker"]["ours 1"]["n"] == 1 and f["checker"]["ours 1"]["valued"] == 0


def test_table_prints_counts(bench: ModuleType) -> None:
    sel, rows, dec = bench.load(FIXTURE)
    text = "\n".join(bench.lines(bench.position_figures(sel, rows, _ours(rows)),
                                 bench.decision_figures(sel, dec, lambda d, k: "cand-a", lambda d, k: (True, True))))
    assert "  on the bar" in text and "checker plays" in text and "cube decisions" in text
    assert bench.lines({}, {"checker": {}, "cube": {}}) == ["no rolled-out position or decision yet"]


def test_live_results_plain_jsonl_torn_line_and_last_record(bench: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "selection.json.gz").write_bytes((FIXTURE / "selection.json.gz").read_bytes())
    rows = gzip.decompress((FIXTURE / "positions.jsonl.gz").read_bytes()).decode().splitlines()
    first = json.loads(rows[0])
    failed = {"id": first["id"], "error": "x"}
    (tmp_path / "positions.jsonl").write_text("\n".join([json.dumps(failed), *rows]) + '\n{"id": "p9', "utf-8")
    sel, pos, dec = bench.load(tmp_path)
    assert [r["id"] for r in pos] == ["p00000", "p00001", "p00002"] and "rollout" in pos[0] and dec == []


def test_doctests(bench: ModuleType, tool: ModuleType) -> None:
    for module in (bench, tool):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0


def test_queue_takes_the_classes_in_turn(tool: ModuleType) -> None:
    sel = {"positions": [{"id": f"p{i}", "class": c, "drawn_for": c} for i, c in
                         enumerate(["race", "race", "race", "crashed", "back game"])],
           "decisions": [{"id": "d0"}]}
    assert [item["id"] for _, item in tool.queue(sel)] == ["p0", "p4", "p3", "p1", "p2", "d0"]


def test_heldout_files_are_recorded(tool: ModuleType) -> None:
    files = tool.heldout_files()
    assert len(files) == len(set(files)) >= 44
    assert all((ROOT / "tests" / "data" / "corpus" / f).exists() for f in files)


@pytest.mark.lab  # the lab's code (bglab): the lab tier runs it
def test_training_leaves_the_heldout_files_out(tool: ModuleType) -> None:
    from analyzer.formats import expand_inputs
    from bglab.__main__ import without_heldout

    corpus = ROOT / "tests" / "data" / "corpus"
    files = expand_inputs([str(corpus)])
    kept = without_heldout(files)
    held = {(corpus / f).as_posix() for f in tool.heldout_files()}
    assert len(kept) == len(files) - len(held)
    assert not held & {Path(f).as_posix() for f in kept}


def test_ours_against_gnubg_paired(bench: ModuleType) -> None:
    sel, rows, _ = bench.load(FIXTURE)
    f = bench.position_figures(sel, rows, _ours(rows), plies=(0, 1))
    pr = f["all"]["paired"]  # at 1-ply: ours 0.04 off everywhere, gnubg 0.01
    assert pr["ply"] == 1 and pr["ratio"] == pytest.approx(4.0) and pr["diff"] == pytest.approx(0.03)
    assert pr["diff_se"] == pytest.approx(0.0, abs=1e-12)
    assert "4.00x" in "\n".join(bench.lines(f, {"checker": {}, "cube": {}}, plies=(0, 1)))


def test_our_rollouts_against_gnubgs(bench: ModuleType) -> None:
    sel, rows, _ = bench.load(FIXTURE)
    ours = [{"id": r["id"], "probs": [r["rollout"]["probs"][0] + 0.01, *r["rollout"]["probs"][1:]],
             "equity_se": 0.002} for r in rows]  # our stand-in rollouts: 1% more wins everywhere
    f = bench.rollout_figures(sel, rows, ours)
    assert f["all"]["n"] == 3 and f["on the bar"]["n"] == 1
    assert f["holding / ace-point: back side on roll"]["n"] == f["holding / ace-point"]["n"]  # split by seat
    assert f["all"]["bias"] == pytest.approx(0.02) and f["all"]["win"] == pytest.approx(0.01)
    assert f["all"]["floor"] == pytest.approx(0.002 * 2 ** 0.5)
    assert "on the bar" in "\n".join(bench.rollout_lines(f, 1296))
