"""Offline supervised training of the Dutch and Mahbusa nets: stored n-ply targets, then epochs.

The variant counterpart of :mod:`analyzer.train.dataset` (the recipe of the standard v0.5 nets):

* :class:`VariantTargetBuilder` plays seeded self-play games of the variant with a fixed
  *teacher* (one of our own variant nets), keeps every ``sample_every``-th position of each game
  that the variant net evaluates (contact; pure races go to the standard race evaluation) and
  labels it with the teacher's ``ply``-ply evaluation by our own variant kernels, or with
  ``trials`` > 0 by the outcome frequencies of a short rollout by the teacher (the long-horizon
  target TD's lambda-returns only approximate). One chunk of
  games at a time, saved atomically, so a long build stops and resumes anywhere (a resumed build
  gives the same file as an uninterrupted one).
* :func:`variant_fit` trains a copy of a variant net (or a fresh one of the same shape) on such
  files for several epochs, holding out the positions of every ``holdout``-th game to report the
  mean absolute equity error against the targets after each epoch, and returns the net of the
  best epoch.

No other program's output is involved.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> VariantNet.initial("dutch", hidden=8, seed=0).save(d / "teacher.npz")
>>> cfg = VariantTargetsConfig(variant="dutch", teacher=str(d / "teacher.npz"), ply=0, games_per_chunk=1)
>>> b = VariantTargetBuilder.create(d / "t.npz", cfg)
>>> b.run(positions=1)
>>> b.chunks, len(VariantTargetBuilder.load(d / "t.npz").boards) == b.positions > 0
(1, True)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.position import Position
from analyzer.eval.net import weights_fingerprint
from analyzer.eval.variants import features as V
from analyzer.eval.variants.engine import VariantEngine
from analyzer.eval.variants.model import NMAX, POINTS, VariantNet, race_context, variant_code, variant_code_name
from analyzer.eval.variants.play import GameBuffers, play_seeded, rollout
from analyzer.train.base import read_checkpoint, train_epochs
from analyzer.train.dataset import TargetFileBuilder, load_targets
from analyzer.train.optim import Adam
from analyzer.train.td import game_seed

log = logging.getLogger(__name__)

SEED_OFFSET = 30_000_000  # the builder's game seeds stay apart from the TD runs' and the benchmarks'


@dataclass
class VariantTargetsConfig:
    """Settings of a variant target build (stored in its file)."""

    variant: str = "dutch"
    teacher: str = "data/nets/dutch.npz"
    seed: int = 41
    ply: int = 1
    noise: float = 0.03
    games_per_chunk: int = 20
    sample_every: int = 2
    trials: int = 0  # > 0: label by a cubeless rollout of this many trials instead of the ply-ply value


class VariantTargetBuilder(TargetFileBuilder[VariantTargetsConfig]):
    """A resumable build of (position, target) pairs: ``boards`` (n x 64), ``targets`` (n x 5, the
    variant's outcome vector, zero past its outcome count) and ``games`` (the game of each row)."""

    kind = "variant-targets"
    feature_version = V.FEATURE_VERSION

    def __init__(self, path: Path, cfg: VariantTargetsConfig, teacher: VariantNet) -> None:
        super().__init__(path, cfg, weights_fingerprint(teacher.net), NMAX, cfg.games_per_chunk)
        self.code = variant_code(cfg.variant)
        if teacher.code != self.code:
            raise ValueError(f"{cfg.teacher} holds a {teacher.variant} net, not {cfg.variant}")
        self.teacher = teacher
        self.buf = GameBuffers()
        self._engine: VariantEngine | None = None

    @classmethod
    def create(cls, path: Path | str, cfg: VariantTargetsConfig) -> VariantTargetBuilder:
        """A new build with the teacher of ``cfg``."""
        return cls(Path(path), cfg, VariantNet.load(cfg.teacher))

    @classmethod
    def load(cls, path: Path | str) -> VariantTargetBuilder:
        """Resume a build; its teacher file must still hold the same net."""
        arrays, doc = read_checkpoint(path)
        cfg = VariantTargetsConfig(**doc["config"])
        tb = cls(Path(path), cfg, VariantNet.load(cfg.teacher))
        tb._resume(arrays, doc, cfg.teacher)
        return tb

    def _rows_of_game(self, g: int) -> NDArray[np.int8] | None:
        cfg = self.cfg
        n, outcome = play_seeded(self.teacher, game_seed(cfg.seed, SEED_OFFSET + g), cfg.noise, self.buf,
                                 race_context())
        if outcome < 0:
            return None
        rows: NDArray[np.int8] = self.buf.states[:n:cfg.sample_every]
        keep = np.array([V.classify(r, self.code) == V.CLASS_CONTACT for r in rows], bool)
        out: NDArray[np.int8] = rows[keep].copy()
        return out

    def _label(self, boards: NDArray[np.int8]) -> NDArray[np.float32]:
        if self._engine is None:
            self._engine = VariantEngine(self.teacher.variant, self.teacher, cache_size=0)
        if self.cfg.trials <= 0:
            return self._engine.evaluate_boards(boards, self.cfg.ply)
        return self._rollout_targets(boards)

    def _rollout_targets(self, boards: NDArray[np.int8]) -> NDArray[np.float32]:
        """The outcome frequencies of a ``trials``-trial rollout of each row by the teacher's 0-ply
        player (first and second rolls stratified: ``latin``, :func:`~analyzer.eval.variants.play.rollout`); the seed of
        row ``r`` of the file is a function of the run seed and ``r``, so a resumed build labels
        alike. A row whose trials all run past the ply limit keeps the teacher's 0-ply value."""
        out = np.zeros((len(boards), NMAX), np.float32)
        ctx = race_context()
        k = V.n_outcomes(self.code)
        for j, b in enumerate(boards):
            row = self.positions + j
            seed = self.cfg.seed * 1_000_003 + row * 7919 + 1
            _, _, counts = rollout(self.teacher, Position(b.tobytes(), self.teacher.variant), self.cfg.trials,
                                   seed=seed, ctx=ctx, latin=seed % 36)
            if counts.sum() > 0:
                out[j, :k] = counts[:k] / counts.sum()
            else:
                assert self._engine is not None
                out[j] = self._engine.evaluate_boards(b[None], 0)[0]
        return out


@dataclass
class VariantFitConfig:
    """Settings of :func:`variant_fit`."""

    epochs: int = 10
    lr: float = 1e-4
    lr_decay: float = 0.8
    batch: int = 128
    holdout: int = 20
    seed: int = 31
    fresh: int = 0  # 1: start from random weights (seeded by ``seed``)
    hidden: int = 0  # with ``fresh``: the hidden units of the new net (0: as many as the given net)


def load_variant_targets(paths: Sequence[Path | str], variant: str
                         ) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.int64]]:
    """:func:`~analyzer.train.dataset.load_targets` of variant target files; ValueError for a file
    of another kind or variant."""
    code = variant_code(variant)

    def check(p: Path | str, doc: dict[str, Any]) -> None:
        if doc.get("kind") != VariantTargetBuilder.kind or variant_code(doc["config"]["variant"]) != code:
            raise ValueError(f"{p} is not a {variant_code_name(code)} target file")

    return load_targets(paths, check)


def variant_fit(vn: VariantNet, boards: NDArray[np.int8], targets: NDArray[np.float32], games: NDArray[np.int64],
                cfg: VariantFitConfig) -> tuple[VariantNet, list[dict[str, Any]]]:
    """Train a copy of ``vn`` (fresh weights with ``cfg.fresh``, ``cfg.hidden`` units) on the contact rows
    of (``boards``, ``targets``), holding out the positions of every ``cfg.holdout``-th game; the
    net of the epoch with the lowest hold-out mean |equity - target equity| (epoch 0: the start)
    and one record per epoch.

    >>> from analyzer.core.position import Position
    >>> vn = VariantNet.initial("mahbusa", hidden=8, seed=0)
    >>> b = np.repeat(np.frombuffer(Position.start("mahbusa").board, np.int8)[None], 40, 0)
    >>> t = np.tile(np.array([0.5, 0.2, 0.1, 0.2, 0.0], np.float32), (40, 1))
    >>> best, hist = variant_fit(vn, b, t, np.arange(40), VariantFitConfig(epochs=3, lr=1e-2, holdout=4))
    >>> hist[-1]["holdout"] < hist[0]["holdout"]
    True
    """
    code = vn.code
    k = V.n_outcomes(code)
    if cfg.fresh:
        start = VariantNet.initial(vn.variant, hidden=cfg.hidden or vn.net.hidden, seed=cfg.seed)
        start.meta = dict(vn.meta)
    else:
        start = vn.copy()
    work = start.copy()
    contact = np.array([V.classify(r, code) == V.CLASS_CONTACT for r in boards], bool)
    boards, targets, games = boards[contact], targets[contact, :k], games[contact]
    targets = targets / targets.sum(axis=1, keepdims=True)
    x = np.zeros((len(boards), work.net.n_inputs), np.float32)
    for i in range(len(boards)):
        V.encode(boards[i], code, x[i])
    hold = games % cfg.holdout == 0
    xt, tt, xh = x[~hold], targets[~hold], x[hold]
    eq_h = targets[hold] @ POINTS[:k].astype(np.float32)
    opt = Adam(work.net, lr=cfg.lr)
    rng = np.random.default_rng(cfg.seed)

    def holdout_error() -> float:
        if not len(xh):
            return float("nan")
        return float(np.abs(work.net.forward(xh) @ POINTS[:k].astype(np.float32) - eq_h).mean())

    err = holdout_error()
    hist: list[dict[str, Any]] = [{"epoch": 0, "holdout": err, "loss": None, "train": int(len(xt)),
                                   "held": int(len(xh))}]
    best, best_err = start.copy(), err
    for e in range(1, cfg.epochs + 1):
        opt.lr = cfg.lr * cfg.lr_decay ** (e - 1)
        loss = train_epochs(opt, xt, tt, cfg.batch, rng, 1)
        err = holdout_error()
        hist.append({"epoch": e, "holdout": err, "loss": loss})
        log.info("epoch %d hold-out %.5f loss %.5f", e, err, loss)
        if not err >= best_err:  # lower, or the first finite figure
            best, best_err = work.copy(), err
    return best, hist


__all__ = ["VariantFitConfig", "VariantTargetBuilder", "VariantTargetsConfig", "load_variant_targets",
           "variant_fit"]
