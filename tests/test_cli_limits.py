"""Options and inputs out of range give one plain line and exit 2 (issue 55, defects 6 and 17)."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.eval.trials import RolloutSettings, usable_cores

START = "4HPwATDgc/ABMA"


def _one_error(res: Any, *needles: str) -> str:
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    for n in needles:
        assert n in lines[0], lines[0]
    return str(lines[0])


def test_workers_are_capped_at_the_cores() -> None:
    assert RolloutSettings(workers=1_000_000_000).workers == usable_cores()
    assert RolloutSettings(workers=1).workers == 1
    with pytest.raises(ValueError, match="workers must be >= 1"):
        RolloutSettings(workers=0)


def test_a_huge_workers_rollout_starts_no_more_processes_than_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.eval.rollout as ro

    asked: list[int] = []
    real = ro._worker_pool

    def spy(workers: int, *args: Any, **kwargs: Any) -> Any:
        asked.append(workers)
        return real(min(workers, 2), *args, **kwargs)  # never start what was asked, whatever it is

    monkeypatch.setattr(ro, "_worker_pool", spy)
    res = CliRunner().invoke(app, ["rollout", START, "--dice", "31", "--trials", "1296", "--truncate", "1",
                                   "--plays", "1", "--workers", "1000000000", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert asked and max(asked) <= usable_cores()


@pytest.mark.parametrize("args", [["rollout", START, "--dice", "31", "--workers", "0"],
                                  ["rollout", START, "--dice", "31", "--workers", "-5"],
                                  ["cube", START, "--rollout", "--workers", "0"]])
def test_nonsense_workers_are_refused(args: list[str]) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    _one_error(res, "--workers must be at least 1")


def test_a_negative_within_is_refused_in_words() -> None:
    res = CliRunner().invoke(app, ["rollout", START, "--dice", "31", "--within", "-1"])
    assert res.exit_code == 2, res.output
    line = _one_error(res, "--within")
    assert "stack" not in line


@pytest.mark.parametrize(("args", "needle"), [
    (["show", "--plyy", "3", START], "No such option: --plyy (see 'bgreview show --help')"),
    (["show"], "Missing argument 'position'."),
    (["replay", "--format", "xml", "m.mat"], "Invalid value for '--format'"),
    (["rollout", START, "--workers", "many"], "Invalid value for '--workers'"),
    (["no-such-command"], "No such command 'no-such-command'."),
])
def test_usage_errors_are_one_line(args: list[str], needle: str) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    line = _one_error(res, needle)
    assert "Usage:" not in res.output and "╭" not in res.output, res.output
    assert len(line) < 400


def test_a_100kb_option_value_is_cut_in_the_usage_error() -> None:
    res = CliRunner().invoke(app, ["replay", "--format", "x" * 100_000, "m.mat"])
    assert res.exit_code == 2
    line = _one_error(res, "Invalid value for '--format'", "characters)")
    assert len(line) < 500


def test_a_100kb_position_is_cut_in_the_error_line() -> None:
    for command in (["show"], ["hint"], ["moves"]):
        res = CliRunner().invoke(app, [*command, "Q" * 100_000])
        assert res.exit_code == 2, res.output
        assert len(_one_error(res)) < 400, (command, len(res.stderr))


def test_chart_warnings_do_not_reach_the_user() -> None:
    import warnings

    import polars as pl

    from analyzer.analysis.summary import AnalysisSummary, PlayerStats
    from analyzer.render.charts import render_charts

    class Analysis:
        decisions = pl.DataFrame({"game": [1], "side": [0], "kind": ["checker"], "win_prob": [0.5],
                                  "equity_loss": [0.0], "error_class": ["none"], "luck": [0.2]})
        summary = AnalysisSummary(players=(PlayerStats("\u4e2d\u6587 \U0001f600", 0), PlayerStats("Bo", 1)))

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        render_charts(Analysis(), ("svg",))
    assert [str(w.message) for w in seen] == []


@pytest.mark.parametrize("args", [["analyze", "Q" * 100_000], ["convert", "Q" * 100_000, "--to", "mat"],
                                  ["sample", "Q" * 100_000], ["report", "Q" * 100_000],
                                  ["analyze", "m.mat", "--thresholds", "Q" * 100_000]])
def test_a_100kb_argument_is_cut_in_the_error_line(args: list[str]) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, (res.output[:300], res.exception)
    assert len(_one_error(res)) <= 1100


def test_batch_jobs_are_capped_at_the_cores(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    from pathlib import Path

    import analyzer.batch.run as run

    match = Path(__file__).parent / "data" / "corpus" / "gnubgparser" / "gnubg_roll_then_resign_1p.mat"
    for k in range(3):
        shutil.copy(match, tmp_path / f"m{k}.mat")
    monkeypatch.setattr(run, "usable_cores", lambda: 2)
    asked: list[int] = []

    def spy(units: Any, out: str, options: Any, jobs: int) -> Any:
        asked.append(jobs)
        return run._inline(units, out, options, lambda u, n: None)  # never start what was asked

    monkeypatch.setattr(run, "_pool", spy)
    res = CliRunner().invoke(app, ["batch", str(tmp_path), "--out", str(tmp_path / "out"), "--replay-only",
                                   "--jobs", "1000000000"])
    assert res.exit_code == 0, res.output
    assert asked == [2]
