"""Every command at a fixed terminal width (issue 27): no cell cut with "…", no line wider than the
terminal, and every printed ID whole and parsing back to the position shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from rich.cells import cell_len
from typer.testing import CliRunner, Result

from analyzer.analysis.analyze import MatchAnalysis
from analyzer.analysis.summary import AnalysisSummary
from analyzer.cli import app
from analyzer.core.ids import parse_position_spec
from analyzer.render.terminal import analysis_view, render_text

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "samples" / "boardlord-llabba-7p.mat"
DUTCH = ROOT / "data" / "samples" / "dutch-selfplay-3p.mat"
# game 3, move 28 of the sample: BoardLord to play 66 at 4-2 in a 7-point match, cube 2 owned by Llabba
XGID_66 = "XGID=-ECD-B------a---bbccca-A--:1:1:-1:66:2:4:0:7:10"
XGID_RE = re.compile(r"XGID=[-a-oA-O]{26}(?::[-0-9A-Za-z]+){9}")
GNUBG_RE = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{14}:[A-Za-z0-9+/]{12}(?![A-Za-z0-9+/])")
WIDTHS = (80, 150)


def run(width: int, *args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": str(width)})


def check_fits(text: str, width: int, paths: tuple[Path, ...] = ()) -> None:
    assert "…" not in text, text
    # a path of ours may be longer than the terminal: it is printed whole, as one line (the temporary folders
    # of pytest-xdist's workers are longer than a plain run's: popen-gwN/)
    wide = [line for line in text.splitlines() if cell_len(line.rstrip()) > width and not line.startswith("written: ")
            and not any(str(p) in line for p in paths)]
    assert wide == [], f"lines wider than {width}:\n" + "\n".join(wide)


def printed_ids(text: str) -> list[str]:
    """Every XGID and Position ID:Match ID in ``text``; each must parse."""
    ids = XGID_RE.findall(text) + GNUBG_RE.findall(text)
    for i in ids:
        parse_position_spec(i)
    return ids


def same_position(a: str, b: str) -> bool:
    return parse_position_spec(a).position == parse_position_spec(b).position


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", [
    ["show", XGID_66],
    ["hint", XGID_66, "--ply", "0"],
    ["hint", "3z0DABDo7jYEAA:EQH7AEAAEAAE", "--ply", "0", "--top", "16"],
    ["position", XGID_66, "--ply", "0"],
    ["position", "3z0DABDo7jYEAA:EQH7AEAAEAAE", "--ply", "0", "--dice", "66"],
    ["position", "XGID=--a-ACCCBB---A------b-dce-:1:-1:1:00:4:2:0:7:10", "--ply", "0"],
    ["cube", "3z0DABDo7jYEAA:EQH7AEAAEAAE", "--ply", "0"],
    ["cube", "4HPwATDgc/ABMA", "--ply", "0"],
    ["eval", XGID_66, "--ply", "1"],
    ["moves", XGID_66],
    ["rollout", XGID_66, "--trials", "36", "--truncate", "2", "--workers", "1", "--plays", "4"],
    ["rollout", "4HPwATDgc/ABMA", "--trials", "36", "--truncate", "2", "--workers", "1"],
])
def test_position_commands_fit(width: int, args: list[str]) -> None:
    res = run(width, *args)
    assert res.exit_code == 0, res.output
    check_fits(res.stdout, width)
    ids = printed_ids(res.stdout)
    assert ids or args[0] in ("hint", "eval", "moves"), res.stdout  # these tables carry no ID of the position
    if args[0] != "moves":  # (moves prints the Position ID after each play)
        assert all(same_position(i, args[1]) for i in ids)  # every ID printed is the position asked about


@pytest.mark.parametrize("width", WIDTHS)
def test_variant_commands_fit(width: int) -> None:
    key = "D.AAAA_v8AAAD8_wE"
    for args in (["show", key], ["hint", key, "--dice", "65", "--ply", "0"], ["position", key, "--ply", "0"],
                 ["eval", key], ["rollout", key, "--dice", "65", "--trials", "12", "--workers", "1"]):
        res = run(width, *args)
        assert res.exit_code == 0, (args, res.output)
        check_fits(res.stdout, width)
        if args[0] in ("show", "rollout"):
            assert key in res.stdout.split()  # the key whole, as one word


@pytest.mark.parametrize("width", WIDTHS)
def test_replay_fits_and_prints_every_id_whole(width: int) -> None:
    res = run(width, "replay", str(SAMPLE))
    assert res.exit_code == 0, res.output
    check_fits(res.stdout, width)
    jl = run(width, "replay", str(SAMPLE), "--format", "jsonl")
    rows = [json.loads(line) for line in jl.stdout.splitlines()]
    assert XGID_RE.findall(res.stdout) == [r["xgid"] for r in rows]
    assert GNUBG_RE.findall(res.stdout) == [f"{r['position_id']}:{r['match_id']}" for r in rows]
    assert "BoardLord" in res.stdout and "Llabba" in res.stdout
    res = run(width, "replay", str(DUTCH))
    assert res.exit_code == 0, res.output
    check_fits(res.stdout, width)
    jl = run(width, "replay", str(DUTCH), "--format", "jsonl")
    keys = [json.loads(line)["key"] for line in jl.stdout.splitlines()]
    assert [w for w in res.stdout.split() if w.startswith("D.")] == keys


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path]:
    out = tmp_path_factory.mktemp("analyze") / "sample"
    res = run(80, "analyze", str(SAMPLE), "--ply", "0", "--out", str(out), "--no-confirm")
    return res, out


def test_analyze_fits_80_columns(analysed: tuple[Result, Path]) -> None:
    res, out = analysed
    assert res.exit_code == 0, res.output
    check_fits(res.stdout, 80)
    decisions = pl.read_parquet(out / "decisions.parquet")
    worst = decisions.sort("equity_loss", descending=True, maintain_order=True).head(5)
    # the worst decisions' IDs, whole and in order: an XGID and a Position ID:Match ID each
    assert XGID_RE.findall(res.stdout) == worst["xgid"].to_list()
    assert GNUBG_RE.findall(res.stdout) == [f"{p}:{m}" for p, m in zip(worst["position_id"], worst["match_id"],
                                                                        strict=True)]
    for played in worst["played"].to_list():
        assert played in res.stdout.replace("\n", " ") or all(w in res.stdout for w in played.split())


def test_analyze_written_line_names_the_report_first(analysed: tuple[Result, Path]) -> None:
    res, out = analysed
    lines = res.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("written: "))
    assert lines[at] == f"written: {out / 'report.html'}"
    rest = " ".join(lines[at + 1:])
    assert "decisions.parquet" in rest and "summary.json" in rest and str(out) not in rest
    assert "3 charts (each as .svg and .png)" in " ".join(rest.split())  # not "6 charts": 3 in two formats
    assert all(len(line) <= 80 for line in lines[at + 1:])


@pytest.mark.parametrize("width", (60, 80, 150, 200))
def test_analysis_view_fits_any_width(analysed: tuple[Result, Path], width: int) -> None:
    _, out = analysed
    summary = AnalysisSummary.from_json(json.loads((out / "summary.json").read_text(encoding="utf-8")))
    a = MatchAnalysis(pl.read_parquet(out / "decisions.parquet"), summary)
    text = render_text(analysis_view(a, width=width), width=width)
    check_fits(text, max(width, 80))  # the per-player table needs about 70 columns
    assert len(XGID_RE.findall(text)) == 5


@pytest.mark.integration
def test_analyze_with_the_confirmation_pass_fits_80_columns(tmp_path: Path) -> None:
    """A short confirmation pass (the worst five at most 36 games each): its line and the table's
    "valued by" column fit too."""
    res = run(80, "analyze", str(SAMPLE), "--ply", "0", "--out", str(tmp_path / "c"), "--no-html",
              "--confirm-trials", "36", "--confirm-limit", "1")
    assert res.exit_code == 0, res.output
    assert "Confirmation pass:" in res.stdout and "rollout" in res.stdout
    check_fits(res.stdout, 80)


def test_hint_ranks_like_position_and_analyze(analysed: tuple[Result, Path]) -> None:
    """Game 3 move 28 of the sample: hint (dice from the ID, cubeful EMG at the score), position
    --dice and the analysis rank the plays alike."""
    _, out = analysed
    from analyzer.analysis.decisions import hint
    from analyzer.eval.engine import Engine
    from analyzer.eval.met import met_by_name

    row = pl.read_parquet(out / "decisions.parquet").filter((pl.col("game") == 3) & (pl.col("move_no") == 28))
    xgid, pid, mid = row["xgid"][0], row["position_id"][0], row["match_id"][0]
    assert xgid == XGID_66
    by_xgid = json.loads(run(80, "hint", xgid, "--ply", "0", "--top", "30", "-f", "json").stdout)
    by_gnubg = json.loads(run(80, "hint", f"{pid}:{mid}", "--ply", "0", "--top", "30", "-f", "json").stdout)
    assert by_xgid["dice"] == [6, 6] and by_xgid["equity"] == "cubeful EMG"
    plays = [p["play"] for p in by_xgid["plays"]]
    assert plays == [p["play"] for p in by_gnubg["plays"]]
    spec = parse_position_spec(xgid)
    assert spec.match is not None
    cands = hint(Engine(), spec.position, (6, 6), spec.match, spec.on_roll or 0, ply=0, met=met_by_name())
    assert plays == [c.play for c in cands]  # what position --dice shows
    analysed_cands = [c["play"] for c in row["candidates"][0]]
    assert plays == analysed_cands[: len(plays)]
    assert [p["equity"] for p in by_xgid["plays"]] == pytest.approx([c.equity for c in cands])
    table = run(80, "position", xgid, "--ply", "0", "--top", "30").stdout
    assert [line.split()[2] for line in table.splitlines() if re.match(r"^\d+ +0 ", line)] == \
        [p.split()[0] for p in plays]


def test_hint_needs_a_roll() -> None:
    res = run(80, "hint", "4HPwATDgc/ABMA", "--ply", "0")
    assert res.exit_code == 2 and "--dice" in res.stderr and "Traceback" not in res.output


@pytest.mark.integration
def test_variant_summary_has_no_backgammon_rating_names(tmp_path: Path) -> None:
    res = run(80, "analyze", str(DUTCH), "--ply", "0", "--out", str(tmp_path / "d"), "--no-html", "--no-confirm")
    assert res.exit_code == 0, res.output
    check_fits(res.stdout, 80)
    assert "XG:" not in res.stdout and "gnubg:" not in res.stdout and "no XG or gnubg rating names" in res.stdout
    keys = pl.read_parquet(tmp_path / "d" / "decisions.parquet").sort("equity_loss", descending=True,
                                                                     maintain_order=True)["key"].head(5).to_list()
    assert [w for w in res.stdout.split() if w.startswith("D.")] == keys


def test_batch_summary_fits(tmp_path: Path) -> None:
    res = run(80, "batch", str(SAMPLE), "--out", str(tmp_path / "b"), "--replay-only", "--jobs", "1")
    assert res.exit_code == 0, res.output
    check_fits(res.stderr, 80, paths=(tmp_path / "b",))
    assert "matches/min" in res.stderr and "decisions" in res.stderr
