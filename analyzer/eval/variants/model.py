"""Variant nets (Dutch, Mahbusa): weights, the outcome model, and compiled 0/1/2-ply evaluation.

Outcome model. Each variant net ends in a softmax over the variant's exclusive outcomes for the
side on roll, so the probabilities always sum to 1:

======= ===================== ================================================
index   Dutch                 Mahbusa
======= ===================== ================================================
0       win 1                 win 1
1       win 2 (mars)          win 2 (mars, or the mother win)
2       lose 1                lose 1
3       lose 2                lose 2
4       --                    draw (both mothers pinned, 0 points)
======= ===================== ================================================

There is no backgammon in either game. Mapped to :class:`~analyzer.eval.probabilities.Probabilities`:
``win = p0 + p1``, ``win_gammon = p1``, ``lose_gammon = p3``, the backgammons 0 and ``draw = p4``,
so ``win + lose + draw = 1`` and ``equity = p0 + 2 p1 - p2 - 2 p3`` is the expected number of
points (a draw scores 0).

Pure races (:data:`~analyzer.eval.variants.features.CLASS_RACE`) are evaluated like standard
races -- the standard race net, or the one-sided / exact two-sided bear-off databases when every
checker is home -- and the standard backgammons are folded into the 2-point outcomes (with no
contact left, a Dutch mars or a Mahbusa mars is exactly a standard gammon or backgammon).
Finished games get their exact outcome, and :func:`constrain` removes the outcomes a position
rules out (no mars once the loser has borne off a checker, no draw once a mother is gone).

>>> vn = VariantNet.initial("mahbusa", hidden=8, seed=0)
>>> from analyzer.core.position import Position
>>> p = vn.net.forward(np.zeros((1, vn.net.n_inputs), np.float32))
>>> p.shape, bool(abs(p.sum() - 1.0) < 1e-5)
((1, 5), True)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from analyzer._resources import data_path
from analyzer.core.layout import MOVER_OFF, NSLOTS, OPP_OFF, PIN0, VAR_DUTCH, VAR_MAHBUSA
from analyzer.core.variants import all_specs, find_spec
from analyzer.eval import engine as E
from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.net import Net, NetSet, forward_one, save_npz_atomic
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.variants import features as V
from analyzer.eval.variants.features import DRAW, LOSE1, LOSE2, WIN1, WIN2
from analyzer.rules.kernel import flip_into, generate

NMAX = 5  # the largest outcome count (Mahbusa)
POINTS = np.array([1.0, 2.0, -1.0, -2.0, 0.0])

FloatArray = NDArray[np.float32]

jitcache.refresh_module(__file__, ("eval/variants/features.py",))


def variant_code(name: str) -> int:
    """The layout code of a variant name (``dutch``, ``mahbusa`` / ``plakoto``).

    >>> variant_code("plakoto") == VAR_MAHBUSA
    True
    """
    spec = find_spec(name)
    if spec is None or spec.has_cube:  # a game with the cube is valued by the standard evaluator
        with_nets = [s.name for s in all_specs() if not s.has_cube]
        raise ValueError(f"no variant net for {name!r} ({' or '.join(with_nets)})")
    return spec.code


def to_probabilities(p: NDArray[np.floating[Any]] | list[float]) -> Probabilities:
    """Map a variant outcome vector (4 or 5 entries, see the module docstring) to :class:`Probabilities`.

    >>> pr = to_probabilities([0.4, 0.1, 0.3, 0.1, 0.1])
    >>> round(pr.win + pr.lose + pr.draw, 9), round(pr.equity, 9)
    (1.0, 0.1)
    """
    v = [max(0.0, float(x)) for x in p]
    s = sum(v)
    v = [x / s for x in v]
    draw = v[4] if len(v) > 4 else 0.0
    return Probabilities(v[0] + v[1], v[1], 0.0, v[3], 0.0, draw)


@dataclass
class VariantNet:
    """One variant's contact net (``net.w2`` is hidden x outcomes) plus metadata."""

    variant: str
    net: Net
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> int:
        return variant_code(self.variant)

    @classmethod
    def initial(cls, variant: str, hidden: int = 128, seed: int = 0) -> VariantNet:
        """Small random weights (Glorot-style uniform), zero biases."""
        code = variant_code(variant)
        rng = np.random.default_rng(seed)
        n_in, k = V.n_inputs(code), V.n_outcomes(code)
        a1 = math.sqrt(6.0 / (n_in + hidden))
        a2 = math.sqrt(6.0 / (hidden + k))
        net = Net(rng.uniform(-a1, a1, size=(n_in, hidden)).astype(np.float32), np.zeros(hidden, np.float32),
                  rng.uniform(-a2, a2, size=(hidden, k)).astype(np.float32), np.zeros(k, np.float32))
        return cls(variant_code_name(code), net, {"feature_version": V.FEATURE_VERSION})

    @classmethod
    def from_standard(cls, variant: str, std: NetSet, seed: int = 0) -> VariantNet:
        """Dutch only: start from the standard contact net. Its inputs are the first
        ``F.N_CONTACT`` Dutch inputs (the first ``F.N_CONTACT`` of an extended standard net); the
        Dutch extras start with small random weights; the
        outputs keep win single, win gammon, lose single, lose gammon (the backgammon logits are
        dropped: Dutch has none)."""
        if variant_code(variant) != VAR_DUTCH:
            raise ValueError("only the Dutch net starts from the standard nets")
        vn = cls.initial(variant, hidden=std.contact.hidden, seed=seed)
        c = std.contact
        vn.net.w1[: F.N_CONTACT] = c.w1[: F.N_CONTACT]  # an extended standard net's extra inputs are not Dutch inputs
        vn.net.w1[F.N_CONTACT:] *= 0.1
        vn.net.b1[:] = c.b1
        vn.net.w2[:] = c.w2[:, [0, 1, 3, 4]]
        vn.net.b2[:] = c.b2[[0, 1, 3, 4]]
        vn.meta["init"] = "standard contact net"
        return vn

    def widened(self, hidden: int, seed: int = 0) -> VariantNet:
        """A copy with ``hidden`` hidden units that computes the same outputs: the new units get
        the random input weights of :meth:`initial` and zero output weights, so training can use them from
        the first step without the net forgetting what it knew.

        >>> vn = VariantNet.initial("dutch", hidden=8, seed=1)
        >>> wide = vn.widened(12)
        >>> x = np.random.default_rng(0).random((3, vn.net.n_inputs)).astype(np.float32)
        >>> wide.net.hidden, bool(np.allclose(wide.net.forward(x), vn.net.forward(x), atol=1e-6))
        (12, True)
        """
        n = self.net
        if hidden < n.hidden:
            raise ValueError(f"cannot narrow a net of {n.hidden} hidden units to {hidden}")
        extra = hidden - n.hidden
        fresh = VariantNet.initial(self.variant, hidden, seed=seed).net  # the new units' input weights
        w1 = np.concatenate([n.w1, fresh.w1[:, n.hidden:]], axis=1)
        b1 = np.concatenate([n.b1, np.zeros(extra, np.float32)])
        w2 = np.concatenate([n.w2, np.zeros((extra, n.w2.shape[1]), np.float32)], axis=0)
        meta = dict(self.meta)
        if extra:
            meta["widened_from"] = n.hidden
        return VariantNet(self.variant, Net(np.ascontiguousarray(w1), b1, np.ascontiguousarray(w2), n.b2.copy()), meta)

    def kernel_args(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """``w1``, ``b1``, ``w2`` transposed (outcomes x hidden), ``b2`` for the kernels."""
        n = self.net
        return (np.ascontiguousarray(n.w1), np.ascontiguousarray(n.b1), np.ascontiguousarray(n.w2.T),
                np.ascontiguousarray(n.b2))

    def copy(self) -> VariantNet:
        return VariantNet(self.variant, self.net.copy(), dict(self.meta))

    def save(self, path: Path | str, manifest: dict[str, Any] | None = None) -> None:
        """Write ``path`` (.npz, float32) and, with ``manifest``, ``path`` with ``.json``."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        save_npz_atomic(path, {"w1": self.net.w1, "b1": self.net.b1, "w2": self.net.w2, "b2": self.net.b2,
                               "variant": np.frombuffer(self.variant.encode(), np.uint8)})
        if manifest is not None:
            doc = dict(manifest)
            doc.update({"variant": self.variant, "feature_version": V.FEATURE_VERSION,
                        "standard_feature_version": F.FEATURE_VERSION,
                        "inputs": self.net.n_inputs, "hidden": self.net.hidden,
                        "outcomes": ["win1", "win2", "lose1", "lose2", "draw"][: self.net.w2.shape[1]],
                        "races": "standard race net and bear-off databases (data/nets/standard.npz)"})
            path.with_suffix(".json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")

    @classmethod
    def load(cls, path: Path | str) -> VariantNet:
        """Read a net written by :meth:`save`, or the net of a ``variant-td`` checkpoint."""
        path = Path(path)
        with np.load(path) as z:
            pre = "net_" if "net_w1" in z.files else ""
            net = Net(*(np.ascontiguousarray(z[pre + s], dtype=np.float32) for s in ("w1", "b1", "w2", "b2")))
            variant = bytes(z["variant"]).decode()
        meta: dict[str, Any] = {}
        mpath = path.with_suffix(".json")
        if not pre and mpath.exists():
            meta = json.loads(mpath.read_text())
        vn = cls(variant, net, meta)
        if net.n_inputs != V.n_inputs(vn.code) or net.w2.shape[1] != V.n_outcomes(vn.code):
            raise ValueError(f"{path}: net shape {net.w1.shape}x{net.w2.shape[1]} does not match the "
                             f"{variant} inputs ({V.n_inputs(vn.code)}) and outcomes")
        return vn


def variant_code_name(code: int) -> str:
    """The name of the cubeless variant of a layout code.

    >>> variant_code_name(VAR_MAHBUSA)
    'mahbusa'
    """
    return next(s.name for s in all_specs() if s.code == code and not s.has_cube)


# ---------------------------------------------------------------------------------------- kernels
@njit(cache=True)
def scratch(nh: int) -> tuple[np.ndarray, ...]:
    """The work buffers of the kernels below, zeroed: variant inputs ``x``, race inputs ``xr``, hidden
    units ``hid`` (``nh``: the largest hidden size in use), the standard race outcomes ``p6``, a board
    ``tmp`` and three outcome vectors ``pa``, ``pb``, ``bp``."""
    return (np.zeros(max(V.N_DUTCH, V.N_MAHBUSA), np.float32), np.zeros(F.N_RACE, np.float32),
            np.zeros(nh, np.float32), np.zeros(6, np.float32), np.zeros(NSLOTS, np.int8), np.zeros(NMAX, np.float32),
            np.zeros(NMAX, np.float32), np.zeros(NMAX, np.float32))


@njit(cache=True)
def race_eval(b: np.ndarray, S: tuple, use_db: bool, dist: np.ndarray, first: np.ndarray,  # type: ignore[type-arg]
              win2: np.ndarray, x: np.ndarray, xr: np.ndarray, hid: np.ndarray, p6: np.ndarray,
              out: np.ndarray) -> None:
    """A pure race by the standard 0-ply evaluation (:func:`analyzer.eval.engine.eval0`: the bear-off
    databases, else the race net), folded to the 5 variant outcomes. A variant race is a standard
    race too (no checker on a bar, in reserve or pinned, the sides past each other), so only the
    race path runs; ``x`` stands in for the contact inputs it never fills."""
    E.eval0(b, (S, use_db, dist, first, win2), (x, xr, hid), p6)
    out[0] = max(p6[0], 0.0)
    out[1] = max(p6[1] + p6[2], 0.0)
    out[2] = max(p6[3], 0.0)
    out[3] = max(p6[4] + p6[5], 0.0)
    out[4] = 0.0
    tot = out[0] + out[1] + out[2] + out[3]
    for i in range(4):
        out[i] /= tot


@njit(cache=True)
def constrain(b: np.ndarray, variant: int, out: np.ndarray) -> None:
    """Zero the outcomes the position rules out and renormalise: no 2-point win once the
    opponent has borne off a checker (no mars; in Mahbusa his mother is gone for good too), no
    2-point loss once the mover has, and no draw unless both Mahbusa mothers can still be pinned
    (each side still has a checker on its starting point). In Mahbusa (default rule: the mother
    check is a state check) a pinned mother settles the rest: with the mover's mother pinned he
    can neither bear off nor win, and the opponent can free it only by emptying his own start,
    which wins him 2 at once, so only "lose 2" and the draw remain; with the opponent's mother
    pinned and the game going on, only "win 2" and the draw remain."""
    if variant == VAR_MAHBUSA:
        if b[PIN0 + 24] == -1:
            out[LOSE2] += out[LOSE1] + out[WIN1] + out[WIN2]
            out[LOSE1] = 0.0
            out[WIN1] = 0.0
            out[WIN2] = 0.0
        elif b[PIN0 + 1] == 1:
            out[WIN2] += out[WIN1] + out[LOSE1] + out[LOSE2]
            out[WIN1] = 0.0
            out[LOSE1] = 0.0
            out[LOSE2] = 0.0
    if b[OPP_OFF] > 0:
        out[WIN1] += out[WIN2]
        out[WIN2] = 0.0
    if b[MOVER_OFF] > 0:
        out[LOSE1] += out[LOSE2]
        out[LOSE2] = 0.0
    draw_ok = variant == VAR_MAHBUSA and (b[24] > 0 or b[PIN0 + 24] == -1) and (b[1] < 0 or b[PIN0 + 1] == 1)
    if not draw_ok and out[DRAW] != 0.0:
        tot = 1.0 - out[DRAW]
        out[DRAW] = 0.0
        if tot > 0.0:
            for i in range(4):
                out[i] /= tot


@njit(cache=True)
def eval0(b: np.ndarray, variant: int, W: tuple, S: tuple, use_db: bool, dist: np.ndarray,  # type: ignore[type-arg]
          first: np.ndarray, win2: np.ndarray, x: np.ndarray, xr: np.ndarray, hid: np.ndarray, p6: np.ndarray,
          out: np.ndarray) -> int:
    """0-ply outcome vector (5 entries) of board ``b`` for its side on roll; returns its class."""
    o = V.outcome_of(b)
    if o >= 0:
        for i in range(NMAX):
            out[i] = 0.0
        out[o] = 1.0
        return V.CLASS_OVER
    c = V.classify(b, variant)
    if c == V.CLASS_RACE:
        race_eval(b, S, use_db, dist, first, win2, x, xr, hid, p6, out)
    else:
        V.encode(b, variant, x)
        forward_one(x, W[0], W[1], W[2], W[3], hid, out)
        for i in range(W[2].shape[0], NMAX):
            out[i] = 0.0
    constrain(b, variant, out)
    return c


@njit(cache=True)
def swap5(p: np.ndarray, out: np.ndarray) -> None:
    """The same outcome vector from the other side."""
    out[0] = p[2]
    out[1] = p[3]
    out[2] = p[0]
    out[3] = p[1]
    out[4] = p[4]


@njit(cache=True)
def equity5(p: np.ndarray) -> float:
    """Expected points of an outcome vector."""
    return float(p[0] + 2.0 * p[1] - p[2] - 2.0 * p[3])


@njit(cache=True)
def after_play(cand: np.ndarray, variant: int, W: tuple, S: tuple, use_db: bool,  # type: ignore[type-arg]
               dist: np.ndarray, first: np.ndarray, win2: np.ndarray, x: np.ndarray, xr: np.ndarray,
               hid: np.ndarray, p6: np.ndarray, tmp: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> float:
    """0-ply outcome vector (into ``pb``, the view of the side that moved) and equity of a play's
    result ``cand``; exact once the game is over."""
    o = V.outcome_of(cand)
    if o >= 0:
        for i in range(NMAX):
            pb[i] = 0.0
        pb[o] = 1.0
    else:
        flip_into(cand, tmp)
        eval0(tmp, variant, W, S, use_db, dist, first, win2, x, xr, hid, p6, pa)
        swap5(pa, pb)
    return equity5(pb)


# the probabilities of the 21 rolls d1 <= d2, in the order (1, 1), (1, 2) .. (1, 6), (2, 2) .. (6, 6)
ROLL_WEIGHTS = np.array([1.0 / 36.0 if d1 == d2 else 2.0 / 36.0 for d1 in range(1, 7) for d2 in range(d1, 7)])


@njit(cache=True)
def roll_mean(vals: np.ndarray, out: np.ndarray) -> None:
    """The mean of the 21 rolls' outcome vectors ``vals`` (in :data:`ROLL_WEIGHTS` order) into ``out``."""
    acc = np.zeros(NMAX, np.float64)
    for r in range(21):
        for i in range(NMAX):
            acc[i] += ROLL_WEIGHTS[r] * vals[r, i]
    for i in range(NMAX):
        out[i] = acc[i]


@njit(cache=True)
def choose(b: np.ndarray, d1: int, d2: int, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
           use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple, x: np.ndarray,  # type: ignore[type-arg]
           xr: np.ndarray, hid: np.ndarray, p6: np.ndarray, tmp: np.ndarray, pa: np.ndarray, pb: np.ndarray,
           noise: float, best_p: np.ndarray) -> int:
    """The pool row (in workspace ``ws``) of the play of roll (d1, d2) in ``b`` with the best 0-ply
    equity, plus ``noise`` times a standard normal when there is a choice (0: the 0-ply best play);
    ``best_p`` gets its outcome vector (view of the side that moved). -1 on buffer overflow."""
    n = generate(b, d1, d2, variant, opts, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7], ws[8],
                 ws[9], ws[10], ws[11])
    if n < 0:
        return -1
    pool = ws[0]
    results = ws[11]
    best = -1e30
    best_row = results[0]
    for k in range(n):
        row = results[k]
        e = after_play(pool[row], variant, W, S, use_db, dist, first, win2, x, xr, hid, p6, tmp, pa, pb)
        if noise > 0.0 and n > 1:
            e += noise * np.random.standard_normal()
        if e > best:
            best = e
            best_row = row
            for i in range(NMAX):
                best_p[i] = pb[i]
    return int(best_row)


@njit(cache=True)
def best_plays(b: np.ndarray, variant: int, opts: int, W: tuple, S: tuple, use_db: bool,  # type: ignore[type-arg]
               dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple, x: np.ndarray,  # type: ignore[type-arg]
               xr: np.ndarray, hid: np.ndarray, p6: np.ndarray, tmp: np.ndarray, pa: np.ndarray, pb: np.ndarray,
               bp: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The 0-ply best play of each of the 21 rolls of ``b`` (in :data:`ROLL_WEIGHTS` order): (0, or -1
    on buffer overflow; ``after``, its results; ``vals``, their outcome vectors from the view of the
    side that moved), ``after[r]`` and ``vals[r]`` for roll r."""
    after = np.zeros((21, NSLOTS), np.int8)
    vals = np.zeros((21, NMAX), np.float32)
    r = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            row = choose(b, d1, d2, variant, opts, W, S, use_db, dist, first, win2, ws, x, xr, hid, p6, tmp, pa,
                         pb, 0.0, bp)
            if row < 0:
                return -1, after, vals
            after[r] = ws[0][row]
            vals[r] = bp
            r += 1
    return 0, after, vals


@njit(cache=True)
def _ply1(b: np.ndarray, variant: int, opts: int, W: tuple, S: tuple, use_db: bool,  # type: ignore[type-arg]
          dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws: tuple, x: np.ndarray,  # type: ignore[type-arg]
          xr: np.ndarray, hid: np.ndarray, p6: np.ndarray, tmp: np.ndarray, pa: np.ndarray, pb: np.ndarray,
          bp: np.ndarray, out: np.ndarray) -> int:
    """1-ply outcome vector of ``b``: the mean over the 21 rolls of the 0-ply best play's value."""
    if V.outcome_of(b) >= 0:
        eval0(b, variant, W, S, use_db, dist, first, win2, x, xr, hid, p6, out)
        return 0
    ok, _, vals = best_plays(b, variant, opts, W, S, use_db, dist, first, win2, ws, x, xr, hid, p6, tmp, pa, pb, bp)
    if ok < 0:
        return -1
    roll_mean(vals, out)  # vals are seen by the side that moved: b's mover
    return 0


@njit(cache=True)
def eval_ply(b: np.ndarray, ply: int, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
             use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws1: tuple, ws2: tuple,  # type: ignore[type-arg]
             out: np.ndarray) -> int:
    """Outcome vector of ``b`` (its side on roll) at 0, 1 or 2 ply; returns 0, or -1 on overflow.

    n-ply: the mean over the 21 rolls of the side on roll, each played as 0-ply prefers, of the
    (n-1)-ply value of the position reached.
    """
    x, xr, hid, p6, tmp, pa, pb, bp = scratch(max(W[0].shape[1], S[8].shape[1]))
    if ply <= 0 or V.outcome_of(b) >= 0:
        eval0(b, variant, W, S, use_db, dist, first, win2, x, xr, hid, p6, out)
        return 0
    if ply == 1:
        return _ply1(b, variant, opts, W, S, use_db, dist, first, win2, ws1, x, xr, hid, p6, tmp, pa, pb, bp, out)
    ok, after, vals = best_plays(b, variant, opts, W, S, use_db, dist, first, win2, ws2, x, xr, hid, p6, tmp, pa, pb,
                                 bp)
    if ok < 0:
        return -1
    inner = np.zeros(NMAX, np.float32)
    nxt = np.zeros(NSLOTS, np.int8)
    for r in range(21):
        if V.outcome_of(after[r]) < 0:  # the 1-ply value of the game going on
            flip_into(after[r], nxt)
            if _ply1(nxt, variant, opts, W, S, use_db, dist, first, win2, ws1, x, xr, hid, p6, tmp, pa, pb, bp,
                     inner) < 0:
                return -1
            swap5(inner, vals[r])  # nxt's mover is b's opponent
    roll_mean(vals, out)
    return 0


@njit(cache=True)
def eval_many(boards: np.ndarray, ply: int, variant: int, opts: int, W: tuple, S: tuple,  # type: ignore[type-arg]
              use_db: bool, dist: np.ndarray, first: np.ndarray, win2: np.ndarray, ws1: tuple, ws2: tuple,  # type: ignore[type-arg]
              out: np.ndarray) -> int:
    """:func:`eval_ply` of many boards into ``out`` (n x 5); -1 on buffer overflow."""
    for i in range(boards.shape[0]):
        if eval_ply(boards[i], ply, variant, opts, W, S, use_db, dist, first, win2, ws1, ws2, out[i]) < 0:
            return -1
    return 0


# ---------------------------------------------------------------------------------------- context
STANDARD_NETS = data_path("nets", "standard.npz")


@dataclass
class RaceContext:
    """What the race path of the kernels needs: the standard nets' weights (:meth:`NetSet.kernel_args`,
    only the race net is read) and the bear-off database arrays."""

    S: tuple[FloatArray, ...]
    use_db: bool
    dist: FloatArray
    first: FloatArray
    win2: FloatArray

    def args(self) -> tuple[Any, ...]:
        return (self.S, self.use_db, self.dist, self.first, self.win2)

    @classmethod
    def load(cls, nets_path: Path | str | None = None, use_bearoff: bool = True) -> RaceContext:
        """The shipped standard race net (or ``nets_path``) and, with ``use_bearoff``, the databases."""
        std = NetSet.load(nets_path or STANDARD_NETS)
        z = np.zeros((1, 1), np.float32)
        if not use_bearoff:
            return cls(std.kernel_args(), False, z, z, z)
        from analyzer.eval.bearoff import BearoffDB

        one = BearoffDB.one_sided()
        two = BearoffDB.two_sided()
        return cls(std.kernel_args(), True, one.dist, one.first, two.win)


_CONTEXT: dict[bool, RaceContext] = {}


def race_context(use_bearoff: bool = True) -> RaceContext:
    """A shared :class:`RaceContext` of the shipped standard nets (loaded once)."""
    if use_bearoff not in _CONTEXT:
        _CONTEXT[use_bearoff] = RaceContext.load(use_bearoff=use_bearoff)
    return _CONTEXT[use_bearoff]
