"""Offline supervised training: a stored set of our own targets, then epochs over it, for every variant.

The supervised rounds of :mod:`bglab.supervised` spend nearly all their time on the
targets (a 2-ply search per position) and then train on each one twice before discarding it. Here
the two halves are separate, one algorithm each for standard backgammon and the Dutch and Mahbusa
variants (what differs is behind a learner, :mod:`bglab.learner`):

* a target builder (:class:`TargetBuilder`, :class:`VariantTargetBuilder`) plays seeded self-play
  games with a fixed *teacher* (one of our own net sets or variant nets), keeps every
  ``sample_every``-th position before a roll that the teacher's nets evaluate (a variant's pure
  races go to the standard race evaluation) and labels it with the teacher's ``ply``-ply evaluation
  by our own engine (bear-off databases in home-board races), or with ``trials`` > 0 by the outcome
  frequencies of a short cubeless rollout by the teacher's 0-ply player (the long-horizon target
  TD's lambda-returns and the n-ply search only approximate). One chunk of games at a time,
  appended to one ``.npz`` written atomically, so a long build stops and resumes anywhere (a
  resumed build gives the same file as an uninterrupted one).
* :func:`fit` (the contact and crashed nets of a net set; the race net is kept) and
  :func:`variant_fit` (a variant net, or a fresh one) train on such files for several epochs
  (:func:`fit_epochs`), holding out the positions of every ``holdout``-th game to report the mean
  absolute equity error against the targets after each epoch, and return the nets of the best
  epoch.

No other program's output is involved: the teacher is one of our own nets.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> nets = NetSet.initial(hidden=8, race_hidden=8, seed=0)
>>> nets.save(d / "teacher.npz")
>>> cfg = TargetsConfig(teacher=str(d / "teacher.npz"), ply=0, games_per_chunk=1)
>>> b = TargetBuilder.create(d / "t.npz", cfg)
>>> b.run(positions=1)
>>> b.chunks, len(TargetBuilder.load(d / "t.npz").boards) == b.positions > 0
(1, True)
>>> VariantNet.initial("dutch", hidden=8, seed=0).save(d / "vteacher.npz")
>>> vcfg = VariantTargetsConfig(variant="dutch", teacher=str(d / "vteacher.npz"), ply=0, games_per_chunk=1)
>>> vb = VariantTargetBuilder.create(d / "vt.npz", vcfg)
>>> vb.run(positions=1)
>>> vb.chunks, len(VariantTargetBuilder.load(d / "vt.npz").boards) == vb.positions > 0
(1, True)
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from analyzer._version import __version__
from analyzer.analysis.themes import position_theme
from analyzer.core.position import Position
from analyzer.core.variants import has_cube
from analyzer.eval import features as F
from analyzer.eval.engine import Engine
from analyzer.eval.net import NOUT, Net, NetSet
from analyzer.eval.rollout import RolloutSettings, rollout
from analyzer.eval.selfplay import game_seed
from analyzer.eval.variants import features as V
from analyzer.eval.variants.engine import VariantEngine
from analyzer.eval.variants.model import NMAX, VariantNet, variant_code, variant_code_name
from analyzer.eval.variants.play import net_rollout
from bglab.base import Trainer, read_checkpoint, train_epochs, utc_stamp, write_checkpoint
from bglab.checkpoint import load_nets
from bglab.learner import EQUITY_WEIGHTS, Inputs, Learner, StandardLearner, VariantLearner
from bglab.optim import Adam, ChoiceLoss, centred_residuals

log = logging.getLogger(__name__)


@dataclass
class BaseTargetsConfig:
    """The settings of every target build (stored in its file, with its variant's own)."""

    teacher: str = "data/nets/standard.npz"
    seed: int = 21
    ply: int = 2
    noise: float = 0.03
    games_per_chunk: int = 40
    sample_every: int = 2
    trials: int = 0  # > 0: label by a cubeless rollout of this many trials instead of the ply-ply value


@dataclass
class TargetsConfig(BaseTargetsConfig):
    """Settings of a standard target build.

    ``positions_file`` (a file of :func:`corpus_positions`) labels the positions of real games
    instead of self-play ones: build game ``g`` is the file's game ``g``, every row kept (but see ``themes``), and the
    build ends with the file. ``themes`` (names of :data:`analyzer.analysis.themes.THEMES`, comma
    separated) keeps only the positions of those themes (self-play or the positions file's), to
    over-sample them.

    ``candidates`` > 0 replaces each kept position by the positions its *choices* lead to: one roll
    drawn for it (seeded by the run seed, the game and the row), the teacher's 0-ply ranking of that
    roll's plays, and the results of the best ``candidates`` plays within ``margin`` of the best
    (each seen by the opponent, on roll next; races dropped). The net then learns the alternatives
    it has to tell apart, not only the plays it made.

    With ``trials`` (rollout labels), ``truncate`` stops each game after that many plies with the
    teacher's 0-ply value there, and ``paired`` rolls a decision's candidates out on the same dice
    (one seed per decision, :func:`row_seed` of its ``groups`` entry) with variance reduction (each
    roll's luck measured by the pruned 0-ply search): the differences between them, which are what
    the choice loss learns, then carry far less noise than the values themselves.

    ``classes`` (names of the referee's classes, :func:`bglab.classes.class_names`, comma separated)
    keeps only the positions of those classes, by the referee's own definitions, ``on the bar`` from
    both seats; with ``variance_reduction``, every rollout label subtracts each roll's luck (the
    referee's weak classes, issue 51: docs/training.md, "Labels for the weak classes").
    ``player_ply`` 1 (with ``trials``) plays every rollout game by a 1-ply search instead of the
    teacher's 0-ply best play (:class:`analyzer.eval.trials.RolloutSettings`); the luck of variance
    reduction and the values at a truncation stay 0-ply.
    """

    prune: int = 1
    positions_file: str = ""
    themes: str = ""
    candidates: int = 0
    margin: float = 0.16
    paired: int = 0  # 1, with trials and candidates: a decision's candidates on the same dice, variance reduced
    truncate: int = 0  # with trials: rollouts stop after this many plies, the teacher's 0-ply there (0: played out)
    classes: str = ""  # keep only positions of these referee classes (bglab.classes), comma separated, both seats
    variance_reduction: int = 0  # 1, with trials: every rollout variance reduced (paired ones always are)
    player_ply: int = 0  # with trials: the rollouts' player, 0-ply or a 1-ply search (RolloutSettings.player_ply)


@dataclass
class VariantTargetsConfig(BaseTargetsConfig):
    """Settings of a Dutch or Mahbusa target build."""

    teacher: str = "data/nets/dutch.npz"
    seed: int = 41
    ply: int = 1
    games_per_chunk: int = 20
    variant: str = "dutch"


def decision_id(game: int, index: NDArray[np.int64]) -> NDArray[np.int64]:
    """The ``groups`` entry of the candidates of position ``index`` of game ``game`` of a build.

    >>> decision_id(3, np.array([0, 0, 5])).tolist()
    [3072, 3072, 3077]
    """
    index = np.asarray(index, np.int64)
    if len(index) and int(index.max()) >= 1024:
        raise ValueError(f"game {game} samples {int(index.max()) + 1} positions: decisions need fewer than 1024")
    out: NDArray[np.int64] = game * 1024 + index
    return out


def row_seed(seed: int, row: int) -> int:
    """The rollout seed of row ``row`` of a target build with run seed ``seed`` (a resumed build
    labels alike).

    >>> row_seed(41, 0), row_seed(41, 1)
    (41000124, 41008043)
    """
    return seed * 1_000_003 + row * 7919 + 1


B = TypeVar("B", bound=BaseTargetsConfig)
L = TypeVar("L", bound=Learner)


class TargetFileBuilder(Trainer[B], Generic[B, L]):
    """A resumable file of ``boards`` (n x 64), ``targets`` (n x ``n_out``) and ``games`` (the game
    of each row), grown one chunk of ``games_per_chunk`` seeded games at a time by a fixed teacher
    (``learner``, known by its weights' fingerprint). Game ``g`` of the build has the seed
    ``game_seed(seed, seed_offset + g)``; its rows are every ``sample_every``-th position that the
    teacher's nets evaluate. Subclasses say how rows are labelled (:meth:`_label`)."""

    kind = "targets"
    feature_version = F.FEATURE_VERSION
    seed_offset = 20_000_000  # the builders' game seeds stay apart from the TD runs' and the benchmarks'

    def __init__(self, path: Path, cfg: B, learner: L, n_out: int) -> None:
        super().__init__(path, cfg)
        self.learner = learner
        self.fingerprint = learner.fingerprint()
        self.chunks = 0
        self.boards = np.zeros((0, 64), np.int8)
        self.targets = np.zeros((0, n_out), np.float32)
        self.games = np.zeros(0, np.int64)
        self.groups = np.zeros(0, np.int64)  # each row's decision (candidate builds), else -1
        self.exhausted = False  # set by a source of games that has no more
        self._teacher_sha256()  # the teacher file as the build reads it

    def _rows_of_game(self, g: int) -> NDArray[np.int8] | None:
        """The rows game ``g`` of the build adds (None: none)."""
        cfg = self.cfg
        n, outcome = self.learner.play(game_seed(cfg.seed, self.seed_offset + g), cfg.noise)
        if outcome < 0:
            return None
        rows = self.learner.buf.states[:n:cfg.sample_every]
        out: NDArray[np.int8] = rows[self.learner.keep(rows)]
        return out

    def _game_rows(self, g: int) -> tuple[NDArray[np.int8] | None, NDArray[np.int64] | None]:
        """The rows game ``g`` of the build adds and, when they are the candidates of decisions,
        each row's decision (unique in the file); None: no rows, or no decisions."""
        return self._rows_of_game(g), None

    def _label(self, boards: NDArray[np.int8], groups: NDArray[np.int64] | None = None) -> NDArray[np.float32]:
        """The teacher's targets of ``boards`` (``groups``: each row's decision, -1: none)."""
        raise NotImplementedError

    def _resume(self, arrays: dict[str, Any], doc: dict[str, Any]) -> None:
        """Take a saved build's arrays and counters; its teacher file must still hold the same nets."""
        if self.fingerprint != doc["teacher_fingerprint"]:
            raise ValueError(f"{self.cfg.teacher} no longer holds the teacher of {self.path} "
                             f"({self.fingerprint} != {doc['teacher_fingerprint']})")
        self.boards = np.array(arrays["boards"], np.int8)
        self.targets = np.array(arrays["targets"], np.float32)
        self.games = np.array(arrays["games"], np.int64)
        self.groups = (np.array(arrays["groups"], np.int64) if "groups" in arrays
                       else self._recovered_groups())
        self._restore(doc, "chunks")
        self._trim_curve("chunks", self.chunks)

    def _recovered_groups(self) -> NDArray[np.int64]:
        """The ``groups`` of a file saved before they were stored: none (-1)."""
        return np.full(len(self.boards), -1, np.int64)

    def _teacher_sha256(self) -> str:
        """The sha256 of the teacher file as this build read it ("" if it cannot be read now)."""
        if not hasattr(self, "_sha256"):
            try:
                self._sha256 = hashlib.sha256(Path(self.cfg.teacher).read_bytes()).hexdigest()
            except OSError:
                self._sha256 = ""
        return self._sha256

    def optimisers(self) -> list[Adam]:
        return []

    def progress(self) -> str:
        return f"{self.positions} positions"

    def save(self) -> None:
        doc = {"kind": self.kind, "config": asdict(self.cfg), "chunks": self.chunks,
               "positions": self.positions, "elapsed": self.elapsed, "teacher_fingerprint": self.fingerprint,
               "feature_version": self.feature_version, "engine_version": __version__,
               "teacher_sha256": self._teacher_sha256()}
        write_checkpoint(self.path, {"boards": self.boards, "targets": self.targets, "games": self.games,
                                     "groups": self.groups}, doc)

    def iteration(self) -> int:
        """One chunk: the games of chunk ``chunks``'s seeds, labelled; returns its size."""
        out: list[NDArray[np.int8]] = []
        ids: list[NDArray[np.int64]] = []
        grp: list[NDArray[np.int64]] = []
        first = self.chunks * self.cfg.games_per_chunk
        for g in range(first, first + self.cfg.games_per_chunk):
            rows, groups = self._game_rows(g)
            if rows is not None and len(rows):
                out.append(rows)
                ids.append(np.full(len(rows), g, np.int64))
                grp.append(np.full(len(rows), -1, np.int64) if groups is None else groups)
        self.chunks += 1
        if not out:
            return 0
        boards = np.concatenate(out)
        groups = np.concatenate(grp)
        targets = self._label(boards, groups)
        self.boards = np.concatenate([self.boards, boards])
        self.targets = np.concatenate([self.targets, targets])
        self.games = np.concatenate([self.games, *ids])
        self.groups = np.concatenate([self.groups, groups])
        self.positions += len(boards)
        return len(boards)

    def run(self, positions: int, checkpoint_every_s: float = 300.0,
            should_stop: Callable[[], bool] | None = None) -> None:
        """Add chunks until the build holds at least ``positions`` positions, its source of games is
        exhausted (a positions file's last game) or ``should_stop()``."""
        self._loop(lambda: self.positions < positions and not self.exhausted, checkpoint_every_s, should_stop)

    def _curve_entry(self, losses: list[Any]) -> dict[str, Any] | None:
        if self.chunks % 10:
            return None
        rec = {"chunks": self.chunks, "positions": self.positions, "elapsed_s": round(self.elapsed, 1),
               "time": utc_stamp()}
        log.info("chunk %d: %d positions (%.1f positions/s)", self.chunks, self.positions,
                 self.positions / max(self.elapsed, 1e-9))
        return rec


class TargetBuilder(TargetFileBuilder[TargetsConfig, StandardLearner]):
    """A standard build: ``targets`` are n x 6 (the teacher's search, its pruning net with ``prune``)."""

    def __init__(self, path: Path, cfg: TargetsConfig, teacher: NetSet) -> None:
        super().__init__(path, cfg, StandardLearner(teacher), NOUT)
        self.teacher = teacher
        self._engine: Engine | None = None
        self._file: tuple[NDArray[np.int8], NDArray[np.int64]] | None = None
        self._themes = frozenset(s.strip() for s in cfg.themes.split(",")) if cfg.themes else frozenset()
        self._classes = frozenset(s.strip() for s in cfg.classes.split(",")) if cfg.classes else frozenset()
        if self._classes:
            from bglab.classes import class_names

            unknown = sorted(self._classes - set(class_names()))
            if unknown:
                raise ValueError(f"unknown classes {unknown}: the referee's are {list(class_names())}")
        if cfg.player_ply not in (0, 1) or (cfg.player_ply and cfg.trials <= 0):
            raise ValueError(f"player_ply {cfg.player_ply}: 0 or 1, and 1 only with rollout labels (trials)")

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
        tb._resume(arrays, doc)
        return tb

    def _source(self) -> tuple[NDArray[np.int8], NDArray[np.int64]]:
        """The positions file's boards and the first row of each of its games (the last entry: the end)."""
        if self._file is None:
            with np.load(self.cfg.positions_file) as z:
                boards, games = np.array(z["boards"], np.int8), np.array(z["games"], np.int64)
            starts = np.searchsorted(games, np.arange(int(games.max()) + 2 if len(games) else 1))
            self._file = (boards, starts)
        return self._file

    def _game_rows(self, g: int) -> tuple[NDArray[np.int8] | None, NDArray[np.int64] | None]:
        rows = self.base_rows(g)
        if rows is None and self.cfg.positions_file:
            self.exhausted = True
        if rows is None or self.cfg.candidates <= 0:
            return rows, None
        boards, index = self.candidate_groups(g, rows)
        return boards, decision_id(g, index)

    def _recovered_groups(self) -> NDArray[np.int64]:
        """A candidate build saved before ``groups`` were stored: its decisions found again by
        replaying its games (seeded: the same rows, checked)."""
        if self.cfg.candidates <= 0:
            return super()._recovered_groups()
        out = np.full(len(self.boards), -1, np.int64)
        at = 0
        for g in np.unique(self.games).tolist():
            rows = self.base_rows(g)
            if rows is None:
                continue
            boards, index = self.candidate_groups(g, rows)
            k = len(boards)
            if not np.array_equal(self.boards[at:at + k], boards):
                raise ValueError(f"{self.path}: game {g} no longer gives the same candidates")
            out[at:at + k] = decision_id(g, index)
            at += k
        if at != len(self.boards):
            raise ValueError(f"{self.path}: {len(self.boards) - at} rows not found again")
        return out

    def candidate_groups(self, g: int, rows: NDArray[np.int8]) -> tuple[NDArray[np.int8], NDArray[np.int64]]:
        """The results of the teacher's best 0-ply candidates of one seeded roll in each of ``rows``
        (flipped: the opponent on roll), contact and crashed positions only, each result once per
        game; with, per result, the index in ``rows`` of the position whose roll it answers (the
        results of one decision share it)."""
        engine = self._teacher_engine()
        out: list[NDArray[np.int8]] = []
        group: list[int] = []
        seen: set[bytes] = set()
        for i, r in enumerate(rows):
            pos = Position(r.tobytes())
            if F.classify(r) < F.CLASS_CRASHED:
                continue
            rng = np.random.default_rng((self.cfg.seed, g, i))
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            ranked = engine.rank_plays(pos, dice, 0)
            if not ranked or not ranked[0].play:
                continue
            best = ranked[0].equity
            for c in ranked[: self.cfg.candidates]:
                if c.equity < best - self.cfg.margin:
                    break
                b = np.frombuffer(c.result.flip().board, np.int8)
                key = b.tobytes()
                if key not in seen and F.classify(b) >= F.CLASS_CRASHED:
                    seen.add(key)
                    out.append(b)
                    group.append(i)
        if not out:
            return np.zeros((0, 64), np.int8), np.zeros(0, np.int64)
        return np.stack(out), np.array(group, np.int64)

    def base_rows(self, g: int) -> NDArray[np.int8] | None:
        """The positions game ``g`` of the build samples before any ``candidates`` expansion."""
        if self.cfg.positions_file:
            boards, starts = self._source()
            if g + 1 >= len(starts):
                return None
            rows: NDArray[np.int8] | None = boards[starts[g]:starts[g + 1]]
        else:
            rows = super()._rows_of_game(g)
        if rows is not None and self._themes:
            keep = [position_theme(Position(r.tobytes())) in self._themes for r in rows]
            rows = rows[np.array(keep, np.bool_)]
        if rows is not None and self._classes:
            from bglab.classes import position_classes

            keep = [not self._classes.isdisjoint(position_classes(Position(r.tobytes()))) for r in rows]
            rows = rows[np.array(keep, np.bool_)]
        return rows

    def _teacher_engine(self) -> Engine:
        if self._engine is None:
            self._engine = Engine(self.teacher, cache_size=0, prune=bool(self.cfg.prune))
        return self._engine

    def _label(self, boards: NDArray[np.int8], groups: NDArray[np.int64] | None = None) -> NDArray[np.float32]:
        engine = self._teacher_engine()
        cfg = self.cfg
        if cfg.trials <= 0:
            return engine.evaluate_boards(boards, cfg.ply)
        out = np.zeros((len(boards), NOUT), np.float32)
        paired = bool(cfg.paired)
        reduced = paired or bool(cfg.variance_reduction)
        shared = groups if paired else None  # a decision's rows take its seed
        for j, b in enumerate(boards):
            key = int(shared[j]) if shared is not None and shared[j] >= 0 else self.positions + j
            settings = RolloutSettings(trials=cfg.trials, seed=row_seed(cfg.seed, key), workers=1, cubeful=False,
                                       variance_reduction=reduced, luck_prune=reduced,
                                       truncate=cfg.truncate or None, player_ply=cfg.player_ply)
            out[j] = rollout(engine, Position(b.tobytes()), settings).probabilities.outcomes()
        return out


def contact_positions(name: str) -> list[tuple[tuple[int, int], int, Position]]:
    """The positions before each standard checker play of match file ``name`` that a contact or crashed
    net evaluates, in match order: ((match index, game), move number, position seen from the side on roll).
    Raises what reading the file raises (:class:`~analyzer.core.errors.AnalyzerError`, ``OSError``,
    ``UnicodeDecodeError``)."""
    from analyzer.analysis.replay import decisions
    from analyzer.formats import read_any

    found: list[tuple[tuple[int, int], int, Position]] = []
    for record in read_any(name):
        for d in decisions(record):
            if d.kind != "move" or not has_cube(d.variant) or d.position.game_over() is not None:
                continue
            if F.classify(np.frombuffer(d.position.board, np.int8)) in (F.CLASS_CONTACT, F.CLASS_CRASHED):
                found.append(((d.match_index, d.game), d.move, d.position))
    return found


def corpus_positions(files: Sequence[str]) -> tuple[NDArray[np.int8], NDArray[np.int64], int]:
    """The :func:`contact_positions` of the match ``files`` (read in the order given): ``boards``
    (n x 64, seen from the side on roll), ``games`` (the game of each row, numbered from 0 across the
    files, in order) and the count of files that could not be read (skipped).

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "m.mat"
    >>> _ = f.write_text("1 point match\\n\\n Game 1\\n A : 0          B : 0\\n  1) 31: 8/5 6/5      42: 8/4 6/4\\n")
    >>> boards, games, bad = corpus_positions([str(f)])
    >>> boards.shape, games.tolist(), bad
    ((2, 64), [0, 0], 0)
    """
    from analyzer.core.errors import AnalyzerError

    rows: list[bytes] = []
    games: list[int] = []
    bad = 0
    game = -1
    for name in files:
        try:
            found = contact_positions(name)
        except (AnalyzerError, OSError, UnicodeDecodeError):
            bad += 1
            continue
        last = None
        for key, _, pos in found:
            if key != last:
                game += 1
                last = key
            rows.append(pos.board)
            games.append(game)
    boards = np.frombuffer(b"".join(rows), np.int8).reshape(-1, 64).copy()
    return boards, np.array(games, np.int64), bad


class VariantTargetBuilder(TargetFileBuilder[VariantTargetsConfig, VariantLearner]):
    """A Dutch or Mahbusa build: ``targets`` are n x 5 (the variant's outcome vector, zero past its
    outcome count)."""

    kind = "variant-targets"
    feature_version = V.FEATURE_VERSION
    seed_offset = 30_000_000

    def __init__(self, path: Path, cfg: VariantTargetsConfig, teacher: VariantNet) -> None:
        if teacher.code != variant_code(cfg.variant):
            raise ValueError(f"{cfg.teacher} holds a {teacher.variant} net, not {cfg.variant}")
        super().__init__(path, cfg, VariantLearner(teacher), NMAX)
        self.teacher = teacher
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
        tb._resume(arrays, doc)
        return tb

    def _label(self, boards: NDArray[np.int8], groups: NDArray[np.int64] | None = None) -> NDArray[np.float32]:
        if self._engine is None:
            self._engine = VariantEngine(self.teacher.variant, self.teacher, cache_size=0)
        if self.cfg.trials <= 0:
            return self._engine.evaluate_boards(boards, self.cfg.ply)
        return self._rollout_targets(boards)

    def _rollout_targets(self, boards: NDArray[np.int8]) -> NDArray[np.float32]:
        """The outcome frequencies of a ``trials``-trial rollout of each row by the teacher's 0-ply
        player (first and second rolls stratified: ``latin``,
        :func:`~analyzer.eval.variants.play.net_rollout`); the seed of row ``r`` of the file is a
        function of the run seed and ``r``, so a resumed build labels alike. A row whose trials all
        run past the ply limit keeps the teacher's 0-ply value."""
        out = np.zeros((len(boards), NMAX), np.float32)
        k = self.learner.k
        for j, b in enumerate(boards):
            seed = row_seed(self.cfg.seed, self.positions + j)
            _, _, counts = net_rollout(self.teacher, Position(b.tobytes(), self.teacher.variant), self.cfg.trials,
                                   seed=seed, ctx=self.learner.ctx, latin=seed % 36)
            if counts.sum() > 0:
                out[j, :k] = counts[:k] / counts.sum()
            else:
                assert self._engine is not None
                out[j] = self._engine.evaluate_boards(b[None], 0)[0]
        return out


@dataclass
class BaseFitConfig:
    """The settings of every epoch fit (:func:`fit_epochs`)."""

    epochs: int = 10
    lr: float = 1e-4
    lr_decay: float = 0.8
    batch: int = 128
    holdout: int = 20
    seed: int = 31
    pick: int = 0  # > 0: keep the nets after this epoch whatever the hold-out says (0: the best hold-out epoch)


@dataclass
class FitConfig(BaseFitConfig):
    """Settings of :func:`fit` (standard)."""

    extended: int = 0  # 1: contact and crashed nets read the extended encoding (NetSet.widened)
    fresh: int = 0  # 1: start the contact net from random weights (seeded by ``seed``)
    hidden: int = 0  # > the nets' size: widen the contact and crashed nets to this many hidden units
    choice: float = 0.0  # > 0: the weight of the within-decision loss on the rows of candidate builds


@dataclass
class VariantFitConfig(BaseFitConfig):
    """Settings of :func:`variant_fit`."""

    fresh: int = 0  # 1: start from random weights (seeded by ``seed``)
    hidden: int = 0  # with ``fresh``: the hidden units of the new net (0: as many as the given net)


EpochRecord = tuple[dict[str, float], dict[str, float] | None]


@dataclass
class _NetRows:
    """One net's rows of a fit: the ordinary training rows, the training rows of whole decisions
    (sorted by decision; ``starts``/``ends`` bound each one), the held-out rows with their target
    equities, and which held-out rows are whole decisions (``hold_dec``: each one's decision 0..k-1,
    -1 for the others)."""

    x: NDArray[np.float32]
    t: NDArray[np.float32]
    xg: NDArray[np.float32]
    tg: NDArray[np.float32]
    starts: NDArray[np.int64]
    ends: NDArray[np.int64]
    xh: NDArray[np.float32]
    eqh: NDArray[np.floating[Any]]
    hold_dec: NDArray[np.int64]


def _decisions(g: NDArray[np.int64], all_groups: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Which rows (decision ids ``g``, -1: none) belong to a decision of two or more rows that lies
    wholly among them (``all_groups``: every row's decision in the whole data)."""
    ok = g >= 0
    if not ok.any():
        return ok
    ids, inv, here = np.unique(g[ok], return_inverse=True, return_counts=True)
    total = np.unique(all_groups[np.isin(all_groups, ids)], return_counts=True)[1]
    whole = (here == total) & (here >= 2)
    out = np.zeros(len(g), np.bool_)
    out[np.flatnonzero(ok)] = whole[inv]
    return out


def _net_rows(x: NDArray[np.float32], t: NDArray[np.float32], hold: NDArray[np.bool_],
              all_groups: NDArray[np.int64] | None, sel: NDArray[np.bool_],
              equity: Callable[[NDArray[np.float32]], NDArray[np.floating[Any]]]) -> _NetRows:
    """One net's :class:`_NetRows`: its rows ``sel`` of the data (inputs ``x``, targets ``t``,
    held out where ``hold``), with the decisions of ``all_groups`` (every row's; None: no decisions)."""
    g = None if all_groups is None else all_groups[sel]
    dec = np.zeros(len(x), np.bool_) if g is None or all_groups is None else _decisions(g, all_groups)
    gtrain = dec & ~hold
    order = np.flatnonzero(gtrain)
    starts = ends = np.zeros(0, np.int64)
    if g is not None and len(order):
        order = order[np.argsort(g[order], kind="stable")]
        gs = g[order]
        starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]]).astype(np.int64)
        ends = np.r_[starts[1:], len(gs)].astype(np.int64)
    hold_dec = np.full(int(hold.sum()), -1, np.int64)
    if g is not None and (dec & hold).any():
        hd = (dec & hold)[hold]
        hold_dec[hd] = np.unique(g[hold][hd], return_inverse=True)[1]
    plain = ~hold & ~dec
    return _NetRows(x[plain], t[plain], x[order], t[order], starts, ends, x[hold], equity(t[hold]), hold_dec)


def _batches(rows: _NetRows, batch: int, rng: np.random.Generator
             ) -> list[tuple[NDArray[np.int64], NDArray[np.int64] | None]]:
    """One epoch's minibatches in a random order: ordinary ones (row indices of ``rows.x``, None)
    and ones of whole decisions (indices of ``rows.xg``, about ``batch`` rows, and each row's
    decision 0..k-1 within the batch).

    >>> z = np.zeros((5, 1), np.float32)
    >>> r = _NetRows(z, z, z, z, np.array([0, 2]), np.array([2, 5]), z, z[:, 0], np.zeros(5, np.int64))
    >>> sorted((idx.tolist(), None if d is None else d.tolist()) for idx, d in _batches(r, 2, np.random.default_rng(0))
    ...        if d is not None)
    [([0, 1], [0, 0]), ([2, 3, 4], [0, 0, 0])]
    """
    out: list[tuple[NDArray[np.int64], NDArray[np.int64] | None]] = []
    order = rng.permutation(len(rows.x))
    out += [(order[s:s + batch], None) for s in range(0, len(order), batch)]
    if len(rows.starts):
        sizes = rows.ends - rows.starts
        per = max(1, batch // max(1, int(round(float(sizes.mean())))))
        dec = rng.permutation(len(rows.starts))
        for s in range(0, len(dec), per):
            d = dec[s:s + per]
            idx = np.concatenate([np.arange(rows.starts[i], rows.ends[i]) for i in d])
            out.append((idx, np.repeat(np.arange(len(d)), sizes[d])))
    return [out[i] for i in rng.permutation(len(out))]


def fit_epochs(nets: dict[str, Net], inputs: Inputs, targets: NDArray[np.float32], games: NDArray[np.int64],
               cfg: BaseFitConfig, equity: Callable[[NDArray[np.float32]], NDArray[np.floating[Any]]],
               score: Callable[[dict[str, float]], float], groups: NDArray[np.int64] | None = None,
               choice: float = 0.0, equity_weights: NDArray[np.float32] | None = None
               ) -> tuple[dict[str, Net] | None, list[EpochRecord]]:
    """Train ``nets`` (in place; each on its rows of ``inputs``, which :meth:`Learner.inputs` gave for
    the rows of ``targets``) for ``cfg.epochs`` epochs of Adam with a learning rate decaying by
    ``cfg.lr_decay``, holding out the positions of every ``cfg.holdout``-th game (by ``games``).
    After each epoch the hold-out mean |``equity`` - target equity| of each net; the epoch whose
    ``score`` of those errors is lowest (epoch 0: the starting nets; a nan score counts as lower)
    is the best, unless ``cfg.pick`` > 0 names the epoch to keep (a hold-out too flat to choose
    by; ValueError past ``cfg.epochs``). Returns copies of the nets of the best epoch (None: epoch
    0) and, per epoch (0 first), the hold-out errors and the mean training losses (None at epoch 0).

    With ``groups`` (each row's decision, -1: none; rows of candidate builds) and ``choice`` > 0,
    the rows of each whole decision of two or more rows are trained together with the
    within-decision loss (:class:`~bglab.optim.ChoiceLoss`, equities by
    ``equity_weights``), and the hold-out errors add ``"<net> choice"``: the mean |centred
    residual| of the held-out decisions' rows."""
    if cfg.pick > cfg.epochs:
        raise ValueError(f"pick {cfg.pick} is past the last epoch ({cfg.epochs})")
    hold = games % cfg.holdout == 0
    decisions = groups if choice > 0 and equity_weights is not None else None
    sets: dict[str, _NetRows] = {}
    for k, (sel, x) in inputs.items():
        if k in nets:
            sets[k] = _net_rows(x, targets[sel], hold[sel], decisions, sel, equity)
    opts = {k: Adam(nets[k], lr=cfg.lr) for k in sets}
    rng = np.random.default_rng(cfg.seed)

    def holdout_errors() -> dict[str, float]:
        out: dict[str, float] = {}
        for k, r in sets.items():
            if not len(r.xh):
                out[k] = float("nan")
                continue
            eq = equity(nets[k].forward(r.xh))
            out[k] = float(np.abs(eq - r.eqh).mean())
            d = r.hold_dec >= 0
            if d.any():
                out[f"{k} choice"] = float(np.abs(centred_residuals(eq[d], r.eqh[d], r.hold_dec[d])).mean())
        return out

    errors = holdout_errors()
    hist: list[EpochRecord] = [(errors, None)]
    best: dict[str, Net] | None = None
    best_score = score(errors)
    for e in range(1, cfg.epochs + 1):
        losses: dict[str, float] = {}
        for k, r in sets.items():
            opt = opts[k]
            opt.lr = cfg.lr * cfg.lr_decay ** (e - 1)
            if not len(r.starts):
                losses[k] = train_epochs(opt, r.x, r.t, cfg.batch, rng, 1)
                continue
            tot = 0.0
            bl = _batches(r, cfg.batch, rng)
            for idx, gid in bl:
                if gid is None:
                    tot += opt.step(r.x[idx], r.t[idx])
                else:
                    assert equity_weights is not None
                    tot += opt.step(r.xg[idx], r.tg[idx], ChoiceLoss(gid, choice, equity_weights))
            losses[k] = tot / max(len(bl), 1)
        errors = holdout_errors()
        hist.append((errors, losses))
        s = score(errors)
        log.info("epoch %d hold-out %s loss %s", e, errors, losses)
        # the named epoch, else a lower score (or the first finite one)
        keep = e == cfg.pick if cfg.pick > 0 else not s >= best_score
        if keep:
            best, best_score = {k: nets[k].copy() for k in sets}, s
    return best, hist


def starting_nets(nets: NetSet, cfg: FitConfig) -> NetSet:
    """The nets :func:`fit` starts from: ``nets``, widened to the extended encoding when
    ``cfg.extended``, with a freshly initialised contact net (same size) when ``cfg.fresh`` (the
    crashed net, which sees far fewer positions, is kept), the contact and crashed nets widened to
    ``cfg.hidden`` hidden units (the same outputs at the start) when that is more than they have;
    the race and pruning nets are kept.

    >>> nets = NetSet.initial(hidden=4, race_hidden=3, seed=0)
    >>> s = starting_nets(nets, FitConfig(extended=1, fresh=1))
    >>> s.contact.n_inputs == F.N_CONTACT_EXT, bool((s.race.w1 == nets.race.w1).all())
    (True, True)
    >>> kept = s.crashed.w1[:F.N_CONTACT] == nets.crashed.w1
    >>> bool(kept.all()), bool((s.contact.w1[:F.N_CONTACT] == nets.contact.w1).all())
    (True, False)
    >>> w = starting_nets(nets, FitConfig(hidden=6))
    >>> w.contact.hidden, w.crashed.hidden, w.race.hidden
    (6, 6, 3)
    """
    from bglab.race import widen

    out = nets.widened() if cfg.extended else nets.copy()
    if cfg.fresh:
        out.contact = Net.initial(out.contact.n_inputs, out.contact.hidden, np.random.default_rng(cfg.seed))
    if cfg.hidden:
        rng = np.random.default_rng(cfg.seed + 1)
        out.contact = widen(out.contact, cfg.hidden, rng)
        out.crashed = widen(out.crashed, cfg.hidden, rng)
    return out


def load_targets(paths: Sequence[Path | str], check: Callable[[Path | str, dict[str, Any]], None] | None = None
                 ) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.int64]]:
    """The boards, targets and game numbers of one or more target files, concatenated in the given
    order (the game numbers of file ``i`` are offset by ``i * 10**9`` to stay distinct); ``check``
    sees each file's path and saved state first (and raises for a file it refuses)."""
    boards, targets, games, _ = _read_targets(paths, check, with_groups=False)
    return boards, targets, games


def load_targets_and_groups(paths: Sequence[Path | str]
                            ) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.int64], NDArray[np.int64]]:
    """:func:`load_targets` of standard target files, each read once, with the decision of each
    row (-1: none; a file built without ``candidates`` has none; a candidate build saved before
    decisions were stored finds them again by replaying its games), kept distinct between files."""
    boards, targets, games, groups = _read_targets(paths, None, with_groups=True)
    assert groups is not None
    return boards, targets, games, groups


def _read_targets(paths: Sequence[Path | str], check: Callable[[Path | str, dict[str, Any]], None] | None,
                  with_groups: bool) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.int64],
                                              NDArray[np.int64] | None]:
    boards, targets, games, groups = [], [], [], []
    for i, p in enumerate(paths):
        arrays, doc = read_checkpoint(p)
        if check is not None:
            check(p, doc)
        boards.append(np.asarray(arrays["boards"], np.int8))
        targets.append(np.asarray(arrays["targets"], np.float32))
        games.append(np.asarray(arrays["games"], np.int64) + i * 10**9)
        if with_groups:
            if "groups" in arrays:
                g = np.asarray(arrays["groups"], np.int64)
            elif doc.get("config", {}).get("candidates", 0) > 0:
                g = TargetBuilder.load(p).groups
            else:
                g = np.full(len(boards[-1]), -1, np.int64)
            groups.append(np.where(g >= 0, g + i * 2**40, -1))
    return (np.concatenate(boards), np.concatenate(targets), np.concatenate(games),
            np.concatenate(groups) if with_groups else None)


def load_variant_targets(paths: Sequence[Path | str], variant: str
                         ) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.int64]]:
    """:func:`load_targets` of variant target files; ValueError for a file of another kind or variant."""
    code = variant_code(variant)

    def check(p: Path | str, doc: dict[str, Any]) -> None:
        if doc.get("kind") != VariantTargetBuilder.kind or variant_code(doc["config"]["variant"]) != code:
            raise ValueError(f"{p} is not a {variant_code_name(code)} target file")

    return load_targets(paths, check)


def fit(nets: NetSet, boards: NDArray[np.int8], targets: NDArray[np.float32], games: NDArray[np.int64],
        cfg: FitConfig, groups: NDArray[np.int64] | None = None) -> tuple[NetSet, list[dict[str, Any]]]:
    """Train copies of the contact and crashed nets of ``nets`` on (``boards``, ``targets``),
    holding out the positions of every ``cfg.holdout``-th game (by ``games``); the nets of the
    epoch with the lowest hold-out error (epoch 0: the starting nets) and one record per epoch
    (hold-out mean |equity - target equity| per class, mean training loss).

    With ``cfg.choice`` > 0 and ``groups`` (each row's decision in a candidate build,
    :func:`load_targets_and_groups`; -1: none), the decisions' rows are also fitted by the within-decision
    loss (:func:`fit_epochs`), and the hold-out error of a net that has held-out decisions is
    their mean |centred residual| (``"contact choice"``): the ranking of a roll's candidates is
    what the fit is for, so that decides the best epoch.

    >>> nets = NetSet.initial(hidden=8, race_hidden=8, seed=0)
    >>> b = np.repeat(np.frombuffer(Position.start().board, np.int8)[None], 40, 0)
    >>> t = np.tile(np.array([0.5, 0.2, 0.0, 0.3, 0.0, 0.0], np.float32), (40, 1))
    >>> best, hist = fit(nets, b, t, np.arange(40), FitConfig(epochs=3, lr=1e-2, holdout=4))
    >>> hist[-1]["holdout"]["contact"] < hist[0]["holdout"]["contact"]
    True
    """
    work = StandardLearner(nets.copy())
    trained = {k: n for k, n in work.nets().items() if k in ("contact", "crashed")}

    def score(errors: dict[str, float]) -> float:
        return float(np.nansum([errors.get(f"{k} choice", errors[k]) for k in trained if k in errors]))

    best_nets, hist = fit_epochs(trained, work.inputs(boards), targets, games, cfg, work.equity, score,
                                 groups=groups, choice=cfg.choice,
                                 equity_weights=EQUITY_WEIGHTS.astype(np.float32))
    best = nets.copy()
    for key, net in (best_nets or {}).items():
        setattr(best, key, net)
    return best, [{"epoch": e, "holdout": errors, "loss": losses} for e, (errors, losses) in enumerate(hist)]


def variant_fit(vn: VariantNet, boards: NDArray[np.int8], targets: NDArray[np.float32], games: NDArray[np.int64],
                cfg: VariantFitConfig) -> tuple[VariantNet, list[dict[str, Any]]]:
    """Train a copy of ``vn`` (fresh weights with ``cfg.fresh``, ``cfg.hidden`` units) on the contact rows
    of (``boards``, ``targets``), holding out the positions of every ``cfg.holdout``-th game; the
    net of the epoch with the lowest hold-out mean |equity - target equity| (epoch 0: the start)
    and one record per epoch.

    >>> vn = VariantNet.initial("mahbusa", hidden=8, seed=0)
    >>> b = np.repeat(np.frombuffer(Position.start("mahbusa").board, np.int8)[None], 40, 0)
    >>> t = np.tile(np.array([0.5, 0.2, 0.1, 0.2, 0.0], np.float32), (40, 1))
    >>> best, hist = variant_fit(vn, b, t, np.arange(40), VariantFitConfig(epochs=3, lr=1e-2, holdout=4))
    >>> hist[-1]["holdout"] < hist[0]["holdout"]
    True
    """
    if cfg.fresh:
        start = VariantNet.initial(vn.variant, hidden=cfg.hidden or vn.net.hidden, seed=cfg.seed)
        start.meta = dict(vn.meta)
    else:
        start = vn.copy()
    work = VariantLearner(start.copy())
    keep = work.keep(boards)
    boards, games = boards[keep], games[keep]
    targets = work.outcomes(targets[keep].copy())
    inputs = work.inputs(boards)
    best_nets, hist = fit_epochs(work.nets(), inputs, targets, games, cfg, work.equity,
                                 lambda errors: errors["net"])
    best = start.copy() if best_nets is None else VariantNet(start.variant, best_nets["net"], dict(start.meta))
    held = int((games % cfg.holdout == 0).sum())
    records: list[dict[str, Any]] = [{"epoch": 0, "holdout": hist[0][0]["net"], "loss": None,
                                      "train": len(boards) - held, "held": held}]
    records += [{"epoch": e, "holdout": errors["net"], "loss": cast(dict[str, float], losses)["net"]}
                for e, (errors, losses) in enumerate(hist) if e > 0]
    return best, records


__all__ = ["BaseFitConfig", "BaseTargetsConfig", "FitConfig", "TargetBuilder", "TargetFileBuilder", "TargetsConfig",
           "VariantFitConfig", "VariantTargetBuilder", "VariantTargetsConfig", "fit", "fit_epochs", "load_targets",
           "load_targets_and_groups", "load_variant_targets", "starting_nets", "variant_fit"]
