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
