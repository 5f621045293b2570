"""Race net training on targets from our own bear-off databases and our own lookahead.

The race net evaluates every race (no contact left) that the bear-off databases do not cover,
and it is the whole race evaluation of the raw 0-ply player. Here it is trained on:

* home-board races with at most 6 checkers a side: the exact two-sided database (win or lose
  single; a tenth of the pairs, :func:`is_holdout`, is kept out for the benchmark);
* other home-board races: the one-sided database convolution (gammons included);
* races with checkers outside the home boards (seeded random races and races from seeded
  self-play games): the engine's n-ply expectation, with the databases wherever a line reaches
  them and the current race net elsewhere, recomputed after every iteration (value iteration
  that spreads the databases' values backwards).

Every target comes from our own code; nothing from another program. A run is seeded; its
checkpoint (the net set with the current race net plus a JSON state) is written after every
iteration and a run resumes from it.

>>> from analyzer.eval.bearoff import mover_index, opponent_index
>>> b = db_boards(np.array([5, 900]), np.array([17, 1]))
>>> [(int(mover_index(x)), int(opponent_index(x))) for x in b]
[(5, 17), (900, 1)]
>>> r = random_races(50, np.random.default_rng(0))
>>> bool(all(F.classify(x) == F.CLASS_RACE for x in r))
True
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from analyzer.core.layout import NSLOTS
from analyzer.eval import _bearoff_gen as G
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.bearoff import bearoff_class
from analyzer.eval.net import NOUT, Net, NetSet, evaluate_boards
from analyzer.eval.selfplay import GameBuffers, play_seeded
from bglab.base import train_epochs
from bglab.learner import EQUITY_WEIGHTS
from bglab.optim import Adam

log = logging.getLogger(__name__)

N_SMALL_SIDES = G.N_TWO_SIDED
HOLDOUT_MOD = 10


def is_holdout(x: NDArray[np.int64], y: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Pairs of two-sided database sides kept out of training (one in ``HOLDOUT_MOD``).

    >>> is_holdout(np.array([0, 1]), np.array([0, 0])).tolist()
    [True, False]
    """
    out: NDArray[np.bool_] = (x * N_SMALL_SIDES + y) % HOLDOUT_MOD == 0
    return out


jitcache.refresh_module(__file__, ("eval/selfplay.py",))


@njit(cache=True)
def _fill_db_boards(sides: np.ndarray, xs: np.ndarray, ys: np.ndarray, out: np.ndarray) -> None:
    for i in range(xs.shape[0]):
        nx = 0
        ny = 0
        for k in range(6):
            a = sides[xs[i], k]
            c = sides[ys[i], k]
            out[i, 1 + k] = a
            out[i, 24 - k] = -c
            nx += a
            ny += c
        out[i, 26] = 15 - nx
        out[i, 27] = 15 - ny


def db_boards(xs: NDArray[np.int64], ys: NDArray[np.int64]) -> NDArray[np.int8]:
    """Boards of the two-sided database pairs (mover side ``xs[i]``, opponent side ``ys[i]``;
    indices of :func:`analyzer.eval.bearoff.side_index`), mover on roll."""
    sides = G.all_sides(15)
    out = np.zeros((len(xs), NSLOTS), np.int8)
    _fill_db_boards(sides, np.asarray(xs, np.int64), np.asarray(ys, np.int64), out)
    return out


def all_db_pairs() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every pair of non-empty sides of the two-sided database (851,929 pairs)."""
    idx = np.arange(1, N_SMALL_SIDES, dtype=np.int64)
    xs = np.repeat(idx, len(idx))
    ys = np.tile(idx, len(idx))
    return xs, ys


def home_boards(n: int, rng: np.random.Generator) -> NDArray[np.int8]:
    """``n`` seeded home-board races (any number of checkers; both sides have some left)."""
    total = G.N_ONE_SIDED
    xs = rng.integers(1, total, size=n).astype(np.int64)
    ys = rng.integers(1, total, size=n).astype(np.int64)
    return db_boards(xs, ys)


@njit(cache=True)
def _place(rng_u: np.ndarray, top: int, count: int, shape: float, out: np.ndarray) -> None:
    """``count`` checkers on points 1..``top`` of ``out`` (1-based), one on ``top`` for sure,
    the rest at ``1 + floor(top * u ** shape)``."""
    for p in range(26):
        out[p] = 0
    if count <= 0:
        return
    out[top] = 1
    for i in range(count - 1):
        p = 1 + int(top * rng_u[i] ** shape)
        if p > top:
            p = top
        out[p] += 1


def random_races(n: int, rng: np.random.Generator) -> NDArray[np.int8]:
    """``n`` seeded race positions of every kind (some checkers outside the home boards in most),
    mover on roll: back checkers, checkers off and spreads drawn at random, no contact."""
    out = np.zeros((n, NSLOTS), np.int8)
    me = np.zeros(26, np.int64)
    them = np.zeros(26, np.int64)
    for i in range(n):
        a = int(rng.integers(1, 24))  # one side's back checker
        b = int(rng.integers(1, 25 - a))  # the other's, in its own numbering: a + b <= 24
        if rng.random() < 0.5:
            a, b = b, a
        offa = min(14, int(15 * rng.random() ** 2))
        offb = min(14, int(15 * rng.random() ** 2))
        _place(rng.random(15), a, 15 - offa, float(rng.uniform(0.4, 2.5)), me)
        _place(rng.random(15), b, 15 - offb, float(rng.uniform(0.4, 2.5)), them)
        for p in range(1, 25):
            if me[p]:
                out[i, p] = me[p]
            if them[p]:
                out[i, 25 - p] = -them[p]
        out[i, 26] = offa
        out[i, 27] = offb
    return out


def selfplay_races(nets: NetSet, games: int, seed: int) -> NDArray[np.int8]:
    """The race positions (before a roll) of ``games`` seeded self-play games of ``nets``."""
    buf = GameBuffers()
    out: list[NDArray[np.int8]] = []
    for g in range(games):
        t, outcome = play_seeded(nets, 70_000_000 + seed * 1_000_000 + g, 0.03, buf)
        if outcome < 0:
            continue
        st = buf.states[:t]
        keep = np.array([F.classify(s) == F.CLASS_RACE for s in st], dtype=bool)
        if keep.any():
            out.append(st[keep].copy())
    return np.concatenate(out) if out else np.zeros((0, NSLOTS), np.int8)


@njit(cache=True)
def _classes(boards: np.ndarray, out: np.ndarray) -> None:
    for i in range(boards.shape[0]):
        out[i] = bearoff_class(boards[i])


def bearoff_classes(boards: NDArray[np.int8]) -> NDArray[np.int64]:
    """:func:`analyzer.eval.bearoff.bearoff_class` of every board."""
    out = np.zeros(len(boards), np.int64)
    _classes(np.ascontiguousarray(boards), out)
    return out


@njit(cache=True)
def _encode_many(boards: np.ndarray, out: np.ndarray) -> None:
    for i in range(boards.shape[0]):
        F.encode_race(boards[i], out[i])


def race_inputs(boards: NDArray[np.int8]) -> NDArray[np.float32]:
    """Race-net inputs of ``boards`` (all race positions)."""
    out = np.zeros((len(boards), F.N_RACE), np.float32)
    _encode_many(np.ascontiguousarray(boards), out)
    return out


def widen(net: Net, hidden: int, rng: np.random.Generator) -> Net:
    """``net`` with ``hidden`` hidden units: the new units get small input weights and zero output
    weights, so the function is unchanged.

    >>> n = Net.initial(5, 3, np.random.default_rng(0))
    >>> w = widen(n, 6, np.random.default_rng(1))
    >>> x = np.ones((2, 5), np.float32)
    >>> bool(np.allclose(n.forward(x), w.forward(x), atol=1e-6)), w.hidden
    (True, 6)
    """
    if hidden <= net.hidden:
        return net.copy()
    extra = hidden - net.hidden
    a = math.sqrt(6.0 / (net.n_inputs + hidden))
    w1 = np.concatenate([net.w1, rng.uniform(-a, a, size=(net.n_inputs, extra)).astype(np.float32)], axis=1)
    b1 = np.concatenate([net.b1, np.zeros(extra, np.float32)])
    w2 = np.concatenate([net.w2, np.zeros((extra, NOUT), np.float32)], axis=0)
    return Net(np.ascontiguousarray(w1), b1, np.ascontiguousarray(w2), net.b2.copy())


@dataclass
class RaceConfig:
    """Settings of a race-net run (stored in its checkpoint)."""

    seed: int = 21
    hidden: int = 128
    db_positions: int = 300_000
    home_positions: int = 150_000
    random_positions: int = 200_000
    selfplay_games: int = 10_000
    target_ply: int = 1
    epochs: int = 6
    batch: int = 256
    lr: float = 1e-3
    lr_decay: float = 0.7
    rollout_targets: str = ""
    rollout_repeat: int = 1


def load_rollout_targets(path: str, repeat: int) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
    """Race positions with fixed targets (our played-out rollouts, as ``bench/race_rollouts.py --save``
    writes them: ``boards`` and ``rollout``, the six exclusive outcomes), each ``repeat`` times; only
    the positions the race net evaluates (bear-off class 0) are kept. ``path`` empty: none.

    >>> b, t = load_rollout_targets("", 3)
    >>> b.shape, t.shape
    ((0, 64), (0, 6))
    """
    if not path:
        return np.zeros((0, NSLOTS), np.int8), np.zeros((0, NOUT), np.float32)
    with np.load(path) as z:
        boards = np.asarray(z["boards"], np.int8)
        targets = np.asarray(z["rollout"], np.float32)
    keep = bearoff_classes(boards) == 0
    boards, targets = boards[keep], targets[keep]
    reps = max(1, repeat)
    return np.repeat(boards, reps, axis=0), np.repeat(targets, reps, axis=0)


def build_positions(nets: NetSet, cfg: RaceConfig) -> NDArray[np.int8]:
    """The run's training positions (deterministic given ``cfg``): database pairs outside the
    hold-out, home-board races, random races and self-play races (class-0 ones deduplicated)."""
    rng = np.random.default_rng(cfg.seed)
    xs, ys = all_db_pairs()
    train = ~is_holdout(xs, ys)
    pick = rng.choice(np.flatnonzero(train), size=min(cfg.db_positions, int(train.sum())), replace=False)
    parts = [db_boards(xs[pick], ys[pick]), home_boards(cfg.home_positions, rng),
             random_races(cfg.random_positions, rng), selfplay_races(nets, cfg.selfplay_games, cfg.seed)]
    boards = np.concatenate(parts)
    boards = np.unique(boards, axis=0)
    # database pairs that the hold-out keeps out must not come back through another source
    cls = bearoff_classes(boards)
    small = np.flatnonzero(cls == 2)
    if len(small):
        from analyzer.eval.bearoff import mover_index, opponent_index

        mx = np.array([mover_index(b) for b in boards[small]], np.int64)
        oy = np.array([opponent_index(b) for b in boards[small]], np.int64)
        drop = small[is_holdout(mx, oy)]
        boards = np.delete(boards, drop, axis=0)
    return boards[rng.permutation(len(boards))]


def compute_targets(nets: NetSet, boards: NDArray[np.int8], ply: int) -> NDArray[np.float32]:
    """Targets of ``boards``: the databases for home-board races (0-ply of the engine), the
    engine's ``ply`` expectation (databases at the leaves they reach) for the other races."""
    from analyzer.eval.engine import Engine

    eng = Engine(nets, cache_size=0, prune=False)
    cls = bearoff_classes(boards)
    out = np.zeros((len(boards), NOUT), np.float32)
    home = cls > 0
    if home.any():
        out[home] = eng.evaluate_boards(boards[home], 0)
    if (~home).any():
        out[~home] = eng.evaluate_boards(boards[~home], ply)
    return out


def train_net(net: Net, x: NDArray[np.float32], t: NDArray[np.float32], epochs: int, batch: int, lr: float,
              lr_decay: float, rng: np.random.Generator) -> list[float]:
    """Adam cross-entropy epochs on (``x``, ``t``), learning rate times ``lr_decay`` per epoch;
    returns the mean loss of each epoch."""
    opt = Adam(net, lr=lr)
    losses: list[float] = []
    for e in range(epochs):
        opt.lr = lr * lr_decay ** e
        losses.append(train_epochs(opt, x, t, batch, rng, sort=True))
    return losses


def equity_errors(nets: NetSet, boards: NDArray[np.int8], targets: NDArray[np.float32]) -> tuple[float, float]:
    """Mean and max |equity error| of the raw nets on ``boards`` against ``targets``."""
    if len(boards) == 0:
        return 0.0, 0.0
    d = np.abs((evaluate_boards(nets, boards) - targets) @ EQUITY_WEIGHTS)
    return float(d.mean()), float(d.max())


class RaceRun:
    """A resumable race-net run: the net set (with the race net being trained) and its state."""

    def __init__(self, path: Path, cfg: RaceConfig, nets: NetSet, iterations: int = 0,
                 history: list[dict[str, Any]] | None = None, source: str = "") -> None:
        self.path = Path(path)
        self.cfg = cfg
        self.nets = nets
        self.iterations = iterations
        self.history = history or []
        self.source = source

    @classmethod
    def create(cls, path: Path | str, cfg: RaceConfig, nets: NetSet, source: str = "") -> RaceRun:
        nets = nets.copy()
        nets.race = widen(nets.race, cfg.hidden, np.random.default_rng(cfg.seed))
        return cls(Path(path), cfg, nets, source=source)

    @classmethod
    def load(cls, path: Path | str) -> RaceRun:
        path = Path(path)
        doc = json.loads(path.with_suffix(".state.json").read_text())
        return cls(path, RaceConfig(**doc["config"]), NetSet.load(path), int(doc["iterations"]),
                   list(doc["history"]), str(doc.get("source", "")))

    def save(self) -> None:
        meta = dict(self.nets.meta)
        meta["race_training"] = {"iterations": self.iterations, "config": asdict(self.cfg), "source": self.source,
                                 "history": self.history}
        self.nets.save(self.path, meta)
        doc = {"config": asdict(self.cfg), "iterations": self.iterations, "history": self.history,
               "source": self.source}
        tmp = self.path.with_suffix(".state.json.tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(self.path.with_suffix(".state.json"))

    def run(self, iterations: int, holdout: int = 20_000) -> None:
        """Iterate until ``iterations`` are done: targets with the current nets, then training."""
        cfg = self.cfg
        t0 = time.time()
        # self-play positions come from the starting nets, so that a resumed run sees the same set
        play_nets = self.nets
        if self.source and Path(self.source).exists():
            from bglab.checkpoint import load_nets

            play_nets = load_nets(self.source)
        boards = build_positions(play_nets, cfg)
        # fixed targets (our rollouts) after the recipe's positions, whose targets are recomputed
        fixed_b, fixed_t = load_rollout_targets(cfg.rollout_targets, cfg.rollout_repeat)
        n_base = len(boards)
        boards = np.concatenate([boards, fixed_b])
        cls = bearoff_classes(boards)
        x = race_inputs(boards)
        log.info("positions %d (db %d, home %d, outside %d, rollout targets %d) in %.0f s", len(boards),
                 int((cls == 2).sum()), int((cls == 1).sum()), int((cls == 0).sum()), len(fixed_b), time.time() - t0)
        hx, hy = all_db_pairs()
        hsel = np.flatnonzero(is_holdout(hx, hy))
        hsel = np.random.default_rng(cfg.seed + 1).choice(hsel, size=min(holdout, len(hsel)), replace=False)
        hb = db_boards(hx[hsel], hy[hsel])
        ht = compute_targets(self.nets, hb, 0)
        while self.iterations < iterations:
            t1 = time.time()
            t = np.concatenate([compute_targets(self.nets, boards[:n_base], cfg.target_ply), fixed_t])
            t2 = time.time()
            rng = np.random.default_rng([cfg.seed, self.iterations])
            losses = train_net(self.nets.race, x, t, cfg.epochs, cfg.batch, cfg.lr, cfg.lr_decay, rng)
            self.iterations += 1
            mean, mx = equity_errors(self.nets, hb, ht)
            fit, _ = equity_errors(self.nets, boards[cls == 0][:20_000], t[cls == 0][:20_000])
            rec = {"iteration": self.iterations, "losses": [round(v, 5) for v in losses],
                   "holdout_db_mean_abs_equity": round(mean, 5), "holdout_db_max_abs_equity": round(mx, 5),
                   "outside_fit_mean_abs_equity": round(fit, 5),
                   "targets_s": round(t2 - t1, 1), "train_s": round(time.time() - t2, 1)}
            self.history.append(rec)
            self.save()
            log.info("iteration %s", rec)


def merge_race(race_from: Path | str, nets_from: Path | str, out: Path | str,
               extra: dict[str, Any] | None = None) -> NetSet:
    """Write ``out``: the contact, crashed and pruning nets of ``nets_from`` (net set or training
    checkpoint) with the race net of ``race_from``; the manifest keeps ``nets_from``'s record,
    adds the race run's and ``extra``.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> NetSet.initial(hidden=4, race_hidden=4, seed=1).save(d / "a.npz", {"version": "a"})
    >>> NetSet.initial(hidden=4, race_hidden=6, seed=2).save(d / "b.npz", {"version": "b"})
    >>> m = merge_race(d / "b.npz", d / "a.npz", d / "c.npz", {"version": "c"})
    >>> NetSet.load(d / "c.npz").race.hidden, NetSet.load(d / "c.npz").meta["version"]
    (6, 'c')
    """
    from bglab.checkpoint import load_nets_and_info

    base, info = load_nets_and_info(nets_from)
    race = NetSet.load(race_from)
    merged = NetSet(base.contact, base.crashed, race.race, {}, base.prune)
    manifest: dict[str, Any] = dict(base.meta) if info.get("kind") == "nets" else {"training_run": info}
    if "race_training" in race.meta:
        manifest["race_training"] = race.meta["race_training"]
    manifest["race_net_from"] = str(race_from)
    manifest.update(extra or {})
    merged.save(out, manifest)
    merged.meta = manifest
    return merged


def main(argv: list[str] | None = None) -> int:
    """``python -m bglab.race --init NETS --out PATH --iterations N`` (resumes from PATH);
    ``--merge-into NETS --out NEW`` writes NETS with PATH's race net (``--from PATH``)."""
    ap = argparse.ArgumentParser(prog="python -m bglab.race", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--init", default="data/nets/standard.npz", help="net set whose race net is retrained")
    ap.add_argument("--out", required=True, help="checkpoint: a net set (.npz) plus .state.json")
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--log", help="log file (default: stderr)")
    ap.add_argument("--merge-into", help="net set or checkpoint that receives the race net of --from")
    ap.add_argument("--from", dest="race_from", help="race checkpoint for --merge-into")
    ap.add_argument("--version", help="manifest version for --merge-into")
    for name, val in asdict(RaceConfig()).items():
        ap.add_argument("--" + name.replace("_", "-"), type=type(val), default=None)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, filename=args.log,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    out = Path(args.out)
    if args.merge_into:
        merge_race(args.race_from, args.merge_into, out, {"version": args.version} if args.version else None)
        return 0
    if out.with_suffix(".state.json").exists():
        run = RaceRun.load(out)
        log.info("resumed %s at iteration %d", out, run.iterations)
    else:
        cfg = RaceConfig()
        for name in asdict(cfg):
            val = getattr(args, name)
            if val is not None:
                setattr(cfg, name, val)
        from bglab.checkpoint import load_nets

        run = RaceRun.create(out, cfg, load_nets(args.init), source=args.init)
        log.info("new race run %s from %s (%s)", out, args.init, cfg)
    run.run(args.iterations)
    return 0


if __name__ == "__main__":
    sys.exit(main())
