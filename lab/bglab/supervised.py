"""Supervised rounds: distil the 1-ply expectation of our own engine into the 0-ply nets.

Each round plays ``games_per_round`` seeded self-play games with the current nets (a little
noise for variety), takes every position before a roll, computes its target with our own
engine at 1-ply (mean over the 21 rolls of the best 0-ply afterstate; home-board races come
from our bear-off databases; with ``prune_every`` > 0 the plays of each roll are pre-selected
by a pruning net distilled from the current nets every ``prune_every`` rounds), and trains
``epochs`` passes of Adam cross-entropy on them. No other program's output is involved. A
checkpoint (same layout as the TD one plus the round counter and the pruning net) is written
after every round, so a run resumes exactly at a round boundary.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> cfg = SupervisedConfig(games_per_round=1, epochs=1, eval_seeds=0)
>>> tr = SupervisedTrainer.create(d / "sup.npz", cfg, NetSet.initial(hidden=8, race_hidden=8, seed=0))
>>> tr.run(rounds=1)
>>> tr.rounds
1
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.eval import features as F
from analyzer.eval.engine import Engine
from analyzer.eval.net import Net, NetSet
from analyzer.eval.selfplay import duel, game_seed
from bglab.base import utc_stamp, write_checkpoint
from bglab.learner import StandardLearner, train_nets
from bglab.optim import PARAMS
from bglab.td import NetsTrainer, read_state, trained_keys

log = logging.getLogger(__name__)


@dataclass
class SupervisedConfig:
    """Settings of a supervised run (stored in the checkpoint)."""

    seed: int = 11
    lr: float = 3e-4
    batch: int = 128
    games_per_round: int = 200
    noise: float = 0.03
    epochs: int = 2
    target_ply: int = 1
    eval_every: int = 5
    eval_seeds: int = 500
    prune_every: int = 0
    prune_games: int = 100
    train_race: int = 1  # 0: the race net is kept as it is (e.g. one trained on our bear-off databases)


class SupervisedTrainer(NetsTrainer[SupervisedConfig, StandardLearner]):
    """State of a supervised run: nets, Adam moments, counters."""

    def __init__(self, path: Path, cfg: SupervisedConfig, nets: NetSet) -> None:
        super().__init__(path, cfg, StandardLearner(nets), cfg.lr)
        self.rounds = 0
        self.source = ""

    @classmethod
    def create(cls, path: Path | str, cfg: SupervisedConfig, nets: NetSet,
               source: str = "") -> SupervisedTrainer:
        tr = cls(Path(path), cfg, nets.copy())
        tr.source = source
        return tr

    @classmethod
    def load(cls, path: Path | str) -> SupervisedTrainer:
        path = Path(path)
        arrays, doc, nets = read_state(path)
        cfg = SupervisedConfig(**doc["config"])
        tr = cls(path, cfg, nets)
        tr._load_optimisers(arrays, doc)
        tr._restore(doc, "rounds")
        tr.source = str(doc.get("source", ""))
        if "prune_w1" in arrays:
            tr.nets.prune = Net(*(np.array(arrays[f"prune_{s}"], dtype=np.float32) for s in PARAMS))
        tr._trim_curve("rounds", tr.rounds)
        return tr

    @property
    def nets(self) -> NetSet:
        return self.learner.model

    def progress(self) -> str:
        return f"round {self.rounds}"

    def save(self) -> None:
        arrays = self._net_arrays()
        if self.nets.prune is not None:
            for s in PARAMS:
                arrays[f"prune_{s}"] = getattr(self.nets.prune, s)
        doc = {"kind": "supervised", "config": asdict(self.cfg), "rounds": self.rounds,
               "positions": self.positions, "elapsed": self.elapsed, "source": self.source,
               "games": 0, "iterations": self.rounds,
               "adam_t": self._adam_t(), "feature_version": F.FEATURE_VERSION}
        write_checkpoint(self.path, arrays, doc)

    def positions_of_round(self) -> NDArray[np.int8]:
        """The positions (before a roll) of this round's self-play games."""
        out: list[NDArray[np.int8]] = []
        base = 10_000_000 + self.rounds * self.cfg.games_per_round
        for g in range(self.cfg.games_per_round):
            n, outcome = self.learner.play(game_seed(self.cfg.seed, base + g), self.cfg.noise)
            if outcome < 0:
                continue
            out.append(self.learner.buf.states[:n].copy())
        return np.concatenate(out) if out else np.zeros((0, 64), np.int8)

    def iteration(self) -> dict[str, float]:
        """One round (:meth:`round`)."""
        return self.round()

    def round(self) -> dict[str, float]:
        """One round: positions, 1-ply targets, training; returns mean loss per class."""
        cfg = self.cfg
        boards = self.positions_of_round()
        if cfg.prune_every > 0 and (self.nets.prune is None or self.rounds % cfg.prune_every == 0):
            # a pruning net matching the current nets speeds up the 1-ply targets about 2x
            from bglab.prune import train_prune_net

            self.nets.prune = train_prune_net(self.nets, games=cfg.prune_games, seed=cfg.seed + self.rounds)
        engine = Engine(self.nets, cache_size=0, prune=cfg.prune_every > 0)
        targets = engine.evaluate_boards(boards, cfg.target_ply)
        rng = np.random.default_rng([cfg.seed, self.rounds])
        keys = trained_keys(cfg.train_race)
        opts = {k: o for k, o in self.opts.items() if k in keys}
        losses = train_nets(opts, self.learner.inputs(boards), targets, cfg.batch, rng, cfg.epochs)
        self.rounds += 1
        self.positions += len(boards)
        return losses

    def run(self, rounds: int, should_stop: Callable[[], bool] | None = None) -> None:
        """Train until ``rounds`` rounds are done in total; checkpoint after each round."""
        self._loop(lambda: self.rounds < rounds, 0.0, should_stop)

    def _curve_entry(self, losses: list[dict[str, float]]) -> dict[str, Any]:
        """A curve line every round (its loss per class), with the duel against the heuristic
        every ``eval_every`` rounds."""
        rec: dict[str, Any] = {"rounds": self.rounds, "positions": self.positions,
                               "elapsed_s": round(self.elapsed, 1), "loss": losses[-1], "time": utc_stamp()}
        if self.cfg.eval_seeds > 0 and self.cfg.eval_every > 0 and self.rounds % self.cfg.eval_every == 0:
            seeds = np.arange(10_000, 10_000 + self.cfg.eval_seeds, dtype=np.int64)
            rec["ppg_vs_heuristic"] = float(duel(self.nets, None, seeds).mean())
        log.info("round %d positions %d loss %s ppg %s", self.rounds, self.positions, losses[-1],
                 rec.get("ppg_vs_heuristic"))
        return rec
