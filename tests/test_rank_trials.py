"""The confirmation pass rolls a checker play further when the review's worst list would rank it by
a rollout's noise (issue 52: the Dutch worst list ranked "736 (±233)" after 72 games above a loss it
may well be below), up to a cap; what the cap leaves undecided stays marked so.

The rollout here is a stand-in: each round's mean is the play's true value plus seeded normal noise
of a game's spread over the round's games (or, ``noise=False``, the true value itself), with the
standard error falling as 1 / sqrt(games) as a rollout's does; the test runs in milliseconds."""

from __future__ import annotations

import math
import random
from typing import Any

import polars as pl

from analyzer.analysis.analyze import MatchAnalysis, _Job, _Jobs, _Rows
from analyzer.analysis.confirm import Confirmer, ConfirmSettings
from analyzer.analysis.decisions import Candidate, CheckerAnalysis
from analyzer.analysis.thresholds import XG
from analyzer.core.position import Position
from analyzer.eval.probabilities import Probabilities

GAME_SD = 2.0  # a game's spread: 72 games give each value a standard error of 0.24, a loss 0.33
SETTINGS = ConfirmSettings(trials=72, max_trials=576, limit=None, workers=1)


def _play(name: str, point: int, equity: float) -> Candidate:
    return Candidate(name, Position.from_points({point: 2}, {24: 1}), equity, Probabilities(0.5, 0, 0, 0, 0), 0)


class _Noisy:
    """A stand-in rollout of one play: the best play worth 0, the played one ``-loss``; counts the
    rounds it plays."""

    def __init__(self, loss: float, noise: bool) -> None:
        best, played = _play("best", 1 + int(loss * 1000) % 20, 0.0), _play("played", 22, -loss)
        self.first = CheckerAnalysis((best, played), played, 2)
        self.true = {best.result: 0.0, played.result: -loss}
        self.rounds: list[tuple[int, int]] = []
        self.noise = noise

    def __call__(self, plays: list[tuple[str, Position]], trials: int, seed: int) -> Any:
        self.rounds.append((seed, trials))
        rng = random.Random(seed)
        se = GAME_SD / math.sqrt(trials)
        p = Probabilities(0.5, 0, 0, 0, 0)
        return trials, [(r, self.true[r] + self.noise * rng.gauss(0.0, se), se, p) for _, r in plays], None


def _review(losses: list[float], settings: ConfirmSettings, *, noise: bool = True, settle: bool = True,
            neighbour_se: float | None = None) -> tuple[list[dict[str, Any]], list[_Noisy]]:
    """Rows for one rolled-out play per loss in ``losses`` and one n-ply play of loss 0.6 (with
    ``neighbour_se``: a rolled-out cube decision with that standard error), confirmed and then
    (``settle``) their ranks settled, as the analysis does."""
    c = Confirmer(settings, XG, 7, None)
    rows = _Rows(2, XG, None, "2-ply")
    rows.rows = [{"equity_loss": 0.6, "loss_se": neighbour_se, "method": "2-ply" if neighbour_se is None else "rollout",
                  "trials": None if neighbour_se is None else 576, "rank_trials": None}]
    jobs = _Jobs(rows, XG, None, None)  # type: ignore[arg-type] - the stand-in needs no engine
    noisy = []
    for move, loss in enumerate(losses, 1):
        rows.rows.append({"equity_loss": loss, "loss_se": None, "method": "2-ply", "trials": None,
                          "rank_trials": None})
        stand_in, at = _Noisy(loss, noise), len(rows.rows) - 1
        noisy.append(stand_in)

        def run(stand_in: _Noisy = stand_in, at: int = at, move: int = move) -> None:
            again, how = c._rolled_out(stand_in.first, stand_in, c._seed(1, move), c.goals.get((1, move)))
            rows.rows[at].update(equity_loss=max(0.0, again.best.equity - again.played.equity), loss_se=how.loss_se,
                                 method="rollout", trials=how.trials, rank_trials=how.rank_trials)
        jobs.jobs.append(_Job(loss, 0.0, (at,), run, goal=(c, 1, move)))
    jobs.run(None, None)
    if settle:
        jobs.settle_ranks()
    return rows.rows, noisy


def _worst(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return MatchAnalysis(pl.DataFrame(rows), None).worst(5)  # type: ignore[arg-type] - worst() reads rows only


def test_extra_trials_settle_the_order() -> None:
    before = _review([0.8], SETTINGS, settle=False)[0][1]
    # the error class (a blunder) is settled with a standard error larger than the gap to 0.6
    assert before["loss_se"] > before["equity_loss"] - 0.6 and before["rank_trials"] is None
    assert not _worst(_review([0.8], SETTINGS, settle=False)[0])["rank_decided"].all()
    rows, noisy = _review([0.8], SETTINGS)
    played = rows[1]
    # rolled on, the earlier rounds kept, until its error is below the gap
    assert played["trials"] > before["trials"] and played["rank_trials"] == played["trials"] - before["trials"]
    assert played["loss_se"] <= played["equity_loss"] - 0.6
    assert played["trials"] <= SETTINGS.rank_cap
    assert _worst(rows)["rank_decided"].all()
    seeds = [seed for seed, _ in noisy[0].rounds]
    assert len(seeds) == len(set(seeds))  # the rounds before the goal are not played again
    assert _review([0.8], SETTINGS)[0] == rows  # seeded: the same rows again


def test_an_order_out_of_reach_costs_no_games() -> None:
    settings = ConfirmSettings(trials=72, max_trials=576, rank_max_trials=1152, limit=None, workers=1)
    rows, noisy = _review([0.61], settings, noise=False)
    played = rows[1]
    # the blunder settles at 144 games (0.61 ± 0.46); an error below the 0.01 gap would take 80,000, so
    # the cap's 1152 games would leave the order undecided: none are played past the 144
    assert played["trials"] == 144 and played["rank_trials"] is None
    assert sum(t for _, t in noisy[0].rounds) == 144
    assert _worst(rows)["rank_decided"].to_list() == [False, False]


def test_an_order_a_neighbour_leaves_open_costs_no_games() -> None:
    # beside a rolled-out cube decision at 0.6 ± 0.35 (rolled no further), no games of the play at 0.9
    # can settle the order: its blunder class, settled at 72 games, is all it gets
    rows, noisy = _review([0.9], SETTINGS, noise=False, neighbour_se=0.35)
    assert rows[1]["trials"] == 72 and rows[1]["rank_trials"] is None
    assert not _worst(rows)["rank_decided"].all()
    # with a neighbour known exactly, the same play is rolled on to a standard error below the 0.3 gap
    rows, _ = _review([0.9], SETTINGS, noise=False)
    assert rows[1]["rank_trials"] == 72 and _worst(rows)["rank_decided"].all()


def test_a_settled_order_costs_no_extra_trials() -> None:
    rows, _ = _review([2.0], SETTINGS, noise=False)
    assert rows[1]["rank_trials"] is None and rows[1]["trials"] == 72
    assert _worst(rows)["rank_decided"].all()
