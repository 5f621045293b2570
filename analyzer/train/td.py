"""TD(lambda) self-play training of the standard nets: seeded, checkpointed, resumable.

One iteration plays ``games_per_iter`` self-play games with the current nets (game ``i`` uses a
seed derived from the run seed and ``i``), turns every recorded position into a lambda-return
target (the next position's prediction swapped to the mover's side, the exact result at the
end), and runs Adam minibatches of cross-entropy on each class's positions. Every
``eval_every`` games the nets play a duplicate-dice duel against the fixed heuristic baseline
and a line goes to the learning-curve log. The checkpoint (weights, Adam moments, counters and
config in one ``.npz``, written atomically) lets the next session continue exactly where the
last checkpoint left off.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> cfg = TDConfig(hidden=8, race_hidden=8, games_per_iter=2, eval_every=0, eval_seeds=0)
>>> state = TDTrainer.create(d / "ck.npz", cfg)
>>> state.run(total_games=2)
>>> state.games
2
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.eval import features as F
from analyzer.eval.net import CLASS_KEYS, NOUT, NetSet
from analyzer.train.base import C, Trainer, fold_average, read_checkpoint, train_epochs, utc_stamp, write_checkpoint
from analyzer.train.optim import PARAMS, Adam
from analyzer.train.selfplay import GameBuffers, duel, play_seeded

log = logging.getLogger(__name__)

CLASS_OF_KEY = {"contact": F.CLASS_CONTACT, "crashed": F.CLASS_CRASHED, "race": F.CLASS_RACE}


@dataclass
class TDConfig:
    """Settings of a TD run (stored in the checkpoint)."""

    seed: int = 1
    hidden: int = 128
    race_hidden: int = 64
    lam: float = 0.7
    lr: float = 1e-3
    batch: int = 64
    games_per_iter: int = 16
    noise: float = 0.01
    eval_every: int = 2000
    eval_seeds: int = 200
    init: str = "random"  # or the net set / checkpoint the run started from (``td --init``)
    train_race: int = 1  # 0: the race net is kept as it is (e.g. one trained on our bear-off databases)
    ema_games: int = 0  # > 0: keep a moving average of the weights over about this many games


def game_seed(run_seed: int, index: int) -> int:
    """The dice seed of game ``index`` of a run (fits numba's 32-bit seed)."""
    return (run_seed * 1_000_003 + index * 7919 + 12345) % (2**32 - 1)


def lambda_targets(nextp: NDArray[np.float32], outcome: int, n: int, lam: float) -> NDArray[np.float32]:
    """Lambda-return targets of the ``n`` positions of one finished game.

    ``nextp[t]`` is the prediction of the afterstate of move t from that mover's side;
    ``outcome`` (0..2) the result for the last mover.

    >>> p = np.full((2, 6), 1 / 6, np.float32)
    >>> lambda_targets(p, 1, 2, 0.0)[1].tolist()
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    """
    g = np.zeros((n, NOUT), np.float32)
    g[n - 1, outcome] = 1.0
    for t in range(n - 2, -1, -1):
        nxt = g[t + 1]
        swapped = np.concatenate([nxt[3:], nxt[:3]])
        g[t] = (1.0 - lam) * nextp[t] + lam * swapped
    return g


def read_state(path: Path) -> tuple[dict[str, Any], dict[str, Any], NetSet]:
    """The arrays, the JSON state and the nets of a training checkpoint (TD or supervised)."""
    arrays, doc = read_checkpoint(path)
    nets = NetSet.initial(1, 1, seed=0)
    for key in CLASS_KEYS:
        net = nets.nets()[key]
        for s in PARAMS:
            setattr(net, s, np.array(arrays[f"{key}_{s}"], dtype=np.float32))
    return arrays, doc, nets


def trained_keys(train_race: int) -> tuple[str, ...]:
    """The class keys a run trains: all, or all but the race net (``train_race`` 0).

    >>> trained_keys(0)
    ('contact', 'crashed')
    """
    return CLASS_KEYS if train_race else tuple(k for k in CLASS_KEYS if k != "race")


def train_classes(opts: dict[str, Adam], boards: NDArray[np.int8], targets: NDArray[np.float32], batch: int,
                  rng: np.random.Generator, epochs: int = 1,
                  keys: tuple[str, ...] = CLASS_KEYS) -> dict[str, float]:
    """Train each class's net (``opts``, by :data:`CLASS_KEYS`; only those in ``keys``) on the
    ``boards`` of its class against ``targets`` (:func:`analyzer.train.base.train_epochs`, in class
    order); returns the mean loss per class that had positions and was trained."""
    classes = np.zeros(len(boards), np.int64)
    width = max(opts["contact"].net.n_inputs, opts["crashed"].net.n_inputs)
    xc = np.zeros((len(boards), width), np.float32)
    xr = np.zeros((len(boards), F.N_RACE), np.float32)
    rows = np.zeros(len(boards), np.int64)
    F.encode_batch(boards, classes, xc, xr, rows)
    losses: dict[str, float] = {}
    for key in CLASS_KEYS:
        sel = classes == CLASS_OF_KEY[key]
        if key not in keys or not sel.any():
            continue
        x = (xr if key == "race" else xc[:, : opts[key].net.n_inputs])[rows[sel]]
        losses[key] = train_epochs(opts[key], x, targets[sel], batch, rng, epochs)
    return losses


class NetSetTrainer(Trainer[C]):
    """A trainer of the standard nets: ``nets``, one Adam per net (``opts``, by class key) and the
    self-play buffers."""

    def __init__(self, path: Path, cfg: C, nets: NetSet, lr: float) -> None:
        super().__init__(path, cfg)
        self.nets = nets
        self.opts = {k: Adam(n, lr=lr) for k, n in nets.nets().items()}
        self.buf = GameBuffers()

    def optimisers(self) -> list[Adam]:
        return list(self.opts.values())

    def _load_optimisers(self, arrays: dict[str, Any], doc: dict[str, Any]) -> None:
        for key in CLASS_KEYS:
            self.opts[key].load_state(key, arrays, int(doc["adam_t"][key]))

    def _net_arrays(self) -> dict[str, Any]:
        """The checkpoint arrays of the three nets and their Adam moments (``contact_w1``, ...,
        ``contact_m_w1``, ...)."""
        arrays: dict[str, Any] = {}
        for key, net in self.nets.nets().items():
            for s in PARAMS:
                arrays[f"{key}_{s}"] = getattr(net, s)
            arrays.update(self.opts[key].state(key))
        return arrays


class TDTrainer(NetSetTrainer[TDConfig]):
    """State of a TD run: nets, one Adam per net, counters; saved to ``path``."""

    def __init__(self, path: Path, cfg: TDConfig, nets: NetSet) -> None:
        super().__init__(path, cfg, nets, cfg.lr)
        self.games = 0
        self.iterations = 0
        self.ema: dict[str, NDArray[np.float32]] | None = None

    # ----------------------------------------------------------------- persistence
    @classmethod
    def create(cls, path: Path | str, cfg: TDConfig, start: NetSet | None = None) -> TDTrainer:
        """A fresh run: random nets, or a copy of ``start`` (record its file in ``cfg.init``) with
        fresh optimisers."""
        nets = NetSet.initial(cfg.hidden, cfg.race_hidden, seed=cfg.seed) if start is None else start.copy()
        return cls(Path(path), cfg, nets)

    @classmethod
    def load(cls, path: Path | str) -> TDTrainer:
        """Resume a run from its checkpoint."""
        path = Path(path)
        arrays, doc, nets = read_state(path)
        cfg = TDConfig(**doc["config"])
        tr = cls(path, cfg, nets)
        tr._load_optimisers(arrays, doc)
        if "ema_contact_w1" in arrays:
            tr.ema = {f"{k}_{s}": np.array(arrays[f"ema_{k}_{s}"], dtype=np.float32)
                      for k in CLASS_KEYS for s in PARAMS}
        tr._restore(doc, "games", "iterations")
        tr._trim_curve("games", tr.games)
        return tr

    def progress(self) -> str:
        return f"{self.games} games"

    def save(self) -> None:
        """Write the checkpoint atomically (one ``.npz`` holding everything)."""
        doc = {"config": asdict(self.cfg), "games": self.games, "positions": self.positions,
               "iterations": self.iterations, "elapsed": self.elapsed,
               "adam_t": {k: o.t for k, o in self.opts.items()},
               "feature_version": F.FEATURE_VERSION}
        arrays = self._net_arrays()
        if self.ema is not None:
            arrays.update({f"ema_{name}": a for name, a in self.ema.items()})
        write_checkpoint(self.path, arrays, doc)

    def ema_nets(self) -> NetSet:
        """The nets with the moving-average weights (a copy of the current nets when no average is
        kept)."""
        nets = self.nets.copy()
        if self.ema is not None:
            for key, net in nets.nets().items():
                for s in PARAMS:
                    setattr(net, s, self.ema[f"{key}_{s}"].copy())
        return nets

    def _update_ema(self) -> None:
        """Fold the current weights into the moving average (``ema_games`` > 0)."""
        current = {f"{k}_{s}": getattr(n, s) for k, n in self.nets.nets().items() for s in PARAMS}
        self.ema = fold_average(self.ema, current, self.cfg.games_per_iter, self.cfg.ema_games)

    # ----------------------------------------------------------------- training
    def iteration(self) -> dict[str, float]:
        """Play one batch of games and train on it; returns loss per class."""
        cfg = self.cfg
        boards: list[NDArray[np.int8]] = []
        targets: list[NDArray[np.float32]] = []
        for g in range(cfg.games_per_iter):
            n, outcome = play_seeded(self.nets, game_seed(cfg.seed, self.games + g), cfg.noise, self.buf)
            if outcome < 0:
                continue
            boards.append(self.buf.states[:n].copy())
            targets.append(lambda_targets(self.buf.nextp, outcome, n, cfg.lam))
        self.games += cfg.games_per_iter
        self.iterations += 1
        if not boards:
            self._update_ema()
            return {}
        b = np.concatenate(boards)
        self.positions += len(b)
        rng = np.random.default_rng([cfg.seed, self.iterations])
        losses = train_classes(self.opts, b, np.concatenate(targets), cfg.batch, rng, keys=trained_keys(cfg.train_race))
        self._update_ema()
        return losses

    def evaluate(self) -> float:
        """Points per game against the heuristic baseline (duplicate dice, fixed seeds)."""
        seeds = np.arange(10_000, 10_000 + self.cfg.eval_seeds, dtype=np.int64)
        pts = duel(self.nets, None, seeds)
        return float(pts.mean())

    def run(self, total_games: int, checkpoint_every_s: float = 600.0,
            should_stop: Callable[[], bool] | None = None) -> None:
        """Train until ``total_games`` games have been played (or ``should_stop()``), saving the
        checkpoint every ``checkpoint_every_s`` seconds and at the end."""
        t0 = time.time()
        self._loop(lambda: self.games < total_games, checkpoint_every_s, should_stop)
        log.info("stopped at %d games after %.0f s", self.games, time.time() - t0)

    def _curve_entry(self, losses: list[dict[str, float]]) -> dict[str, Any] | None:
        """Every ``eval_every`` games: the duel against the heuristic and the mean losses per class."""
        ev = self.cfg.eval_every
        if not (ev > 0 and self.games % ev < self.cfg.games_per_iter):
            return None
        ppg = self.evaluate() if self.cfg.eval_seeds > 0 else float("nan")
        acc = {k: [d[k] for d in losses if k in d] for k in CLASS_KEYS}
        rec = {"games": self.games, "positions": self.positions, "elapsed_s": round(self.elapsed, 1),
               "ppg_vs_heuristic": ppg, "loss": {k: (float(np.mean(v)) if v else None) for k, v in acc.items()},
               "time": utc_stamp()}
        log.info("games %d positions %d ppg %.3f loss %s (%.1f games/s)", self.games, self.positions,
                 ppg, rec["loss"], self.games / max(self.elapsed, 1e-9))
        return rec
