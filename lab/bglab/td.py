"""TD(lambda) self-play training of the nets of every variant: seeded, checkpointed, resumable.

One algorithm for standard backgammon (:class:`TDTrainer`: the contact, crashed and race nets) and
for Dutch and Mahbusa (:class:`VariantTDTrainer`: the variant's one net), parametrised by a learner
(:mod:`bglab.learner`: the nets, the variant's self-play, outcomes and inputs). One
iteration plays ``games_per_iter`` self-play games with the current nets (game ``i`` uses a seed
derived from the run seed and ``i``), turns every recorded position into a lambda-return target (the
next position's prediction seen from the other side, the exact result at the end), keeps the
positions the learner's nets evaluate (a variant's pure races go to the standard race evaluation)
and runs Adam minibatches of cross-entropy on each net's positions. Every ``eval_every`` games the
nets play a duplicate-dice duel against the fixed heuristic baseline and a line goes to the
learning-curve log ``<checkpoint>_curve.jsonl``.

With ``ema_games`` > 0 the run also keeps an exponential moving average of the weights over about
that many games (updated after every iteration); ``export --ema`` and ``variant-export --ema`` ship
the average, which carries less of the last minibatches' noise than the weights themselves.

The checkpoint (weights, Adam moments, the average, counters and config in one ``.npz``, written
atomically) lets the next session continue exactly where the last checkpoint left off: two runs of
one iteration each give the same weights as one run of two iterations. The two layouts differ only
in the names of the nets (``contact_w1``, ... or ``net_w1``, ...; see :class:`NetsTrainer`).

Kept apart, as different algorithms: the standard supervised rounds (:mod:`bglab.supervised`:
1-ply targets of all positions of fresh games per round, pruning nets, a round counter), and the
variants' supervised mode here (``mode="supervised"``: every ``sample_every``-th position of the TD
run's own games labelled by the current net's ``ply``-ply value), which reuses this trainer's games,
counters and checkpoint.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> cfg = TDConfig(hidden=8, race_hidden=8, games_per_iter=2, eval_every=0, eval_seeds=0)
>>> state = TDTrainer.create(d / "ck.npz", cfg)
>>> state.run(total_games=2)
>>> state.games
2
>>> vcfg = VariantTDConfig(variant="mahbusa", hidden=8, games_per_iter=1, eval_every=0)
>>> tr = VariantTDTrainer.create(d / "vk.npz", vcfg)
>>> tr.run(total_games=1)
>>> tr.games, VariantTDTrainer.load(d / "vk.npz").games
(1, 1)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from analyzer.eval.net import CLASS_KEYS, Net, NetSet
from analyzer.eval.selfplay import duel, game_seed
from analyzer.eval.variants.model import RaceContext, VariantNet
from analyzer.eval.variants.play import duel as variant_duel
from analyzer.eval.variants.play import ppg_and_se
from bglab.base import Trainer, fold_average, read_checkpoint, utc_stamp, write_checkpoint
from bglab.learner import Learner, StandardLearner, VariantLearner, lambda_targets, train_nets
from bglab.optim import PARAMS, Adam

log = logging.getLogger(__name__)


@dataclass
class BaseTDConfig:
    """The settings of every self-play run (stored in the checkpoint, with its variant's own)."""

    seed: int = 1
    hidden: int = 128
    lam: float = 0.7
    lr: float = 1e-3
    batch: int = 64
    games_per_iter: int = 16
    noise: float = 0.01
    eval_every: int = 2000
    init: str = "random"  # or what the run started from: a net file or checkpoint (variants: "standard")
    ema_games: int = 0  # > 0: keep a moving average of the weights over about this many games


@dataclass
class TDConfig(BaseTDConfig):
    """Settings of a standard TD run."""

    race_hidden: int = 64
    eval_seeds: int = 200  # the duel's seeds (two games each)
    train_race: int = 1  # 0: the race net is kept as it is (e.g. one trained on our bear-off databases)


@dataclass
class VariantTDConfig(BaseTDConfig):
    """Settings of a Dutch or Mahbusa run (``init="standard"``: Dutch only, the standard contact net)."""

    variant: str = "dutch"
    eval_pairs: int = 100  # the duel's pairs of games
    mode: str = "td"  # "supervised": targets are our own n-ply evaluations instead of lambda-returns
    ply: int = 1
    epochs: int = 1
    sample_every: int = 3


C = TypeVar("C")
S = TypeVar("S", bound=BaseTDConfig)
L = TypeVar("L", bound=Learner)


def read_state(path: Path) -> tuple[dict[str, Any], dict[str, Any], NetSet]:
    """The arrays, the JSON state and the nets of a standard checkpoint (TD or supervised)."""
    arrays, doc = read_checkpoint(path)
    nets = NetSet.initial(1, 1, seed=0)
    for key in CLASS_KEYS:
        net = nets.nets()[key]
        for s in PARAMS:
            setattr(net, s, np.array(arrays[f"{key}_{s}"], dtype=np.float32))
    return arrays, doc, nets


def trained_keys(train_race: int) -> tuple[str, ...]:
    """The class keys a standard run trains: all, or all but the race net (``train_race`` 0).

    >>> trained_keys(0)
    ('contact', 'crashed')
    """
    return CLASS_KEYS if train_race else tuple(k for k in CLASS_KEYS if k != "race")


class NetsTrainer(Trainer[C], Generic[C, L]):
    """A trainer of a learner's nets: one Adam per net (``opts``, by the nets' checkpoint prefix).

    Checkpoint arrays: per net ``<prefix>_<param>`` and its moments ``<prefix>_m_<param>``,
    ``<prefix>_v_<param>``; the state's ``adam_t`` is the step count of each net by prefix, or the
    one count of a single-net learner.
    """

    def __init__(self, path: Path, cfg: C, learner: L, lr: float) -> None:
        super().__init__(path, cfg)
        self.learner = learner
        self.opts = {k: Adam(n, lr=lr) for k, n in learner.nets().items()}

    def optimisers(self) -> list[Adam]:
        return list(self.opts.values())

    def _adam_t(self) -> int | dict[str, int]:
        if self.learner.single:
            return next(iter(self.opts.values())).t
        return {k: o.t for k, o in self.opts.items()}

    def _load_optimisers(self, arrays: dict[str, Any], doc: dict[str, Any]) -> None:
        for key, opt in self.opts.items():
            opt.load_state(key, arrays, int(doc["adam_t"] if self.learner.single else doc["adam_t"][key]))

    def _net_arrays(self) -> dict[str, Any]:
        """The checkpoint arrays of the nets and their Adam moments."""
        arrays: dict[str, Any] = {}
        for key, net in self.learner.nets().items():
            for s in PARAMS:
                arrays[f"{key}_{s}"] = getattr(net, s)
            arrays.update(self.opts[key].state(key))
        return arrays


class SelfPlayTrainer(NetsTrainer[S, L]):
    """State of a TD run: the learner's nets, one Adam per net, counters, the moving average;
    saved to ``path``. :class:`TDTrainer` and :class:`VariantTDTrainer` add how a run starts and
    how it is measured."""

    checkpoint_every_s = 600.0

    def __init__(self, path: Path, cfg: S, learner: L) -> None:
        super().__init__(path, cfg, learner, cfg.lr)
        self.games = 0
        self.iterations = 0
        self.ema: dict[str, NDArray[np.float32]] | None = None

    # ----------------------------------------------------------------- persistence
    def _weights(self) -> dict[str, NDArray[np.float32]]:
        """The current weights by name (``contact_w1``, ...; a single net: ``w1``, ...), the names
        of the moving average."""
        single = self.learner.single
        return {(s if single else f"{k}_{s}"): getattr(n, s) for k, n in self.learner.nets().items() for s in PARAMS}

    def _resume(self, arrays: dict[str, Any], doc: dict[str, Any]) -> None:
        """Take a checkpoint's optimiser moments, moving average and counters."""
        self._load_optimisers(arrays, doc)
        names = list(self._weights())
        if f"ema_{names[0]}" in arrays:
            self.ema = {name: np.array(arrays[f"ema_{name}"], dtype=np.float32) for name in names}
        self._restore(doc, "games", "iterations")
        self._trim_curve("games", self.games)

    def _extra_arrays(self) -> dict[str, Any]:
        """Arrays a subclass stores besides the weights, moments and average."""
        return {}

    def progress(self) -> str:
        return f"{self.games} games"

    def save(self) -> None:
        """Write the checkpoint atomically (one ``.npz`` holding everything)."""
        doc = {"config": asdict(cast(Any, self.cfg)), "games": self.games, "positions": self.positions,
               "iterations": self.iterations, "elapsed": self.elapsed, "adam_t": self._adam_t(),
               "feature_version": self.learner.feature_version}
        arrays = self._net_arrays()
        if self.ema is not None:
            arrays.update({f"ema_{name}": a for name, a in self.ema.items()})
        arrays.update(self._extra_arrays())
        write_checkpoint(self.path, arrays, doc)

    def _ema_nets(self) -> dict[str, Net] | None:
        """Copies of the nets with the moving-average weights (None when no average is kept)."""
        if self.ema is None:
            return None
        single = self.learner.single
        return {k: Net(*(self.ema[s if single else f"{k}_{s}"].copy() for s in PARAMS))
                for k in self.learner.nets()}

    def _update_ema(self) -> None:
        """Fold the current weights into the moving average (``ema_games`` > 0)."""
        self.ema = fold_average(self.ema, self._weights(), self.cfg.games_per_iter, self.cfg.ema_games)

    # ----------------------------------------------------------------- training
    def trained_keys(self) -> tuple[str, ...]:
        """The nets the run trains (by prefix): all."""
        return tuple(self.opts)

    def iteration(self) -> dict[str, float]:
        """Play one batch of games and train on it; returns the mean loss per net trained."""
        boards, targets, epochs = self._batch()
        losses = self._learn(boards, targets, epochs)
        self._update_ema()
        return losses

    def _batch(self) -> tuple[NDArray[np.int8], NDArray[np.float32], int]:
        """This iteration's positions, their targets and the epochs to train on them: TD's."""
        return (*self._td_batch(), 1)

    def _td_batch(self) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
        """The positions the nets learn from of this iteration's games and their lambda-returns."""
        cfg, lr = self.cfg, self.learner
        boards: list[NDArray[np.int8]] = []
        targets: list[NDArray[np.float32]] = []
        for g in range(cfg.games_per_iter):
            n, outcome = lr.play(game_seed(cfg.seed, self.games + g), cfg.noise)
            if outcome < 0:
                continue
            boards.append(lr.buf.states[:n].copy())
            targets.append(lr.outcomes(lambda_targets(lr.buf.nextp, outcome, n, cfg.lam, lr.swap)))
        self.games += cfg.games_per_iter
        self.iterations += 1
        if not boards:
            return np.zeros((0, 64), np.int8), np.zeros((0, len(lr.swap)), np.float32)
        b = np.concatenate(boards)
        keep = lr.keep(b)
        return b[keep], np.concatenate(targets)[keep]

    def _learn(self, boards: NDArray[np.int8], targets: NDArray[np.float32], epochs: int) -> dict[str, float]:
        """``epochs`` passes of Adam of each trained net on its rows of ``boards`` against
        ``targets`` (the iteration's seeded order); the mean loss per net."""
        if len(boards) == 0:
            return {}
        self.positions += len(boards)
        rng = np.random.default_rng([self.cfg.seed, self.iterations])
        keys = self.trained_keys()
        opts = {k: o for k, o in self.opts.items() if k in keys}
        return train_nets(opts, self.learner.inputs(boards), targets, self.cfg.batch, rng, epochs)

    def run(self, total_games: int, checkpoint_every_s: float | None = None,
            should_stop: Callable[[], bool] | None = None) -> None:
        """Train until ``total_games`` games have been played (or ``should_stop()``), saving the
        checkpoint every ``checkpoint_every_s`` seconds (default :attr:`checkpoint_every_s`) and at
        the end."""
        t0 = time.time()
        every = self.checkpoint_every_s if checkpoint_every_s is None else checkpoint_every_s
        self._loop(lambda: self.games < total_games, every, should_stop)
        log.info("stopped at %d games after %.0f s", self.games, time.time() - t0)

    def _due(self) -> bool:
        """Whether the iteration just played crossed a multiple of ``eval_every`` games."""
        ev = self.cfg.eval_every
        return ev > 0 and self.games % ev < self.cfg.games_per_iter


class TDTrainer(SelfPlayTrainer[TDConfig, StandardLearner]):
    """A standard TD run: the contact, crashed and race nets (``nets``)."""

    def __init__(self, path: Path, cfg: TDConfig, nets: NetSet) -> None:
        super().__init__(path, cfg, StandardLearner(nets))

    @property
    def nets(self) -> NetSet:
        return self.learner.model

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
        tr = cls(path, TDConfig(**doc["config"]), nets)
        tr._resume(arrays, doc)
        return tr

    def ema_nets(self) -> NetSet:
        """The nets with the moving-average weights (a copy of the current nets when no average is
        kept)."""
        nets = self.nets.copy()
        for key, net in (self._ema_nets() or {}).items():
            setattr(nets, key, net)
        return nets

    def trained_keys(self) -> tuple[str, ...]:
        return trained_keys(self.cfg.train_race)

    def evaluate(self) -> float:
        """Points per game against the heuristic baseline (duplicate dice, fixed seeds)."""
        seeds = np.arange(10_000, 10_000 + self.cfg.eval_seeds, dtype=np.int64)
        pts = duel(self.nets, None, seeds)
        return float(pts.mean())

    def _curve_entry(self, losses: list[dict[str, float]]) -> dict[str, Any] | None:
        """Every ``eval_every`` games: the duel against the heuristic and the mean losses per class."""
        if not self._due():
            return None
        ppg = self.evaluate() if self.cfg.eval_seeds > 0 else float("nan")
        acc = {k: [d[k] for d in losses if k in d] for k in CLASS_KEYS}
        rec = {"games": self.games, "positions": self.positions, "elapsed_s": round(self.elapsed, 1),
               "ppg_vs_heuristic": ppg, "loss": {k: (float(np.mean(v)) if v else None) for k, v in acc.items()},
               "time": utc_stamp()}
        log.info("games %d positions %d ppg %.3f loss %s (%.1f games/s)", self.games, self.positions,
                 ppg, rec["loss"], self.games / max(self.elapsed, 1e-9))
        return rec


class VariantTDTrainer(SelfPlayTrainer[VariantTDConfig, VariantLearner]):
    """A Dutch or Mahbusa run: the variant's net (``vn``; races are left to ``ctx``, the standard
    race net and the bear-off databases)."""

    checkpoint_every_s = 300.0

    def __init__(self, path: Path, cfg: VariantTDConfig, vn: VariantNet, ctx: RaceContext | None = None) -> None:
        super().__init__(path, cfg, VariantLearner(vn, ctx))

    @property
    def vn(self) -> VariantNet:
        return self.learner.model

    @property
    def ctx(self) -> RaceContext:
        return self.learner.ctx

    @property
    def opt(self) -> Adam:
        """The net's optimiser."""
        return self.opts["net"]

    @classmethod
    def create(cls, path: Path | str, cfg: VariantTDConfig, ctx: RaceContext | None = None) -> VariantTDTrainer:
        """A fresh run (random net, or the standard contact net for Dutch with ``init="standard"``)."""
        if cfg.init == "standard":
            from analyzer.eval.variants.model import STANDARD_NETS

            vn = VariantNet.from_standard(cfg.variant, NetSet.load(STANDARD_NETS), seed=cfg.seed)
        else:
            vn = VariantNet.initial(cfg.variant, cfg.hidden, seed=cfg.seed)
        return cls(Path(path), cfg, vn, ctx)

    @classmethod
    def load(cls, path: Path | str, ctx: RaceContext | None = None) -> VariantTDTrainer:
        """Resume a run from its checkpoint."""
        path = Path(path)
        arrays, doc = read_checkpoint(path)
        tr = cls(path, VariantTDConfig(**doc["config"]), VariantNet.load(path), ctx)
        tr._resume(arrays, doc)
        return tr

    @classmethod
    def from_source(cls, path: Path | str, source: Path | str, cfg: VariantTDConfig, hidden: int = 0,
                    ctx: RaceContext | None = None) -> VariantTDTrainer:
        """A new run (TD or supervised, as ``cfg.mode`` says) starting from the net of ``source``
        (a checkpoint or net file) with a fresh optimiser; with ``hidden`` above the source's size
        the net is widened first (:meth:`VariantNet.widened`: the same outputs at the start).
        ``cfg.hidden`` records the size the run trains."""
        vn = VariantNet.load(source)
        if vn.variant != cfg.variant:
            raise ValueError(f"{source} holds a {vn.variant} net, not {cfg.variant}")
        if hidden and hidden != vn.net.hidden:
            vn = vn.widened(hidden, seed=cfg.seed)  # ValueError for a smaller size
        cfg.hidden = vn.net.hidden
        cfg.init = str(source)
        vn.meta["init"] = str(source)
        return cls(Path(path), cfg, vn, ctx)

    def info(self) -> dict[str, Any]:
        return {"kind": "variant-td", "games": self.games, "positions": self.positions,
                "iterations": self.iterations, "elapsed_s": round(self.elapsed, 1), "config": asdict(self.cfg)}

    def _extra_arrays(self) -> dict[str, Any]:
        return {"variant": np.frombuffer(self.vn.variant.encode(), np.uint8)}

    def ema_net(self) -> VariantNet:
        """The net with the moving-average weights (the current weights when no average is kept)."""
        nets = self._ema_nets()
        return self.vn if nets is None else VariantNet(self.vn.variant, nets["net"], dict(self.vn.meta))

    def _batch(self) -> tuple[NDArray[np.int8], NDArray[np.float32], int]:
        """TD's batch, or in ``mode="supervised"`` :meth:`_supervised_batch` for ``epochs`` epochs."""
        if self.cfg.mode != "supervised":
            return super()._batch()
        return (*self._supervised_batch(), self.cfg.epochs)

    def _supervised_batch(self) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
        """Every ``sample_every``-th position of ``games_per_iter`` noisy self-play games that the
        net evaluates, labelled with our own ``ply``-ply evaluation (current net)."""
        from analyzer.eval.variants.model import eval_many
        from analyzer.rules import find_variant
        from analyzer.rules.kernel import Workspace

        cfg, lr = self.cfg, self.learner
        chunks: list[NDArray[np.int8]] = []
        for g in range(cfg.games_per_iter):
            n, _ = lr.play(game_seed(cfg.seed, self.games + g), cfg.noise)
            if n > 0:
                chunks.append(lr.buf.states[:n:cfg.sample_every].copy())
        self.games += cfg.games_per_iter
        self.iterations += 1
        if not chunks:
            return np.zeros((0, 64), np.int8), np.zeros((0, lr.k), np.float32)
        b = np.concatenate(chunks)
        b = b[lr.keep(b)]
        t = np.zeros((len(b), 5), np.float32)
        if len(b) == 0:
            return b, t[:, : lr.k]
        ws = (tuple(Workspace(8192).args()), tuple(Workspace(8192).args()))
        opts = find_variant(cfg.variant).options
        if cast(Any, eval_many)(b, cfg.ply, lr.code, opts, self.vn.kernel_args(), *self.ctx.args(), *ws, t) < 0:
            raise RuntimeError("move generation buffers overflowed")
        return b, lr.outcomes(t)

    def evaluate(self, pairs: int | None = None) -> tuple[float, float]:
        """Points per game (and standard error) against the heuristic, duplicate dice, fixed seed."""
        pts = variant_duel(self.cfg.variant, self.vn, "heuristic", pairs or self.cfg.eval_pairs, seed=10_000,
                           ctx=self.ctx)
        return ppg_and_se(pts)

    def _curve_entry(self, losses: list[dict[str, float]]) -> dict[str, Any] | None:
        """Every ``eval_every`` games: the duel against the heuristic and the mean loss."""
        if not self._due():
            return None
        ppg, se = self.evaluate() if self.cfg.eval_pairs > 0 else (float("nan"), float("nan"))
        trained = [d["net"] for d in losses if "net" in d and d["net"] == d["net"]]
        rec = {"games": self.games, "positions": self.positions, "elapsed_s": round(self.elapsed, 1),
               "ppg_vs_heuristic": round(ppg, 4), "se": round(se, 4), "eval_games": 2 * self.cfg.eval_pairs,
               "loss": float(np.mean(trained)) if trained else None, "time": utc_stamp()}
        log.info("%s games %d positions %d ppg %.3f +- %.3f loss %s (%.1f games/s)", self.cfg.variant,
                 self.games, self.positions, ppg, se, rec["loss"], self.games / max(self.elapsed, 1e-9))
        return rec
