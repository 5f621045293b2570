"""A rollout whose standard error is larger than the difference it ranks does not decide the order
of the worst decisions (issue 52: the Dutch worst list ranked "736 (±233)" after 72 games above a
loss it may well be below): the list marks such ranks undecided."""

from __future__ import annotations

from typing import Any

import polars as pl

from analyzer.analysis.analyze import MatchAnalysis
from analyzer.render.terminal import render_text, worst_table


def _row(move: int, loss: float, se: float | None, method: str, trials: int | None) -> dict[str, Any]:
    return {"game": 1, "move_no": move, "player": "ann", "kind": "checker", "dice": "31", "played": "8/5 6/5",
            "best": "24/21 6/5", "equity_loss": loss, "loss_se": se, "method": method, "trials": trials,
            "equity_loss_first": loss if trials else None, "mwc_loss": None, "cube": None,
            "error_class": "blunder", "xgid": None, "position_id": None, "match_id": None, "key": "k"}


def _analysis(*rows: dict[str, Any]) -> MatchAnalysis:
    return MatchAnalysis(pl.DataFrame(list(rows)), None)  # type: ignore[arg-type] - worst() reads rows only


def test_rollout_noise_leaves_the_rank_undecided() -> None:
    a = _analysis(_row(3, 0.600, None, "0-ply", None), _row(5, 0.736, 0.233, "rollout", 72),
                  _row(7, 0.300, 0.002, "rollout", 576), _row(9, 0.100, None, "0-ply", None))
    worst = a.worst(3)
    assert worst["move_no"].to_list() == [5, 3, 7]
    assert worst["rank_decided"].to_list() == [False, False, True]
    text = render_text(worst_table(a, 3, width=160), width=160)
    assert "1?" in text and "2?" in text and "3?" not in text and "undecided rank" in text


def test_precise_rollouts_decide_the_ranks() -> None:
    a = _analysis(_row(5, 0.736, 0.010, "rollout", 576), _row(3, 0.600, None, "0-ply", None),
                  _row(7, 0.300, 0.002, "rollout", 576))
    assert a.worst(3)["rank_decided"].all()
    assert "undecided" not in render_text(worst_table(a, 3, width=160), width=160)
