"""Offline supervised training: a stored set of our own n-ply targets, then epochs over it.

The supervised rounds of :mod:`analyzer.train.supervised` spend nearly all their time on the
targets (a 2-ply search per position) and then train on each one twice before discarding it. Here
the two halves are separate:

* :class:`TargetBuilder` plays seeded self-play games with a fixed *teacher* net set, keeps every
  ``sample_every``-th position before a roll and labels it with the teacher's ``ply``-ply
  evaluation by our own engine (bear-off databases in home-board races). One chunk of games at a
  time, appended to one ``.npz`` written atomically, so a long build stops and resumes anywhere
  (a resumed build gives the same file as an uninterrupted one).
* :func:`fit` trains the contact and crashed nets of a starting net set on such files for several
  epochs (the race net is kept), holding out every ``holdout``-th position to report the mean
  absolute equity error against the targets after each epoch, and returns the nets of the best
  epoch.

No other program's output is involved: the teacher is one of our own net sets.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> nets = NetSet.initial(hidden=8, race_hidden=8, seed=0)
>>> nets.save(d / "teacher.npz")
>>> cfg = TargetsConfig(teacher=str(d / "teacher.npz"), ply=0, games_per_chunk=1)
>>> b = TargetBuilder.create(d / "t.npz", cfg)
>>> b.run(positions=1)
>>> b.chunks, len(TargetBuilder.load(d / "t.npz").boards) == b.positions > 0
(1, True)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from analyzer.eval import features as F
from analyzer.eval.engine import Engine
from analyzer.eval.net import NOUT, Net, NetSet, weights_fingerprint
from analyzer.train.base import Trainer, read_checkpoint, train_epochs, utc_stamp, write_checkpoint
from analyzer.train.checkpoint import load_nets
from analyzer.train.optim import Adam
from analyzer.train.race import outcome_equity
from analyzer.train.selfplay import GameBuffers, play_seeded
from analyzer.train.td import CLASS_OF_KEY, game_seed

log = logging.getLogger(__name__)
C = TypeVar("C")


@dataclass
class TargetsConfig:
    """Settings of a target build (stored in its file)."""

    teacher: str = "data/nets/standard.npz"
    seed: int = 21
    ply: int = 2
    noise: float = 0.03
    games_per_chunk: int = 40
    sample_every: int = 2
    prune: int = 1


class TargetFileBuilder(Trainer[C]):
    """What the target builders share: a resumable file of ``boards`` (n x 64), ``targets`` (n x
    ``n_out``) and ``games`` (the game of each row), grown one chunk of ``games_per_chunk`` seeded
    games at a time by a fixed teacher (``fingerprint``). Subclasses say which rows a game gives
    (:meth:`_rows_of_game`) and how rows are labelled (:meth:`_label`)."""

    kind = "targets"
    feature_version = F.FEATURE_VERSION

    def __init__(self, path: Path, cfg: C, fingerprint: str, n_out: int, games_per_chunk: int) -> None:
        super().__init__(path, cfg)
        self.fingerprint = fingerprint
        self.games_per_chunk = games_per_chunk
        self.chunks = 0
        self.boards = np.zeros((0, 64), np.int8)
        self.targets = np.zeros((0, n_out), np.float32)
        self.games = np.zeros(0, np.int64)

    def _rows_of_game(self, g: int) -> NDArray[np.int8] | None:
        """The rows game ``g`` of the build adds (None: none)."""
        raise NotImplementedError

    def _label(self, boards: NDArray[np.int8]) -> NDArray[np.float32]:
        """The teacher's targets of ``boards``."""
        raise NotImplementedError

    def _resume(self, arrays: dict[str, Any], doc: dict[str, Any], teacher: str) -> None:
        """Take a saved build's arrays and counters; its teacher file must still hold the same nets."""
        if self.fingerprint != doc["teacher_fingerprint"]:
            raise ValueError(f"{teacher} no longer holds the teacher of {self.path} "
                             f"({self.fingerprint} != {doc['teacher_fingerprint']})")
        self.boards = np.array(arrays["boards"], np.int8)
        self.targets = np.array(arrays["targets"], np.float32)
        self.games = np.array(arrays["games"], np.int64)
        self._restore(doc, "chunks")
        self._trim_curve("chunks", self.chunks)

    def optimisers(self) -> list[Adam]:
        return []

    def progress(self) -> str:
        return f"{self.positions} positions"

    def save(self) -> None:
        doc = {"kind": self.kind, "config": asdict(cast(Any, self.cfg)), "chunks": self.chunks,
               "positions": self.positions, "elapsed": self.elapsed, "teacher_fingerprint": self.fingerprint,
               "feature_version": self.feature_version}
        write_checkpoint(self.path, {"boards": self.boards, "targets": self.targets, "games": self.games}, doc)

    def iteration(self) -> int:
        """One chunk: the games of chunk ``chunks``'s seeds, labelled; returns its size."""
        out: list[NDArray[np.int8]] = []
        ids: list[NDArray[np.int64]] = []
        first = self.chunks * self.games_per_chunk
        for g in range(first, first + self.games_per_chunk):
            rows = self._rows_of_game(g)
            if rows is not None and len(rows):
                out.append(rows)
                ids.append(np.full(len(rows), g, np.int64))
        self.chunks += 1
        if not out:
            return 0
        boards = np.concatenate(out)
        targets = self._label(boards)
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


class TargetBuilder(TargetFileBuilder[TargetsConfig]):
    """A resumable build of (position, target) pairs; ``boards`` (n x 64) and ``targets`` (n x 6)."""

    def __init__(self, path: Path, cfg: TargetsConfig, teacher: NetSet) -> None:
        super().__init__(path, cfg, weights_fingerprint(*teacher.nets().values()), NOUT, cfg.games_per_chunk)
        self.teacher = teacher
        self.buf = GameBuffers()
        self._engine: Engine | None = None

    @classmethod
    def create(cls, path: Path | str, cfg: TargetsConfig) -> TargetBuilder:
        """A new build with the teacher of ``cfg``."""
        return cls(Path(path), cfg, load_nets(cfg.teacher))

    @classmethod
    def load(cls, path: Path | str) -> TargetBuilder:
        """Resume a build; its teacher file must still hold the same nets."""
        arrays, doc = read_checkpoint(path)
        cfg = TargetsConfig(**doc["config"])
        tb = cls(Path(path), cfg, load_nets(cfg.teacher))
        tb._resume(arrays, doc, cfg.teacher)
        return tb

    def _rows_of_game(self, g: int) -> NDArray[np.int8] | None:
        n, outcome = play_seeded(self.teacher, game_seed(self.cfg.seed, 20_000_000 + g), self.cfg.noise, self.buf)
        return self.buf.states[:n:self.cfg.sample_every].copy() if outcome >= 0 else None

    def _label(self, boards: NDArray[np.int8]) -> NDArray[np.float32]:
        if self._engine is None:
            self._engine = Engine(self.teacher, cache_size=0, prune=bool(self.cfg.prune))
        return self._engine.evaluate_boards(boards, self.cfg.ply)


@dataclass
class FitConfig:
    """Settings of :func:`fit`."""

    epochs: int = 10
    lr: float = 1e-4
    lr_decay: float = 0.8
    batch: int = 128
    holdout: int = 20
    seed: int = 31
    extended: int = 0  # 1: contact and crashed nets read the extended encoding (NetSet.widened)
    fresh: int = 0  # 1: start the contact net from random weights (seeded by ``seed``)


def starting_nets(nets: NetSet, cfg: FitConfig) -> NetSet:
    """The nets :func:`fit` starts from: ``nets``, widened to the extended encoding when
    ``cfg.extended``, with a freshly initialised contact net (same size) when ``cfg.fresh`` (the
    crashed net, which sees far fewer positions, is kept); the race and pruning nets are kept.

    >>> nets = NetSet.initial(hidden=4, race_hidden=3, seed=0)
    >>> s = starting_nets(nets, FitConfig(extended=1, fresh=1))
    >>> s.contact.n_inputs == F.N_CONTACT_EXT, bool((s.race.w1 == nets.race.w1).all())
    (True, True)
    >>> kept = s.crashed.w1[:F.N_CONTACT] == nets.crashed.w1
    >>> bool(kept.all()), bool((s.contact.w1[:F.N_CONTACT] == nets.contact.w1).all())
    (True, False)
    """
    out = nets.widened() if cfg.extended else nets.copy()
    if cfg.fresh:
        out.contact = Net.initial(out.contact.n_inputs, out.contact.hidden, np.random.default_rng(cfg.seed))
    return out


def load_targets(paths: Sequence[Path | str], check: Callable[[Path | str, dict[str, Any]], None] | None = None
                 ) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.int64]]:
    """The boards, targets and game numbers of one or more target files, concatenated in the given
    order (the game numbers of file ``i`` are offset by ``i * 10**9`` to stay distinct); ``check``
    sees each file's path and saved state first (and raises for a file it refuses)."""
    boards, targets, games = [], [], []
    for i, p in enumerate(paths):
        arrays, doc = read_checkpoint(p)
        if check is not None:
            check(p, doc)
        boards.append(np.asarray(arrays["boards"], np.int8))
        targets.append(np.asarray(arrays["targets"], np.float32))
        games.append(np.asarray(arrays["games"], np.int64) + i * 10**9)
    return np.concatenate(boards), np.concatenate(targets), np.concatenate(games)


def fit(nets: NetSet, boards: NDArray[np.int8], targets: NDArray[np.float32], games: NDArray[np.int64],
        cfg: FitConfig) -> tuple[NetSet, list[dict[str, Any]]]:
    """Train copies of the contact and crashed nets of ``nets`` on (``boards``, ``targets``),
    holding out the positions of every ``cfg.holdout``-th game (by ``games``); the nets of the
    epoch with the lowest hold-out error (epoch 0: the starting nets) and one record per epoch
    (hold-out mean |equity - target equity| per class, mean training loss).

    >>> from analyzer.core.position import Position
    >>> nets = NetSet.initial(hidden=8, race_hidden=8, seed=0)
    >>> b = np.repeat(np.frombuffer(Position.start().board, np.int8)[None], 40, 0)
    >>> t = np.tile(np.array([0.5, 0.2, 0.0, 0.3, 0.0, 0.0], np.float32), (40, 1))
    >>> best, hist = fit(nets, b, t, np.arange(40), FitConfig(epochs=3, lr=1e-2, holdout=4))
    >>> hist[-1]["holdout"]["contact"] < hist[0]["holdout"]["contact"]
    True
    """
    work = nets.copy()
    classes = np.zeros(len(boards), np.int64)
    xc = np.zeros((len(boards), max(work.contact.n_inputs, work.crashed.n_inputs)), np.float32)
    xr = np.zeros((len(boards), F.N_RACE), np.float32)
    rows = np.zeros(len(boards), np.int64)
    F.encode_batch(np.ascontiguousarray(boards), classes, xc, xr, rows)
    hold = games % cfg.holdout == 0
    keys = [k for k in ("contact", "crashed") if (classes == CLASS_OF_KEY[k]).any()]
    sets = {}
    for k in keys:
        sel = classes == CLASS_OF_KEY[k]
        train, held = sel & ~hold, sel & hold
        xk = xc[:, : work.nets()[k].n_inputs]
        sets[k] = (xk[rows[train]], targets[train], xk[rows[held]], outcome_equity(targets[held]))
    opts = {k: Adam(work.nets()[k], lr=cfg.lr) for k in keys}
    rng = np.random.default_rng(cfg.seed)

    def holdout_errors() -> dict[str, float]:
        return {k: float(np.abs(outcome_equity(work.nets()[k].forward(x)) - eq).mean()) if len(x) else float("nan")
                for k, (_, _, x, eq) in sets.items()}

    errors = holdout_errors()
    hist: list[dict[str, Any]] = [{"epoch": 0, "holdout": errors, "loss": None}]
    best, best_err = nets.copy(), float(np.nansum(list(errors.values())))
    for e in range(1, cfg.epochs + 1):
        losses: dict[str, float] = {}
        for k in keys:
            opts[k].lr = cfg.lr * cfg.lr_decay ** (e - 1)
            losses[k] = train_epochs(opts[k], sets[k][0], sets[k][1], cfg.batch, rng, 1)
        errors = holdout_errors()
        hist.append({"epoch": e, "holdout": errors, "loss": losses})
        err = float(np.nansum(list(errors.values())))
        log.info("epoch %d hold-out %s loss %s", e, errors, losses)
        if err < best_err:
            best, best_err = work.copy(), err
    return best, hist
