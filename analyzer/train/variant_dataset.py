"""Offline supervised training of the Dutch and Mahbusa nets: stored n-ply targets, then epochs.

The variant counterpart of :mod:`analyzer.train.dataset` (the recipe of the standard v0.5 nets):

* :class:`VariantTargetBuilder` plays seeded self-play games of the variant with a fixed
  *teacher* (one of our own variant nets), keeps every ``sample_every``-th position of each game
  that the variant net evaluates (contact; pure races go to the standard race evaluation) and
  labels it with the teacher's ``ply``-ply evaluation by our own variant kernels. One chunk of
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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.eval.net import weights_fingerprint
from analyzer.eval.variants import features as V
from analyzer.eval.variants.engine import VariantEngine
from analyzer.eval.variants.model import NMAX, POINTS, VariantNet, race_context, variant_code
from analyzer.eval.variants.play import GameBuffers, play_seeded
from analyzer.train.base import Trainer, read_checkpoint, train_epochs, utc_stamp, write_checkpoint
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


class VariantTargetBuilder(Trainer[VariantTargetsConfig]):
    """A resumable build of (position, target) pairs: ``boards`` (n x 64), ``targets`` (n x 5, the
    variant's outcome vector, zero past its outcome count) and ``games`` (the game of each row)."""

    def __init__(self, path: Path, cfg: VariantTargetsConfig, teacher: VariantNet) -> None:
        super().__init__(path, cfg)
        if teacher.variant != variant_name(cfg.variant):
            raise ValueError(f"{cfg.teacher} holds a {teacher.variant} net, not {cfg.variant}")
        self.teacher = teacher
        self.code = variant_code(cfg.variant)
        self.fingerprint = weights_fingerprint(teacher.net)
        self.chunks = 0
        self.boards = np.zeros((0, 64), np.int8)
        self.targets = np.zeros((0, NMAX), np.float32)
        self.games = np.zeros(0, np.int64)
        self.buf = GameBuffers()
        self._engine: VariantEngine | None = None

    @classmethod
    def create(cls, path: Path | str, cfg: VariantTargetsConfig) -> VariantTargetBuilder:
        """A new build with the teacher of ``cfg``."""
        return cls(Path(path), cfg, VariantNet.load(cfg.teacher))

    @classmethod
    def load(cls, path: Path | str) -> VariantTargetBuilder:
        """Resume a build; its teacher file must still hold the same net."""
        path = Path(path)
        arrays, doc = read_checkpoint(path)
        cfg = VariantTargetsConfig(**doc["config"])
        tb = cls(path, cfg, VariantNet.load(cfg.teacher))
        if tb.fingerprint != doc["teacher_fingerprint"]:
            raise ValueError(f"{cfg.teacher} no longer holds the teacher of {path} "
                             f"({tb.fingerprint} != {doc['teacher_fingerprint']})")
        tb.boards = np.array(arrays["boards"], np.int8)
        tb.targets = np.array(arrays["targets"], np.float32)
        tb.games = np.array(arrays["games"], np.int64)
        tb._restore(doc, "chunks")
        tb._trim_curve("chunks", tb.chunks)
        return tb

    def optimisers(self) -> list[Adam]:
        return []

    def progress(self) -> str:
        return f"{self.positions} positions"

    def save(self) -> None:
        doc = {"kind": "variant-targets", "config": asdict(self.cfg), "chunks": self.chunks,
               "positions": self.positions, "elapsed": self.elapsed, "teacher_fingerprint": self.fingerprint,
               "feature_version": V.FEATURE_VERSION}
        write_checkpoint(self.path, {"boards": self.boards, "targets": self.targets, "games": self.games}, doc)

    def iteration(self) -> int:
        """One chunk: ``games_per_chunk`` games of chunk ``chunks``'s seeds, labelled; returns its size."""
        cfg = self.cfg
        out: list[NDArray[np.int8]] = []
        ids: list[NDArray[np.int64]] = []
        first = self.chunks * cfg.games_per_chunk
        ctx = race_context()
        for g in range(first, first + cfg.games_per_chunk):
            n, outcome = play_seeded(self.teacher, game_seed(cfg.seed, SEED_OFFSET + g), cfg.noise, self.buf, ctx)
            if outcome < 0:
                continue
            rows = self.buf.states[:n:cfg.sample_every]
            keep = np.array([V.classify(r, self.code) == V.CLASS_CONTACT for r in rows], bool)
            if keep.any():
                out.append(rows[keep].copy())
                ids.append(np.full(int(keep.sum()), g, np.int64))
        self.chunks += 1
        if not out:
            return 0
        boards = np.concatenate(out)
        if self._engine is None:
            self._engine = VariantEngine(variant_name(cfg.variant), self.teacher, cache_size=0)
        targets = self._engine.evaluate_boards(boards, cfg.ply)
        self.boards = np.concatenate([self.boards, boards])
        self.targets = np.concatenate([self.targets, targets])
        self.games = np.concatenate([self.games, *ids])
        self.positions += len(boards)
        return len(boards)

    def run(self, positions: int, checkpoint_every_s: float = 300.0,
            should_stop: Callable[[], bool] | None = None) -> None:
        """Add chunks until the build holds at least ``positions`` positions (or ``should_stop()``)."""
        self._loop(lambda: self.positions < positions, checkpoint_every_s, should_stop)

    def _curve_entry(self, losses: list[Any]) -> dict[str, Any] | None:
        if self.chunks % 10:
            return None
        rec = {"chunks": self.chunks, "positions": self.positions, "elapsed_s": round(self.elapsed, 1),
               "time": utc_stamp()}
        log.info("chunk %d: %d positions (%.1f positions/s)", self.chunks, self.positions,
                 self.positions / max(self.elapsed, 1e-9))
        return rec


def variant_name(name: str) -> str:
    """The canonical variant name (``plakoto`` is Mahbusa).

    >>> variant_name("Plakoto"), variant_name("dutch")
    ('mahbusa', 'dutch')
    """
    key = name.strip().lower()
    return "mahbusa" if key in ("mahbusa", "plakoto") else key


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
    """The boards, targets and game numbers of one or more variant target files, concatenated in
    the given order (the game numbers of file ``i`` offset by ``i * 10**9`` to stay distinct);
    ValueError for a file of another variant."""
    boards, targets, games = [], [], []
    for i, p in enumerate(paths):
        arrays, doc = read_checkpoint(p)
        if doc.get("kind") != "variant-targets" or variant_name(doc["config"]["variant"]) != variant_name(variant):
            raise ValueError(f"{p} is not a {variant} target file")
        boards.append(np.asarray(arrays["boards"], np.int8))
        targets.append(np.asarray(arrays["targets"], np.float32))
        games.append(np.asarray(arrays["games"], np.int64) + i * 10**9)
    return np.concatenate(boards), np.concatenate(targets), np.concatenate(games)


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
           "variant_fit", "variant_name"]
