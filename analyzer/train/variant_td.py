"""TD(lambda) self-play training of the Dutch and Mahbusa nets: seeded, checkpointed, resumable.

The same scheme as :mod:`analyzer.train.td` (whose Adam and cross-entropy code it reuses) with the
variant's rules and outcome model (:mod:`analyzer.eval.variants.model`): one iteration plays
``games_per_iter`` self-play games (game ``i`` has a seed derived from the run seed and ``i``),
turns each game's positions into lambda-return targets over the variant's outcomes (the next
position's prediction seen from the other side, the exact result at the end) and runs Adam
minibatches on the positions the variant net evaluates (pure races go to the standard race
evaluation and are not trained here). Every ``eval_every`` games the net plays a duplicate-dice
duel against the heuristic yardstick and a line goes to ``<checkpoint>_curve.jsonl``.

With ``ema_games`` > 0 the run also keeps an exponential moving average of the weights over
about that many games (updated after every iteration); ``variant-export --ema`` ships the
average, which carries less of the last minibatches' noise than the weights themselves.

The checkpoint (weights, Adam moments, the average, counters, config; one ``.npz`` written
atomically) lets a later run continue exactly: two runs of one iteration each give the same
weights as one run of two iterations.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> cfg = VariantTDConfig(variant="mahbusa", hidden=8, games_per_iter=1, eval_every=0)
>>> tr = VariantTDTrainer.create(d / "ck.npz", cfg)
>>> tr.run(total_games=1)
>>> tr.games, VariantTDTrainer.load(d / "ck.npz").games
(1, 1)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from analyzer.eval.net import Net
from analyzer.eval.variants import features as V
from analyzer.eval.variants.model import RaceContext, VariantNet, race_context, variant_code
from analyzer.eval.variants.play import GameBuffers, duel, play_seeded, ppg_and_se
from analyzer.train.base import Trainer, fold_average, read_checkpoint, train_epochs, utc_stamp, write_checkpoint
from analyzer.train.optim import PARAMS, Adam
from analyzer.train.td import game_seed

log = logging.getLogger(__name__)

SWAP = np.array([2, 3, 0, 1, 4])


@dataclass
class VariantTDConfig:
    """Settings of a variant TD run (stored in the checkpoint)."""

    variant: str = "dutch"
    seed: int = 1
    hidden: int = 128
    init: str = "random"  # "standard": Dutch only, the standard contact net; a path: the run began from that net
    lam: float = 0.7
    lr: float = 1e-3
    batch: int = 64
    games_per_iter: int = 16
    noise: float = 0.01
    eval_every: int = 2000
    eval_pairs: int = 100
    mode: str = "td"  # "supervised": targets are our own n-ply evaluations instead of lambda-returns
    ply: int = 1
    epochs: int = 1
    sample_every: int = 3
    ema_games: int = 0  # > 0: keep a moving average of the weights over about this many games


def lambda_targets(nextp: NDArray[np.float32], outcome: int, n: int, lam: float, k: int) -> NDArray[np.float32]:
    """Lambda-return targets (n x k) of the ``n`` positions of one finished game.

    ``nextp[t]`` is the outcome vector of the play chosen at t from that mover's side;
    ``outcome`` the result index for the last mover.

    >>> p = np.full((2, 5), 0.2, np.float32)
    >>> lambda_targets(p, 1, 2, 0.0, 5)[1].tolist()
    [0.0, 1.0, 0.0, 0.0, 0.0]
    >>> lambda_targets(p, 1, 2, 1.0, 5)[0].tolist()
    [0.0, 0.0, 0.0, 1.0, 0.0]
    """
    p = np.zeros((n, 5), np.float32)
    w = min(5, nextp.shape[1])
    p[:, :w] = nextp[:n, :w]
    g = np.zeros((n, 5), np.float32)
    g[n - 1, outcome] = 1.0
    for t in range(n - 2, -1, -1):
        g[t] = (1.0 - lam) * p[t] + lam * g[t + 1][SWAP]
    out = g[:, :k]
    out /= out.sum(axis=1, keepdims=True)
    return out


class VariantTDTrainer(Trainer[VariantTDConfig]):
    """State of a variant TD run: the net, its Adam, counters; saved to ``path``."""

    def __init__(self, path: Path, cfg: VariantTDConfig, vn: VariantNet, ctx: RaceContext | None = None) -> None:
        super().__init__(path, cfg)
        self.vn = vn
        self.code = variant_code(cfg.variant)
        self.k = V.n_outcomes(self.code)
        self.opt = Adam(vn.net, lr=cfg.lr)
        self.games = 0
        self.iterations = 0
        self.buf = GameBuffers()
        self.ctx = ctx or race_context()
        self.ema: dict[str, NDArray[np.float32]] | None = None

    @classmethod
    def create(cls, path: Path | str, cfg: VariantTDConfig, ctx: RaceContext | None = None) -> VariantTDTrainer:
        """A fresh run (random net, or the standard contact net for Dutch with ``init="standard"``)."""
        if cfg.init == "standard":
            from analyzer.eval.net import NetSet
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
        cfg = VariantTDConfig(**doc["config"])
        vn = VariantNet.load(path)
        tr = cls(path, cfg, vn, ctx)
        tr.opt.load_state("net", arrays, int(doc["adam_t"]))
        if "ema_w1" in arrays:
            tr.ema = {s: np.array(arrays[f"ema_{s}"], dtype=np.float32) for s in PARAMS}
        tr._restore(doc, "games", "iterations")
        tr._trim_curve("games", tr.games)
        return tr

    def optimisers(self) -> list[Adam]:
        return [self.opt]

    def progress(self) -> str:
        return f"{self.games} games"

    def info(self) -> dict[str, Any]:
        return {"kind": "variant-td", "games": self.games, "positions": self.positions,
                "iterations": self.iterations, "elapsed_s": round(self.elapsed, 1), "config": asdict(self.cfg)}

    def save(self) -> None:
        """Write the checkpoint atomically."""
        arrays: dict[str, Any] = {f"net_{s}": getattr(self.vn.net, s) for s in PARAMS}
        arrays.update(self.opt.state("net"))
        if self.ema is not None:
            arrays.update({f"ema_{s}": a for s, a in self.ema.items()})
        arrays["variant"] = np.frombuffer(self.vn.variant.encode(), np.uint8)
        doc = {"config": asdict(self.cfg), "games": self.games, "positions": self.positions,
               "iterations": self.iterations, "elapsed": self.elapsed, "adam_t": self.opt.t,
               "feature_version": V.FEATURE_VERSION}
        write_checkpoint(self.path, arrays, doc)

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

    def ema_net(self) -> VariantNet:
        """The net with the moving-average weights (the current weights when no average is kept)."""
        if self.ema is None:
            return self.vn
        return VariantNet(self.vn.variant, Net(*(self.ema[s].copy() for s in PARAMS)), dict(self.vn.meta))

    def _update_ema(self) -> None:
        current = {s: getattr(self.vn.net, s) for s in PARAMS}
        self.ema = fold_average(self.ema, current, self.cfg.games_per_iter, self.cfg.ema_games)

    def iteration(self) -> float:
        """Play one batch of games and train on it; returns the mean loss (nan if nothing trained)."""
        loss = self._supervised_iteration() if self.cfg.mode == "supervised" else self._td_iteration()
        self._update_ema()
        return loss

    def _td_iteration(self) -> float:
        cfg = self.cfg
        boards: list[NDArray[np.int8]] = []
        targets: list[NDArray[np.float32]] = []
        for g in range(cfg.games_per_iter):
            n, outcome = play_seeded(self.vn, game_seed(cfg.seed, self.games + g), cfg.noise, self.buf, self.ctx)
            if outcome < 0:
                continue
            boards.append(self.buf.states[:n].copy())
            targets.append(lambda_targets(self.buf.nextp, outcome, n, cfg.lam, self.k))
        self.games += cfg.games_per_iter
        self.iterations += 1
        if not boards:
            return float("nan")
        b = np.concatenate(boards)
        t = np.concatenate(targets)
        keep = np.array([V.classify(row, self.code) == V.CLASS_CONTACT for row in b])
        b, t = b[keep], t[keep]
        if len(b) == 0:
            return float("nan")
        self.positions += len(b)
        return self._train(b, t, 1)

    def _supervised_iteration(self) -> float:
        """Supervised round: every ``sample_every``-th position of ``games_per_iter`` noisy
        self-play games, labelled with our own ``ply``-ply evaluation (current net), then
        ``epochs`` passes of Adam."""
        from analyzer.eval.variants.model import eval_many
        from analyzer.rules import find_variant
        from analyzer.rules.kernel import Workspace

        cfg = self.cfg
        chunks: list[NDArray[np.int8]] = []
        for g in range(cfg.games_per_iter):
            n, _ = play_seeded(self.vn, game_seed(cfg.seed, self.games + g), cfg.noise, self.buf, self.ctx)
            if n > 0:
                chunks.append(self.buf.states[:n:cfg.sample_every].copy())
        self.games += cfg.games_per_iter
        self.iterations += 1
        if not chunks:
            return float("nan")
        b = np.concatenate(chunks)
        b = b[np.array([V.classify(row, self.code) == V.CLASS_CONTACT for row in b])]
        if len(b) == 0:
            return float("nan")
        self.positions += len(b)
        t = np.zeros((len(b), 5), np.float32)
        ws = (tuple(Workspace(8192).args()), tuple(Workspace(8192).args()))
        opts = find_variant(cfg.variant).options
        if cast(Any, eval_many)(b, cfg.ply, self.code, opts, self.vn.kernel_args(), *self.ctx.args(), *ws, t) < 0:
            raise RuntimeError("move generation buffers overflowed")
        t = t[:, : self.k]
        t /= t.sum(axis=1, keepdims=True)
        return self._train(b, t, cfg.epochs)

    def _train(self, boards: NDArray[np.int8], targets: NDArray[np.float32], epochs: int) -> float:
        """``epochs`` passes of Adam on the net's inputs of ``boards`` against ``targets``; the mean loss."""
        x = np.zeros((len(boards), self.vn.net.n_inputs), np.float32)
        for i in range(len(boards)):
            V.encode(boards[i], self.code, x[i])
        rng = np.random.default_rng([self.cfg.seed, self.iterations])
        return train_epochs(self.opt, x, targets, self.cfg.batch, rng, epochs)

    def evaluate(self, pairs: int | None = None) -> tuple[float, float]:
        """Points per game (and standard error) against the heuristic, duplicate dice, fixed seed."""
        pts = duel(self.cfg.variant, self.vn, "heuristic", pairs or self.cfg.eval_pairs, seed=10_000, ctx=self.ctx)
        return ppg_and_se(pts)

    def run(self, total_games: int, checkpoint_every_s: float = 300.0,
            should_stop: Callable[[], bool] | None = None) -> None:
        """Train until ``total_games`` games (or ``should_stop()``), checkpointing every
        ``checkpoint_every_s`` seconds and at the end."""
        self._loop(lambda: self.games < total_games, checkpoint_every_s, should_stop)

    def _curve_entry(self, losses: list[float]) -> dict[str, Any] | None:
        """Every ``eval_every`` games: the duel against the heuristic and the mean loss."""
        ev = self.cfg.eval_every
        if not (ev > 0 and self.games % ev < self.cfg.games_per_iter):
            return None
        ppg, se = self.evaluate() if self.cfg.eval_pairs > 0 else (float("nan"), float("nan"))
        trained = [v for v in losses if v == v]
        rec = {"games": self.games, "positions": self.positions, "elapsed_s": round(self.elapsed, 1),
               "ppg_vs_heuristic": round(ppg, 4), "se": round(se, 4), "eval_games": 2 * self.cfg.eval_pairs,
               "loss": float(np.mean(trained)) if trained else None, "time": utc_stamp()}
        log.info("%s games %d positions %d ppg %.3f +- %.3f loss %s (%.1f games/s)", self.cfg.variant,
                 self.games, self.positions, ppg, se, rec["loss"], self.games / max(self.elapsed, 1e-9))
        return rec
