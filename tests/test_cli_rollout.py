"""``bgreview rollout``: --plays N gives N plays or says why fewer, and a progress bar with ETA on a
terminal (issue 27)."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

import analyzer.cli.rollout as rollout_cli
from analyzer.cli import app
from analyzer.core.position import Position
from analyzer.rules import find_variant

START = "4HPwATDgc/ABMA"
FAST = ["--trials", "36", "--truncate", "2", "--workers", "1"]


def rollout_json(*args: str) -> dict[str, object]:
    res = CliRunner().invoke(app, ["rollout", START, *FAST, "-f", "json", *args])
    assert res.exit_code == 0, res.output
    doc: dict[str, object] = json.loads(res.stdout)
    return doc


def plays(doc: dict[str, object]) -> list[str]:
    cands = doc["candidates"]
    assert isinstance(cands, list)
    return [c["play"] for c in cands]


def test_plays_alone_gives_that_many() -> None:
    doc = rollout_json("--dice", "66", "--plays", "10")
    assert len(plays(doc)) == 10 and "note" not in doc


def test_fewer_legal_plays_are_named() -> None:
    legal = len(find_variant("standard").legal_plays(Position.start(), (6, 6)))
    doc = rollout_json("--dice", "66", "--plays", "20")
    assert len(plays(doc)) == legal
    assert doc["note"] == f"only {legal} plays: the roll has {legal} legal plays"


def test_the_equity_window_is_named() -> None:
    doc = rollout_json("--dice", "66", "--plays", "10", "--within", "0.05")
    n = len(plays(doc))
    assert n < 10 and f"only {n} of the 10 plays asked" in str(doc["note"]) and "--within" in str(doc["note"])
    res = CliRunner().invoke(app, ["rollout", START, *FAST, "--dice", "66", "--plays", "10", "--within", "0.05"])
    assert res.exit_code == 0 and "--within" in res.stderr  # the table says it on stderr


def test_bad_plays() -> None:
    res = CliRunner().invoke(app, ["rollout", START, *FAST, "--dice", "66", "--plays", "0"])
    assert res.exit_code == 2 and "--plays" in res.stderr


@pytest.mark.parametrize(("fmt", "shown"), [("table", True), ("json", False), ("csv", False)])
def test_progress_bar_on_a_terminal_only_for_the_table(monkeypatch: pytest.MonkeyPatch, fmt: str,
                                                       shown: bool) -> None:
    buf = io.StringIO()
    terminal = Console(file=buf, force_terminal=True, width=100, markup=False, emoji=False, highlight=False)
    monkeypatch.setattr(rollout_cli, "error_console", lambda: terminal)
    res = CliRunner().invoke(app, ["rollout", START, "--trials", "72", "--truncate", "2", "--workers", "1",
                                   "-f", fmt])
    assert res.exit_code == 0, res.output
    drawn = buf.getvalue()
    assert ("ETA" in drawn and "/72" in drawn) is shown, drawn
    if fmt == "csv":
        assert res.stdout.splitlines()[0].startswith("n,play,win,")
