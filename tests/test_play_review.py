"""The review ``play`` offers at the end of a match is made at the depth of ``hint`` and says what
it is (issue 52: a 0-ply review called ``hint``'s first play a blunder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from played import one_point_match
from typer.testing import CliRunner

from analyzer.analysis.play import review_plan
from analyzer.cli import app


def test_review_plan() -> None:
    assert review_plan(2) == (2, review_plan(2, 2)[1])
    assert review_plan(1)[0] == 1 and "depth of 'hint'" in review_plan(1)[1]
    ply, words = review_plan(2, 0)
    assert ply == 0 and words.startswith("quick review at 0-ply") and "(2-ply)" in words


@pytest.mark.integration
def test_play_reviews_at_the_hint_depth(tmp_path: Path) -> None:
    path = tmp_path / "m.mat"
    one_point_match(path, hint_ply=0)
    r = CliRunner().invoke(app, ["play", "--resume", str(path), "--review"])
    assert r.exit_code == 0, r.output
    assert "review at 0-ply, the depth of 'hint' (no rollout confirmation" in r.output
