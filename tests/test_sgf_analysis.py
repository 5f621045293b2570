"""``bgreview analyze FILE --sgf OUT.sgf``: our review written in gnubg's own SGF analysis properties.

The default tier checks that the analysis lands on the right nodes (every candidate list holds the
play made, at the index ``A`` names, with our equities; one ``DA`` per cube decision; the moves
read back unchanged). The integration tier hands the file to GNU Backgammon itself
(``/usr/games/gnubg``, the referee of docs/gnubg-referee.md): it must load it without a warning,
show our equities, luck and cube values on every record, and its own statistics of the match,
computed from what it loaded, must be our error totals.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from analyzer.analysis.replay import decisions
from analyzer.analysis.thresholds import XG
from analyzer.cli import app
from analyzer.core.match import MatchState
from analyzer.eval.met import emg_to_mwc, met_by_name
from analyzer.formats.mat import read_matches
from analyzer.formats.sgf import read_sgf

DATA = Path(__file__).parent / "data"
DROPS = DATA / "corpus" / "gnubgparser" / "gnubg_selfplay_drops_7p.mat"
STUDIO = DATA / "corpus" / "bglab" / "backgammon-studio"
GNUBG = Path("/usr/games/gnubg")
runner = CliRunner()


def _analyse(tmp_path: Path, match: Path) -> tuple[str, pl.DataFrame, dict]:
    out = tmp_path / "rep"
    sgf = tmp_path / "out.sgf"
    res = runner.invoke(app, ["analyze", str(match), "--ply", "0", "--out", str(out), "--sgf", str(sgf),
                              "--no-html", "--format", "json", "--no-confirm"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert str(sgf) in summary["files"]
    return sgf.read_text(), pl.read_parquet(out / "decisions.parquet"), summary


def _nodes(text: str) -> list[str]:
    """The move nodes of an SGF text (a game's last node without the next game's root)."""
    return [n.split(")\n")[0] for n in re.split(r"\n?;(?=[WB]\[)", text) if re.match(r"[WB]\[", n)]


def test_the_analysis_lands_on_the_nodes_it_belongs_to(tmp_path):
    text, rows, _ = _analyse(tmp_path, DROPS)
    [original] = read_matches(DROPS)
    [back] = read_sgf(tmp_path / "out.sgf")
    key = [(d.game, d.side, d.kind, d.dice, d.normalised) for d in decisions(original)]
    assert [(d.game, d.side, d.kind, d.dice, d.normalised) for d in decisions(back)] == key
    checker = rows.filter((pl.col("kind") == "checker") & (pl.col("candidates").list.len() > 0)
                          & (pl.col("played") != ""))
    cube = rows.filter((pl.col("kind") == "cube") & pl.col("cube_nd").is_not_null())
    nodes = _nodes(text)
    with_a = [n for n in nodes if re.search(r"(?<!D)A\[", n)]
    assert len(with_a) == checker.height > 50
    assert sum(n.count("DA[") for n in nodes) == cube.height > 10
    for node, row in zip(with_a, checker.iter_rows(named=True), strict=True):
        k = int(re.search(r"(?<!D)A\[(\d+)\]", node).group(1))
        alts = re.findall(r"\[([a-z]*) E ver 3 ((?:\S+ ){5})(\S+) ", node)
        assert len(alts) == len(row["candidates"])
        assert float(alts[k][2]) == pytest.approx(row["equity_played"], abs=1e-6)
        assert float(alts[0][2]) == pytest.approx(row["candidates"][0]["equity"], abs=1e-6)
        letters = node[2:node.index("]")][2:]  # the play made, as the node's move writes it
        assert sorted(re.findall("..", alts[k][0])) == sorted(re.findall("..", letters))
        assert float(re.search(r"LU\[([^]]+)\]", node).group(1)) == pytest.approx(row["luck"], abs=1e-6)
        assert _mark(node) == _want_mark(node[0], row["luck"])


def _mark(node: str) -> tuple[str, int] | None:
    """The roll mark gnubg reads on a node: ("W" or "B", the side it is good for; 1 or 2)."""
    found = re.search(r"G([WB])\[(\d)\]", node)
    return None if found is None else (found.group(1), int(found.group(2)))


def _want_mark(roller: str, luck: float) -> tuple[str, int] | None:
    """gnubg's mark of a roll with ``luck`` (the report's words, :meth:`Thresholds.luck_mark`)."""
    words = XG.luck_mark(luck)
    if not words:
        return None
    other = "B" if roller == "W" else "W"
    return (other if words.endswith("unlucky") else roller), (2 if words.startswith("very") else 1)


def test_an_sgf_that_cannot_be_written_is_one_clear_error(tmp_path):
    res = runner.invoke(app, ["analyze", str(DROPS), "--ply", "0", "--out", str(tmp_path / "rep"),
                              "--sgf", str(tmp_path / "no" / "such" / "dir" / "x.sgf"), "--no-html"])
    assert res.exit_code == 2 and "x.sgf: no such directory" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "rep").exists()  # refused before the review, not after it
    (tmp_path / "dir.sgf").mkdir()
    res = runner.invoke(app, ["analyze", str(DATA / "corpus" / "gnubgparser" / "gnubg_roll_then_resign_1p.mat"),
                              "--ply", "0", "--out", str(tmp_path / "rep"), "--sgf", str(tmp_path / "dir.sgf"),
                              "--no-html", "--no-confirm"])
    assert res.exit_code == 2 and "dir.sgf" in res.output and "Traceback" not in res.output


# ----------------------------------------------------------------------------- gnubg as referee
PROBE = """
import gnubg, json, os
log = os.open(os.environ["BGR_LOG"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
keep1, keep2 = os.dup(1), os.dup(2)
os.dup2(log, 1); os.dup2(log, 2)
gnubg.command("load match " + os.environ["BGR_SGF"])
os.dup2(keep1, 1); os.dup2(keep2, 2)
stats = os.open(os.environ["BGR_STATS"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
os.dup2(stats, 1)
gnubg.command("show statistics match")
import ctypes
ctypes.CDLL(None).fflush(None)
os.dup2(keep1, 1)
m = gnubg.match(1, 0, 1, 0)
recs = []
for gi, g in enumerate(m["games"]):
    for r in g["game"]:
        a = r.get("analysis") or {}
        recs.append({"game": gi, "action": r.get("action"), "player": r.get("player"), "dice": r.get("dice"),
                     "scores": [x.get("score") for x in a.get("moves", [])], "imove": a.get("imove"),
                     "nd": a.get("nd-cubeful-eq"), "dt": a.get("dt-cubeful-eq"),
                     "luck": r.get("luck-value", a.get("luck-value"))})
json.dump({"records": recs, "stats": m["stats"]}, open(os.environ["BGR_OUT"], "w"))
"""


@pytest.mark.integration
def test_gnubg_loads_our_analysis_and_shows_our_numbers(tmp_path):
    if not GNUBG.exists():
        pytest.skip("GNU Backgammon is not installed (/usr/games/gnubg; apt-get install gnubg): the "
                    "referee check of the written SGF needs it")
    match = next(STUDIO.glob("BoardLord - Llabba 7pt*.txt"))
    _text, rows, summary = _analyse(tmp_path, match)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    env = {**os.environ, "BGR_SGF": str(tmp_path / "out.sgf"), "BGR_OUT": str(tmp_path / "gnubg.json"),
           "BGR_LOG": str(tmp_path / "load.log"), "BGR_STATS": str(tmp_path / "stats.txt")}
    subprocess.run([str(GNUBG), "-t", "-q", "-r", "-p", str(probe)], env=env, check=True, timeout=120,
                   capture_output=True)
    log = (tmp_path / "load.log").read_text(errors="replace").lower()
    assert not any(w in log for w in ("warning", "error", "illegal", "invalid", "unknown")), log
    got = json.loads((tmp_path / "gnubg.json").read_text())
    moves = [r for r in got["records"] if r["action"] == "move" and r["scores"]]
    checker = rows.filter((pl.col("kind") == "checker") & (pl.col("candidates").list.len() > 0)
                          & (pl.col("played") != ""))
    assert len(moves) == checker.height > 100
    for g, row in zip(moves, checker.iter_rows(named=True), strict=True):
        assert g["scores"] == pytest.approx([c["equity"] for c in row["candidates"]], abs=2e-6)
        assert g["scores"][g["imove"]] == pytest.approx(row["equity_played"], abs=2e-6)
        assert g["luck"] == pytest.approx(row["luck"], abs=2e-6)
    # cube values: gnubg holds them in match-winning chance; ours are EMG, converted by the MET
    met = met_by_name(summary[0]["metadata"]["met"] if isinstance(summary, list) else summary["metadata"]["met"])
    cube_rows = rows.filter((pl.col("kind") == "cube") & pl.col("cube_nd").is_not_null()
                            & pl.col("played").is_in(["no double", "no redouble"]))
    seen = [r for r in got["records"] if r["action"] == "move" and r["nd"] is not None]
    assert len(seen) == cube_rows.height > 10
    for g, row in zip(seen, cube_rows.iter_rows(named=True), strict=True):
        if row["score_me"] == 0 and row["score_opp"] == 0:  # no Crawford question at 0-0
            state = MatchState(length=row["match_length"], score=(0, 0), cube=row["cube"])
            assert g["nd"] == pytest.approx(emg_to_mwc(met, state, 0, row["cube_nd"]), abs=2e-6)
            assert g["dt"] == pytest.approx(emg_to_mwc(met, state, 0, row["cube_dt"]), abs=2e-6)
    # gnubg's statistics, computed from what it loaded, are our totals
    printed = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
        r"^(Rolls marked [a-z ]+?)\s+(\d+)\s+(\d+)", (tmp_path / "stats.txt").read_text(), re.M)}
    players = summary["players"]
    for colour, p in (("X", players[0]), ("O", players[1])):
        st = got["stats"][colour]
        assert st["moves"]["error-skill"] == pytest.approx(p["checker_error"], abs=1e-4)
        assert st["dice"]["luck"] == pytest.approx(
            rows.filter((pl.col("side") == p["side"]) & (pl.col("kind") == "checker"))["luck"].sum(), abs=1e-4)
        cube_total = sum(v for k, v in st["cube"].items() if k.startswith("err-") and k.endswith("-skill"))
        assert cube_total == pytest.approx(p["cube_error"], abs=1e-4)
        # its count of cube decisions is ours (no decision where the cube is dead), and so are its marked
        # rolls (read from its printed statistics: this build's stats["O"]["dice"]["marked-rolls"] repeats X's)
        mine = rows.filter(pl.col("side") == p["side"])
        assert st["cube"]["total-cube"] == mine.filter(pl.col("kind").is_in(["cube", "take"])).height
        marks = [XG.luck_mark(x) for x in mine.filter(pl.col("kind") == "checker")["luck"].drop_nulls()]
        column = 0 if colour == "X" else 1
        for words in ("very lucky", "lucky", "unlucky", "very unlucky"):
            assert printed[f"Rolls marked {words}"][column] == marks.count(words), words
    assert sum(printed["Rolls marked lucky"]) > 0
